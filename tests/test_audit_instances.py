"""The audit reads the rows it looks into (a signature, an undo, a seal, a two-party commitment) as their event
instances, built in one place (cg/app/audit.py `_event`, issue 33 item 4): a row edited so that its class cannot
hold it (a field its schema requires left out, the hash chain recomputed as a forger would) is a finding that
names the row (exit 1), never a crash (exit 5). So is a row that rolls (read as its event for the counts by source
and side and the re-roll notes). A two-party commitment in `plcg receive`'s history (`audit_tail`) and a signature
in `audit --against` that their class cannot hold count for nothing."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import attrs
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cg.app.audit import _Held, _rolling, _rolls, _rolls_of
from conftest import cli_run
from events.convert import unstructure
from events.roll import Roll
from events.stored import build
from events.types import REGISTRY
from helpers.sandbox import rechain
from test_events import builds

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


@pytest.mark.parametrize("edit", ["UPDATE events SET payload = '[\"edited\"]' WHERE seq = ?",
                                  "UPDATE events SET payload = json_remove(payload, '$.side') WHERE seq = ?"],
                         ids=["not-an-object", "no-side"])
def test_audit_against_a_copy_holding_an_edited_signature_counts_only_the_real_ones(tmp_path, edit):
    """`audit --against`: the other copy holds rows this one was cut before, signed by both sides, and after
    them a head_signed row edited so that its class cannot hold it. That row signs nothing: the two real
    signatures still show this copy was cut after they were acknowledged (exit 1), where the payload read by
    key crashed (a JSON list: exit 5) or took the sideless row for a third signer and said only that the rows
    were not yet received (exit 0)."""
    mine, other = tmp_path / "mine.plcg", tmp_path / "other.plcg"
    shutil.copy(FIXTURES / "pbem-records/axis.plcg", mine)
    shutil.copy(FIXTURES / "pbem-records/axis.plcg", other)
    with sqlite3.connect(mine) as c:
        signed = [s for (s,) in c.execute("SELECT seq FROM events WHERE type = 'head_signed' ORDER BY seq")]
        last = c.execute("SELECT max(seq) FROM events").fetchone()[0]
    assert signed[-1] == last and len(signed) >= 4  # the fixture ends with a signature, by one side after the other
    cut = signed[-4]  # this copy ends at a signature; the other holds the last three after it
    with sqlite3.connect(mine) as c:
        c.execute("DELETE FROM events WHERE seq > ?", (cut,))
        c.execute("DELETE FROM snapshot")
    with sqlite3.connect(other) as c:
        c.execute(edit, (last,))
    r = cli_run(mine, "audit", "--against", other)
    assert r.code == 1, (r.code, r.out, r.err)
    assert f"{mine} ends at row {cut}, but {other} holds rows {cut + 1}-{last}, signed by both sides" \
           f" (seq {signed[-3]}, {signed[-2]})" in r.out, r.out


def test_receives_history_reads_two_party_commitments_as_events():
    """`plcg receive`'s history (audit_tail's `_Held`): what the other side may not take back, the commitments
    with a chain place (R83), read from their events; a commitment its class cannot hold (its side left out)
    commits nothing, as the audit's own pass reports such a row."""
    def committed(side, chain):  # side ...: left out
        p = {"side": side, "command": {"name": "roll"}, "commit": "c" * 64, "nonce": "n", "chain": chain}
        return {k: v for k, v in p.items() if v is not ...}

    history = _Held([(1, 1, "campaign_started", {}), (2, 2, "dice_committed", committed("axis", 3)),
                     (3, 3, "dice_committed", committed("allied", None)),
                     (4, 4, "dice_committed", committed("allied", 5)),
                     (5, 5, "dice_committed", committed(..., 6))])
    assert history.chained_after(0) == [(2, "axis"), (4, "allied")]
    assert history.chained_after(2) == [(4, "allied")]


@pytest.mark.parametrize("name", sorted(REGISTRY))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_rolls_read_from_an_event_are_the_rolls_its_stored_payload_holds(name, data):
    """The roll counts and re-roll notes read an event's rolls by its class's field declarations (`Roll`,
    `Roll | None`, `tuple[Roll, ...]`): the very rolls, in order, that _compare's walk of the stored JSON finds
    in those fields; a class that declares none holds none."""
    event = data.draw(builds(REGISTRY[name]))
    stored = orjson.loads(orjson.dumps(unstructure(event)))
    how = _rolling(name)
    fields = {n for n, _many in how.rolls} if how is not None else set()
    walked = [v for k, v in _rolls(stored).items() if k.split("[")[0] in fields]
    got = [orjson.loads(orjson.dumps(unstructure(r))) for r in _rolls_of(build(REGISTRY[name], stored))] \
        if how is not None else []
    assert got == walked
    if how is None:
        assert not any(isinstance(getattr(event, f.name), Roll) for f in attrs.fields(REGISTRY[name]))
