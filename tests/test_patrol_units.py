"""Rules revision 2, 2.72-2.74 (rulings R26, R29, R30, R33): the patrol DRM come from its units, the whole
list applies to the Return roll too, and results strike the units by Random Selection, shown by `oob`."""
from __future__ import annotations

import json

from cg.state import BySide
from conftest import Campaign, cli_run, rows, started_at

PLAN = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")], "patrols": [("axis", 1)]}}  # set up: R50


def at_2_7(tmp_path, revision=None):
    return started_at(tmp_path / "c.plcg", 1, "2.7", PLAN, "pat", revision)


def patrol(path, *extra):
    return cli_run(path, "patrol", "axis", "--type", "recon", "--units", "I1-1.1,I1-1.2", "--leader", "I1-1.L1",
                   "--hex", "I5", *extra, "--json")


def test_detection_drm_from_the_units_and_a_contradicting_flag_refused(tmp_path):
    c = at_2_7(tmp_path)
    assert c.state().unit("I1-1.L1", "axis").name == "8-0"
    before = rows(c.path)
    for flag in (["--elite", "1"], ["--leadership", "-1"]):
        r = patrol(c.path, *flag, "--dice", "4,4")
        assert r.code == 3 and "R33" in r.err, (flag, r.err)
    assert rows(c.path) == before
    r = patrol(c.path, "--dice", "4,4")
    assert r.code == 0, r.err
    ev = json.loads(r.out)[0]
    drm = {d["reason"]: d["value"] for d in ev["roll"]["drm"]}
    # recon -1, day +2, two squads = 4 HS equivalents: +2 (ruling R26); first-line squads: no Elite
    assert drm == {"Recon type patrol": -1, "day patrol": 2, "2 HS beyond one squad": 2}, drm
    assert ev["roll"]["final"] == 11 and ev["roll"]["outcome"] == "reduced"
    # ruling R29: Random Selection among the patrol's units, the drs recorded, the unit struck reduced
    assert "Random Selection drs" in ev["summary"]
    st = c.state()
    struck = [u for u in (st.unit(x, "axis") for x in ("I1-1.1", "I1-1.2", "I1-1.L1"))
              if u.name != {"I1-1.L1": "8-0"}.get(u.id, "4-6-7") or u.status != "available"]
    assert len(struck) == 1
    oob = {u["unit"]: u for u in json.loads(cli_run(c.path, "oob", "axis", "--json").out)}
    s = struck[0]
    assert (oob[s.id]["name"], oob[s.id]["status"]) == ("2-4-7", "available")  # a squad struck: reduced to its HS
    # the Return roll takes the whole list (R26) with the Return-only ones
    r = cli_run(c.path, "patrol-return", "axis", "1", "--pinned", "--dice", "1,1", "--json")
    assert r.code == 0, r.err
    reasons = [d["reason"] for d in json.loads(r.out)[0]["roll"]["drm"]]
    assert "Recon type patrol" in reasons and "day patrol" in reasons and "pinned (Return only)" in reasons
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_an_unstarred_kia_eliminates_the_whole_patrol(tmp_path):
    c = at_2_7(tmp_path)
    r = patrol(c.path, "--dice", "6,6")  # 12 + 3 = 15: Patrol KIA
    assert r.code == 0, r.err
    oob = {u["unit"]: u for u in json.loads(cli_run(c.path, "oob", "axis", "--json").out)}
    assert {oob[u]["status"] for u in ("I1-1.1", "I1-1.2", "I1-1.L1")} == {"eliminated"}
    assert ["axis", "I1-1.1"] in c.state().ff.lost
    c.close()


def test_revision_1_patrols_took_the_typed_flags(tmp_path):
    c = at_2_7(tmp_path, revision=1)
    r = patrol(c.path, "--elite", "1", "--dice", "4,4")
    assert r.code == 0, r.err
    roll = json.loads(cli_run(c.path, "log", "--json").out.splitlines()[-1])["roll"]
    assert {"reason": "Elite", "rule": "2.74", "value": -1} in roll["drm"]  # the typed flag, taken as typed
    oob = {u["unit"]: u for u in json.loads(cli_run(c.path, "oob", "axis", "--json").out)}
    assert oob["I1-1.1"]["name"] == "4-6-7"
    assert oob["I1-1.1"]["status"] == "available"
    c.close()


def test_patrol_losses_count_cvp_for_the_current_firefight(tmp_path):
    c = at_2_7(tmp_path)
    assert patrol(c.path, "--dice", "6,6").code == 0  # Patrol KIA: two 4-6-7 (2 CVP each) and an 8-0 (1)
    assert c.state().ff.cvp_lost["axis"] == 5
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 3, "allied": 4})
    ff = c.state().ff
    assert ff.cvp_lost == BySide(axis=8, allied=4)  # 2.756 (ruling R39): typed 3 + the patrol's 5
    assert ff.winner == "allied"  # 1.31: the Allies amassed 8 CVP, the Axis 4
    c.close()


def test_patrol_units_come_from_the_mlr_within_10_hexes(tmp_path):
    c = at_2_7(tmp_path)
    # a squad recorded 12 hexes from the mission hex (the map's east edge) may not join a patrol to D5
    led_hex = "P9"
    c.close()
    db = tmp_path / "c2.plcg"  # revision 2's reading (revision 3: within 10 hexes of each other, test_patrol_rules)
    assert cli_run(db, "new", "--card", "sample", "--seed", "pat", "--rules-revision", "2").code == 0
    c = Campaign.attach(db, plan=PLAN)
    c.advance(1, "2.6")
    assert cli_run(db, "setup", "axis", "I1-1.1", led_hex).code == 0
    c.advance(1, "2.7")
    before = rows(db)
    r = cli_run(db, "patrol", "axis", "--type", "recon", "--units", "I1-1.1", "--leader", "I1-1.L1", "--hex", "D5",
                "--dice", "3,3")
    assert r.code == 3 and "2.72" in r.err, r.err
    assert rows(db) == before
    c.close()
