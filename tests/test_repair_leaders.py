"""Rules revision 2: 3.46 as written (a failed repair keeps the malfunction, no DRM on it, only vehicles are
Immobilized) and 3.45 counting evacuated leaders (3.32) among the leaders lost."""
from __future__ import annotations

import json

from conftest import Campaign, cli_run, owed_at, rows

PLAN = {1: {"buy": [("axis", "I1"), ("axis", "I2"), ("allied", "I1")], "dice": {"leader": "2,2", "evacuate": "6",
                                                                                 "leaders": "1"}}}


def camp(tmp_path, revision=None, **end):
    db = tmp_path / "c.plcg"
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", "r", *extra).code == 0
    c = Campaign.attach(db, plan=PLAN)
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 3, "allied": 3}, **end)
    return c


def pending(path) -> list[str]:
    return [p["command"] for p in json.loads(cli_run(path, "status", "--json").out)["pending"]]


def test_a_failed_malfunction_repair_keeps_the_malfunction_into_the_next_rephase(tmp_path):
    c = camp(tmp_path, repair=["axis:I1-1.4=malfunction"])
    c.advance(1, "3.46")
    before = rows(c.path)
    r = cli_run(c.path, "repair", "axis", "I1-1.4", "--drm", "-1", "--dice", "3")
    assert r.code == 3 and "no DRM" in r.err
    assert rows(c.path) == before
    r = cli_run(c.path, "repair", "axis", "I1-1.4", "--dice", "6")
    assert r.code == 0 and "failed" in r.out, r.out
    assert not [p for p in pending(c.path) if "repair" in p]  # tried this RePh: next may leave
    assert cli_run(c.path, "repair", "axis", "I1-1.4", "--dice", "1").code == 3
    c.advance(2, "3.46")  # firefight 2 is Idle: its 3.46 owes the roll again
    assert "plcg repair axis I1-1.4 --kind malfunction" in pending(c.path)
    c.close()


def test_only_a_vehicle_is_immobilized(tmp_path):
    c = camp(tmp_path)
    c.advance(1, "3.46")
    r = cli_run(c.path, "repair", "axis", "I1-1.1", "--kind", "immobilized", "--dice", "1")
    assert r.code in (2, 3) and ("vehicle" in r.err)
    c.close()


def test_revision_1_dropped_a_failed_repair(tmp_path):
    c = camp(tmp_path, revision=1, repair=["axis:I1-1.4=malfunction"])
    c.advance(1, "3.46")
    assert cli_run(c.path, "repair", "axis", "I1-1.4", "--dice", "6").code == 0
    assert c.state().reph.repairs_owed == {}
    c.close()


def leaders_lost(tmp_path, revision=None) -> int:
    db = tmp_path / "c.plcg"
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", "r", *extra).code == 0
    c = Campaign.attach(db, plan=PLAN)
    c.advance(1, "2.9")
    leaders = sorted(u.id for u in c.state().units.values() if u.side == "axis" and u.kind == "leader")
    assert len(leaders) == 2
    c.run("end", turn=5, cvp_lost={"axis": 3, "allied": 3}, lost=[f"axis:{leaders[0]}"],
          wounded=[f"axis:{leaders[1]}"])
    c.advance(1, "3.45")
    st = c.state()
    assert st.unit(leaders[1], "axis").status == "evacuated"  # the 3.32 dr of 6
    r = cli_run(db, "leaders", "axis", "--dice", "1", "--json")
    assert r.code == 0, r.err
    c.close()
    led = c.led.__class__(str(db))
    try:
        return led.state().reph.may_generate["axis"]
    finally:
        led.close()


def test_3_45_counts_evacuated_leaders_among_those_lost(tmp_path):
    assert leaders_lost(tmp_path) == 1  # two leaders lost (one KIA, one evacuated): generate up to 2 - 1
    (tmp_path / "old").mkdir()
    assert leaders_lost(tmp_path / "old", revision=1) == 0  # revision 1 counted the KIA alone


def test_cg7_a_used_oba_module_and_air_support_leave_the_ob(tmp_path):
    db = tmp_path / "c.plcg"
    assert cli_run(db, "new", "--card", "sample", "--seed", "o").code == 0
    c = Campaign.attach(db, plan={1: {"buy": [("allied", "O1"), ("allied", "O1"), ("allied", "AS1"),
                                              ("axis", "I1")]}})
    c.advance(1, "2.9")
    r = cli_run(db, "end", "--turn", "5", "--cvp-lost", "axis=1", "--cvp-lost", "allied=1",
                "--oba-used", "allied:O1-1")
    assert r.code == 0, r.err
    allied = {u["unit"]: u for u in json.loads(cli_run(db, "oob", "allied", "--json").out)}
    assert {allied[u]["status"] for u in ("O1-1.1", "O1-1.2", "AS1-1.1")} == {"expended"}
    assert allied["O1-2.1"]["status"] == "available"  # the unused module is kept (CG7)
    assert cli_run(db, "audit").code == 0
    c.close()


# ---- the harness's list of what each step owes, in the rules' words (tests/conftest.py owed_at): this file's steps ----


owed_at("3.46",
        "Unjamming Guns, Replenishing Ammo, Mobilizing Vehicles: a dr for each item the firefight's end"
        " flags (3.46; where it may be repaired: ruling R48, tests/test_repair_leaders.py)",
        [])
