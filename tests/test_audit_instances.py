"""The audit reads the rows it looks into (a signature, an undo, a seal, a two-party commitment) as their event
instances, built in one place (cg/app/audit.py `_event`, issue 33 item 4): a row edited so that its class cannot
hold it (a field its schema requires left out, the hash chain recomputed as a forger would) is a finding that
names the row (exit 1), never a crash (exit 5). So does a roll (its counts by source and side, its re-roll notes) and
a two-party commitment in `plcg receive`'s history (`audit_tail`), a signature in `audit --against`."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from conftest import cli_run
from helpers.sandbox import rechain

FIXTURES = Path(__file__).parent / "fixtures"
EDITS = [  # (the campaign file, the event type, a field its schema requires)
    ("pbem-records/axis.plcg", "head_signed", "side"),
    ("pbem-records/axis.plcg", "head_signed", "hash"),
    ("pbem-records/axis.plcg", "sealed", "commitment"),
    ("pbem-records/axis.plcg", "dice_committed", "side"),
    ("campaign-v0.1.plcg", "reverted", "reason"),
    ("campaign-v0.1.plcg", "reverted", "seqs"),
    # a roll: counted by source and side, and looked for again after an undo, from its instance
    ("campaign-v0.1.plcg", "leader_rolled", "side"),
    ("campaign-v0.1.plcg", "elr_rolled", "side"),
    ("campaign-r1.plcg", "cp_replenished", "side"),
]


@pytest.mark.parametrize("fixture, etype, field", EDITS, ids=[f"{t}-{f}" for _, t, f in EDITS])
def test_a_row_its_class_cannot_hold_is_a_finding_naming_it(tmp_path, fixture, etype, field):
    db = tmp_path / "edited.plcg"
    shutil.copy(FIXTURES / fixture, db)
    with sqlite3.connect(db) as c:
        seq = c.execute("SELECT min(seq) FROM events WHERE type = ?", (etype,)).fetchone()[0]
    assert seq is not None
    clean = cli_run(db, "audit")
    assert clean.code == 0, clean.out
    rechain(str(db), (f"UPDATE events SET payload = json_remove(payload, '$.{field}') WHERE seq = ?", (seq,)))
    r = cli_run(db, "audit")
    assert r.code == 1, (r.code, r.out, r.err)
    named = [line for line in r.out.splitlines() if line.startswith("FINDING") and str(seq) in line]
    assert named, r.out
    # said once, by the one place that builds the audit's events (not a stray AttributeError of a later read)
    assert any(f"row {seq} ({etype}) is not an event of its type: it lacks {field}" in line for line in named), named
    assert "Traceback" not in r.err
