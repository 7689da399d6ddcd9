"""Rules revision 2 (ruling R32): 3.17 a unit that passes its 1TC stays Encircled; 3.17/3.21 Leadership
comes from the leader in the unit's hex (rulings R30, R33); 3.21 Isolated +1 at 6 or more hexes (R1)."""
from __future__ import annotations

import json

from conftest import Campaign, cli_run, rows

PLAN = {1: {"buy": [("axis", "I1"), ("allied", "I1")], "dice": {"leader": "2,2"}}}  # each I1 gets a 9-1


def encircled_at_3_1(tmp_path, *, revision: int | None = None, positions=()):
    db = tmp_path / "c.plcg"
    args = ["new", "--card", "sample", "--seed", "t"] + (["--rules-revision", str(revision)] if revision else [])
    assert cli_run(db, *args).code == 0
    c = Campaign.attach(db, plan=PLAN)
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1}, encircled=["axis:I1-1.1"], position=list(positions))
    c.advance(1, "3.1")
    return c


def flags(path, side, unit) -> list:
    r = cli_run(path, "oob", side, "--json")
    return next(u for u in json.loads(r.out) if u["unit"] == unit)["flags"]


def test_a_unit_that_passes_its_1tc_stays_encircled_under_revision_2(tmp_path):
    c = encircled_at_3_1(tmp_path)
    r = cli_run(c.path, "encircled", "axis", "I1-1.1", "--dice", "1,1")
    assert r.code == 0 and "passed" in r.out, r.out + r.err
    assert "encircled" in flags(c.path, "axis", "I1-1.1")
    r = cli_run(c.path, "encircled", "axis", "I1-1.1", "--dice", "1,1")  # one 1TC per RePh
    assert r.code == 3 and "3.17" in r.err
    assert not [p for p in json.loads(cli_run(c.path, "status", "--json").out)["pending"] if "encircled" in p["command"]]
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_revision_1_removed_the_marker_as_it_always_did(tmp_path):
    c = encircled_at_3_1(tmp_path, revision=1)
    assert cli_run(c.path, "encircled", "axis", "I1-1.1", "--dice", "1,1").code == 0
    assert "encircled" not in flags(c.path, "axis", "I1-1.1")
    c.close()


def test_3_17_leadership_is_the_leader_in_the_units_hex(tmp_path):
    c = encircled_at_3_1(tmp_path, positions=["axis:I1-1.1=M5", "axis:I1-1.L1=M5", "allied:I1-1.L1=M5"])
    before = rows(c.path)
    r = cli_run(c.path, "encircled", "axis", "I1-1.1", "--leadership", "0", "--dice", "4,4")
    assert r.code == 3 and "R33" in r.err and "I1-1.L1 (9-1)" in r.err  # typed 0 contradicts the 9-1 there
    assert rows(c.path) == before
    r = cli_run(c.path, "encircled", "axis", "I1-1.1", "--dice", "4,4", "--json")
    assert r.code == 0, r.err
    drm = json.loads(r.out)[0]["roll"]["drm"]
    assert [(d["rule"], d["value"]) for d in drm] == [("3.17", 1), ("3.17", -1)]  # the 9-1's -1, never the Allied one
    assert "I1-1.L1 (9-1) in M5" in drm[1]["reason"]
    c.close()


def test_without_a_recorded_hex_the_typed_leadership_is_taken_and_marked_typed(tmp_path):
    c = encircled_at_3_1(tmp_path)
    r = cli_run(c.path, "encircled", "axis", "I1-1.1", "--leadership", "-2", "--dice", "4,4", "--json")
    assert r.code == 0, r.err
    drm = json.loads(r.out)[0]["roll"]["drm"]
    assert drm[1]["value"] == -2 and "typed" in drm[1]["reason"] and "R33" in drm[1]["reason"]
    c.close()


def test_3_21_isolated_counts_6_or_more_hexes_and_gets_no_minus_1_from_its_pocket(tmp_path, monkeypatch):
    """The DRM list of drm.redeployment for an Isolated unit 6 hexes from its friendly MLR."""
    from cg import drm
    from cg.control import MapControl

    c = encircled_at_3_1(tmp_path)
    monkeypatch.setattr(MapControl, "distance_to_mlr", lambda self, h, side: 6)
    monkeypatch.setattr(MapControl, "inside_or_adjacent_mlr", lambda self, h, side: True)
    st = c.state()
    u = st.unit("I1-1.1", "axis")
    st.rules_revision = 2  # revision 3 measures to the FMLR outside the pocket (tests/test_setup_and_redeployment_rules.py)
    new = drm.redeployment(st, "axis", "M5", "isolated", unit=u)
    assert [(d.value, d.reason.split(",")[0]) for d in new] == [(1, "Isolated")]
    st.rules_revision = 1
    old = drm.redeployment(st, "axis", "M5", "isolated", unit=u)
    assert [d.value for d in old] == [-1]  # revision 1: d > 6, and the pocket's -1
    c.close()
