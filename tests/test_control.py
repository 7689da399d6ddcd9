"""cg.control: CTHC, NML, MLR, Isolated and Uncontrolled hexes (1.4, ruling R1), 3.212 situations.

Each picture is drawn by hand, one line per row (north at the top), one character per column (A at the
left); the hexes of even-lettered columns sit half a hex lower than drawn (ruling R17).

    A  axis CTHC          L  allied CTHC
    I  axis Isolated Location (axis CTHC inside the allied MLR)
    J  allied Isolated Location
    a  inside the axis MLR only (not CTHC)      l  inside the allied MLR only
    N  No Man's Land      .  Uncontrolled Terrain
"""
from textwrap import dedent

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cg.control import SITUATIONS, classify
from cg.hexgrid import Grid

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


def test_single_cluster_closed_against_its_edge():
    # E4's CTHC (radius 2) is one cluster: D2-F2, C3-G5, E6. It is one front; its ends are the hex with
    # the smallest row (row 2: D2, the nearest to the west FME) and the one with the largest (E6).
    # Each is drawn straight back along its row: D2-C2-B2-A2 and E6-D5-C6-B5-A6 (Grid.line zig-zags
    # along a row; on a tie it takes the first hex in grid order). With A2-A6 they close the front:
    # B3-B4 behind it are enclosed; B6 and D6 are open to the south edge.
    g = Grid.from_spec("A-I", 7)
    mc = classify(g, frozenset({"E4"}), {"E4": "axis"}, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        .........
        aaaAAA...
        aaAAAAA..
        aaAAAAA..
        aaAAAAA..
        a.a.A....
        .........
        """
    )
    assert mc.paths["axis"] == ()
    assert mc.edge_paths["axis"] == (("D2", "C2", "B2", "A2"), ("E6", "D5", "C6", "B5", "A6"))
    assert len(mc.clusters["axis"]) == 1 and mc.clusters["allied"] == ()
    assert mc.fronts["axis"] == mc.clusters["axis"]
    assert mc.hexes["E4"].controller == "axis" and mc.hexes["E4"].strategic
    assert not mc.hexes["E3"].strategic and mc.hexes["E3"].controller is None


def test_two_clusters_joined_to_each_other():
    # The two clusters are 2 hexes apart and are joined (E3-F2-G3) into one front. Its ends: row 2's
    # B2 (nearest the west FME of B2-D2, F2, H2-J2) and row 6's C6 (nearer than I6), drawn back to A2
    # and A6 (C6-B5-A6); with A2-A6 they close the front. F3-F5 stay Uncontrolled: they open south
    # through F6 (the front is joined only at its north).
    g = Grid.from_spec("A-L", 8)
    mc = classify(g, frozenset({"C4", "I4"}), {"C4": "axis", "I4": "axis"}, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        ............
        aAAA.a.AAA..
        AAAAA.AAAAA.
        AAAAA.AAAAA.
        AAAAA.AAAAA.
        a.A.....A...
        ............
        ............
        """
    )
    assert mc.paths["axis"] == (("E3", "F2", "G3"),)
    assert mc.edge_paths["axis"] == (("B2", "A2"), ("C6", "B5", "A6"))
    assert len(mc.clusters["axis"]) == 2 and len(mc.fronts["axis"]) == 1


def test_overlapping_cthcs_make_no_mans_land():
    # D4 (axis) and H4 (allied) are 4 hexes apart: F3-F5 are within 2 of both -> NML, in neither CTHC.
    # Axis ends D2 (row 2) and C6 (row 6, nearest the west FME) close back to A2 and A6; allied ends
    # H2 and I6 (nearest the east FME) close back to K2 and K6.
    g = Grid.from_spec("A-K", 7)
    mc = classify(g, frozenset({"D4", "H4"}), {"D4": "axis", "H4": "allied"}, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        ...........
        aaaA...Llll
        aAAAANLLLLl
        aAAAANLLLLl
        aAAAANLLLLl
        a.AAA.LLL.l
        ...........
        """
    )
    assert mc.edge_paths["axis"] == (("D2", "C2", "B2", "A2"), ("C6", "B5", "A6"))
    assert mc.edge_paths["allied"] == (("H2", "I2", "J2", "K2"), ("I6", "J5", "K6"))
    assert mc.hexes["F4"].cthc is None and mc.hexes["F4"].nml and not mc.hexes["F4"].mlr
    assert mc.situation("F4", "axis") == mc.situation("F4", "allied") == "nml"


def test_crossing_mlrs_make_no_mans_land():
    # 1.4 NML, second kind. Axis (south FME): ends D3 (westmost column, nearest the south edge) and
    # H3; D3 runs straight down column D; H3's straight line would enter the allied CTHC at H7, so it
    # goes around, down column G (H3-G4-...-G11). With D11-G11 the axis MLR is the F2 cluster plus the
    # two legs and E5-F10 between them. Allied (west FME): ends J6 and I10 drawn back along rows 6 and
    # 10 to A6 and A10. Where the two MLRs overlap outside both CTHCs (D6-G9 and more) is NML.
    g = Grid.from_spec("A-K", 11)
    mc = classify(g, frozenset({"F2", "J8"}), {"F2": "axis", "J8": "allied"}, {"axis": "south", "allied": "west"})
    assert picture(g, mc) == expect(
        """
        ...AAAAA...
        ...AAAAA...
        ...AAAAA...
        ...aAAA....
        ...aaaa....
        lllNNNNllL.
        lllNNNNLLLL
        lllNNNNLLLL
        lllNNNNLLLL
        l.laNaN.LLL
        ...aaaa....
        """
    )
    assert mc.hexes["E6"].mlr == {"axis", "allied"} and mc.hexes["E6"].nml
    assert mc.paths["axis"] == () and mc.paths["allied"] == ()
    assert mc.edge_paths["axis"] == (
        tuple(f"D{r}" for r in range(3, 12)),
        ("H3", *(f"G{r}" for r in range(4, 12))),
    )
    assert mc.edge_paths["allied"] == (
        ("J6", "I6", "H6", "G6", "F6", "E6", "D6", "C6", "B6", "A6"),
        ("I10", "H9", "G10", "F9", "E10", "D9", "C10", "B9", "A10"),
    )


def test_isolated_location_inside_enemy_mlr():
    # Allied strategic hexes on the six corners of the ring 3 hexes around G7 (axis): their CTHCs
    # cover every hex 1-5 hexes from G7. Those 1-2 from G7 are also axis CTHC -> NML; the allied
    # ring (3-5 hexes out) encloses them and G7, so G7 is an axis Isolated Location. The axis cluster
    # cannot reach its edge without entering allied CTHC: both its ends stay open and its MLR is G7.
    # The allied ring is closed against the east FME from H2 (row 2) and G12 (row 12), drawn along
    # rows 2 and 12 (on ties Grid.line takes the northern hex: K2 not K3, M2 not M3).
    g = Grid.from_spec("A-N", 13)
    corners = ["G4", "J5", "J8", "G10", "D8", "D5"]
    assert all(g.distance("G7", c) == 3 for c in corners)
    control = {"G7": "axis", **{c: "allied" for c in corners}}
    mc = classify(g, frozenset(control), control, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        ..............
        .....LLLllllll
        ...LLLLLLLllll
        .LLLLLLLLLLLll
        .LLLLNNNLLLLll
        .LLLNNNNNLLLll
        .LLLNNINNLLLll
        .LLLNNNNNLLLll
        .LLLLLNLLLLLll
        ..LLLLLLLLLlll
        ....LLLLLlllll
        ......Llllllll
        ..............
        """
    )
    g7 = mc.hexes["G7"]
    assert g7.isolated == "axis" and g7.cthc == "axis" and g7.mlr == {"axis", "allied"}
    assert mc.paths["axis"] == () and mc.paths["allied"] == () and mc.edge_paths["axis"] == ()
    assert mc.edge_paths["allied"] == (
        ("H2", "I2", "J2", "K2", "L2", "M2", "N2"),
        ("G12", "H12", "I12", "J12", "K12", "L12", "M12", "N12"),
    )
    assert mc.situation("G7", "axis") == "isolated"
    assert mc.situation("G7", "allied") == "enemy_mlr"
    assert mc.situation("G6", "axis") == "nml"
    assert mc.hexes["G6"].mlr == {"allied"}
    assert mc.distance_to_mlr("A7", "allied") == 1
    assert mc.distance_to_mlr("A7", "axis") == 6


def test_two_clusters_near_the_edge_enclose_the_ground_between_and_behind():
    # D3's cluster (B2-F5) and D10's (B9-F12) are 3 hexes apart (D5-D8) and 2 hexes off the west FME.
    # They are joined to each other (D6-D7), not each to the edge, making one front; its ends D1 (row
    # 1) and C12 (row 12, nearest the FME) close back to A1 (C1-B1) and A12 (B11). The ground between
    # the clusters behind the join (B5-B8, C6-C8) and the whole of column A are in the MLR; E6-E8 in
    # front of the join are not. B12, a south-edge hex outside the closing line B11-A12, is not either.
    g = Grid.from_spec("A-H", 12)
    mc = classify(g, frozenset({"D3", "D10"}), {"D3": "axis", "D10": "axis"}, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        aaaA....
        aAAAAA..
        aAAAAA..
        aAAAAA..
        aaAAA...
        aaaa....
        aaaa....
        aaaA....
        aAAAAA..
        aAAAAA..
        aAAAAA..
        a.AAA...
        """
    )
    assert mc.paths["axis"] == (("D5", "D6", "D7", "D8"),)
    assert mc.edge_paths["axis"] == (("D1", "C1", "B1", "A1"), ("C12", "B11", "A12"))
    assert len(mc.clusters["axis"]) == 2 and len(mc.fronts["axis"]) == 1
    assert mc.situation("B6", "axis") == "friendly_mlr" and mc.situation("E7", "axis") == "uncontrolled"


def test_front_of_three_strongpoints_encloses_everything_behind_it():
    # South FME. D3, J3 and P3 give three clusters (B-F, H-L, N-R) one hex apart, joined F2-G2-H2 and
    # L2-M2-N2 (the first closest pairs in grid order) into one front across the map. Its ends, the
    # westmost and easternmost columns (B2-B4, R2-R4; ties to the hex nearest the south edge), B4 and
    # R4, run straight down to B8 and R8; with B8-R8 everything behind the front is in the MLR.
    # Columns A and S, outside the closing lines, are not.
    g = Grid.from_spec("A-S", 8)
    held = {"D3": "axis", "J3": "axis", "P3": "axis"}
    mc = classify(g, frozenset(held), held, {"axis": "south", "allied": "north"})
    assert picture(g, mc) == expect(
        """
        ...A.....A.....A...
        .AAAAAaAAAAAaAAAAA.
        .AAAAAaAAAAAaAAAAA.
        .AAAAAaAAAAAaAAAAA.
        .aAAAaaaAAAaaaAAAa.
        .aaaaaaaaaaaaaaaaa.
        .aaaaaaaaaaaaaaaaa.
        .aaaaaaaaaaaaaaaaa.
        """
    )
    assert mc.paths["axis"] == (("F2", "G2", "H2"), ("L2", "M2", "N2"))
    assert mc.edge_paths["axis"] == (tuple(f"B{r}" for r in range(4, 9)), tuple(f"R{r}" for r in range(4, 9)))
    assert len(mc.clusters["axis"]) == 3 and len(mc.fronts["axis"]) == 1


def test_enemy_cluster_cutting_the_line_is_gone_around():
    # Axis E2 and E12 (west FME): their clusters' closest hexes are E4 and E10, but the straight line
    # E4-E10 would enter the allied CTHC of G7 (E6-E8), so the pair is joined by the shortest way
    # around it: 7 steps, D3 down column D to D10 (of the cluster hexes reached first, D10 is first in
    # grid order). The front closes from C1 (B1-A1) and C13 (B12-A13) along the west FME. The allied
    # cluster (east FME) closes from H5 (I5-J5-K5) and G9 (H8-I9-J8-K9) along K5-K9.
    g = Grid.from_spec("A-K", 13)
    control = {"E2": "axis", "E12": "axis", "G7": "allied"}
    mc = classify(g, frozenset(control), control, WEST_EAST)
    assert picture(g, mc) == expect(
        """
        aaAAAAA....
        aaAAAAA....
        aaAAAAA....
        aaaaA......
        aaaa.LLLlll
        aaaaLLLLLll
        aaaaLLLLLll
        aaaaLLLLLll
        aaaa..L.l.l
        aaaAAA.....
        aaAAAAA....
        aaAAAAA....
        a.AAAAA....
        """
    )
    assert g.line("E4", "E10")[3] == "E7" and mc.hexes["E7"].cthc == "allied"
    assert mc.paths["axis"] == (tuple(f"D{r}" for r in range(3, 11)),)
    assert mc.edge_paths["axis"] == (("C1", "B1", "A1"), ("C13", "B12", "A13"))
    assert mc.edge_paths["allied"] == (("H5", "I5", "J5", "K5"), ("G9", "H8", "I9", "J8", "K9"))
    assert not any(hc.isolated for hc in mc.hexes.values())


def test_isolated_cluster_inside_the_enemy_front():
    # Axis C3, H3 and M3 (south FME) make one cluster wall from the west edge to the east edge; it closes
    # down columns A and O, so everything south of it is axis MLR. The allied H8 (north FME) behind it
    # cannot get round the wall: both its ends (F7, J7) stay open, its MLR is its own cluster, and every
    # hex of that cluster is an allied Isolated Location inside the axis MLR.
    g = Grid.from_spec("A-O", 11)
    control = {"C3": "axis", "H3": "axis", "M3": "axis", "H8": "allied"}
    mc = classify(g, frozenset(control), control, {"axis": "south", "allied": "north"})
    assert picture(g, mc) == expect(
        """
        .AAA...A...AAA.
        AAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAA
        aaAaaaAAAaaaAaa
        aaaaaaaJaaaaaaa
        aaaaaJJJJJaaaaa
        aaaaaJJJJJaaaaa
        aaaaaJJJJJaaaaa
        aaaaaaJJJaaaaaa
        aaaaaaaaaaaaaaa
        """
    )
    assert len(mc.clusters["axis"]) == 1 and mc.paths["axis"] == ()
    assert mc.edge_paths["axis"] == (
        tuple(f"A{r}" for r in range(4, 12)),
        tuple(f"O{r}" for r in range(4, 12)),
    )
    assert mc.edge_paths["allied"] == () and mc.paths["allied"] == ()
    allied = mc.cthc_hexes("allied")
    assert mc.mlr_hexes("allied") == allied and len(allied) == 19
    assert all(mc.hexes[h].isolated == "allied" for h in allied)
    assert mc.situation("H8", "allied") == "isolated" and mc.situation("H8", "axis") == "enemy_mlr"
    assert mc.situation("H5", "allied") == "enemy_mlr" and mc.situation("C9", "axis") == "friendly_mlr"


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
    assert mc.distance_to_mlr("A1", "axis") == 1  # A2, where the front closes on the FME
    assert mc.distance_to_mlr("K1", "axis") == 6
    assert mc.adjacent_to_enemy_cthc("E4", "axis") is False  # F3-F5 between are NML, in no CTHC
    assert mc.adjacent_to_enemy_cthc("F4", "axis") is True  # G4 is allied CTHC
    assert mc.adjacent_to_enemy_cthc("F4", "allied") is True
    assert mc.adjacent_to_enemy_cthc("A1", "axis") is False
    assert mc.inside_or_adjacent_mlr("A2", "axis") is True
    assert mc.inside_or_adjacent_mlr("A1", "axis") is True
    assert mc.inside_or_adjacent_mlr("K1", "axis") is False
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
        fronts = mc.fronts[side]
        for line in mc.paths[side] + mc.edge_paths[side]:
            assert all(PG.distance(a, b) == 1 for a, b in zip(line, line[1:]))
            assert not set(line) & enemy_cthc  # 4b, 5b: paths never enter enemy CTHC
            assert set(line) <= mlr
        for line in mc.paths[side]:  # 4d: a joining path lies in one front, between two of its clusters
            assert sum(1 for f in fronts if set(line) <= f) == 1
        for c in mc.clusters[side]:  # 4d: the fronts share out the clusters
            assert sum(1 for f in fronts if c <= f) == 1
        assert sum(len(c) for c in mc.clusters[side]) <= sum(len(f) for f in fronts)
        assert set().union(*fronts) <= mlr
        assert len(mc.edge_paths[side]) <= 2 * len(fronts)
        for line in mc.edge_paths[side]:  # 5b: from a front end to the FME
            assert any(line[0] in f for f in fronts) and line[-1] in PG.edge(edges[side])
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
    assert len(mc.paths["axis"]) == len(mc.clusters["axis"]) - 1  # a spanning tree over the clusters
    assert len(mc.fronts["axis"]) == 1
    (front,) = mc.fronts["axis"]
    assert front == set().union(*mc.clusters["axis"], *mc.paths["axis"])
    # 5: nothing in the way, so each end is drawn straight back to the FME hex in its row (west/east)
    # or column (north/south), and the FME between them is in the MLR
    along = 1 if edge in ("west", "east") else 0
    ends = [line[0] for line in mc.edge_paths["axis"]]
    assert 1 <= len(ends) <= 2
    spots = [PG.parse(h)[along] for h in front]
    assert {PG.parse(h)[along] for h in ends} == {min(spots), max(spots)}
    for line in mc.edge_paths["axis"]:
        assert PG.parse(line[0])[along] == PG.parse(line[-1])[along]
        assert len(line) - 1 == min(PG.distance(line[0], x) for x in PG.edge(edge))
    fme = {h for h in PG.edge(edge) if min(spots) <= PG.parse(h)[along] <= max(spots)}
    assert fme <= mlr


def test_every_hex_of_every_shipped_map_reaches_each_edge_on_an_edge_hex():
    """Step 5b lands a front's end on a hex of the Friendly Map Edge, from any hex of any shipped map: a
    north half hex of a geomorphic board (row 0) has no hex of its row on the east or west edge, and
    `sosnovka`'s map crashed the 3.2 map control there (KeyError '22FF0', found by the explorer)."""
    from cg.card_schema import load_card, shipped_cards
    from cg.control import _to_edge

    for name, _title, _what in shipped_cards():
        grid = load_card(name).map.grid()
        for edge in ("north", "south", "east", "west"):
            on_edge = grid.edge(edge)
            for h in grid.hexes():
                path = _to_edge(grid, h, edge, set())
                assert path is not None and path[-1] in on_edge, (name, h, edge, path)
