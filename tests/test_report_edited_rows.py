"""The After Action Report takes event instances (issue 33 item 4): a row edited against its schema, the chain
recomputed, is bad input for the report (exit 2, nothing written), never an internal error (exit 5).

Each edit drops a field the schema requires from the last row of its type in the demo: one the report reads
itself (a result's winner, a TVP award's totals, the CG's end, a RePh command's rule, the step a row left), or
one the fold reads first (a setup's HIP, a leader's purchase). `plcg log`, which words each row from its
instance, refuses the same rows.
"""
from __future__ import annotations

import shutil

import pytest

from conftest import cli_run
from helpers.sandbox import rechain

EDITS = [("firefight_ended", "winner"), ("tvp_awarded", "total"), ("cg_ended", "reason"), ("terrain_changed", "rule"),
         ("step_left", "step"), ("unit_set_up", "hip"), ("leader_rolled", "purchase")]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    from cg.app.demo import play

    path = tmp_path_factory.mktemp("edited") / "demo.plcg"
    play(str(path), echo=lambda _line: None)
    return path


@pytest.mark.parametrize("etype, key", EDITS, ids=[f"{t}-{k}" for t, k in EDITS])
def test_a_row_without_a_field_its_schema_requires_is_bad_input_for_the_report(played, tmp_path, etype, key):
    db = tmp_path / "edited.plcg"
    shutil.copy(played, db)
    rechain(str(db), f"UPDATE events SET payload = json_remove(payload, '$.{key}')"
                     f" WHERE seq = (SELECT max(seq) FROM events WHERE type = '{etype}')")
    for fmt in ("html", "md", "bbcode"):
        out = tmp_path / f"aar.{fmt}"
        r = cli_run(db, "export", "--format", fmt, "-o", out)
        assert r.code == 2, (fmt, r.code, r.err)
        assert f"of the log cannot be read: its {etype} payload lacks {key}" in r.err, r.err  # the row named
        assert not out.exists()
