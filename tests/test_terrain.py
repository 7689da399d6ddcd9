"""CG5 terrain changes: B24.11/B24.12 rubble and the 3.31/3.311 fire step."""
from __future__ import annotations

import pytest

from cg.terrain import direction_of, resolve_3_31, resolve_rubble

# A toy neighbour map: hex "X" has neighbours "X1".."X6" by direction; "EDGE" has none (off map).
def neighbour(hex: str, direction: int) -> str | None:
    return None if hex == "EDGE" else f"{hex}{direction}"


@pytest.mark.parametrize("white", [1, 2, 3, 4, 5, 6])
def test_direction_of(white):
    assert direction_of(white) == white


@pytest.mark.parametrize("white", [0, 7, True, "3"])
def test_direction_of_bad(white):
    with pytest.raises(ValueError):
        direction_of(white)


def test_ground_level_rubble_created():
    r = resolve_rubble("B5", kia=3, stone=False, level=0, dice=(3,), neighbour=neighbour)
    assert (r.created, r.fell, r.fell_into, r.direction) == (True, False, None, None)
    assert r.changes == (("B5", "rubble"),)


def test_ground_level_stone_not_created():
    r = resolve_rubble("B5", kia=3, stone=True, level=0, dice=(3,), neighbour=neighbour)
    assert (r.created, r.fell, r.levels) == (False, False, 0)
    assert r.changes == ()


def test_upper_level_rubble_falls():
    # B24.12 EX shape: two levels rubbled (+2), colored 5 -> 7 falls; white 3 gives the direction
    r = resolve_rubble("J8", kia=4, stone=True, level=1, dice=(2, 3, 5), neighbour=neighbour, top_level=2)
    assert (r.created, r.fell, r.direction, r.fell_into, r.off_map) == (True, True, 3, "J83", False)
    assert r.levels == 2
    assert r.changes == (("J8", "rubble"), ("J83", "rubble"))


def test_upper_level_rubble_does_not_fall():
    r = resolve_rubble("J8", kia=4, stone=False, level=1, dice=(4, 3, 5), neighbour=neighbour)
    assert (r.created, r.fell, r.fell_into) == (True, False, None)  # colored 5 + 1 level = 6
    assert r.levels == 1
    assert r.changes == (("J8", "rubble"),)


def test_upper_level_single_level_colored_6_falls():
    r = resolve_rubble("J8", kia=4, stone=False, level=1, dice=(1, 6, 6), neighbour=neighbour)
    assert (r.fell, r.direction, r.fell_into) == (True, 6, "J86")


def test_ground_level_of_a_two_level_building_counts_levels_above_ground():
    # rubbled from ground level up, levels 1 and 2 above ground: +2
    r = resolve_rubble("K9", kia=2, stone=False, level=0, dice=(1, 2, 5), neighbour=neighbour, top_level=2)
    assert (r.fell, r.fell_into, r.levels) == (True, "K92", 2)
    r = resolve_rubble("K9", kia=2, stone=False, level=0, dice=(1, 2, 4), neighbour=neighbour, top_level=2)
    assert (r.created, r.fell) == (True, False)


def test_rubble_falls_off_map():
    r = resolve_rubble("EDGE", kia=5, stone=False, level=2, dice=(1, 4, 6), neighbour=neighbour)
    assert (r.created, r.fell, r.direction, r.fell_into, r.off_map) == (True, True, 4, None, True)
    assert r.changes == (("EDGE", "rubble"),)


def test_no_fall_when_not_created():
    r = resolve_rubble("J8", kia=1, stone=True, level=2, dice=(1, 6, 6), neighbour=neighbour)
    assert (r.created, r.fell, r.changes) == (False, False, ())


@pytest.mark.parametrize("level,top,dice", [
    (0, None, (1, 2, 3)),  # ground-level one-storey: one die only
    (1, None, (1,)),  # upper level: three dice
    (1, None, (1, 7, 3)),
    (0, None, (0,)),
    (-1, None, (1,)),
    (2, 1, (1, 2, 3)),  # top below the rubbled level
])
def test_resolve_rubble_bad_input(level, top, dice):
    with pytest.raises(ValueError):
        resolve_rubble("A1", kia=3, stone=False, level=level, dice=dice, neighbour=neighbour, top_level=top)


# --- 3.31 / 3.311 --------------------------------------------------------------------------------
# A line of hexes A-B-C-D-E plus W (water, not burnable) next to C.
ADJ = {
    "A": ["B"], "B": ["A", "C"], "C": ["B", "D", "W"], "D": ["C", "E"], "E": ["D"], "W": ["C"],
}


def nbrs(h: str) -> list[str]:
    return ADJ.get(h, [])


def test_same_date_flame_becomes_blaze_and_does_not_spread():
    changes = resolve_3_31({"C": ["flame"]}, set(), True, nbrs)
    assert changes == [("C", "remove", "flame"), ("C", "add", "blaze")]


def test_same_date_blaze_spreads_and_building_becomes_rubble():
    changes = resolve_3_31({"C": ["blaze"], "D": ["flame"]}, {"C"}, True, nbrs)
    assert changes == [
        ("D", "remove", "flame"), ("D", "add", "blaze"),  # flipped; gets no extra Flame
        ("C", "remove", "blaze"), ("C", "add", "rubble"),
        ("B", "add", "flame"), ("W", "add", "flame"),  # W burnable by default (no predicate)
    ]


def test_same_date_non_building_blaze_leaves_open_ground():
    changes = resolve_3_31({"C": ["blaze"]}, set(), True, nbrs, burnable=lambda h: h != "W")
    assert changes == [
        ("C", "remove", "blaze"), ("C", "add", "cleared_open_ground"),
        ("B", "add", "flame"), ("D", "add", "flame"),
    ]


def test_not_same_date_flame_is_a_blaze_already():
    changes = resolve_3_31({"C": ["flame"]}, set(), False, nbrs, burnable=lambda h: h != "W")
    assert changes == [
        ("C", "remove", "flame"), ("C", "add", "cleared_open_ground"),
        ("B", "add", "flame"), ("D", "add", "flame"),
    ]
    assert ("C", "add", "blaze") not in changes


def test_adjacent_blazes_do_not_relight_each_other():
    changes = resolve_3_31({"B": ["blaze"], "C": ["blaze"]}, {"B", "C"}, True, nbrs,
                           burnable=lambda h: h != "W")
    assert ("B", "add", "flame") not in changes and ("C", "add", "flame") not in changes
    assert ("A", "add", "flame") in changes and ("D", "add", "flame") in changes
    assert changes.count(("D", "add", "flame")) == 1
    assert ("B", "add", "rubble") in changes and ("C", "add", "rubble") in changes


def test_flame_spreads_once_into_a_hex_between_two_blazes():
    changes = resolve_3_31({"B": ["blaze"], "D": ["blaze"]}, set(), True, nbrs)
    assert changes.count(("C", "add", "flame")) == 1


def test_no_flame_into_burnt_out_open_ground():
    changes = resolve_3_31({"C": ["blaze"], "D": ["cleared_open_ground"]}, set(), True, nbrs)
    assert ("D", "add", "flame") not in changes
    assert ("B", "add", "flame") in changes


def test_burnt_out_rubble_stays_rubble():
    changes = resolve_3_31({"C": ["blaze", "rubble"]}, set(), True, nbrs)
    assert ("C", "remove", "blaze") in changes
    assert ("C", "add", "cleared_open_ground") not in changes
    assert ("C", "add", "rubble") not in changes


def test_building_already_rubbled_gets_no_second_rubble():
    changes = resolve_3_31({"C": ["blaze", "rubble"]}, {"C"}, True, nbrs)
    assert ("C", "add", "rubble") not in changes


def test_burning_wreck_same_date_burnable():
    changes = resolve_3_31({"E": ["burning_wreck"]}, set(), True, nbrs)
    assert changes == [("E", "remove", "burning_wreck"), ("E", "add", "burnt_out_wreck"), ("E", "add", "flame")]


def test_burning_wreck_same_date_not_burnable():
    changes = resolve_3_31({"E": ["burning_wreck"]}, set(), True, nbrs, burnable=lambda h: False)
    assert changes == [("E", "remove", "burning_wreck"), ("E", "add", "burnt_out_wreck")]


def test_burning_wreck_not_same_date_acts_as_blaze():
    changes = resolve_3_31({"E": ["burning_wreck"]}, set(), False, nbrs)
    assert changes == [
        ("E", "add", "cleared_open_ground"), ("D", "add", "flame"),
        ("E", "remove", "burning_wreck"), ("E", "add", "burnt_out_wreck"),
    ]


def test_burning_wreck_not_same_date_on_unburnable_ground_spreads_only():
    changes = resolve_3_31({"E": ["burning_wreck"]}, set(), False, nbrs, burnable=lambda h: h != "E")
    assert changes == [
        ("D", "add", "flame"),
        ("E", "remove", "burning_wreck"), ("E", "add", "burnt_out_wreck"),
    ]


def test_burning_wreck_in_a_burning_hex_gets_no_new_flame():
    changes = resolve_3_31({"C": ["flame", "burning_wreck"]}, set(), True, nbrs)
    assert ("C", "add", "blaze") in changes
    assert ("C", "add", "flame") not in changes
    changes = resolve_3_31({"C": ["blaze", "burning_wreck"]}, set(), True, nbrs)
    assert ("C", "add", "flame") not in changes  # extinguished this step


def test_nothing_burning_no_changes():
    assert resolve_3_31({"A": ["rubble"], "B": []}, {"B"}, True, nbrs) == []
    assert resolve_3_31({}, set(), False, nbrs) == []


def test_a_building_next_to_a_blaze_always_catches_a_flame():
    changes = resolve_3_31({"C": ["blaze"]}, {"D"}, True, nbrs, burnable=lambda h: False)
    assert changes == [("C", "remove", "blaze"), ("C", "add", "cleared_open_ground"), ("D", "add", "flame")]


@pytest.mark.parametrize("level,top,levels", [(1, None, 1), (2, None, 1), (1, 3, 3), (2, 3, 2), (0, 1, 1), (0, 3, 3)])
def test_falling_rubble_drm_counts_the_hit_level_and_all_above(level, top, levels):
    # B24.11: the hit level and every level above it are rubbled; B24.12: +1 per such level above ground
    r = resolve_rubble("H2", kia=6, stone=False, level=level, dice=(1, 1, 1), neighbour=neighbour, top_level=top)
    assert r.levels == levels
    assert r.fell is (1 + levels >= 7)
