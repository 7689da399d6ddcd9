"""Every row boundary of every table against the rules' own numbers (typed from the rules text,
not from cg/tables.py). Row labels read by ruling R1: "<2" = 2 or less, ">12" = 12 or more."""
from __future__ import annotations

import pytest

from cg import tables as t
from cg.tables import Hit

# --- 2.12 CP Replenishment -----------------------------------------------------------------------
CP_ROWS = [
    # final, row, low, mid, high
    (-3, "<2", 16, 25, 34),
    (0, "<2", 16, 25, 34),
    (1, "<2", 16, 25, 34),
    (2, "<2", 16, 25, 34),
    (3, "3", 15, 24, 33),
    (4, "4", 14, 23, 32),
    (5, "5", 13, 22, 31),
    (6, "6", 12, 21, 30),
    (7, "7", 12, 20, 29),
    (8, "8", 12, 19, 28),
    (9, "9", 11, 18, 27),
    (10, "10", 10, 17, 26),
    (11, "11", 9, 16, 25),
    (12, ">12", 8, 15, 24),
    (13, ">12", 8, 15, 24),
    (20, ">12", 8, 15, 24),
]


@pytest.mark.parametrize("final,row,low,mid,high", CP_ROWS)
def test_cp_replenishment_2_12(final, row, low, mid, high):
    assert t.cp_replenishment(final, "low") == Hit("2.12", row, low)
    assert t.cp_replenishment(final, "mid") == Hit("2.12", row, mid)
    assert t.cp_replenishment(final, "high") == Hit("2.12", row, high)


@pytest.mark.parametrize("bad", ["LOW", "extreme", None])
def test_cp_replenishment_unknown_intensity(bad):
    with pytest.raises(ValueError):
        t.cp_replenishment(7, bad)


@pytest.mark.parametrize("bad", [7.0, "7", True, None])
def test_lookup_needs_a_whole_number(bad):
    with pytest.raises(ValueError):
        t.oba_strength(bad)


def test_constants_2_3_2_31():
    assert t.PATROLS_PER_REPH == {"low": 1, "mid": 2, "high": 3}
    assert t.PATROL_COST == 1
    assert t.MAX_INFANTRY_PLATOONS == 3
    assert t.RESERVE_MIN_HEXES == 7


# --- 2.33 / 2.34 setup ---------------------------------------------------------------------------
@pytest.mark.parametrize("rg_id,expected", [
    ("I1", "I"), ("i12", "I"), ("HW3", "HW"), ("hw10", "HW"), ("G2", "G"), ("A4", "A"), ("V1", "V"),
    ("O1", "O"), ("F2", "F"), ("FP", "FP"), ("AS1", "AS"),
])
def test_rg_type(rg_id, expected):
    assert t.rg_type(rg_id) == expected


def test_reserve_types_2_33():
    assert t.RESERVE_TYPES == frozenset({"I", "G", "HW", "A"})
    assert [t.may_reserve(i) for i in ("I1", "G1", "HW1", "A1", "V1", "O1", "F1")] == [
        True, True, True, True, False, False, False]


SETUP = [
    # kind, id, mode, base, cost, delta
    ("infantry", "I1", "on-map", 4, 5, +1),
    ("infantry", "I1", "reserve", 4, 3, -1),
    ("infantry", "I1", "entry", 4, 4, 0),
    ("gun", "G1", "on-map", 3, 3, 0),
    ("gun", "G1", "reserve", 3, 2, -1),
    ("gun", "G1", "entry", 3, 3, 0),
    ("heavy_weapons", "HW1", "on-map", 3, 3, 0),  # ruling R8
    ("heavy_weapons", "HW1", "reserve", 3, 2, -1),  # ruling R8
    ("heavy_weapons", "HW1", "entry", 3, 3, 0),
    ("afv", "A1", "on-map", 6, 8, +2),
    ("afv", "A1", "reserve", 6, 5, -1),
    ("afv", "A1", "entry", 6, 6, 0),
    ("vehicle", "V1", "on-map", 2, 4, +2),
    ("vehicle", "V1", "reserve", 2, 1, -1),
    ("vehicle", "V1", "entry", 2, 2, 0),
    ("oba", "O1", "on-map", 5, 5, 0),
    ("oba", "O1", "reserve", 5, 5, 0),
    ("fortification_points", "F1", "on-map", 2, 2, 0),
    ("air", "AS1", "on-map", 3, 3, 0),
    # never below 1 (2.34)
    ("infantry", "I2", "reserve", 1, 1, 0),
    ("gun", "G2", "reserve", 1, 1, 0),
    ("heavy_weapons", "HW2", "reserve", 1, 1, 0),
    ("afv", "A2", "reserve", 1, 1, 0),
    # the id prefix decides; the kind is the fallback for an id without a 2.34 type
    ("gun", "I3", "on-map", 4, 5, +1),
    ("infantry", "X1", "on-map", 4, 5, +1),
    ("afv", "Z9", "on-map", 4, 6, +2),
    ("other", "Q1", "on-map", 4, 4, 0),
]


@pytest.mark.parametrize("kind,rg_id,mode,base,cost,delta", SETUP)
def test_setup_cost_2_34(kind, rg_id, mode, base, cost, delta):
    assert t.setup_cost(kind, rg_id, mode, base) == (cost, delta)


@pytest.mark.parametrize("mode", ["on-map", "reserve", "entry"])
@pytest.mark.parametrize("rg_id", ["I1", "G1", "HW1", "A1", "V1", "O1"])
@pytest.mark.parametrize("base", [1, 2, 3])
def test_setup_cost_never_below_one(mode, rg_id, base):
    cost, delta = t.setup_cost("other", rg_id, mode, base)
    assert cost >= 1
    assert cost == base + delta


@pytest.mark.parametrize("mode,base", [("onmap", 3), ("in reserve", 3), ("entry", -1)])
def test_setup_cost_bad_input(mode, base):
    with pytest.raises(ValueError):
        t.setup_cost("infantry", "I1", mode, base)


# --- 2.351 OBA -----------------------------------------------------------------------------------
@pytest.mark.parametrize("final,row,strength", [
    (-2, "<4", "plentiful"), (2, "<4", "plentiful"), (4, "<4", "plentiful"),
    (5, "5-10", "normal"), (7, "5-10", "normal"), (10, "5-10", "normal"),
    (11, ">11", "scarce"), (12, ">11", "scarce"), (15, ">11", "scarce"),
])
def test_oba_2_351(final, row, strength):
    assert t.oba_strength(final) == Hit("2.351", row, strength)


def test_max_oba_modules_cg4():
    assert t.MAX_OBA_MODULES == 2


# --- 2.361 leaders -------------------------------------------------------------------------------
LEADERS = [
    # final, row, general, japanese, finnish, armor
    (-1, "<2", "10-2", "10-1", "10-1", "10-2"),
    (2, "<2", "10-2", "10-1", "10-1", "10-2"),
    (3, "3", "9-2", "10-0", "10-0", "9-2"),
    (4, "4", "9-1", "9-1", "9-1", "9-1"),
    (5, "5-6", "8-1", "9-0", "9-1", "8-1"),
    (6, "5-6", "8-1", "9-0", "9-1", "8-1"),
    (7, "7-8", "8-0", "8-0", "9-0", None),
    (8, "7-8", "8-0", "8-0", "9-0", None),
    (9, "9-10", "7-0", "8+1", "8-0", None),
    (10, "9-10", "7-0", "8+1", "8-0", None),
    (11, ">11", "6+1", "8+1", None, None),
    (12, ">11", "6+1", "8+1", None, None),
    (16, ">11", "6+1", "8+1", None, None),
]


@pytest.mark.parametrize("final,row,general,japanese,finnish,armor", LEADERS)
def test_leader_2_361(final, row, general, japanese, finnish, armor):
    for column, expected in zip(("general", "japanese", "finnish", "armor"), (general, japanese, finnish, armor)):
        assert t.leader(final, column) == Hit("2.361", row, expected)


def test_commissar_rows_2_361():
    assert t.COMMISSAR_ROWS == frozenset({"5-6", "7-8"})


@pytest.mark.parametrize("nationality,armor,column", [
    ("german", False, "general"), ("russian", False, "general"), ("American", False, "general"),
    ("japanese", False, "japanese"), ("Japanese", False, "japanese"),
    ("finnish", False, "finnish"), ("finn", False, "finnish"),
    ("japanese", True, "armor"), ("german", True, "armor"), ("finnish", True, "armor"),
])
def test_leader_column(nationality, armor, column):
    assert t.leader_column(nationality, armor) == column
    assert column in t.LEADER_COLUMNS


def test_leader_columns_order():
    assert t.LEADER_COLUMNS == ("general", "japanese", "finnish", "armor")


@pytest.mark.parametrize("column,order", [
    ("general", ("10-2", "9-2", "9-1", "8-1", "8-0", "7-0", "6+1")),
    ("japanese", ("10-1", "10-0", "9-1", "9-0", "8-0", "8+1")),
    ("finnish", ("10-1", "10-0", "9-1", "9-0", "8-0")),
    ("armor", ("10-2", "9-2", "9-1", "8-1")),
])
def test_leader_order(column, order):
    assert t.leader_order(column) == order


DEMOTIONS = [
    # rolled, column, taken, result                         2.362 + ruling R9
    ("10-2", "general", {}, "10-2"),
    ("10-2", "general", {"10-2": 1}, "9-2"),
    ("10-2", "general", {"10-2": 1, "9-2": 1}, "9-1"),
    ("9-2", "general", {"9-2": 1}, "9-1"),
    ("9-2", "general", {"10-2": 1}, "9-2"),
    ("9-2", "general", {"9-2": 0}, "9-2"),
    ("9-1", "general", {"9-1": 3, "10-2": 1, "9-2": 1}, "9-1"),  # below the top two: unlimited
    ("6+1", "general", {"6+1": 5}, "6+1"),
    (None, "general", {"10-2": 1}, None),
    # the 2.362 example: Japanese 1x10-1, 1x10-0; armor 1x10-2, 1x9-2
    ("10-1", "japanese", {"10-1": 1}, "10-0"),
    ("10-1", "japanese", {"10-1": 1, "10-0": 1}, "9-1"),
    ("10-0", "japanese", {"10-0": 1}, "9-1"),
    ("10-2", "armor", {"10-2": 1}, "9-2"),
    ("10-2", "armor", {"10-2": 1, "9-2": 1}, "9-1"),
    ("9-2", "armor", {"9-2": 1}, "9-1"),
    ("10-1", "finnish", {"10-1": 1, "10-0": 1}, "9-1"),
    ("9-1", "finnish", {"9-1": 2}, "9-1"),
]


@pytest.mark.parametrize("rolled,column,taken,result", DEMOTIONS)
def test_demote_2362(rolled, column, taken, result):
    assert t.demote_2362(rolled, column, taken) == result


def test_demote_2362_unknown_leader():
    with pytest.raises(ValueError):
        t.demote_2362("10-3", "general", {})
    with pytest.raises(ValueError):
        t.demote_2362("7-0", "armor", {})


@pytest.mark.parametrize("nationality,year,drm", [
    ("german", 1939, -1), ("german", 1944, -1), ("german", 1945, +1), ("German", 1943, -1),
    ("american", 1944, 0), ("us", 1945, 0), ("british", 1942, 0),
    ("russian", 1944, +1), ("japanese", 1942, +1), ("finnish", 1941, +1), ("italian", 1942, +1),
])
def test_legacy_leader_drm(nationality, year, drm):
    assert t.legacy_leader_drm(nationality, year) == drm


# --- 2.38 Fortification Points -------------------------------------------------------------------
FIXED = [
    ("sangar", 2), ("dummy", 1), ("roadblock", 12), ("wire", 10), ("tunnel", 20), ("booby_traps", 15),
    ("at_ditch", 18), ("set_dc", 25), ("cave", 15), ("cave_complex", 7), ("tetrahedrons", 15),
    ("trip_flares", 1),
]


@pytest.mark.parametrize("kind,cost", FIXED)
def test_fortification_fixed_costs(kind, cost):
    assert t.fortification_cost(kind) == cost


@pytest.mark.parametrize("kwargs,cost", [
    (dict(kind="foxhole", capacity=3), 3),  # n1
    (dict(kind="foxhole", capacity=2), 2),
    (dict(kind="foxhole", capacity=1), 1),
    (dict(kind="hip", unit="afv"), 5),  # n3
    (dict(kind="hip", unit="squad"), 3),
    (dict(kind="hip", unit="hs"), 2),
    (dict(kind="hip", unit="crew"), 2),
    (dict(kind="hip", unit="smc"), 1),
    (dict(kind="ap_mine", factors=1), 2),  # n7
    (dict(kind="ap_mine", factors=6), 12),
    (dict(kind="at_mine", factors=1), 5),
    (dict(kind="at_mine", factors=4), 20),
    (dict(kind="panji", hexsides=1), 2),
    (dict(kind="panji", hexsides=3), 6),
    (dict(kind="pillbox", capacity=1, ca=7, nca=5), 12),  # n4: 1+5+7
    (dict(kind="pillbox", capacity=2, ca=5, nca=3), 16),  # n4: 2+3+5
    (dict(kind="pillbox", capacity=3, ca=5, nca=3), 24),
    (dict(kind="fortified_building"), 12),  # n5
    (dict(kind="fortified_building", locations=3), 36),
    # ruling: known minefield = 0.8 x A-P cost of the factors, FRU
    (dict(kind="known_minefield", factors=1), 2),  # 1.6
    (dict(kind="known_minefield", factors=2), 4),  # 3.2
    (dict(kind="known_minefield", factors=5), 8),  # 8.0
    (dict(kind="known_minefield", factors=6), 10),  # 9.6
    (dict(kind="known_minefield", factors=6, unit="at"), 24),  # 0.8 x 30
    (dict(kind="known_minefield", factors=3, unit="at"), 12),
])
def test_fortification_cost_by_note(kwargs, cost):
    kind = kwargs.pop("kind")
    assert t.fortification_cost(kind, **kwargs) == cost


@pytest.mark.parametrize("kind,kwargs", [
    ("foxhole", {}), ("foxhole", {"capacity": 4}), ("foxhole", {"capacity": 0}),
    ("hip", {}), ("hip", {"unit": "tank"}),
    ("ap_mine", {}), ("ap_mine", {"factors": 0}), ("at_mine", {"factors": -2}),
    ("panji", {}), ("panji", {"hexsides": 0}),
    ("pillbox", {"capacity": 1, "ca": 7}), ("pillbox", {"ca": 7, "nca": 5}),
    ("fortified_building", {"locations": 0}),
    ("known_minefield", {}), ("known_minefield", {"factors": 2, "unit": "xx"}),
    ("dummy_minefield", {}), ("dummy_minefield", {"factors": 3}),
    ("trench", {}),
])
def test_fortification_cost_refuses_missing_or_bad(kind, kwargs):
    with pytest.raises(ValueError):
        t.fortification_cost(kind, **kwargs)


def test_dummy_minefield_message():
    with pytest.raises(ValueError, match="F.7B"):
        t.fortification_cost("dummy_minefield")


ISOLATED = {"foxhole", "sangar", "dummy", "fortified_building"}  # note I
INITIAL = {"pillbox", "tunnel", "at_ditch", "known_minefield", "cave", "cave_complex", "tetrahedrons", "panji"}  # S


def test_fortification_table_kinds_and_flags():
    assert set(t.FORTIFICATIONS) == {
        "foxhole", "sangar", "dummy", "hip", "roadblock", "wire", "pillbox", "fortified_building", "tunnel",
        "booby_traps", "at_ditch", "ap_mine", "at_mine", "set_dc", "known_minefield", "dummy_minefield", "cave",
        "cave_complex", "tetrahedrons", "panji", "trip_flares"}
    assert {k for k, f in t.FORTIFICATIONS.items() if f.isolated_ok} == ISOLATED
    assert {k for k, f in t.FORTIFICATIONS.items() if f.initial_only} == INITIAL
    for kind, f in t.FORTIFICATIONS.items():
        assert f.kind == kind
        assert f.note.startswith("2.38")


@pytest.mark.parametrize("kind,note", [
    ("foxhole", "n1"), ("dummy", "n2"), ("hip", "n3"), ("pillbox", "n4"), ("fortified_building", "n5"),
    ("booby_traps", "n6"), ("ap_mine", "n7"), ("at_mine", "n7"), ("set_dc", "n8"), ("cave_complex", "n9"),
])
def test_fortification_notes(kind, note):
    assert note in t.FORTIFICATIONS[kind].note


@pytest.mark.parametrize("squads,japanese,night,limit", [
    (0, False, False, 0), (9, False, False, 0), (10, False, False, 1), (19, False, False, 1),
    (20, False, False, 2), (35, False, False, 3),
    (4, True, False, 0), (5, True, False, 1), (9, True, False, 1), (10, True, False, 2), (14, True, False, 2),
    (15, True, False, 3),
    (12, False, True, None), (12, True, True, None),
])
def test_hip_limit_note_3(squads, japanese, night, limit):
    assert t.hip_limit(squads, japanese, night) == limit


def test_caves_per_complex_note_9():
    assert t.CAVES_PER_COMPLEX == 4


# --- 2.41 Dual Attack ----------------------------------------------------------------------------
@pytest.mark.parametrize("dr,side", [(1, "axis"), (2, "axis"), (3, "axis"), (4, "allied"), (5, "allied"),
                                     (6, "allied")])
def test_dual_first_2_41(dr, side):
    assert t.dual_first(dr) == side


@pytest.mark.parametrize("dr", [0, 7, -1])
def test_dual_first_needs_a_die(dr):
    with pytest.raises(ValueError):
        t.dual_first(dr)


# --- 2.74 Patrols --------------------------------------------------------------------------------
@pytest.mark.parametrize("final,row,result", [
    (2, "<7", "mission"), (7, "<7", "mission"),
    (8, "8-9", "compromised"), (9, "8-9", "compromised"),
    (10, "10-11", "reduced"), (11, "10-11", "reduced"),
    (12, "12-13", "kia_returned"), (13, "12-13", "kia_returned"),
    (14, ">14", "kia"), (18, ">14", "kia"),
])
def test_patrol_detection_2_74(final, row, result):
    assert t.patrol_detection(final) == Hit("2.74", row, result)


@pytest.mark.parametrize("final,row,result", [
    (0, "<8", "safe"), (8, "<8", "safe"),
    (9, "9", "prisoners_lost"),
    (10, "10-12", "reduced"), (12, "10-12", "reduced"),
    (13, "13", "kia"),
    (14, ">14", "captured"), (17, ">14", "captured"),
])
def test_patrol_return_2_74(final, row, result):
    assert t.patrol_return(final) == Hit("2.74 return", row, result)


# --- 3.21 Redeployment ---------------------------------------------------------------------------
@pytest.mark.parametrize("final,row,infantry,vehicle", [
    (1, "<9", "redeploys", "redeploys"),
    (9, "<9", "redeploys", "redeploys"),
    (10, "10", "redeploys_replaced", "redeploys"),
    (11, "11", "redeploys_reduced", "remains"),
    (12, "12-13", "remains_reduced", "eliminated_cs_na"),
    (13, "12-13", "remains_reduced", "eliminated_cs_na"),
    (14, ">14", "eliminated", "eliminated_cs_na"),
    (19, ">14", "eliminated", "eliminated_cs_na"),
])
def test_redeployment_3_21(final, row, infantry, vehicle):
    assert t.redeployment(final, "infantry") == Hit("3.21", row, infantry)
    assert t.redeployment(final, "vehicle") == Hit("3.21", row, vehicle)


def test_redeployment_original_2_note_1():
    assert t.redeployment(16, "infantry", (1, 1)) == Hit("3.21", "orig 2", "redeploys")
    # note 1 is the infantry column's; other original DRs use the final DR
    assert t.redeployment(16, "vehicle", (1, 1)) == Hit("3.21", ">14", "eliminated_cs_na")
    assert t.redeployment(14, "infantry", (1, 2)) == Hit("3.21", ">14", "eliminated")


@pytest.mark.parametrize("original", [(0, 1), (1, 7), (1,), (1, 1, 1)])
def test_redeployment_bad_original(original):
    with pytest.raises(ValueError):
        t.redeployment(5, "infantry", original)


def test_redeployment_bad_column():
    with pytest.raises(ValueError):
        t.redeployment(5, "afv")


# --- 3.32 Evacuation -----------------------------------------------------------------------------
@pytest.mark.parametrize("dr,row,result", [
    (1, "<2", "remains"), (2, "<2", "remains"), (3, ">3", "evacuated"), (6, ">3", "evacuated"),
])
def test_evacuation_3_32(dr, row, result):
    assert t.evacuation(dr) == Hit("3.32", row, result)


# --- 3.41 Disease & Starvation -------------------------------------------------------------------
@pytest.mark.parametrize("final,row,squads", [
    (0, "<3", 1), (3, "<3", 1), (4, "4-6", 2), (6, "4-6", 2), (7, ">7", 3), (9, ">7", 3),
])
def test_disease_3_41(final, row, squads):
    assert t.disease(final) == Hit("3.41", row, squads)


# --- 3.44 Battlefield Promotion ------------------------------------------------------------------
@pytest.mark.parametrize("final,row,mmc", [
    (-3, "<0", 4), (0, "<0", 4), (1, "1", 3), (2, "2-3", 2), (3, "2-3", 2),
    (4, "4-5", 1), (5, "4-5", 1), (6, ">6", 0), (8, ">6", 0),
])
def test_promotion_3_44(final, row, mmc):
    assert t.promotion(final) == Hit("3.44", row, mmc)


def test_promotion_3_45_example():
    # 3.45 EX: dr 3, +2, -2 Historical, -1 won -> final 2 -> "2"
    assert t.promotion(3 + 2 - 2 - 1).result == 2


# --- 3.46 Repair ---------------------------------------------------------------------------------
def test_repair_thresholds():
    assert t.REPAIR == {"malfunction": 5, "low_ammo": 5, "disabled": 2, "immobilized": 2, "captured_sw": 3}


@pytest.mark.parametrize("kind,final,row,result", [
    ("malfunction", 0, "<5", "repaired"), ("malfunction", 5, "<5", "repaired"), ("malfunction", 6, ">6", "failed"),
    ("low_ammo", 5, "<5", "repaired"), ("low_ammo", 6, ">6", "failed"),
    ("disabled", 2, "<2", "repaired"), ("disabled", 3, ">3", "failed"), ("disabled", 1, "<2", "repaired"),
    ("immobilized", 2, "<2", "repaired"), ("immobilized", 3, ">3", "failed"), ("immobilized", 7, ">3", "failed"),
    ("captured_sw", 3, "<3", "kept"), ("captured_sw", 4, ">4", "removed"), ("captured_sw", 1, "<3", "kept"),
])
def test_repair_3_46(kind, final, row, result):
    assert t.repair(final, kind) == Hit("3.46", row, result)


def test_repair_unknown_item():
    with pytest.raises(ValueError):
        t.repair(1, "broken")


# --- 3.461 Recall --------------------------------------------------------------------------------
@pytest.mark.parametrize("final,row,result", [
    (0, "<2", "returned"), (2, "<2", "returned"), (3, ">3", "eliminated"), (6, ">3", "eliminated"),
])
def test_recall_3_461(final, row, result):
    assert t.recall(final) == Hit("3.461", row, result)


# --- 3.47 ELR ------------------------------------------------------------------------------------
ELR = [
    # final, elr, five_lost, row, new
    (-2, 2, False, "<3", 3),
    (3, 2, False, "<3", 3),
    (3, 0, False, "<3", 1),
    (3, 3, False, "<3", 4),
    (3, 4, False, "<3", 4),  # max 4
    (3, 4, True, "<3", 4),  # never back to 5
    (3, 5, False, "<3", 5),  # ruling R13: an increase never lowers ELR
    (4, 3, False, "4-12", 3),
    (12, 3, False, "4-12", 3),
    (8, 5, False, "4-12", 5),
    (13, 3, False, ">13", 2),
    (13, 0, False, ">13", 0),  # min 0
    (13, 1, True, ">13", 0),
    (13, 5, False, ">13", 4),  # ruling R13
    (17, 4, True, ">13", 3),
]


@pytest.mark.parametrize("final,elr,five_lost,row,new", ELR)
def test_elr_change_3_47(final, elr, five_lost, row, new):
    assert t.elr_change(final, elr, five_lost) == Hit("3.47", row, new)


@pytest.mark.parametrize("elr,five_lost", [(6, False), (-1, False), (5, True)])
def test_elr_change_bad_elr(elr, five_lost):
    with pytest.raises(ValueError):
        t.elr_change(8, elr, five_lost)


# --- 3.51 SAN ------------------------------------------------------------------------------------
@pytest.mark.parametrize("san,new", [(0, 2), (1, 2), (2, 2), (3, 3), (4, 4), (5, 4), (7, 4)])
def test_san_adjust_3_51(san, new):
    assert t.san_adjust(san) == new


# --- 3.52 Clearance ------------------------------------------------------------------------------
@pytest.mark.parametrize("final,row,result", [
    (-1, "1-3", "eliminated"), (0, "1-3", "eliminated"), (1, "1-3", "eliminated"), (3, "1-3", "eliminated"),
    (4, ">4", "no effect"), (6, ">4", "no effect"), (7, ">4", "no effect"),
])
def test_clearance_3_52(final, row, result):
    assert t.clearance(final) == Hit("3.52", row, result)


def test_clearable_items():
    assert set(t.CLEARABLE) == {"rubble", "mines", "wire", "roadblock", "set_dc", "flame", "panji"}
    for item, c in t.CLEARABLE.items():
        assert c.item == item and c.on_success


@pytest.mark.parametrize("original,item,cr", [
    (6, "mines", True), (6, "panji", True), (5, "mines", False), (6, "wire", False), (6, "rubble", False),
    (1, "panji", False),
])
def test_clearance_casualty_reduction_3_52(original, item, cr):
    assert t.clearance_cr(original, item) is cr


def test_clearance_stops_location_3_52():
    fail, ok = t.clearance(5), t.clearance(2)
    assert t.clearance_stops_location("mines", fail) is True
    assert t.clearance_stops_location("mines", ok) is False
    assert t.clearance_stops_location("mines", fail, ap_mines=False) is False
    assert t.clearance_stops_location("wire", fail) is False
    with pytest.raises(ValueError):
        t.clearance_stops_location("trench", fail)


# --- B24.11 / B24.12 rubble ----------------------------------------------------------------------
@pytest.mark.parametrize("dr,stone,kia,created", [
    (1, False, 1, True), (2, False, 1, False),
    (1, True, 2, True), (2, True, 2, False),  # B24.11 EX: 3KIA, stone, dr 1-2 rubbles
    (2, True, 3, True), (3, True, 3, False),
    (3, False, 3, True), (4, False, 3, False),
    (6, False, 6, True), (1, False, 0, False),
])
def test_rubble_created_b24_11(dr, stone, kia, created):
    assert t.rubble_created(dr, stone, kia) is created


@pytest.mark.parametrize("colored,levels,falls", [
    (6, 0, False), (6, 1, True), (5, 1, False), (5, 2, True),  # B24.12 EX: colored 5, +2 falls
    (4, 3, True), (3, 3, False), (1, 6, True),
])
def test_falling_rubble_b24_12(colored, levels, falls):
    assert t.falling_rubble(colored, levels) is falls


# --- the tables themselves -----------------------------------------------------------------------
def test_rows_must_be_contiguous():
    with pytest.raises(ValueError):
        t.Table("x", ("result",), (("<2", (1,)), ("4", (2,))))
    with pytest.raises(ValueError):
        t.Table("x", ("a", "b"), (("<2", (1,)),))


def test_hit_is_a_frozen_value():
    hit = t.oba_strength(7)
    with pytest.raises(AttributeError):
        hit.result = "scarce"


def test_multi_column_table_needs_a_column():
    with pytest.raises(ValueError):
        t.CP_REPLENISHMENT.lookup(7)
    with pytest.raises(ValueError):
        t.leader_order("russian")


@pytest.mark.parametrize("label", ["", "x", "<", "2-", "<=2"])
def test_row_label_must_be_a_range(label):
    with pytest.raises(ValueError):
        t.Table("x", ("result",), ((label, (1,)),))


def test_hip_limit_negative_squads():
    with pytest.raises(ValueError):
        t.hip_limit(-1, False, False)


def test_clearance_cr_unknown_item():
    with pytest.raises(ValueError):
        t.clearance_cr(6, "trench")
