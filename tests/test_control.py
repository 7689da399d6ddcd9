"""projections.control: CTHC, NML, MLR, Isolated and Uncontrolled hexes (1.4, ruling R1), 3.212 situations.

Each picture is drawn by hand, one line per row (north at the top), one character per column (A at the
left); the hexes of even-lettered columns sit half a hex lower than drawn (ruling R17).

    A  axis CTHC          L  allied CTHC
    I  axis Isolated Location (axis CTHC inside the allied MLR)
    J  allied Isolated Location
    a  inside the axis MLR only (not CTHC)      l  inside the allied MLR only
    N  No Man's Land      .  Uncontrolled Terrain
"""
import time
from textwrap import dedent

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from projections.control import SITUATIONS, classify
from projections.hexgrid import Grid

WEST_EAST = {"axis": "west", "allied": "east"}


def code(hc) -> str:
    if hc.isolated:
        assert hc.cthc == hc.isolated and len(hc.mlr) == 2
        return "I" if hc.isolated == "axis" else "J"
    if hc.cthc:
        assert not hc.nml and not hc.uncontrolled and hc.cthc in hc.mlr
        return "A" if hc.cthc == "axis" else "L"
    if hc.nml:
        assert not hc.uncontrolled
        return "N"
    if hc.mlr:
        assert len(hc.mlr) == 1 and not hc.uncontrolled
        return "a" if hc.mlr == {"axis"} else "l"
    assert hc.uncontrolled
    return "."


def picture(grid, mc) -> str:
    return "\n".join(
        "".join(code(mc.hexes[f"{c}{r}"]) for c in grid.columns) for r in range(1, grid.rows + 1)
    )


def expect(text: str) -> str:
    return dedent(text).strip("\n")


def test_single_cluster_joined_to_its_edge():
    # E4's CTHC (radius 2) is C3-G5; its nearest hexes to the west edge are C3-C5 (2 hexes away);
    # the first in grid order, C3, is joined to A2 (first of A2-A4) by the line A2-B2-C3.
    g = Grid.from_spec("A-I", 7)
    mc = classify(g, frozenset({"E4"}), {"E4": "axis"}, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        .........
        aa.AAA...
        ..AAAAA..
        ..AAAAA..
        ..AAAAA..
        ....A....
        .........
        """
    )
    assert mc.paths["axis"] == (("C3", "B2", "A2"),)
    assert len(mc.clusters["axis"]) == 1 and mc.clusters["allied"] == ()
    assert mc.hexes["E4"].controller == "axis" and mc.hexes["E4"].strategic
    assert not mc.hexes["E3"].strategic and mc.hexes["E3"].controller is None


def test_two_clusters_joined_to_each_other():
    # C4's cluster touches the west edge (A3-A5); I4's cluster is 2 hexes from it but 6 from the edge,
    # so the spanning tree joins I4's cluster to C4's (E3-F2-G3), not to the edge.
    g = Grid.from_spec("A-L", 8)
    mc = classify(g, frozenset({"C4", "I4"}), {"C4": "axis", "I4": "axis"}, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        ............
        .AAA.a.AAA..
        AAAAA.AAAAA.
        AAAAA.AAAAA.
        AAAAA.AAAAA.
        ..A.....A...
        ............
        ............
        """
    )
    assert mc.paths["axis"] == (("A3",), ("E3", "F2", "G3"))
    assert len(mc.clusters["axis"]) == 2


def test_overlapping_cthcs_make_no_mans_land():
    # D4 (axis) and H4 (allied) are 4 hexes apart: F3-F5 are within 2 of both -> NML, in neither CTHC
    g = Grid.from_spec("A-K", 7)
    mc = classify(g, frozenset({"D4", "H4"}), {"D4": "axis", "H4": "allied"}, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        ...........
        ...A...L...
        aAAAANLLLLl
        .AAAANLLLL.
        .AAAANLLLL.
        ..AAA.LLL..
        ...........
        """
    )
    assert mc.hexes["F4"].cthc is None and mc.hexes["F4"].nml and not mc.hexes["F4"].mlr
    assert mc.situation("F4", "axis") == mc.situation("F4", "allied") == "nml"


def test_crossing_mlrs_make_no_mans_land():
    # 1.4 NML, second kind: the axis line (E4 down to the south edge) crosses the allied line
    # (H7 to A4 on the west edge) at E6, a hex in neither CTHC inside both MLRs.
    g = Grid.from_spec("A-K", 11)
    mc = classify(g, frozenset({"F2", "J8"}), {"F2": "axis", "J8": "allied"}, {"axis": "south", "allied": "west"})
    assert picture(g, mc) == expect(
        """
        ...AAAAA...
        ...AAAAA...
        ...AAAAA...
        ll..AAA....
        ..lla......
        ....Nl...L.
        ....a.lLLLL
        ....a..LLLL
        ....a..LLLL
        ....a...LLL
        ....a......
        """
    )
    assert mc.hexes["E6"].mlr == {"axis", "allied"} and mc.hexes["E6"].nml
    assert mc.paths["axis"] == (tuple(f"E{r}" for r in range(4, 12)),)
    assert mc.paths["allied"] == (("H7", "G7", "F6", "E6", "D5", "C5", "B4", "A4"),)


def test_isolated_location_inside_enemy_mlr():
    # Allied strategic hexes on the six corners of the ring 3 hexes around G7 (axis): their CTHCs
    # cover every hex 1-5 hexes from G7. Those 1-2 from G7 are also axis CTHC -> NML; the allied
    # ring (3-5 hexes out) encloses them and G7, so G7 is an axis Isolated Location. The axis cluster
    # cannot reach its edge without entering allied CTHC, so it is not joined to it.
    g = Grid.from_spec("A-N", 13)
    corners = ["G4", "J5", "J8", "G10", "D8", "D5"]
    assert all(g.distance("G7", c) == 3 for c in corners)
    control = {"G7": "axis", **{c: "allied" for c in corners}}
    mc = classify(g, frozenset(control), control, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        ..............
        .....LLL......
        ...LLLLLLL...l
        .LLLLLLLLLLLl.
        .LLLLNNNLLLL..
        .LLLNNNNNLLL..
        .LLLNNINNLLL..
        .LLLNNNNNLLL..
        .LLLLLNLLLLL..
        ..LLLLLLLLL...
        ....LLLLL.....
        ......L.......
        ..............
        """
    )
    g7 = mc.hexes["G7"]
    assert g7.isolated == "axis" and g7.cthc == "axis" and g7.mlr == {"axis", "allied"}
    assert mc.paths["axis"] == () and mc.paths["allied"] == (("L4", "M4", "N3"),)
    assert mc.situation("G7", "axis") == "isolated"
    assert mc.situation("G7", "allied") == "enemy_mlr"
    assert mc.situation("G6", "axis") == "nml"
    assert mc.hexes["G6"].mlr == {"allied"}
    assert mc.distance_to_mlr("A7", "allied") == 1
    assert mc.distance_to_mlr("A7", "axis") == 6


def test_clusters_each_on_the_edge_enclose_nothing():
    # Two axis clusters each touching the west edge: the spanning tree joins each to the edge, not to
    # each other, so the hexes between them stay outside the MLR (the edge between them is MLR).
    g = Grid.from_spec("A-G", 11)
    mc = classify(g, frozenset({"B2", "B10"}), {"B2": "axis", "B10": "axis"}, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        AAAA...
        AAAA...
        AAAA...
        AAA....
        a......
        a......
        a......
        aA.....
        AAAA...
        AAAA...
        AAAA...
        """
    )


def test_enclosed_by_one_cluster_and_the_edge():
    # A U-shaped allied cluster whose arms touch the east edge encloses G5-G6 (closed along the edge).
    g = Grid.from_spec("A-H", 9)
    control = {"F2": "allied", "D5": "allied", "F8": "allied"}
    mc = classify(g, frozenset(control), control, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        ...LLLLL
        ...LLLLL
        ...LLLLL
        .LLLLLLl
        .LLLLLll
        .LLLLLll
        ..LLLLLL
        ...LLLLL
        ...LLLLL
        """
    )


def test_contested_strategic_hex_stays_with_its_controller():
    # D4 (axis) and F4 (allied) are 2 apart: each strategic hex stays in its own side's CTHC; the
    # non-strategic hexes within 2 of both are NML; the uncontrolled strategic E5 within 2 of both is
    # NML too (it has no controller to keep it).
    g = Grid.from_spec("A-I", 8)
    mc = classify(g, frozenset({"D4", "F4", "E5"}), {"D4": "axis", "F4": "allied"}, WEST_EAST)
    assert mc.hexes["D4"].cthc == "axis" and mc.hexes["F4"].cthc == "allied"
    assert mc.hexes["E4"].nml and mc.hexes["E4"].cthc is None
    assert mc.hexes["E5"].nml and mc.hexes["E5"].strategic and mc.hexes["E5"].controller is None
    assert mc.situation("D4", "axis") == "friendly_mlr"
    assert mc.situation("F4", "axis") == "enemy_mlr"


def test_situations_queries():
    g = Grid.from_spec("A-K", 7)
    mc = classify(g, frozenset({"D4", "H4"}), {"D4": "axis", "H4": "allied"}, WEST_EAST)
    assert mc.situation("D4", "axis") == "friendly_mlr"  # friendly CTHC counts as friendly MLR
    assert mc.situation("A3", "axis") == "friendly_mlr"  # on the MLR line
    assert mc.situation("A3", "allied") == "enemy_mlr"
    assert mc.situation("H4", "axis") == "enemy_mlr"
    assert mc.situation("A1", "axis") == "uncontrolled"
    assert mc.situation("a1", "allied") == "uncontrolled"
    assert {mc.situation(h, s) for h in g.hexes() for s in ["axis", "allied"]} <= set(SITUATIONS)
    assert mc.distance_to_mlr("D4", "axis") == 0
    assert mc.distance_to_mlr("A1", "axis") == 2
    assert mc.distance_to_mlr("K1", "axis") == 6
    assert mc.adjacent_to_enemy_cthc("E4", "axis") is False  # F3-F5 between are NML, in no CTHC
    assert mc.adjacent_to_enemy_cthc("F4", "axis") is True  # G4 is allied CTHC
    assert mc.adjacent_to_enemy_cthc("F4", "allied") is True
    assert mc.adjacent_to_enemy_cthc("A1", "axis") is False
    assert mc.inside_or_adjacent_mlr("A2", "axis") is True
    assert mc.inside_or_adjacent_mlr("A1", "axis") is False
    assert mc.inside_or_adjacent_mlr("F4", "allied") is True
    with pytest.raises(ValueError):
        mc.situation("D4", "soviet")
    with pytest.raises(ValueError):
        mc.situation("Z9", "axis")


def test_no_control_no_mlr():
    g = Grid.from_spec("A-E", 5)
    mc = classify(g, frozenset({"C3"}), {}, WEST_EAST)
    assert all(hc.uncontrolled for hc in mc.hexes.values())
    assert mc.distance_to_mlr("C3", "axis") is None
    assert mc.situation("C3", "axis") == "uncontrolled"


@pytest.mark.parametrize(
    "strategic, control, edges",
    [
        ({"C3"}, {"C9": "axis"}, WEST_EAST),  # off the map
        ({"C3"}, {"C4": "axis"}, WEST_EAST),  # not strategic
        ({"C3"}, {"C3": "soviet"}, WEST_EAST),  # bad side
        ({"C3"}, {"C3": "axis"}, {"allied": "east"}),  # no edge for a side that controls hexes
        ({"C3"}, {"C3": "axis"}, {"axis": "up"}),
    ],
)
def test_bad_input(strategic, control, edges):
    with pytest.raises(ValueError):
        classify(Grid.from_spec("A-E", 5), frozenset(strategic), control, edges)


def test_lower_case_ids_accepted():
    g = Grid.from_spec("A-K", 7)
    a = classify(g, frozenset({"d4", "h4"}), {"d4": "axis", "H4": "allied"}, WEST_EAST)
    b = classify(g, frozenset({"D4", "H4"}), {"D4": "axis", "H4": "allied"}, WEST_EAST)
    assert a == b and list(a.hexes) == list(g.hexes())


def test_fast_enough():
    g = Grid.from_spec("A-DD", 20)  # 30 x 20
    hs = g.hexes()
    strategic = frozenset(hs[::13])
    control = {h: ("axis" if g.parse(h)[0] < 14 else "allied") for h in sorted(strategic)[::2]}
    classify(g, strategic, control, WEST_EAST)
    start = time.perf_counter()
    for _ in range(5):
        classify(g, strategic, control, WEST_EAST)
    assert (time.perf_counter() - start) / 5 < 0.1  # typically about 10 ms


# -- properties over random maps ------------------------------------------------------------------

PG = Grid.from_spec("A-M", 9)
EDGE = st.sampled_from(["north", "south", "east", "west"])


@st.composite
def maps(draw):
    strategic = draw(st.sets(st.sampled_from(PG.hexes()), max_size=10))
    control = {}
    for h in sorted(strategic):
        side = draw(st.sampled_from(["axis", "allied", None]))
        if side:
            control[h] = side
    edges = {"axis": draw(EDGE), "allied": draw(EDGE)}
    return frozenset(strategic), control, edges


@settings(max_examples=80, deadline=None)
@given(maps())
def test_classification_invariants(m):
    strategic, control, edges = m
    mc = classify(PG, strategic, control, edges)
    assert list(mc.hexes) == list(PG.hexes())
    for side in ["axis", "allied"]:
        enemy = "allied" if side == "axis" else "axis"
        cthc = mc.cthc_hexes(side)
        mlr = mc.mlr_hexes(side)
        assert cthc <= mlr  # every cluster is in its side's MLR
        assert all(h in cthc for h, s in control.items() if s == side)  # 2: strategic hexes stay
        for h in cthc:  # R1: within 2 of a controlled strategic hex of the side
            assert any(PG.distance(h, s) <= 2 for s, who in control.items() if who == side)
        enemy_cthc = mc.cthc_hexes(enemy)
        for line in mc.paths[side]:
            assert all(PG.distance(a, b) == 1 for a, b in zip(line, line[1:]))
            assert not set(line) & enemy_cthc  # 4: lines never enter enemy CTHC
            assert set(line) <= mlr
        for h in PG.hexes():
            assert mc.distance_to_mlr(h, side) == (
                min((PG.distance(h, x) for x in mlr), default=None)
            )
    for h, hc in mc.hexes.items():
        code(hc)  # exactly one state, consistent flags
        if h not in strategic and all(
            any(PG.distance(h, s) <= 2 for s, who in control.items() if who == side) for side in ["axis", "allied"]
        ):
            assert hc.nml  # 2: first kind
        assert hc.strategic == (h in strategic) and hc.controller == control.get(h)
        for side in ["axis", "allied"]:
            assert mc.situation(h, side) in SITUATIONS


@settings(max_examples=40, deadline=None)
@given(maps(), st.randoms(use_true_random=False))
def test_classification_ignores_input_order(m, rnd):
    strategic, control, edges = m
    items = list(control.items())
    rnd.shuffle(items)
    assert classify(PG, strategic, dict(items), edges) == classify(PG, strategic, control, edges)


@settings(max_examples=60, deadline=None)
@given(st.sets(st.sampled_from(PG.hexes()), min_size=1, max_size=8), EDGE)
def test_one_side_every_cluster_reaches_its_edge(held, edge):
    # with no enemy CTHC in the way, P is one connected piece touching the friendly edge (4, 5)
    mc = classify(PG, frozenset(held), {h: "axis" for h in held}, {"axis": edge})
    mlr = mc.mlr_hexes("axis")
    start = next(iter(mlr & PG.edge(edge)))
    seen, todo = {start}, [start]
    while todo:
        for n in PG.neighbours(todo.pop()):
            if n in mlr and n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == mlr
    assert len(mc.paths["axis"]) == len(mc.clusters["axis"])  # a spanning tree: one line per cluster
