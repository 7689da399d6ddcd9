"""Issue 39 (a referee, round four), defects 1-5: 2.5 Option A's order (ruling R85), 2.74's typed DRMs on the
Return roll (ruling R26), 2.33 no patrol from a Reserve, 2.72 a patrol loses HIP, 3.21 a SW goes with its
possessor (ruling R86). Each test drives the command line; where an older revision keeps its decision, its
campaign of the same plan shows it (ruling R32)."""
from __future__ import annotations

import json

from conftest import cli_run, rows
from test_patrol_rules import new
from test_setup_and_redeployment_rules import first_side_begins


def ok(path, *args) -> str:
    r = cli_run(path, *args)
    assert r.code == 0, (args, r.err)
    return r.out


def refused(path, *args, rule: str) -> str:
    before = rows(path)
    r = cli_run(path, *args)
    assert r.code == 3 and f"[rule {rule}]" in r.err, (r.code, r.err)
    assert rows(path) == before
    return r.err


def oob(path, side="axis") -> dict:
    return {u["unit"]: u for u in json.loads(ok(path, "oob", side, "--json"))}


# ---- defect 1: 2.5 Option A, the Attacker redeploys after the Defender (ruling R85) ------------------------

def _at_2_5(tmp_path, revision=None, name="c.plcg"):
    plan = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1", "on-map")], "option": "A"},
            2: {"attack": ["axis"]}}
    c = new(tmp_path, plan, revision, name)
    c.advance(1, "2.9")  # the Axis attack in firefight 2: the Allies are the Defender at 2.5
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1}, position=["axis:I1-1.1=L3", "allied:I1-1.1=B2",
                                                                       "allied:I1-1.2=B2"])
    c.advance(2, "2.5")
    assert (c.state().ff.attacker, c.state().option) == ("axis", "A")
    return c


def test_2_5_option_a_the_attacker_waits_until_the_defender_has_begun(tmp_path):
    c = _at_2_5(tmp_path)
    err = refused(c.path, "redeploy", "axis", "I1-1.1", "--to", "N8", "--dice", "1,2", rule="2.5")
    assert "allied" in err and "--done" in err
    ok(c.path, "redeploy", "allied", "I1-1.1", "--to", "E9", "--dice", "1,2")  # the Defender first
    ok(c.path, "redeploy", "axis", "I1-1.1", "--to", "N8", "--dice", "1,2")
    refused(c.path, "redeploy", "allied", "I1-1.2", "--to", "E9", "--dice", "1,2", rule="2.5")  # the Attacker began
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_2_5_option_a_a_defender_who_redeploys_nothing_says_it_is_done(tmp_path):
    c = _at_2_5(tmp_path)
    refused(c.path, "redeploy", "axis", "--done", rule="2.5")  # the Attacker is never waited for
    ok(c.path, "redeploy", "allied", "--done")
    refused(c.path, "redeploy", "allied", "I1-1.1", "--to", "E9", "--dice", "1,2", rule="2.5")  # done is done
    ok(c.path, "redeploy", "axis", "I1-1.1", "--to", "N8", "--dice", "1,2")
    assert cli_run(c.path, "redeploy", "allied", "I1-1.1", "--done").code == 2  # --done takes no unit
    assert cli_run(c.path, "audit").code == 0
    c.close()
    old = _at_2_5(tmp_path, revision=2, name="old.plcg")  # revision 2's order (switch option_a_order) too
    assert "--done" in refused(old.path, "redeploy", "axis", "I1-1.1", "--to", "N8", "--dice", "1,2", rule="2.5")
    ok(old.path, "redeploy", "allied", "--done")
    # past the order: revision 2 joins the Axis CTHCs into one (no ruling R53), so N8 is no other CTHC
    err = refused(old.path, "redeploy", "axis", "I1-1.1", "--to", "N8", "--dice", "1,2", rule="2.5")
    assert "not in another axis CTHC" in err
    old.close()


# ---- defect 2: 2.74 / ruling R26, a Stealthy or Lax typed at Detection applies to the Return roll ----------

PATROL = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")], "patrols": [("axis", 1)]}}


def _drms(c, etype) -> dict:
    return {d["reason"]: d["value"] for d in c.last(etype)["roll"]["drm"]}


def _patrolled(tmp_path, flag, revision=None, name="c.plcg"):
    c = new(tmp_path, PATROL, revision, name)
    c.advance(1, "2.7")
    ok(c.path, "patrol", "axis", "--type", "raid", "--units", "I1-1.1", "--leader", "I1-1.L1", "--hex", "I5",
       flag, "1", "--dice", "2,2")  # conducts its mission: it owes its Return
    ok(c.path, "patrol-return", "axis", "1", "--dice", "3,3")
    return c


def test_2_74_a_stealthy_or_lax_typed_at_detection_applies_to_the_return_roll(tmp_path):
    for flag, reason, value in (("--stealthy", "Stealthy", -1), ("--lax", "Lax", 1)):
        c = _patrolled(tmp_path, flag, name=f"{reason}.plcg")
        assert _drms(c, "patrol_resolved")[reason] == value
        assert _drms(c, "patrol_returned")[reason] == value  # ruling R26: both rolls
        assert cli_run(c.path, "audit").code == 0
        c.close()
    old = _patrolled(tmp_path, "--stealthy", revision=2, name="old.plcg")  # revision 2 dropped it (ruling R32)
    assert "Stealthy" in _drms(old, "patrol_resolved") and "Stealthy" not in _drms(old, "patrol_returned")
    old.close()


# ---- defect 3: 2.33, a unit set up In Reserve "may conduct no action whatsoever": no patrol ----------------

def test_2_33_a_unit_in_reserve_goes_on_no_patrol(tmp_path):
    plan = {1: {"buy": [("axis", "I1", "reserve"), ("axis", "I2", "on-map"), ("allied", "I1")],
                "patrols": [("axis", 1)]}}
    c = new(tmp_path, plan)
    c.advance(1, "2.6")
    ok(c.path, "setup", "axis", "I1-1.1", "O5")  # 2.33: 7 or more hexes from the Allied E8
    c.advance(1, "2.7")
    lead = {u.purchase: u.id for u in c.state().side_units("axis") if u.kind == "leader"}
    free = lead["I2-1"]
    for units, leader in (("I1-1.1", free), ("I2-1.1", lead["I1-1"])):  # a reserve squad, a reserve leader
        err = refused(c.path, "patrol", "axis", "--type", "recon", "--units", units, "--leader", leader, "--hex",
                      "I5", "--dice", "2,2", rule="2.33")
        assert "In Reserve" in err
    ok(c.path, "patrol", "axis", "--type", "recon", "--units", "I2-1.1", "--leader", free, "--hex", "I5",
       "--dice", "2,2")
    c.close()


# ---- defect 4: 2.72 / 2.74 step 4, a patrol's units go to a cloaking box: they lose HIP -------------------

def _hidden_patrol(tmp_path, revision=None, name="c.plcg"):
    plan = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")], "option": "B"},
            2: {"patrols": [("axis", 1)], "attack": ["axis"]}, 3: {"attack": ["axis"]}}
    c = new(tmp_path, plan, revision, name)
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1})
    ok(c.path, "position", "axis", "I1-1.1", "L5", "--hip")  # HIP in its MLR at the end: 3.24 keeps it
    c.advance(2, "2.6")
    first_side_begins(c)
    ok(c.path, "setup", "axis", "I1-1.1", "L5", "--hip")
    c.advance(2, "2.7")
    leader = next(u.id for u in c.state().side_units("axis") if u.kind == "leader")
    ok(c.path, "patrol", "axis", "--type", "recon", "--units", "I1-1.1", "--leader", leader, "--hex", "I5",
       "--dice", "1,1")
    ok(c.path, "patrol-return", "axis", "1", "--dice", "1,1")  # back safely: "may regain concealment" (CG11)
    return c


def test_2_72_a_hip_unit_that_patrols_loses_hip_and_buys_it_again(tmp_path):
    c = _hidden_patrol(tmp_path)
    assert "hip" not in oob(c.path)["I1-1.1"]["flags"]
    c.advance(3, "2.6")  # no end position given: the unit stands in L5, not HIP
    first_side_begins(c)
    refused(c.path, "setup", "axis", "I1-1.1", "L5", "--hip", rule="2.38")  # 3.24 keeps no HIP it lost
    assert cli_run(c.path, "audit").code == 0
    c.close()
    old = _hidden_patrol(tmp_path, revision=2, name="old.plcg")  # revision 2 kept it (ruling R32)
    assert "hip" in oob(old.path)["I1-1.1"]["flags"]
    old.close()


# ---- defect 5: 3.21, a SW goes with its possessor, never on a roll of its own (ruling R86) -----------------

def _armed(tmp_path, revision=None, name="c.plcg"):
    """The Axis squad I1-1.1 and its platoon's LMG set up together in L5, their MLR."""
    plan = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")], "option": "A"}}
    c = new(tmp_path, plan, revision, name)
    c.advance(1, "2.6")
    first_side_begins(c)
    lmg = next(u.id for u in c.state().side_units("axis") if u.kind == "sw")
    ok(c.path, "setup", "axis", "I1-1.1", "L5")
    ok(c.path, "setup", "axis", lmg, "L5")  # 2.37: with a unit of its RG
    c.advance(1, "2.9")
    return c, lmg


def _owed(path) -> list:
    return [p["command"] for p in json.loads(ok(path, "status", "--json"))["pending"]]


def test_3_21_a_sw_moves_with_its_possessor_and_never_redeploys_alone(tmp_path):
    c, lmg = _armed(tmp_path)
    refused(c.path, "position", "axis", lmg, "B9", rule="2.9")  # no Axis MMC or SMC stands there
    c.run("end", turn=5, cvp_lost={"axis": 0, "allied": 0}, position=["axis:I1-1.1=C5"])  # in the Allied CTHC
    assert oob(c.path)[lmg]["where"] == "on map C5"  # it went with its squad
    c.advance(1, "3.2")
    owed = _owed(c.path)
    assert [x for x in owed if "I1-1.1" in x]  # 3.214: the squad, and not its LMG
    assert not [x for x in owed if lmg in x]
    ok(c.path, "option", "A")
    refused(c.path, "redeploy", "axis", lmg, "--to", "L5", "--dice", "1,2", rule="3.21")
    ok(c.path, "redeploy", "axis", "I1-1.1", "--to", "L5", "--dice", "1,2")  # enemy MLR +2: final 5, redeploys
    assert oob(c.path)[lmg]["where"] == "on map L5"  # 3.21: possessed in the unit's new hex
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_3_21_a_sw_whose_possessor_fell_is_owed_no_redeployment(tmp_path):
    c, lmg = _armed(tmp_path)
    ok(c.path, "position", "axis", "I1-1.1", "C5")  # the LMG with it, in the Allied CTHC
    c.run("end", turn=5, cvp_lost={"axis": 2, "allied": 0}, lost=["axis:I1-1.1"])  # the squad falls there
    assert oob(c.path)[lmg]["where"] == "on map C5"
    c.advance(1, "3.2")
    assert not [x for x in _owed(c.path) if lmg in x]  # a lone SW rolls on no column (3.21)
    ok(c.path, "option", "A")
    refused(c.path, "redeploy", "axis", lmg, "--to", "L5", "--dice", "1,2", rule="3.21")
    c.close()
    old, lmg = _armed(tmp_path, revision=2, name="old.plcg")  # revision 2 (ruling R32): a SW has no position
    refused(old.path, "position", "axis", lmg, "L5", rule="2.9")
    old.close()


# ---- issue 39, still not modelled: 2.72 one leader, and one unwounded hero may join (ruling R87) -----------

def test_2_72_one_leader_leads_and_only_a_hero_joins_it(tmp_path):
    plan = {1: {"buy": [("axis", "I1", "on-map"), ("axis", "I2", "on-map"), ("allied", "I1")],
                "patrols": [("axis", 1)]},
            2: {"patrols": [("axis", 1)], "attack": ["axis"]}}
    c = new(tmp_path, plan)
    c.advance(1, "2.7")
    lead = {u.purchase: u.id for u in c.state().side_units("axis") if u.kind == "leader"}
    args = ("patrol", "axis", "--type", "recon", "--units", f"I1-1.1,{lead['I2-1']}", "--leader", lead["I1-1"],
            "--hex", "I5", "--dice", "2,2")
    assert "second leader" in refused(c.path, *args, rule="2.72")
    ok(c.path, "patrol", "axis", "--give-up", "kept home")
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 0, "allied": 0}, hero=[f"axis:{lead['I2-1']}"])  # turned heroic
    c.advance(2, "2.7")
    ok(c.path, *args)  # the heroic leader joins as the patrol's hero
    c.close()


# ---- issue 39, still not modelled: 2.753 Trip Flares at night (ruling R88) ---------------------------------

def test_2_753_trip_flares_that_went_off_at_night_add_2_to_the_return_roll(tmp_path, variant):
    card = variant(campaign={"patrols_per_reph": 2})
    plan = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")]},
            2: {"patrols": [("axis", 2)], "attack": ["axis"], "buy": [("allied", "F1")],
                "fortify": [{"side": "allied", "kind": "trip_flares", "hex": "E5"}]}}
    c = new(tmp_path, plan, card=card)
    c.advance(2, "2.7")
    assert c.state().ff.time == "night"
    lead = next(u.id for u in c.state().side_units("axis") if u.kind == "leader")
    for units, hx in (("I1-1.1", "I5"), ("I1-1.2", "E5")):
        ok(c.path, "patrol", "axis", "--type", "recon", "--units", units, "--leader", lead, "--hex", hx,
           "--dice", "1,1")
        if hx == "I5":  # no Allied Trip Flares there
            refused(c.path, "patrol-return", "axis", "1", "--trip-flares", "--dice", "3,3", rule="2.753")
            ok(c.path, "patrol-return", "axis", "1", "--dice", "3,3")
    ok(c.path, "patrol-return", "axis", "2", "--trip-flares", "--dice", "3,3")
    assert _drms(c, "patrol_returned")["Trip Flares went off at night"] == 2
    assert cli_run(c.path, "audit").code == 0
    c.close()


# ---- issue 39, still not modelled: 3.22 a guarded prisoner is worth double CVP (ruling R91) ----------------

def _captured(tmp_path, revision=None, name="c.plcg"):
    c = new(tmp_path, PATROL, revision, name)
    c.advance(1, "2.7")
    lead = next(u for u in c.state().side_units("axis") if u.kind == "leader")
    ok(c.path, "patrol", "axis", "--type", "raid", "--units", "I1-1.1", "--leader", lead.id, "--hex", "I5",
       "--dice", "1,1")
    ok(c.path, "patrol-return", "axis", "1", "--dice", "6,6")  # 12, +2 day patrol: 14 or more, Captured*
    losses = {x["unit"]: x["to"] for x in c.last("patrol_returned")["losses"]}
    value = {"I1-1.1": 2, lead.id: 1 + int(lead.name[-1]) * (lead.name[-2] == "-")}  # A26.2, ruling R39
    return c, losses, value


def test_3_22_a_patrols_captive_is_a_guarded_prisoner_worth_double_cvp(tmp_path):
    c, losses, value = _captured(tmp_path)
    assert sorted(losses.values()) == ["captured", "eliminated"]
    want = sum(value[u] * (2 if to == "captured" else 1) for u, to in losses.items())
    assert c.state().ff.patrol_cvp["axis"] == want
    c.close()
    old, losses, value = _captured(tmp_path, revision=2, name="old.plcg")  # revision 2: single (ruling R32)
    assert old.state().ff.patrol_cvp["axis"] == sum(value.values())
    old.close()


def test_cg8_a_sw_exits_with_its_possessor(tmp_path):
    plan = {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")]}}
    c = new(tmp_path, plan)
    c.advance(1, "2.6")
    first_side_begins(c)
    lmg = next(u.id for u in c.state().side_units("axis") if u.kind == "sw")
    for uid in ("I1-1.1", lmg):
        ok(c.path, "setup", "axis", uid, "P5")  # on the Axis (east) edge
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 0, "allied": 0}, exited=["axis:I1-1.1"])
    units = oob(c.path)
    assert units[lmg]["where"] == units["I1-1.1"]["where"]
    assert "on map" not in units[lmg]["where"]
    c.close()
