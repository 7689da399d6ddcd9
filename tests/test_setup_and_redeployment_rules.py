"""Rules revision 3, issue 24 items 1-8: setup and redeployment (2.33, 2.37, 2.41, 2.5, 3.21, 3.24, CTHC per
controlled Strategic Terrain hex: ruling R53). Each test drives the command line; the revision-2 campaign of
the same plan keeps the old decision (ruling R32)."""
from __future__ import annotations

import json

from conftest import Campaign, cli_run, owed_at, rows


def new(tmp_path, plan, revision=None, name="c.plcg", card="sample"):
    db = tmp_path / name
    extra = ["--rules-revision", str(revision)] if revision else []
    r = cli_run(db, "new", "--card", card, "--seed", "r3", *extra)
    assert r.code == 0, r.err
    return Campaign.attach(db, plan=plan)


def oob(path, side="axis") -> dict:
    r = cli_run(path, "oob", side, "--json")
    assert r.code == 0, r.err
    return {u["unit"]: u for u in json.loads(r.out)}


def refused(path, *args, rule: str) -> str:
    before = rows(path)
    r = cli_run(path, *args)
    assert r.code == 3 and rule in r.err, (r.code, r.err)
    assert rows(path) == before
    return r.err


def first_side_begins(c, side: str = "axis") -> None:
    """2.6 (ruling R51): where the other side sets up first, one of its squads sets up in its own MLR
    before SIDE sets up anything."""
    st = c.state()
    first = st.ff.setup_first
    if first in (None, side):
        return
    mc = st.map_control()
    u = next(u for u in st.side_units(first) if u.kind == "squad" and u.hex is None)
    hx = next(h for h in st.grid().hexes() if mc.situation(h, first) == "friendly_mlr" and not mc.hexes[h].strategic)
    r = cli_run(c.path, "setup", first, u.id, hx)
    assert r.code == 0, r.err


# ---- item 1: 2.33 In Reserve is for the firefight it was bought for ----------------------------------

RESERVE = {1: {"buy": [("axis", "I1", "reserve"), ("axis", "G1", "reserve"), ("allied", "I1")]},
           2: {"attack": ["axis"]}}


def _reserve(tmp_path, revision=None, name="c.plcg"):
    c = new(tmp_path, RESERVE, revision, name)
    c.advance(1, "2.6")
    gun = next(u.id for u in c.state().side_units("axis") if u.kind == "gun")
    crew = next(u.id for u in c.state().side_units("axis") if u.kind == "crew")
    for uid in (crew, gun):  # 2.33: 10 hexes from the Allied E8; 2.37: the Gun with its crew
        assert cli_run(c.path, "setup", "axis", uid, "O5").code == 0
    c.advance(2, "2.6")
    first_side_begins(c)
    return c, gun


def test_2_33_a_reserve_unit_kept_off_map_sets_up_normally_in_a_later_firefight(tmp_path):
    c, gun = _reserve(tmp_path)
    # the squad stayed off map in firefight 1: in firefight 2 it sets up like any unit, 6 hexes from E8
    assert cli_run(c.path, "setup", "axis", "I1-1.1", "K5").code == 0
    # the Gun set up In Reserve is on map after its firefight, an emplaced Gun: Strategic Terrain (1.4)
    u = oob(c.path)[gun]
    assert u["status"] == "on_map" and u["where"] == "on map O5", u
    hexes = json.loads(cli_run(c.path, "map", "--json").out)["hexes"]
    assert hexes["O5"]["strategic"] and hexes["O5"]["grown"]
    assert cli_run(c.path, "audit").code == 0
    c.close()
    old, gun = _reserve(tmp_path, revision=2, name="old.plcg")
    refused(old.path, "setup", "axis", "I1-1.1", "K5", rule="2.33")  # as revision 2 decided
    assert oob(old.path)[gun]["status"] == "reserve"
    old.close()


# ---- item 2: 2.5 Option A / 3.34 "leave all units in place" ---------------------------------------------

def _left_on_map(tmp_path, option, revision=None, name="c.plcg"):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")], "option": option}, 2: {"attack": ["axis"]}}
    c = new(tmp_path, plan, revision, name)
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1}, position=["axis:I1-1.1=L5"])
    c.advance(2, "2.6")
    first_side_begins(c)
    return c


def test_2_5_option_a_a_unit_left_on_map_does_not_set_up_elsewhere(tmp_path):
    c = _left_on_map(tmp_path, "A")
    err = refused(c.path, "setup", "axis", "I1-1.1", "K5", rule="2.5")
    assert "L5" in err and "redeploy" in err
    assert cli_run(c.path, "setup", "axis", "I1-1.1", "L5").code == 0  # where it stands
    assert cli_run(c.path, "setup", "axis", "I1-1.2", "K5").code == 0  # no hex recorded: in its MLR
    assert cli_run(c.path, "setup", "axis", "I1-1.2", "K4").code == 0  # set up this 2.6: may still shift
    c.close()
    b = _left_on_map(tmp_path, "B", name="b.plcg")  # Option B: survivors in a FMLR set up anywhere in it
    assert cli_run(b.path, "setup", "axis", "I1-1.1", "K5").code == 0
    b.close()
    old = _left_on_map(tmp_path, "A", revision=2, name="old.plcg")
    assert cli_run(old.path, "setup", "axis", "I1-1.1", "K5").code == 0  # as revision 2 allowed it
    old.close()


# ---- item 5: 2.5 Option B sets up units that returned to the MLR at 3.2 -----------------------------------

def _returned(tmp_path, option, revision=None, name="c.plcg"):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")]}, 2: {"attack": ["axis"]}}
    c = new(tmp_path, plan, revision, name)
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1}, position=["axis:I1-1.1=D4"])
    c.advance(1, "3.2")
    c.run("option", option=option)
    assert cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", "L5", "--dice", "1,2").code == 0
    c.advance(2, "2.5")
    return c


def test_2_5_option_b_sets_up_a_unit_that_redeployed_at_3_2(tmp_path):
    c = _returned(tmp_path, "B")
    r = cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", "M6")
    assert r.code == 0, r.err
    c.close()
    a = _returned(tmp_path, "A", name="a.plcg")  # ruling R28 holds for Option A
    refused(a.path, "redeploy", "axis", "I1-1.1", "--to", "M6", "--dice", "1,2", rule="R28")
    a.close()
    old = _returned(tmp_path, "B", revision=2, name="old.plcg")
    refused(old.path, "redeploy", "axis", "I1-1.1", "--to", "M6", rule="R28")
    old.close()


# ---- item 3: 3.24 / 3.212 / 3.215 HIP stays only in place, and only for a unit not Isolated -------------

RING = ["G4", "J5", "J8", "G10", "D8", "D5"]  # Allied Strategic Terrain 3 hexes around G7 (tests/test_control.py)


def isolated_card(variant) -> str:
    """G7, held by the Axis, is an Axis Isolated Location inside the Allied ring; the Axis FMLR is the
    cluster of A12 by its west edge."""
    return variant(map={"columns": "A-N", "rows": 13, "strategic": ["G7", "A12", *RING], "buildings": [],
                        "stone": [], "water": [], "tvp": {}, "friendly_edge": {"axis": "west", "allied": "east"}},
                   axis={"control": ["G7", "A12"]}, allied={"control": RING})


def _hidden(tmp_path, card, revision=None, name="c.plcg"):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")], "option": "B"}, 2: {"attack": ["axis"]}}
    c = new(tmp_path, plan, revision, name, card=card)
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1})
    assert cli_run(c.path, "position", "axis", "I1-1.1", "B12", "--hip").code == 0  # in the Axis MLR
    assert cli_run(c.path, "position", "axis", "I1-1.2", "G7", "--hip").code == 0  # Isolated
    c.advance(1, "3.3")
    return c


def test_3_24_hip_is_kept_in_place_and_lost_by_an_isolated_unit(tmp_path, variant):
    card = isolated_card(variant)
    c = _hidden(tmp_path, card)
    assert c.state().map_control().situation("G7", "axis") == "isolated"
    units = oob(c.path)
    assert "isolated" in units["I1-1.2"]["flags"] and "hip" not in units["I1-1.2"]["flags"]  # 3.215
    assert "hip" in units["I1-1.1"]["flags"]
    c.advance(2, "2.6")
    first_side_begins(c)
    refused(c.path, "setup", "axis", "I1-1.1", "A11", "--hip", rule="2.38")  # HIP elsewhere needs a HIP bought
    assert cli_run(c.path, "setup", "axis", "I1-1.1", "B12", "--hip").code == 0  # in its own Location (3.24)
    assert cli_run(c.path, "audit").code == 0
    c.close()
    old = _hidden(tmp_path, card, revision=2, name="old.plcg")
    assert "hip" in oob(old.path)["I1-1.2"]["flags"]
    old.advance(2, "2.6")
    assert cli_run(old.path, "setup", "axis", "I1-1.1", "A11", "--hip").code == 0
    old.close()


# ---- item 4: 3.21 DRM of an Isolated unit ------------------------------------------------------------------

def _isolated_redeploys(tmp_path, card, revision=None, name="c.plcg"):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")]}}
    c = new(tmp_path, plan, revision, name, card=card)
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1}, position=["axis:I1-1.2=G7"])
    c.advance(1, "3.2")
    c.run("option", option="A")
    r = cli_run(c.path, "redeploy", "axis", "I1-1.2", "--to", "B11", "--dice", "1,1", "--json")
    assert r.code == 0, r.err
    c.close()
    return {d["reason"]: d["value"] for d in json.loads(r.out)[0]["roll"]["drm"]}


def test_3_21_an_isolated_unit_is_far_from_its_fmlr_and_in_the_enemy_mlr(tmp_path, variant):
    card = isolated_card(variant)
    drm = _isolated_redeploys(tmp_path, card)
    # the nearest Axis MLR hex outside the pocket (the A12 cluster, C11) is 6 hexes from G7: +1; G7 lies inside
    # the Allied MLR (3.215): +2; the pocket is no friendly MLR: no -1
    assert drm == {"Isolated, 6 hexes from nearest FMLR": 1, "in enemy MLR": 2}, drm
    old = _isolated_redeploys(tmp_path, card, revision=2, name="old.plcg")
    assert old == {}, old  # revision 2 measured from the pocket itself (0 hexes)


# ---- item 6: 2.41 Dual Attack, the moves-first dr is made after all setup ------------------------------

def _dual_at_2_6(tmp_path, revision=None, name="c.plcg"):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")]},
            2: {"attack": ["axis", "allied"], "determine": {"dice": "1"}}}
    c = new(tmp_path, plan, revision, name)
    c.advance(2, "2.6")
    assert c.state().ff.type == "dual"
    assert cli_run(c.path, "moves-first", "--dice", "2").code == 0
    return c


def test_2_41_no_setup_after_the_moves_first_dr(tmp_path):
    c = _dual_at_2_6(tmp_path)
    err = refused(c.path, "setup", "axis", "I1-1.1", "K5", rule="2.41")
    assert "moves-first" in err and "R54" in err
    options = json.loads(cli_run(c.path, "status", "--json").out)["options"]
    assert not any(o["command"].startswith("plcg setup") for o in options), options  # status offers it no more
    c.close()
    old = _dual_at_2_6(tmp_path, revision=2, name="old.plcg")
    assert cli_run(old.path, "setup", "axis", "I1-1.1", "K5").code == 0
    old.close()


# ---- item 7: a CTHC is the cluster of one controlled Strategic Terrain hex (ruling R53) -----------------

def _allied_positions(tmp_path, where, revision=None, name="c.plcg"):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")]}, 2: {"attack": ["axis"]}}
    c = new(tmp_path, plan, revision, name)
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1}, position=[f"allied:I1-1.1={where}"])
    c.advance(1, "3.2")
    c.run("option", option="A")
    return c


def test_3_216_the_nearest_cthc_is_one_strategic_hexs_cluster_not_the_whole_front(tmp_path):
    c = _allied_positions(tmp_path, "G3")  # Uncontrolled, 1 hex from D3's CTHC, 7 from C9
    err = refused(c.path, "redeploy", "allied", "I1-1.1", "--to", "C9", "--dice", "1,2", rule="3.216")
    assert "nearest" in err
    assert cli_run(c.path, "redeploy", "allied", "I1-1.1", "--to", "E3", "--dice", "1,2").code == 0
    c.close()
    old = _allied_positions(tmp_path, "G3", revision=2, name="old.plcg")  # one cluster from C1 to C10
    assert cli_run(old.path, "redeploy", "allied", "I1-1.1", "--to", "C9", "--dice", "1,2").code == 0
    old.close()


def test_2_5_option_a_redeploys_to_another_strategic_hexs_cthc_along_one_front(tmp_path):
    c = _allied_positions(tmp_path, "B3")  # in the CTHCs of C3 and D3, not in E8's
    c.advance(2, "2.5")
    err = refused(c.path, "redeploy", "allied", "I1-1.1", "--to", "B4", "--dice", "1,2", rule="2.5")
    assert "another" in err  # B4 lies in C3's CTHC, where it stands
    assert cli_run(c.path, "redeploy", "allied", "I1-1.1", "--to", "C9", "--dice", "1,2").code == 0
    c.close()
    old = _allied_positions(tmp_path, "B3", revision=2, name="old.plcg")
    old.advance(2, "2.5")
    refused(old.path, "redeploy", "allied", "I1-1.1", "--to", "C9", "--dice", "1,2", rule="2.5")
    old.close()


# ---- item 8: 2.37 a leader and a SW set up with their RG in its first firefight ------------------------

def _owned(tmp_path, revision=None, name="c.plcg"):
    c = new(tmp_path, {1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")]}}, revision, name)
    c.advance(1, "2.6")
    lmg = next(u.id for u in c.state().side_units("axis") if u.kind == "sw")
    return c, lmg


def test_2_37_a_leader_and_a_sw_set_up_with_a_unit_of_their_rg(tmp_path):
    c, lmg = _owned(tmp_path)
    refused(c.path, "setup", "axis", "I1-1.L1", "M5", rule="2.37")  # no MMC of I1-1 there yet
    refused(c.path, "setup", "axis", lmg, "L4", rule="2.37")
    assert cli_run(c.path, "setup", "axis", "I1-1.1", "M5").code == 0
    assert cli_run(c.path, "setup", "axis", "I1-1.L1", "M5").code == 0
    assert cli_run(c.path, "setup", "axis", lmg, "M5").code == 0
    c.close()
    old, lmg = _owned(tmp_path, revision=2, name="old.plcg")
    assert cli_run(old.path, "setup", "axis", "I1-1.L1", "M5").code == 0
    assert cli_run(old.path, "setup", "axis", lmg, "L4").code == 0
    old.close()


# ---- the harness's list of what each step owes, in the rules' words (tests/conftest.py owed_at): this file's steps ----


def _determined(live) -> dict:
    found = [r.payload for r in live if r.type == "firefight_determined"]
    return found[-1] if found else {}


def _night(camp, st, live) -> list[str]:
    """2.42: a night firefight that is played takes the card's night rules."""
    night = st.card.firefights[st.firefight - 1].time == "night"
    played = _determined(live).get("type") != "idle"
    if night and played and not any(r.type == "night_set" for r in live):
        return ["night conditions (2.42)"]
    return []


def _moves_first(camp, st, live) -> list[str]:
    """2.41: a Dual Attack's dr for who moves first (made after all setup from rules revision 2 on)."""
    det = _determined(live)
    if det.get("type") != "dual" or det.get("move_first"):
        return []
    return [] if any(r.type == "moves_first_rolled" for r in live) else ["Dual Attack moves-first dr (2.41)"]


def _option(camp, st, live) -> list[str]:
    """3.2: the Redeployment Option, chosen once and kept for the CG (or given when the campaign began)."""
    chosen = [p for t, p in ((r.type, r.payload) for r in camp.led.store.read())
              if t == "redeployment_option" or (t == "campaign_started" and p.get("redeployment"))]
    return [] if chosen else ["Redeployment Option A or B (3.2)"]


owed_at("2.4",
        "Firefight Determination: the firefight type (2.41); a night firefight's conditions (2.42)",
        [("firefight_determined", False, "2.41"), _night])


owed_at("2.5",
        "Redeployment of Units in Friendly MLR: under the Option of 3.2, the units the players move",
        [])


owed_at("2.6",
        "Firefight Setup (2.32, 2.33); a Dual Attack's moves-first dr after all setup (2.41)",
        [_moves_first])


owed_at("3.2",
        "Redeployment Phase: the Option, kept for the CG (3.2); the units outside a friendly MLR, by"
        " situation (3.21: tests/test_step_order.py and the redeployment tests)",
        [_option])
