"""Rules revision 2, 3.52: an Eliminated result removes rubble (PL's table, ruling R38); the Original-6
Casualty Reduction only against a Known minefield or Panji."""
from __future__ import annotations

from conftest import Campaign, cli_run

PLAN = {1: {"buy": [("axis", "I1"), ("allied", "I1")],
            "end": {"cvp_lost": {"axis": 1, "allied": 1},
                    "terrain": ["M7=rubble", "L5=ap_mine", "M6=known_minefield"]}}}


def at_3_52(tmp_path, revision=None):
    db = tmp_path / "c.plcg"
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", "cl", *extra).code == 0
    c = Campaign.attach(db, plan=PLAN)
    c.advance(1, "3.52")
    return c


def test_rubble_cleared_is_gone_and_cr_only_vs_a_known_minefield(tmp_path):
    c = at_3_52(tmp_path)
    r = cli_run(c.path, "clear", "axis", "M7", "rubble", "--dice", "1")
    assert r.code == 0, r.err
    assert "rubble" not in c.state().terrain.get("M7", [])
    r = cli_run(c.path, "clear", "axis", "L5", "mines", "--dice", "6")  # hidden A-P mines: no CR
    assert r.code == 0 and "Casualty Reduction" not in r.out, r.out
    r = cli_run(c.path, "clear", "axis", "M6", "mines", "--dice", "6")  # a Known minefield: CR
    assert r.code == 0 and "Casualty Reduction" in r.out, r.out
    c.close()


def test_revision_1_left_a_trailbreak_and_reduced_vs_any_mines(tmp_path):
    c = at_3_52(tmp_path, revision=1)
    assert cli_run(c.path, "clear", "axis", "M7", "rubble", "--dice", "1").code == 0
    assert c.state().terrain["M7"] == ["rubble", "trailbreak"]
    r = cli_run(c.path, "clear", "axis", "L5", "mines", "--dice", "6")
    assert r.code == 0 and "Casualty Reduction" in r.out
    c.close()
