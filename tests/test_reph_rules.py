"""Rules revision 3, the RePh (issue 24, items 13-23): what the ledger decides in 3.1-3.52 reaches the units
and the firefight's CVP, as the rules say; campaigns of revision 2 fold as they did (ruling R32)."""
from __future__ import annotations

import json

from conftest import Campaign, _not_japanese_present, _per_unit, _still_recalled, cli_run, owed_at, rows


def at_3_1(tmp_path, plan: dict, end: dict, *, revision: int | None = None) -> Campaign:
    db = tmp_path / "c.plcg"
    args = ["new", "--card", "sample", "--seed", "t"] + (["--rules-revision", str(revision)] if revision else [])
    assert cli_run(db, *args).code == 0
    c = Campaign.attach(db, plan=plan)
    c.advance(1, "2.9")
    c.run("end", turn=5, **end)
    c.advance(1, "3.1")
    return c


def roster_ff1(path) -> dict:
    r = cli_run(path, "roster", "--json")
    assert r.code == 0, r.err
    out = {row["side"]: row for row in json.loads(r.out)["rows"] if row["firefight"] == 1}
    return {"winner": out["axis"]["winner"], "axis": out["axis"]["cvp_lost"], "allied": out["allied"]["cvp_lost"]}


def oob(path, side: str, unit: str) -> dict:
    r = cli_run(path, "oob", side, "--json")
    return next(u for u in json.loads(r.out) if u["unit"] == unit)


INFANTRY = {1: {"buy": [("axis", "I1"), ("allied", "I1")]}}
STUGS = {1: {"buy": [("axis", "A1"), ("allied", "I1")]}}


# ---- item 13 / 23: 3.17 ------------------------------------------------------------------------------------

def test_3_17_an_immobile_afv_whose_crew_fails_is_immobile_and_abandoned_not_eliminated(tmp_path):
    c = at_3_1(tmp_path, STUGS, {"cvp_lost": {"axis": 0, "allied": 0}, "encircled": ["axis:A1-1.1"],
                                 "repair": ["axis:A1-1.1=immobilized"]})
    r = cli_run(c.path, "encircled", "axis", "A1-1.1", "--morale", "7", "--dice", "6,6")
    assert r.code == 0, r.err
    assert "abandoned" in r.out
    u = oob(c.path, "axis", "A1-1.1")
    assert u["status"] != "eliminated" and "abandoned" in u["flags"] and "encircled" not in u["flags"]
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_3_17_a_mobile_afv_whose_crew_fails_is_eliminated(tmp_path):
    c = at_3_1(tmp_path, STUGS, {"cvp_lost": {"axis": 0, "allied": 0}, "encircled": ["axis:A1-1.1"]})
    r = cli_run(c.path, "encircled", "axis", "A1-1.1", "--morale", "7", "--dice", "6,6")
    assert r.code == 0 and "eliminated" in r.out, r.out + r.err
    assert oob(c.path, "axis", "A1-1.1")["status"] == "eliminated"
    c.close()


def test_revision_2_eliminated_the_immobile_afv_as_it_did(tmp_path):
    c = at_3_1(tmp_path, STUGS, {"cvp_lost": {"axis": 0, "allied": 0}, "encircled": ["axis:A1-1.1"],
                                 "repair": ["axis:A1-1.1=immobilized"]}, revision=2)
    assert cli_run(c.path, "encircled", "axis", "A1-1.1", "--morale", "7", "--dice", "6,6").code == 0
    assert oob(c.path, "axis", "A1-1.1")["status"] == "eliminated"
    c.close()


def test_3_17_a_failed_1tc_names_the_row_it_failed_on_not_the_morale(tmp_path):
    """Morale 7, +1 for the 1TC: a final 7 passes (row <=7), a final 8 fails on the row 8 or more."""
    c = at_3_1(tmp_path, INFANTRY, {"cvp_lost": {"axis": 0, "allied": 0},
                                    "encircled": ["axis:I1-1.1", "axis:I1-1.2"]})
    r = cli_run(c.path, "encircled", "axis", "I1-1.1", "--dice", "3,3")  # 6 + 1 = 7
    assert r.code == 0 and "row <=7" in r.out and "passed" in r.out, r.out
    r = cli_run(c.path, "encircled", "axis", "I1-1.2", "--dice", "4,3")  # 7 + 1 = 8
    assert r.code == 0 and "row >=8" in r.out and ">=7" not in r.out and "eliminated" in r.out, r.out
    c.close()


# ---- item 14: 3.11, RePh losses the ledger decides count their CVP ------------------------------------------

def test_3_11_a_1tc_elimination_adds_its_cvp_and_turns_the_1_31_winner(tmp_path):
    """The firefight ended Axis 2 CVP lost, Allies 3: the Axis amassed more and won (1.31). At 3.17 an Axis
    squad fails its 1TC: 2 CVP more (A26.2, ruling R39), the Axis lost 4, the Allies amassed more and win.
    3.44 then gives the Allies, not the Axis, the -1 for the won firefight."""
    c = at_3_1(tmp_path, INFANTRY, {"cvp_lost": {"axis": 2, "allied": 3}, "encircled": ["axis:I1-1.1"]})
    assert roster_ff1(c.path) == {"winner": "axis", "axis": 2, "allied": 3}
    r = cli_run(c.path, "encircled", "axis", "I1-1.1", "--dice", "6,6")
    assert r.code == 0 and "eliminated" in r.out, r.out + r.err
    assert roster_ff1(c.path) == {"winner": "allied", "axis": 4, "allied": 3}
    c.advance(1, "3.44")
    drm = {}
    for side in ("axis", "allied"):
        r = cli_run(c.path, "promote", side, "--dice", "3", "--json")
        assert r.code == 0, r.err
        drm[side] = [(d["reason"], d["value"]) for d in json.loads(r.out)[0]["roll"]["drm"]]
    assert drm == {"axis": [], "allied": [("won firefight 1", -1)]}
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_revision_2_kept_the_1tc_elimination_out_of_the_cvp(tmp_path):
    c = at_3_1(tmp_path, INFANTRY, {"cvp_lost": {"axis": 2, "allied": 3}, "encircled": ["axis:I1-1.1"]},
               revision=2)
    assert cli_run(c.path, "encircled", "axis", "I1-1.1", "--dice", "6,6").code == 0
    assert roster_ff1(c.path) == {"winner": "axis", "axis": 2, "allied": 3}
    c.close()


def test_3_11_a_winner_given_for_cg_objectives_stands(tmp_path):
    c = at_3_1(tmp_path, INFANTRY, {"cvp_lost": {"axis": 2, "allied": 3}, "encircled": ["axis:I1-1.1"],
                                    "winner": "axis"})
    assert cli_run(c.path, "encircled", "axis", "I1-1.1", "--dice", "6,6").code == 0
    assert roster_ff1(c.path) == {"winner": "axis", "axis": 4, "allied": 3}
    c.close()


def test_3_11_redeployment_losses_count_a_reduction_and_an_elimination_not_a_replacement(tmp_path):
    """1 CVP each side at the end, a tie: the Axis defends and wins (1.31). Three Axis squads ended in D4, in
    the Allied MLR (3.214, +2): Reduced (squad to HS: 1 CVP), Replaced (an ELR replacement: no loss),
    Eliminated (2 CVP). The Axis lost 4, the Allies amassed more and win."""
    pos = [f"axis:I1-1.{n}=D4" for n in (1, 2, 3)]
    c = at_3_1(tmp_path, INFANTRY, {"cvp_lost": {"axis": 1, "allied": 1}, "position": pos})
    assert roster_ff1(c.path) == {"winner": "axis", "axis": 1, "allied": 1}
    c.advance(1, "3.2")
    c.run("option", option="A")
    for unit, dice in (("I1-1.1", "4,5"), ("I1-1.2", "3,5"), ("I1-1.3", "6,6")):
        r = cli_run(c.path, "redeploy", "axis", unit, "--to", "M5", "--dice", dice)
        assert r.code == 0, r.err
    assert roster_ff1(c.path) == {"winner": "allied", "axis": 4, "allied": 1}
    assert cli_run(c.path, "audit").code == 0
    c.close()


# ---- item 21: B24.121, no rubble in water -------------------------------------------------------------------

def rubble_falls_nw_from_the_mill(tmp_path, revision: int | None = None) -> tuple[Campaign, object]:
    """The mill (I5, stone) rubbled from its first level: creation dr 1 (+1 stone) <= KIA 6; the colored 6 +1
    falls; the white 6 sends it north-west, into H4, the Ruisseau des Aulnes."""
    db = tmp_path / "w.plcg"
    args = ["new", "--card", "sample", "--seed", "t"] + (["--rules-revision", str(revision)] if revision else [])
    assert cli_run(db, *args).code == 0
    c = Campaign.attach(db, plan=INFANTRY)
    c.advance(1, "2.9")
    return c, cli_run(c.path, "rubble", "I5", "--kia", "6", "--level", "1", "--dice", "1,6,6")


def hex_map(path) -> dict:
    r = cli_run(path, "map", "--json")
    assert r.code == 0, r.err
    return json.loads(r.out)["hexes"]


def test_b24_121_rubble_falling_into_water_places_none_there(tmp_path):
    c, r = rubble_falls_nw_from_the_mill(tmp_path)
    assert r.code == 0, r.err
    assert "H4 (Water Obstacle: no rubble, B24.121)" in r.out and "add rubble in H4" not in r.out, r.out
    hexes = hex_map(c.path)
    assert hexes["I5"]["terrain"] and not hexes["H4"]["terrain"] and not hexes["H4"]["strategic"]
    before = rows(c.path)
    r = cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0", "--terrain",
                "H4=rubble")
    assert r.code == 3 and "B24.121" in r.err and "2.9" in r.err, r.err
    assert rows(c.path) == before
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_revision_2_let_the_rubble_fall_into_the_water(tmp_path):
    c, r = rubble_falls_nw_from_the_mill(tmp_path, revision=2)
    assert r.code == 0 and hex_map(c.path)["H4"]["terrain"] and hex_map(c.path)["H4"]["strategic"], r.out
    c.close()


# ---- item 20: the card's quality, not the counter table's class, decides Elite at 3.43/3.44 -------------------

def at_3_44(tmp_path, buy, revision: int | None = None) -> Campaign:
    db = tmp_path / "h.plcg"
    args = ["new", "--card", "sample", "--seed", "h"] + (["--rules-revision", str(revision)] if revision else [])
    assert cli_run(db, *args).code == 0
    c = Campaign.attach(db, plan={1: {"buy": buy}})
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 0, "allied": 0})
    c.advance(1, "3.44")
    for side in ("axis", "allied"):
        assert cli_run(c.path, "promote", side, "--dice", "1").code == 0
    return c


def test_3_44_a_first_line_6_6_7_is_not_elite_and_does_not_turn_fanatic(tmp_path):
    """The sample's Rifle Platoon is 1st Line on the card (3.47 counts it so); the counter table calls the US
    6-6-7 Elite. The card wins: no Fanatic; the table knows no higher counter, so it is asked for (R34)."""
    c = at_3_44(tmp_path, [("axis", "I1"), ("allied", "I1")])
    before = rows(c.path)
    r = cli_run(c.path, "harden", "allied", "I1-1.1")
    assert r.code == 2 and "--to COUNTER" in r.err and rows(c.path) == before, r.err
    assert cli_run(c.path, "harden", "allied", "I1-1.1", "--to", "7-4-7").code == 0
    u = oob(c.path, "allied", "I1-1.1")
    assert u["name"] == "7-4-7" and "fanatic" not in u["flags"]
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_3_44_an_elite_rg_turns_fanatic_and_keeps_its_counter(tmp_path):
    c = at_3_44(tmp_path, [("axis", "I1"), ("allied", "I2")])  # Rangers: 7-4-7, Elite on the card
    assert cli_run(c.path, "harden", "allied", "I2-1.1").code == 0
    u = oob(c.path, "allied", "I2-1.1")
    assert u["name"] == "7-4-7" and "fanatic" in u["flags"]
    c.close()


def test_revision_2_took_the_class_from_the_counter_table(tmp_path):
    c = at_3_44(tmp_path, [("axis", "I1"), ("allied", "I1")], revision=2)
    assert cli_run(c.path, "harden", "allied", "I1-1.1").code == 0
    assert "fanatic" in oob(c.path, "allied", "I1-1.1")["flags"]
    c.close()


# ---- item 15: 2.38 notes 5, 8, 9 and CG12 ------------------------------------------------------------------

def at_2_3_with_fp(tmp_path, card="sample", revision: int | None = None) -> Campaign:
    db = tmp_path / "f.plcg"
    args = ["new", "--card", card, "--seed", "f"] + (["--rules-revision", str(revision)] if revision else [])
    assert cli_run(db, *args).code == 0
    c = Campaign.attach(db, plan={1: {"buy": [("allied", "I1")]}})
    c.advance(1, "2.3")
    for _ in range(3):
        assert cli_run(c.path, "buy", "axis", "F1").code == 0
    return c


def refused(c, *args, rule="2.38", words=""):
    before = rows(c.path)
    r = cli_run(c.path, *args)
    assert r.code == 3 and rule in r.err and words in r.err, (r.code, r.err)
    assert rows(c.path) == before


def test_2_38_note_8_a_set_dc_goes_in_a_building_of_a_friendly_cthc(tmp_path):
    """Note 8: a Set DC in a building/hut/rubble/bridge/pillbox/trench Location in friendly Controlled Terrain.
    M6 is Axis CTHC but open ground; P2 is inside the Axis MLR, outside any CTHC; L4 (the church) is both."""
    c = at_2_3_with_fp(tmp_path)
    assert cli_run(c.path, "buy", "axis", "I4", "--mode", "on-map").code == 0  # its DC (ruling R97)
    refused(c, "fortify", "axis", "set_dc", "--hex", "M6", words="note 8")
    refused(c, "fortify", "axis", "set_dc", "--hex", "P2", words="note 8")
    assert cli_run(c.path, "fortify", "axis", "set_dc", "--hex", "L4").code == 0
    c.close()


def test_2_38_note_8_a_set_dc_is_one_of_the_sides_dcs_setting_up_on_map(tmp_path):
    """Note 8: "a DC available to a unit setting-up on-map (EXC: units set up In Reserve)": a Set DC needs a
    DC in the OB (ruling R97); the Pioniers' one DC makes one Set DC, not two; one In Reserve makes none."""
    c = at_2_3_with_fp(tmp_path)
    refused(c, "fortify", "axis", "set_dc", "--hex", "L4", words="note 8): axis has none")
    assert cli_run(c.path, "buy", "axis", "I4", "--mode", "reserve").code == 0
    refused(c, "fortify", "axis", "set_dc", "--hex", "L4", words="note 8): axis has none")
    assert cli_run(c.path, "buy", "axis", "I4", "--mode", "on-map").code == 0
    assert cli_run(c.path, "fortify", "axis", "set_dc", "--hex", "L4").code == 0
    refused(c, "fortify", "axis", "set_dc", "--hex", "M4", words="and 1 Set DC(s) already bought")
    c.close()
    (tmp_path / "r2").mkdir()
    old = at_2_3_with_fp(tmp_path / "r2", revision=2)  # revision 2 bought one without a DC
    assert cli_run(old.path, "fortify", "axis", "set_dc", "--hex", "L4").code == 0
    old.close()


def test_2_38_note_5_a_fortified_building_is_a_building(tmp_path):
    c = at_2_3_with_fp(tmp_path)
    refused(c, "fortify", "axis", "fortified_building", "--hex", "M6", words="note 5")
    assert cli_run(c.path, "fortify", "axis", "fortified_building", "--hex", "M4").code == 0
    c.close()


def test_cg12_booby_traps_only_where_the_card_allows_them(tmp_path, variant):
    c = at_2_3_with_fp(tmp_path)  # the sample's FSR say nothing of Booby Traps
    refused(c, "fortify", "axis", "booby_traps", rule="CG12")
    c.close()
    (tmp_path / "b").mkdir()
    c = at_2_3_with_fp(tmp_path / "b", card=variant(campaign={"booby_traps": True}))
    assert cli_run(c.path, "fortify", "axis", "booby_traps").code == 0
    c.close()


def test_2_38_note_9_four_caves_for_each_cave_complex(tmp_path, variant):
    c = at_2_3_with_fp(tmp_path, card=variant(axis_rg={"F1": {"fp": 50}}))  # 150 FP
    for _ in range(4):
        assert cli_run(c.path, "fortify", "axis", "cave", "--hex", "M6").code == 0
    assert cli_run(c.path, "fortify", "axis", "cave_complex").code == 0
    refused(c, "fortify", "axis", "cave_complex", words="four caves")
    c.close()


def test_revision_2_took_these_fortifications(tmp_path):
    c = at_2_3_with_fp(tmp_path, revision=2)
    for args in (("fortified_building", "--hex", "M6"), ("booby_traps",)):
        r = cli_run(c.path, "fortify", "axis", *args)
        assert r.code == 0, r.err
    c.close()


def test_2_38_a_fortification_bought_without_a_hex_is_placed_at_2_6(tmp_path):
    """2.38: "the actual on-map positioning ... may be deferred until that side sets up ... during step 2.6"."""
    c = at_2_3_with_fp(tmp_path)
    assert cli_run(c.path, "fortify", "axis", "wire").code == 0  # 10 FP, no hex yet
    assert cli_run(c.path, "fortify", "axis", "sangar").code == 0
    c.advance(1, "2.6")
    r = cli_run(c.path, "status", "--json")
    assert any(o["command"] == "plcg fortify axis KIND --hex HEX" for o in json.loads(r.out)["options"]), r.out
    refused(c, "fortify", "axis", "wire", "--hex", "D4", words="MLR")  # the Allied side of the stream
    refused(c, "fortify", "axis", "roadblock", "--hex", "M6", words="no Roadblock bought")
    r = cli_run(c.path, "fortify", "axis", "wire", "--hex", "M6")
    assert r.code == 0 and "Axis placed wire in M6" in r.out, r.out + r.err
    assert hex_map(c.path)["M6"]["terrain"], hex_map(c.path)["M6"]
    refused(c, "fortify", "axis", "wire", "--hex", "M7", words="no Wire bought")  # placed once
    r = cli_run(c.path, "purchases", "axis", "--json")
    forts = {f["kind"]: f for f in json.loads(r.out)["fortifications"]}
    assert forts["wire"]["hex"] == "M6" and forts["sangar"]["hex"] is None
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_revision_2_refused_fortify_at_2_6(tmp_path):
    c = at_2_3_with_fp(tmp_path, revision=2)
    assert cli_run(c.path, "fortify", "axis", "wire").code == 0
    c.advance(1, "2.6")
    refused(c, "fortify", "axis", "wire", "--hex", "M6", rule="2.3", words="belongs to step 2.3")
    c.close()


# ---- item 16: 3.46 / 3.461 DRM from the OB, penalties stated ---------------------------------------------

LEADER_91 = {1: {"buy": [("axis", "I1"), ("allied", "I1")], "dice": {"leader": "2,2"}}}  # each I1 gets a 9-1


def at_3_46_disabled(tmp_path, revision: int | None = None, positions=()) -> Campaign:
    c = at_3_1(tmp_path, LEADER_91, {"cvp_lost": {"axis": 0, "allied": 0}, "repair": ["axis:I1-1.4=disabled"],
                                     "position": list(positions)}, revision=revision)
    c.advance(1, "3.46")
    return c


def test_3_46_a_stated_bonus_is_refused_and_a_typed_leader_must_be_one_of_the_side(tmp_path):
    """The LMG stands with its possessor, whom the ledger does not know: Leadership is typed (R33), and must
    be a leader of the side in play (the Axis have a 9-1); the stated drm are penalties only."""
    c = at_3_46_disabled(tmp_path)
    refused(c, "repair", "axis", "I1-1.4", "--drm", "-4", "--dice", "3", rule="3.46", words="penalties")
    refused(c, "repair", "axis", "I1-1.4", "--leadership", "-3", "--dice", "3", rule="R33", words="no leader")
    r = cli_run(c.path, "repair", "axis", "I1-1.4", "--leadership", "-1", "--drm", "1", "--dice", "2", "--json")
    assert r.code == 0, r.err
    drm = [(d["reason"], d["value"]) for d in json.loads(r.out)[0]["roll"]["drm"]]
    assert drm == [("leadership (typed: no hex recorded for the unit, ruling R33)", -1),
                   ("inexperience/captured use/ammunition shortage (stated)", 1)]
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_3_46_an_immobilized_vehicle_takes_the_leadership_of_the_leader_in_its_hex(tmp_path):
    plan = {1: {"buy": [("axis", "I1"), ("axis", "A1"), ("allied", "I1")], "dice": {"leader": "2,2"}}}
    c = at_3_1(tmp_path, plan, {"cvp_lost": {"axis": 0, "allied": 0}, "repair": ["axis:A1-1.1=immobilized"],
                                "position": ["axis:A1-1.1=M5", "axis:I1-1.L1=M5"]})
    c.advance(1, "3.46")
    refused(c, "repair", "axis", "A1-1.1", "--leadership", "0", "--dice", "2", rule="R33", words="contradicts")
    r = cli_run(c.path, "repair", "axis", "A1-1.1", "--dice", "2", "--json")
    assert r.code == 0, r.err
    drm = [(d["reason"], d["value"]) for d in json.loads(r.out)[0]["roll"]["drm"]]
    assert drm == [("leadership of I1-1.L1 (9-1) in M5", -1)]
    c.close()


def test_3_461_a_recall_takes_penalties_only(tmp_path):
    c = at_3_1(tmp_path, STUGS, {"cvp_lost": {"axis": 0, "allied": 0}, "recalled": ["axis:A1-1.1"]})
    c.advance(1, "3.461")
    refused(c, "recall", "axis", "A1-1.1", "--drm", "-5", "--dice", "3", rule="3.461", words="penalties only")
    r = cli_run(c.path, "recall", "axis", "A1-1.1", "--drm", "1", "--dice", "1")
    assert r.code == 0, r.err
    c.close()


def test_revision_2_took_the_stated_bonus(tmp_path):
    c = at_3_46_disabled(tmp_path, revision=2)
    assert cli_run(c.path, "repair", "axis", "I1-1.4", "--drm", "-4", "--dice", "3").code == 0
    roll = json.loads(cli_run(c.path, "log", "--json").out.splitlines()[-1])["roll"]
    assert [d["value"] for d in roll["drm"]] == [-4]  # the stated bonus, taken (revision 3 refuses it)
    assert (roll["final"], roll["outcome"]) == (-1, "repaired")
    c.close()


# ---- item 17: 3.52 dagger, the Casualty Reduction reaches an MMC -------------------------------------------

def at_3_52_minefield(tmp_path, revision: int | None = None) -> Campaign:
    """The Axis hold a Grenadier (1st Line) and a Fallschirmjäger (Elite) platoon and a Known minefield in M6."""
    plan = {1: {"buy": [("axis", "I1"), ("axis", "I2"), ("allied", "I1")]}}
    c = at_3_1(tmp_path, plan, {"cvp_lost": {"axis": 2, "allied": 2}, "terrain": ["M6=known_minefield:axis"]},
               revision=revision)
    c.advance(1, "3.52")
    return c


def test_3_52_an_original_6_against_a_known_minefield_reduces_an_mmc_in_the_rules_order(tmp_path):
    c = at_3_52_minefield(tmp_path)
    r = cli_run(c.path, "clear", "axis", "M6", "mines", "--dice", "6")
    assert r.code == 0 and "no effect" in r.out, r.out + r.err
    owed = [p["command"] for p in json.loads(cli_run(c.path, "status", "--json").out)["pending"]]
    assert owed == ["plcg casualties axis --reduced UNIT"]
    refused(c, "next", rule="3.52", words="casualties")
    refused(c, "casualties", "axis", "--reduced", "I1-1.1", rule="3.52", words="elite")  # an Elite MMC first
    r = cli_run(c.path, "casualties", "axis", "--reduced", "I2-1.1")
    assert r.code == 0 and "now a 2-3-8" in r.out, r.out + r.err
    assert oob(c.path, "axis", "I2-1.1")["name"] == "2-3-8"
    assert roster_ff1(c.path)["axis"] == 3  # 2 + the squad reduced to its HS (ruling R58)
    refused(c, "casualties", "axis", "--reduced", "I2-1.2", rule="3.52", words="owes")  # one MMC
    assert cli_run(c.path, "next").code == 0
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_revision_2_logged_the_reduction_and_reduced_nobody(tmp_path):
    c = at_3_52_minefield(tmp_path, revision=2)
    assert cli_run(c.path, "clear", "axis", "M6", "mines", "--dice", "6").code == 0
    assert cli_run(c.path, "next").code == 0
    assert oob(c.path, "axis", "I2-1.1")["name"] == "5-4-8"
    c.close()


# ---- item 18: 3.41, the squads Disease & Starvation strikes are ELR Replaced, Isolated ones first -----------

def at_3_41_with_an_isolated_squad(tmp_path, variant, revision: int | None = None, **card) -> Campaign:
    db = tmp_path / "d.plcg"
    args = ["new", "--card", variant(campaign={"disease": True}, **card), "--seed", "d"] + \
        (["--rules-revision", str(revision)] if revision else [])
    assert cli_run(db, *args).code == 0
    c = Campaign.attach(db, plan=INFANTRY)
    c.advance(1, "2.9")
    st = c.state()
    mc = st.map_control()
    spot = next(h for h in sorted(mc.hexes, key=st.grid().index) if mc.situation(h, "axis") == "uncontrolled")
    c.run("end", turn=5, cvp_lost={"axis": 0, "allied": 0}, position=[f"axis:I1-1.1={spot}"])
    c.advance(1, "3.2")
    c.run("option", option="A")
    to = min((h for h, hc in mc.hexes.items() if hc.cthc == "axis"), key=lambda h: st.grid().distance(spot, h))
    assert cli_run(c.path, "redeploy", "axis", "I1-1.1", "--to", to, "--dice", "6,6").code == 0  # remains: Isolated
    c.advance(1, "3.41")
    return c


def test_3_41_the_squads_struck_are_replaced_isolated_first(tmp_path, variant):
    c = at_3_41_with_an_isolated_squad(tmp_path, variant)
    assert cli_run(c.path, "disease", "allied", "--dice", "1").code == 0  # 1 squad; the Allies have 3 6-6-7
    r = cli_run(c.path, "disease", "axis", "--dice", "4")  # 2 squads
    assert r.code == 0, r.err
    owed = [p["command"] for p in json.loads(cli_run(c.path, "status", "--json").out)["pending"]]
    assert "plcg disease axis --replaced UNIT" in owed and "plcg disease allied --replaced UNIT" in owed
    refused(c, "next", rule="3.41", words="disease")
    refused(c, "disease", "axis", "--replaced", "I1-1.2", rule="3.41", words="Isolated units are chosen first")
    # I1-1.1 came out of its redeployment Reduced to a 2-4-7 HS: replaced by a 2-3-7 (A19.13), 1 of the 4 HS
    # equivalents the 2 squads make; then two squads, the second for the one HS equivalent left
    r = cli_run(c.path, "disease", "axis", "--replaced", "I1-1.1")
    assert r.code == 0 and "now a 2-3-7" in r.out, r.out + r.err
    refused(c, "disease", "axis", "--replaced", "I1-1.1", rule="3.41", words="not yet Replaced")
    assert cli_run(c.path, "disease", "axis", "--replaced", "I1-1.2").code == 0
    assert cli_run(c.path, "disease", "axis", "--replaced", "I1-1.3").code == 0
    assert cli_run(c.path, "disease", "allied", "--replaced", "I1-1.3").code == 0
    refused(c, "disease", "allied", "--replaced", "I1-1.2", rule="3.41", words="no (more)")
    axis = {u: oob(c.path, "axis", u)["name"] for u in ("I1-1.1", "I1-1.2", "I1-1.3")}
    assert axis == {"I1-1.1": "2-3-7", "I1-1.2": "4-4-7", "I1-1.3": "4-4-7"}  # the German 4-6-7 by a 4-4-7
    assert oob(c.path, "allied", "I1-1.3")["name"] == "6-6-6"
    assert cli_run(c.path, "next").code == 0
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_3_41_a_squad_with_no_lower_counter_is_disrupted_not_replaced(tmp_path, variant):
    """A19.12 (issue 39 defect 7): an Isolated German Conscript (4-3-6, its HS 2-3-6) has no lower-quality
    counter: the Disease & Starvation dr Disrupts it instead, recorded as such, and it counts for the
    squads owed; typing its own counter as the "replacement" was the only way on, logged as a Replacement."""
    c = at_3_41_with_an_isolated_squad(tmp_path, variant, axis_rg={"I1": {"units": ["3x 4-3-6", "1x LMG"]}})
    assert oob(c.path, "axis", "I1-1.1")["name"] == "2-3-6"  # the Isolated one, Reduced by its redeployment
    assert cli_run(c.path, "disease", "allied", "--dice", "1").code == 0
    assert cli_run(c.path, "disease", "axis", "--dice", "1").code == 0  # 1 squad: 2 HS equivalents
    refused(c, "disease", "axis", "--replaced", "I1-1.1=1-2-6", rule="3.41", words="A19.12 Disrupts it")
    r = cli_run(c.path, "disease", "axis", "--replaced", "I1-1.1")
    assert r.code == 0, r.err
    assert "I1-1.1 Disrupted by Disease & Starvation (3.41), not Replaced: a 2-3-6 has no lower-quality " \
        "counter (A19.12)" in r.out, r.out
    assert c.last("disease_replaced")["disrupted"] is True
    assert oob(c.path, "axis", "I1-1.1")["name"] == "2-3-6"
    r = cli_run(c.path, "disease", "axis", "--replaced", "I1-1.2=4-3-6")  # the old way on: its own counter
    assert r.code == 0 and "I1-1.2 Disrupted" in r.out and "ELR Replaced" not in r.out, r.out + r.err
    assert cli_run(c.path, "disease", "allied", "--replaced", "I1-1.3").code == 0
    assert cli_run(c.path, "next").code == 0  # 1 HS + 1 squad: the 2 HS equivalents paid
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_revision_2_named_the_squads_and_replaced_none(tmp_path, variant):
    c = at_3_41_with_an_isolated_squad(tmp_path, variant, revision=2)
    assert cli_run(c.path, "disease", "axis", "--dice", "4").code == 0
    assert cli_run(c.path, "disease", "allied", "--dice", "4").code == 0
    assert cli_run(c.path, "next").code == 0
    c.close()


# ---- item 19: 3.42 Regrouping, 3.43 one Hero at most and within the MLR --------------------------------------

def test_3_42_two_same_type_half_squads_in_one_mlr_recombine(tmp_path):
    """Two Axis squads ended the firefight reduced (`end --reduced`: 2-4-7 each), in M5 and N6, both in the
    Axis MLR: leaving 3.42 recombines them into a 4-6-7 (the RG's squad); a third HS of another type stays."""
    c = at_3_1(tmp_path, {1: {"buy": [("axis", "I1"), ("axis", "HW1"), ("allied", "I1")]}},
               {"cvp_lost": {"axis": 2, "allied": 0}, "reduced": ["axis:I1-1.1", "axis:I1-1.2"],
                "position": ["axis:I1-1.1=M5", "axis:I1-1.2=N6", "axis:HW1-1.2=M5"]})
    c.advance(1, "3.42")
    assert (oob(c.path, "axis", "I1-1.1")["name"], oob(c.path, "axis", "I1-1.2")["name"]) == ("2-4-7", "2-4-7")
    r = cli_run(c.path, "next")
    assert r.code == 0 and "I1-1.1 and I1-1.2 recombine into a 4-6-7" in r.out, r.out + r.err
    a, b = oob(c.path, "axis", "I1-1.1"), oob(c.path, "axis", "I1-1.2")
    assert (a["name"], a["kind"], b["status"]) == ("4-6-7", "squad", "recombined")
    assert oob(c.path, "axis", "HW1-1.2")["name"] == "2-4-7"  # alone of its type... and of another RG
    assert roster_ff1(c.path)["axis"] == 2  # a recombination is no loss
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_3_43_a_hero_combines_only_with_an_mmc_within_its_mlr(tmp_path):
    """The Allied Hero (of I1-1.2) was left Isolated in Uncontrolled terrain (3.216): the farm's squad I1-1.1,
    in the Allied MLR, cannot combine with it."""
    db = tmp_path / "h.plcg"
    assert cli_run(db, "new", "--card", "sample", "--seed", "h").code == 0
    c = Campaign.attach(db, plan={1: {"buy": [("axis", "I1"), ("allied", "I1")]}})
    c.advance(1, "2.9")
    st = c.state()
    mc = st.map_control()
    spot = max((h for h in sorted(mc.hexes, key=st.grid().index) if mc.situation(h, "allied") == "uncontrolled"),
               key=lambda h: mc.distance_to_mlr(h, "allied") or 0)  # no -1 for being next to the MLR
    c.run("end", turn=5, cvp_lost={"axis": 0, "allied": 0}, hero=["allied:I1-1.2"],
          position=[f"allied:I1-1.2={spot}", "allied:I1-1.1=C3"])
    c.advance(1, "3.2")
    c.run("option", option="A")
    to = min((h for h, hc in mc.hexes.items() if hc.cthc == "allied"), key=lambda h: st.grid().distance(spot, h))
    r = cli_run(c.path, "redeploy", "allied", "I1-1.2", "--to", to, "--dice", "6,6")
    assert r.code == 0 and "remains" in r.out, r.out + r.err
    c.advance(1, "3.43")
    refused(c, "harden", "allied", "I1-1.1", "--to", "7-4-7", rule="3.43", words="within that MLR")
    c.close()


def test_3_43_leaving_it_removes_the_heroes_beyond_one(tmp_path):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1"), ("allied", "I3")]}}
    c = at_3_1(tmp_path, plan, {"cvp_lost": {"axis": 0, "allied": 0},
                                "hero": ["allied:I1-1.2", "allied:I1-1.3", "allied:I3-1.1"]})
    c.advance(1, "3.43")
    assert cli_run(c.path, "harden", "allied", "I1-1.1", "--to", "7-4-7").code == 0  # with the Hero of I1-1.2
    r = cli_run(c.path, "next")
    assert r.code == 0 and "Heroes removed from play (3.43: at most one in play): I3-1.1" in r.out, r.out + r.err
    heroes = [u for u in ("I1-1.2", "I1-1.3", "I3-1.1") if "hero" in oob(c.path, "allied", u)["flags"]]
    assert heroes == ["I1-1.3"]
    assert cli_run(c.path, "audit").code == 0
    c.close()


def test_revision_2_kept_the_half_squads_and_every_hero(tmp_path):
    plan = {1: {"buy": [("axis", "I1"), ("allied", "I1")]}}
    c = at_3_1(tmp_path, plan, {"cvp_lost": {"axis": 2, "allied": 0}, "reduced": ["axis:I1-1.1", "axis:I1-1.2"],
                                "hero": ["allied:I1-1.2", "allied:I1-1.3"]}, revision=2)
    c.advance(1, "3.44")
    assert oob(c.path, "axis", "I1-1.2")["name"] == "2-4-7"
    assert all("hero" in oob(c.path, "allied", u)["flags"] for u in ("I1-1.2", "I1-1.3"))
    c.close()


# ---- ruling R14 revised: the 2.351 -1 goes with the Attack Option bought in this 2.3, in either order ---------

def oba_strength(tmp_path, name: str, order: tuple[str, ...], revision: int | None = None) -> str:
    """Firefight 2, 2.3: the Axis buy an OBA module (O1) and the Attack Option, in `order`. The OBA DR is 2+2,
    +1 for the card's Axis OBA DRM: 5, Normal; with the Attack Option's -1: 4, Plentiful (2.351)."""
    db = tmp_path / f"{name}.plcg"
    args = ["new", "--card", "sample", "--seed", "o"] + (["--rules-revision", str(revision)] if revision else [])
    assert cli_run(db, *args).code == 0
    c = Campaign.attach(db, plan=INFANTRY)
    c.advance(2, "2.3")
    assert cli_run(c.path, "buy", "axis", "O1").code == 0
    for what in order:
        args = ["attack", "axis"] if what == "attack" else ["oba", "axis", "O1", "--dice", "2,2"]
        r = cli_run(c.path, *args)
        assert r.code == 0, r.err
    r = cli_run(c.path, "purchases", "axis", "--json")
    assert cli_run(c.path, "audit").code == 0
    c.close()
    return next(p["oba"] for p in json.loads(r.out)["purchases"] if p["purchase"].startswith("O1"))


def test_r14_the_attack_option_bought_after_the_oba_dr_still_gives_its_minus_1(tmp_path):
    assert oba_strength(tmp_path, "before", ("attack", "oba")) == "plentiful"
    assert oba_strength(tmp_path, "after", ("oba", "attack")) == "plentiful"


def test_revision_2_gave_the_minus_1_only_to_an_oba_dr_made_after_the_purchase(tmp_path):
    assert oba_strength(tmp_path, "after", ("oba", "attack"), revision=2) == "normal"


def test_cg12_booby_traps_are_a_level_within_the_mlr_not_an_item_in_one_hex(tmp_path, variant):
    """CG12 / 2.38 notes 6-7 (ruling R99): each purchase "Creates Level A Booby Traps or increases preexisting
    Level to next Level", in effect within the owner's MLR; B28.9's levels end at C."""
    card = variant(campaign={"booby_traps": True}, axis_rg={"F1": {"fp": 25}})
    c = at_2_3_with_fp(tmp_path, card=card)  # 75 FP: five Booby Trap purchases' worth
    refused(c, "fortify", "axis", "booby_traps", "--hex", "M5", rule="CG12", words="not an item in one hex")
    for level in "ABC":
        r = cli_run(c.path, "fortify", "axis", "booby_traps")
        assert r.code == 0, r.err
        assert f"Axis spent 15 FP on Booby Traps: Level {level} in effect within its MLR (CG12, 2.38 n6)" in r.out, r.out
    refused(c, "fortify", "axis", "booby_traps", rule="CG12", words="Level C already")
    c.close()
    (tmp_path / "given").mkdir()  # a card that gives the Axis Level B: one purchase makes it C
    c = at_2_3_with_fp(tmp_path / "given", card=variant(campaign={"booby_traps": True},
                                                        axis={"booby_traps": "B"}))
    r = cli_run(c.path, "fortify", "axis", "booby_traps")
    assert r.code == 0 and "Level C" in r.out, r.out + r.err
    c.close()


# ---- the harness's list of what each step owes, in the rules' words (tests/conftest.py owed_at): this file's steps ----


def _disease(camp, st, live) -> list[str]:
    """3.41: Disease & Starvation, where the card calls for it: each side's dr."""
    if not st.card.campaign.disease:
        return []
    return [f"{side} Disease & Starvation dr (3.41)" for side in ("axis", "allied")
            if not any(r.type == "disease_rolled" and r.payload["side"] == side for r in live)]


owed_at("3.1",
        "End of the Battle Phase: a 1TC for each Encircled unit (3.17), a Shock/UK dr for each AFV (3.19)",
        [_per_unit("encircled", "encircled_tested", "unit", "3.17", "1TC"),
        _per_unit("shocked", "shock_resolved", "unit", "3.19", "Shock/UK dr")])


owed_at("3.3",
        "Consequences Phase: an evacuation dr for each wounded leader but a Japanese one (3.32); fire"
        " (3.31) and TVP (3.33) are recorded by `next`",
        [_per_unit("wounded", "evacuation_rolled", "leader", "3.32", "evacuation dr", _not_japanese_present)])


owed_at("3.41",
        "Disease & Starvation, where the card calls for it: each side's dr (3.41)",
        [_disease])


owed_at("3.42",
        "Regrouping: the half-squads recombine as `next` records it (3.42)",
        [])


owed_at("3.43",
        "Heroes and Heroic Leaders: the hardening the players choose; heroes beyond one removed by"
        " `next` (3.43)",
        [])


owed_at("3.44",
        "Bravery and Battlefield Promotions: each side's dr (3.44)",
        [("promotion_rolled", True, "3.44")])


owed_at("3.45",
        "Leader Generation/Improvement: each side's dr (3.45)",
        [("leaders_rolled", True, "3.45")])


owed_at("3.461",
        "Removing Stun, Reclaiming Recalled Vehicles: a dr for each recalled vehicle (3.461)",
        [_per_unit("recalled", "recall_rolled", "unit", "3.461", "recall dr", _still_recalled)])


owed_at("3.47",
        "ELR Loss/Gain: each side's DR (3.47)",
        [("elr_rolled", True, "3.47")])


owed_at("3.51",
        "SAN Adjustment into 2..4: recorded by `next` (3.51)",
        [])


owed_at("3.52",
        "Fortification Clearance: the attempts the players choose; a Casualty Reduction a clearance"
        " owes (3.52 dagger: tests/test_reph_rules.py)",
        [])
