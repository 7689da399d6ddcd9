"""Issue 2: every limit of the purchase step and the RePh is refused through the command line
(exit 3, the rule number in the message, nothing written), and what the limit allows still works."""
from __future__ import annotations

import pytest

from conftest import Campaign, cli_run, ff_list, rows


def refused(c: Campaign, rule: str, *args, words: str = "") -> str:
    """Run a command that the rules must refuse: exit 3, `[rule RULE]`, the current step, no event."""
    step = c.state().step
    c.close()  # the CLI opens the file itself
    before = rows(c.path)
    r = cli_run(c.path, *args)
    assert r.code == 3, (args, r.code, r.err)
    assert f"[rule {rule}]" in r.err, r.err
    assert f"(step {step})" in r.err, r.err
    assert words in r.err, r.err
    assert rows(c.path) == before
    reopen(c)
    return r.err


def ok(c: Campaign, *args) -> str:
    c.close()
    before = rows(c.path)
    r = cli_run(c.path, *args)
    assert r.code == 0, (args, r.code, r.err)
    assert rows(c.path) > before
    reopen(c)
    return r.out


def reopen(c: Campaign) -> None:
    import cli

    c.led = cli.Ledger(c.path, write=True)


# ---- 2.3 purchases ---------------------------------------------------------------------------------

def test_cp_cannot_be_overspent(campaign):
    c = campaign()
    c.advance(1, "2.3")
    ok(c, "buy", "axis", "I2")  # 7 of 16
    ok(c, "buy", "axis", "I1")  # 5: 4 left
    refused(c, "2.3", "buy", "axis", "I1", words="axis has 4")
    refused(c, "2.3", "buy", "axis", "A1", words="costs 8")
    ok(c, "buy", "axis", "G1", "--mode", "on-map")  # a Gun on map: +0, exactly the 4 CP left
    refused(c, "2.3", "buy", "axis", "V1", words="axis has 0")
    assert c.state().sides["axis"].cp == 0


def test_setup_costs_decide_what_the_cp_buy(campaign):
    """2.34: Infantry on map +1, In Reserve -1; the cost after the change is what is checked."""
    c = campaign()
    c.advance(1, "2.3")
    ok(c, "buy", "axis", "I2")  # 7
    ok(c, "buy", "axis", "I3", "--mode", "reserve")  # 3 - 1 = 2: 7 left
    ok(c, "buy", "axis", "I1", "--mode", "reserve")  # 5 - 1 = 4: 3 left
    refused(c, "2.3", "buy", "axis", "V1", "--mode", "on-map", words="costs 4")  # 2 + 2 on map
    ok(c, "buy", "axis", "V1")  # entering: 2
    assert c.state().sides["axis"].cp == 1
    costs = [(p["rg"], p["mode"], p["cost"], p["delta"]) for p in c.events("rg_bought")]
    assert costs == [("I2", "entry", 7, 0), ("I3", "reserve", 2, -1), ("I1", "reserve", 4, -1), ("V1", "entry", 2, 0)]


def test_patrols_and_the_attack_option_cannot_be_overspent(campaign, variant):
    c = campaign(card=variant(axis={"attack_cost": 40}))
    c.advance(1, "2.3")
    ok(c, "buy", "axis", "I2")
    ok(c, "buy", "axis", "I1")
    ok(c, "buy", "axis", "G1")  # 16 spent
    refused(c, "2.31", "patrols", "axis", "1", words="axis has 0")
    c.advance(2, "2.3")
    refused(c, "2.4", "attack", "axis", words="costs 40")


def test_the_attack_option_is_bought_once_per_firefight(campaign):
    c = campaign()
    c.advance(2, "2.3")
    ok(c, "attack", "axis")
    refused(c, "2.4", "attack", "axis", words="already bought")


def test_no_more_than_three_infantry_platoons_in_one_purchase_step(campaign):
    """2.3 and ruling R12: the limit holds per purchase step; a section (no leader DR) is no platoon."""
    c = campaign(plan={2: {"attack": ["allied"]}})
    c.advance(1, "2.3")
    for rg in ("I1", "I3", "I1"):
        ok(c, "buy", "allied", rg)  # 13 of 18 CP, 3 platoons
    refused(c, "2.3", "buy", "allied", "I3", words="ruling R12")
    ok(c, "buy", "allied", "I4")  # the Combat Engineer Section: 0 platoons
    assert c.state().sides["allied"].platoons == 3
    c.advance(2, "2.3")
    ok(c, "buy", "allied", "I3")  # a new purchase step: the count starts again
    assert c.state().sides["allied"].platoons == 1


def test_the_cards_platoon_limit_and_platoon_counts(campaign, variant):
    c = campaign(card=variant(campaign={"max_infantry_platoons": 1}))
    c.advance(1, "2.3")
    ok(c, "buy", "axis", "I3")
    refused(c, "2.3", "buy", "axis", "I1", words="limit is 1")
    company = campaign(card=variant(allied_rg={"I2": {"platoons": 2}}))
    company.advance(1, "2.3")
    ok(company, "buy", "allied", "I2")  # counts as two platoons (card key)
    ok(company, "buy", "allied", "I3")
    refused(company, "2.3", "buy", "allied", "I1", words="4 infantry platoons")


def test_an_rg_cannot_be_bought_past_its_max(campaign):
    c = campaign(plan={1: {"buy": [("axis", "I2")]}, 2: {"attack": ["axis"]}})
    c.advance(1, "2.3")
    ok(c, "buy", "axis", "G1")
    refused(c, "2.3", "buy", "axis", "G1", words="1 time(s)")
    c.advance(2, "2.3")
    refused(c, "2.3", "buy", "axis", "I2", words="1 time(s)")  # max counts the whole CG


def test_patrols_past_the_intensitys_count_are_refused(campaign, variant):
    c = campaign()
    c.advance(1, "2.3")
    refused(c, "2.31", "patrols", "axis", "2", words="1 patrol(s) per RePh")
    ok(c, "patrols", "axis", "1")
    refused(c, "2.31", "patrols", "axis", "1", words="has 1")
    c.advance(2, "2.3")
    ok(c, "patrols", "axis", "1")  # per RePh: firefight 2 may buy again
    mid = campaign(card=variant(campaign={"intensity": "mid"}))
    mid.advance(1, "2.3")
    ok(mid, "patrols", "allied", "2")
    refused(mid, "2.31", "patrols", "allied", "1", words="2 patrol(s)")
    none = campaign(card=variant(campaign={"patrols_per_reph": 0}))
    none.advance(1, "2.3")
    refused(none, "2.31", "patrols", "allied", "1", words="0 patrol(s)")


@pytest.mark.parametrize("side,rg", [("axis", "V1"), ("axis", "O1"), ("axis", "F1"), ("allied", "AS1"),
                                     ("allied", "V1")])
def test_only_i_g_hw_and_a_rgs_go_in_reserve(campaign, side, rg):
    c = campaign()
    c.advance(1, "2.3")
    refused(c, "2.33", "buy", side, rg, "--mode", "reserve", words="only I, G, HW and A")


def test_reserve_purchases_and_their_costs(campaign):
    """2.33 types; 2.34 In Reserve -1 (ruling R8: HW like Guns)."""
    c = campaign()
    c.advance(1, "2.3")
    for rg in ("I3", "G2", "HW1"):
        ok(c, "buy", "axis", rg, "--mode", "reserve")
    ok(c, "buy", "allied", "A1", "--mode", "reserve")
    got = [(p["rg"], p["cost"]) for p in c.events("rg_bought")]
    assert got == [("I3", 2), ("G2", 2), ("HW1", 2), ("A1", 8)]
    st = c.state()
    assert {u.status for u in st.side_units("axis")} == {"reserve"}


def test_no_reserves_where_the_card_forbids_them(campaign, variant):
    c = campaign(card=variant(campaign={"reserves": False}))
    c.advance(1, "2.3")
    refused(c, "2.33", "buy", "axis", "I1", "--mode", "reserve", words="does not allow Reserves")
    ok(c, "buy", "axis", "I1", "--mode", "on-map")


def test_a_reserve_unit_sets_up_seven_or_more_hexes_from_enemy_strategic_terrain(campaign):
    c = campaign(plan={1: {"buy": [("allied", "I3", "reserve")]}})
    c.advance(1, "2.6")
    st = c.state()
    squad = next(u.id for u in st.side_units("allied") if u.kind == "squad")
    g = st.grid()
    enemy = [h for h, s in st.ground.control.items() if s == "axis"]
    near = next(h for h in ("F4", "G4", "F5", "G5", "F6") if min(g.distance(h, e) for e in enemy) == 6)
    far = next(h for h in ("E4", "E5", "D5", "E6") if min(g.distance(h, e) for e in enemy) == 7)
    refused(c, "2.33", "setup", "allied", squad, near, words="7 or more hexes")
    ok(c, "setup", "allied", squad, far)


# ---- 2.38 Fortification Points -------------------------------------------------------------------

def test_s_fortifications_only_for_the_initial_firefight_and_fp_not_overspent(campaign):
    c = campaign(plan={2: {"attack": ["axis"]}})
    c.advance(1, "2.3")
    ok(c, "buy", "axis", "F1")  # 10 FP
    ok(c, "fortify", "axis", "panji", "--hexsides", "1")  # S: allowed at the Initial Firefight, 2 FP
    assert c.state().sides["axis"].fp == 8
    c.advance(2, "2.3")
    refused(c, "2.38", "fortify", "axis", "panji", "--hexsides", "1", words="Initial Firefight (S)")
    refused(c, "2.38", "fortify", "axis", "tunnel", words="Initial Firefight (S)")
    ok(c, "fortify", "axis", "sangar")  # 2 FP: 6 left
    refused(c, "2.38", "fortify", "axis", "wire", words="costs 10 FP; axis has 6 FP")
    ok(c, "fortify", "axis", "foxhole", "--capacity", "3")  # 3/2/1 FP: 3
    refused(c, "2.38", "fortify", "axis", "ap-mine", "--factors", "2", words="costs 4 FP; axis has 3 FP")
    assert c.state().sides["axis"].fp == 3


def _hip_campaign(campaign, variant, reserve: bool = False, night: bool = False,
                  nationality: str = "american") -> Campaign:
    card = variant(allied={"initial_cp": 40, "nationality": nationality}, campaign={"max_infantry_platoons": 4},
                   firefights=ff_list(2, ("night" if night else "day",)))
    c = campaign(card=card)
    c.advance(1, "2.3")
    ok(c, "buy", "allied", "I1", "--mode", "reserve" if reserve else "entry")
    for rg in ("I1", "I1", "I3", "F1"):  # 12 squads in all, 8 FP
        ok(c, "buy", "allied", rg)
    return c


def test_hip_limit_is_ten_percent_of_non_reserve_squads_by_day(campaign, variant):
    """2.38 n3: 12 squads -> 1 may set up HIP (FRD); the SMC HIP is not counted."""
    c = _hip_campaign(campaign, variant)
    squads = [u.id for u in c.state().side_units("allied") if u.kind == "squad"]
    assert len(squads) == 12
    ok(c, "fortify", "allied", "hip", "--unit", squads[0])
    refused(c, "2.38", "fortify", "allied", "hip", "--unit", squads[1], words="10%")
    ok(c, "leader", "allied", "I1", "--dice", "3,4")
    leader = next(u.id for u in c.state().side_units("allied") if u.kind == "leader")
    ok(c, "fortify", "allied", "hip", "--unit", leader)  # an SMC: 1 FP, not a squad of the 10%
    assert c.state().sides["allied"].fp == 8 - 3 - 1


def test_reserve_squads_do_not_count_for_the_hip_limit(campaign, variant):
    c = _hip_campaign(campaign, variant, reserve=True)  # 3 of the 12 squads In Reserve: 9 -> 0 HIP
    squad = next(u.id for u in c.state().side_units("allied") if u.kind == "squad" and u.status != "reserve")
    refused(c, "2.38", "fortify", "allied", "hip", "--unit", squad, words="10% of 9 non-Reserve squads")


def test_the_japanese_hip_limit_says_the_20_percent_it_applies(campaign, variant):
    """2.38 n3 / G.1631: the Japanese add 10% to the 10%: 12 squads -> 2 HIP (issue 39 defect 9: the
    refusal said 10% while applying 20%)."""
    c = _hip_campaign(campaign, variant, nationality="japanese")
    squads = [u.id for u in c.state().side_units("allied") if u.kind == "squad"]
    ok(c, "fortify", "allied", "hip", "--unit", squads[0])
    ok(c, "fortify", "allied", "hip", "--unit", squads[1])
    r = cli_run(c.path, "fortify", "allied", "hip", "--unit", squads[2])
    assert r.code == 3 and "[rule 2.38]" in r.err
    assert ("HIP for 3 squads exceeds 20% of 12 non-Reserve squads in a daytime firefight (at most 2, "
            "fractions dropped, the Japanese 10% more of G.1631)") in r.err, r.err


def test_no_hip_limit_at_night(campaign, variant):
    c = _hip_campaign(campaign, variant, night=True)
    squads = [u.id for u in c.state().side_units("allied") if u.kind == "squad"]
    ok(c, "fortify", "allied", "hip", "--unit", squads[0])
    ok(c, "fortify", "allied", "hip", "--unit", squads[1])
    assert c.state().sides["allied"].fp == 2


# ---- CG4: two OBA modules per firefight ------------------------------------------------------------

def test_more_than_two_oba_modules_in_one_firefight_is_refused(campaign, variant):
    card = variant(axis_rg={"O1": {"max": 3}})
    c = campaign(card=card, plan={1: {"buy": [("axis", "O1"), ("axis", "O1"), ("axis", "O1")]}})
    c.advance(1, "2.9")
    ids = sorted(p.id for p in c.state().purchases.values() if p.kind == "oba")
    assert ids == ["O1-1", "O1-2", "O1-3"]
    base = ["end", "--turn", "5", "--cvp-lost", "axis=2", "--cvp-lost", "allied=3"]
    refused(c, "CG4", *base, *[f"--oba-used=axis:{i}" for i in ids], words="at most two")
    # an unknown or non-OBA purchase is bad input (exit 2); a module named twice is one module
    c.close()
    for bad in ("axis:O1-9", "allied:O1-1", "axis:ZZZ"):
        r = cli_run(c.path, *base, f"--oba-used={bad}")
        assert r.code == 2, (bad, r.err)
    reopen(c)
    ok(c, *base, "--oba-used=axis:O1-1", "--oba-used=axis:O1-3", "--oba-used=axis:O1-1")


# ---- 2.72 / 2.73 patrols -----------------------------------------------------------------------------

def _patrol_campaign(campaign, variant):
    # a wider map (A-Z) so that a hex more than 10 hexes from the Allied MLR exists
    plan = {1: {"patrols": [("allied", 1)], "buy": [("allied", "I1"), ("allied", "I3")]}}
    c = campaign(card=variant(map={"columns": "A-Z"}), plan=plan)
    c.advance(1, "2.7")
    st = c.state()
    squads = [u.id for u in st.side_units("allied") if u.kind == "squad"]
    leaders = [u.id for u in st.side_units("allied") if u.kind == "leader"]
    mc = st.map_control()
    near = next(h for h in ("E5", "F5", "E6", "F6", "G5") if 1 <= (mc.distance_to_mlr(h, "allied") or 0) <= 10)
    far = next(h for h in ("Q5", "R5", "S5", "T5") if (mc.distance_to_mlr(h, "allied") or 99) == 11)
    return c, squads, leaders, near, far


def test_a_patrol_needs_a_hs_at_most_three_squads_and_its_leader(campaign, variant):
    c, squads, leaders, near, far = _patrol_campaign(campaign, variant)
    assert len(squads) >= 4 and leaders
    base = ["patrol", "allied", "--type", "recon", "--hex", near, "--dice", "1,1"]  # revision 2: a low DR, so the patrol loses no unit (R29)
    refused(c, "2.72", *base, "--leader", leaders[0], words="at least one HS")
    refused(c, "2.72", *base, "--units", ",".join(squads[:4]), "--leader", leaders[0], words="three squads")
    refused(c, "2.72", *base, "--units", squads[0], words="leader")
    refused(c, "2.72", *base, "--units", squads[0], "--leader", squads[1], words="leader")
    refused(c, "2.73", "patrol", "allied", "--type", "raid", "--hex", far, "--units", squads[0],
            "--leader", leaders[0], "--dice", "3,4", words="10 at most")
    ok(c, *base, "--units", ",".join(squads[:3]), "--leader", leaders[0])
    refused(c, "2.31", *base, "--units", squads[3], "--leader", leaders[0], words="no patrol left")


def test_a_single_half_squad_may_patrol(campaign):
    c = campaign(plan={1: {"patrols": [("axis", 1)], "buy": [("axis", "I1"), ("axis", "HW1")]}})
    c.advance(1, "2.7")
    st = c.state()
    hs = [u.id for u in st.side_units("axis") if u.kind == "hs"]  # the MG 42 Section's 2-4-7
    leader = next(u.id for u in st.side_units("axis") if u.kind == "leader")
    mc = st.map_control()
    near = next(h for h in ("K5", "J5", "K6", "J6") if 1 <= (mc.distance_to_mlr(h, "axis") or 0) <= 10)
    assert len(hs) == 1
    ok(c, "patrol", "axis", "--type", "ambush", "--hex", near, "--dice", "3,4", "--units", hs[0], "--leader", leader)
    p = c.last("patrol_resolved")
    assert p["units"] == hs and p["leader"] == leader and p["kind"] == "ambush"


def test_a_wounded_leader_cannot_lead_a_patrol(campaign):
    c = campaign(plan={1: {"buy": [("allied", "I1")]}, 2: {"attack": ["allied"], "patrols": [("allied", 1)]}})
    c.advance(1, "2.9")
    leader = next(u.id for u in c.state().side_units("allied") if u.kind == "leader")
    squad = next(u.id for u in c.state().side_units("allied") if u.kind == "squad")
    c.run("end", turn=5, cvp_lost={"axis": 1, "allied": 1}, wounded=[f"allied:{leader}"])
    c.advance(1, "3.3")
    c.run("evacuate", side="allied", leader=leader, dice="2")  # <=2: remains in play, still wounded
    c.advance(2, "2.7")
    refused(c, "2.72", "patrol", "allied", "--type", "recon", "--hex", "E5", "--units", squad, "--leader", leader,
            words="wounded")


# ---- 3.41 and 3.52 ---------------------------------------------------------------------------------

def test_disease_needs_the_cards_fsr(campaign):
    c = campaign()
    c.advance(1, "3.41")
    from cg.steps import pending

    assert pending(c.state()) == []
    refused(c, "3.41", "disease", "axis", "--dice", "3", words="FSR")


def test_disease_with_the_fsr_is_owed_by_both_sides(campaign, variant):
    c = campaign(card=variant(campaign={"disease": True}))
    c.advance(1, "3.41")
    refused(c, "3.41", "next", words="Disease & Starvation")
    ok(c, "disease", "axis", "--dice", "3")
    refused(c, "3.41", "disease", "axis", "--dice", "3", words="already made")
    ok(c, "disease", "allied", "--dice", "5")
    ok(c, "next")


def _clearance_campaign(campaign):
    terrain = ["D4=wire", "C5=known_minefield", "C5=wire", "L5=wire"]
    c = campaign(plan={1: {"end": {"cvp_lost": {"axis": 1, "allied": 1}, "terrain": terrain}},
                       2: {"attack": ["allied"]}})
    c.advance(1, "3.52")
    mc = c.state().map_control()
    for hx in ("D4", "C5"):
        assert mc.hexes[hx].cthc == "allied"
    return c


def test_one_clearance_attempt_per_item_and_location_each_reph(campaign):
    c = _clearance_campaign(campaign)
    out = ok(c, "clear", "allied", "D4", "wire", "--dice", "4")
    assert "no effect" in out
    refused(c, "3.52", "clear", "allied", "D4", "wire", "--dice", "1", words="one attempt")
    c.advance(2, "3.52")
    ok(c, "clear", "allied", "D4", "wire", "--dice", "3")  # a new RePh: a new attempt
    assert "wire" not in [i.key for i in c.state().ground.terrain.get("D4", [])]


def test_a_failed_ap_mine_attempt_stops_the_location(campaign):
    c = _clearance_campaign(campaign)
    ok(c, "clear", "allied", "C5", "mines", "--dice", "5")
    refused(c, "3.52", "clear", "allied", "C5", "wire", "--dice", "1", words="failed A-P mine")
    ok(c, "clear", "allied", "D4", "wire", "--dice", "1")  # other Locations are not affected


def test_a_failed_attempt_on_other_mines_does_not_stop_the_location(campaign):
    """3.52 stops a Location after a failed A-P mine attempt only."""
    c = campaign(plan={1: {"end": {"cvp_lost": {"axis": 1, "allied": 1}, "terrain": ["C4=at_mine", "C4=wire"]}}})
    c.advance(1, "3.52")
    ok(c, "clear", "allied", "C4", "mines", "--dice", "5")
    assert c.last("clearance_rolled")["roll"]["outcome"] == "no effect"
    ok(c, "clear", "allied", "C4", "wire", "--dice", "2")
    assert c.last("clearance_rolled")["roll"]["outcome"] == "eliminated"


def test_clearance_only_in_friendly_cthc_or_mlr_and_of_an_item_there(campaign):
    c = _clearance_campaign(campaign)
    refused(c, "3.52", "clear", "allied", "L5", "wire", "--dice", "1", words="not in an allied CTHC or MLR")
    refused(c, "3.52", "clear", "allied", "D4", "mines", "--dice", "1", words="no mines in D4")


@pytest.mark.parametrize("dr,outcome", [(1, "eliminated"), (3, "eliminated"), (4, "no effect"), (6, "no effect")])
def test_clearance_dr_1_to_3_eliminates(campaign, dr, outcome):
    c = _clearance_campaign(campaign)
    c.run("clear", side="allied", hex="D4", item="wire", dice=str(dr))
    p = c.last("clearance_rolled")
    assert p["roll"]["final"] == dr and p["roll"]["drm"] == [] and p["roll"]["outcome"] == outcome


def test_an_original_6_against_a_known_minefield_reduces_an_mmc(campaign):
    c = _clearance_campaign(campaign)
    c.run("clear", side="allied", hex="C5", item="mines", dice="6")
    p = c.last("clearance_rolled")
    assert p["roll"]["outcome"] == "no effect" and p["casualty_reduction"] is True


# ---- once-only rolls -------------------------------------------------------------------------------

@pytest.mark.parametrize("ff,step,args,rule", [
    (2, "2.1", ["cp", "axis", "--dice", "3,4"], "2.1"),
    (1, "2.2", ["weather"], "2.2"),
    (1, "2.4", ["determine"], "2.41"),
    (1, "3.44", ["promote", "axis", "--dice", "3"], "3.44"),
    (1, "3.45", ["leaders", "axis", "--dice", "3"], "3.45"),
    (1, "3.47", ["elr", "axis", "--dice", "3,4"], "3.47"),
])
def test_a_step_roll_is_made_once(campaign, ff, step, args, rule):
    c = campaign()
    c.advance(ff, step)
    ok(c, *args)
    refused(c, rule, *args)


def test_a_leader_or_oba_dr_beyond_what_is_owed_is_refused(campaign):
    c = campaign()
    c.advance(1, "2.3")
    ok(c, "buy", "axis", "I1")
    ok(c, "buy", "axis", "O1")
    ok(c, "leader", "axis", "I1", "--dice", "3,4")
    refused(c, "2.36", "leader", "axis", "I1", "--dice", "3,4", words="owes a leader DR")
    ok(c, "oba", "axis", "O1", "--dice", "3,4")
    refused(c, "2.35", "oba", "axis", "O1", "--dice", "3,4", words="owes an oba DR")
    refused(c, "2.35", "oba", "axis", "O1-1", "--dice", "3,4", words="owes no OBA ammunition DR")


def test_the_firefight_result_is_recorded_once_and_control_only_of_strategic_terrain(campaign):
    c = campaign()
    c.advance(1, "2.9")
    base = ["end", "--turn", "5", "--cvp-lost", "axis=2", "--cvp-lost", "allied=3"]
    refused(c, "1.33", *base, "--control", "allied=F5", words="not Strategic Terrain")
    ok(c, *base, "--control", "allied=I5")
    refused(c, "2.9", *base, words="already recorded")
