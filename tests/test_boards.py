"""cg.boards: maps made of ASL geomorphic boards (joins, turned boards, distances across boards).

Conventions drawn by hand below (flat-topped hexes in vertical columns; the odd hexrows B, D, ..., FF
sit half a hex lower than the even ones A, C, ..., GG):

One board (24), north-west corner:          the same board, south-west corner:

    A1 | B0 (half hex, north edge)              A10 | B9
       |        C1                                  |        C10
    ^  | B1                                     ^   | B10 (half hex, south edge)
    half hexes along the west edge              A holds 1..10, B holds 0..10
"""
from __future__ import annotations

from collections import deque
from itertools import pairwise

import pytest

from cg import boards
from cg.boards import Layout, geometry, join_table, parse_hex, parse_layout

SIDE = [["24", "23"]]  # 24 | 23
STACK = [["12"], ["13"]]  # 12 over 13
SQUARE = [["24", "23"], ["12", "13"]]
TURNED = [["24", "23*"]]


def bfs_distances(geo, start):
    seen = {start: 0}
    todo = deque([start])
    while todo:
        h = todo.popleft()
        for n in geo.neighbours(h):
            if n not in seen:
                seen[n] = seen[h] + 1
                todo.append(n)
    return seen


# -- layouts ------------------------------------------------------------------------------------------
def test_layout_parses_rows_and_turned_boards():
    lay = parse_layout([["24", "23*"], ["12", " 13 "]])
    assert (lay.width, lay.height) == (2, 2)
    assert lay.names() == ("24", "23", "12", "13")
    assert lay.board("23").turned and not lay.board("24").turned
    assert lay.position("12") == (1, 0) and lay.position("23") == (0, 1)
    assert lay.spec() == [["24", "23*"], ["12", "13"]]
    assert str(lay) == "24 23* / 12 13"
    assert Layout.parse(lay) is lay
    # frozen and hashable (the geometry is cached per layout)
    assert hash(lay) == hash(parse_layout([["24", "23*"], ["12", "13"]]))
    with pytest.raises(AttributeError):
        lay.rows = ()


@pytest.mark.parametrize(
    "value, words",
    [
        ([], "no boards"),
        ("24 23", "list of rows"),
        ([["24"], []], "row 2 is empty"),
        ([["24", 23]], "quote board numbers"),
        ([["24", "2-3"]], "row 1 place 2"),
        ([["24", "23**"]], "row 1 place 2"),
        ([["24", ""]], "row 1 place 2"),
        (["24"], "row 1 must be a list"),
    ],
)
def test_bad_layouts_are_refused_with_the_reason(value, words):
    with pytest.raises(ValueError) as err:
        parse_layout(value)
    assert words in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("value", [[["24", "24"]], [["23"], ["23*"]], [["1a", "1A"]]])
def test_a_repeated_board_is_refused(value):
    with pytest.raises(ValueError, match="used twice"):
        parse_layout(value)


def test_boards_whose_ids_would_collide_are_refused():
    # 1AA5 (board 1, hexrow AA) and 1aA5 (board 1a, hexrow A) differ only in case
    with pytest.raises(ValueError, match="cannot share a map"):
        parse_layout([["1", "1a"]])
    parse_layout([["1", "1h"]])  # no hexrow HH on a geomorphic board: no collision


# -- hex ids ------------------------------------------------------------------------------------------
def test_parse_hex_splits_board_hexrow_row():
    assert parse_hex("24J4") == ("24", "J", 4)
    assert parse_hex("23a1") == ("23", "A", 1)
    assert parse_hex("24gg10") == ("24", "GG", 10)
    assert parse_hex(" 12B0 ") == ("12", "B", 0)
    assert parse_hex("yA5") == ("y", "A", 5) and parse_hex("yy5") == ("y", "Y", 5)  # no hexrow YY
    # a bare hex id is refused without a board, read with one when the map has board "g"
    assert parse_hex("gg5", boards=["g", "24"]) == ("g", "G", 5)
    # board names ending in a letter: the layout decides
    assert parse_hex("1aA5") == ("1", "AA", 5)
    assert parse_hex("1aA5", boards=["1a", "24"]) == ("1a", "A", 5)
    assert parse_hex("1AA5", boards=["1", "24"]) == ("1", "AA", 5)


@pytest.mark.parametrize(
    "hex_id, words",
    [
        ("J4", "no board number"),
        ("gg5", "no board number"),
        ("23*A1", "never carry the *"),
        ("24A0", "hexrow A has rows 1-10"),
        ("24GG0", "hexrow GG has rows 1-10"),
        ("24B11", "hexrow B has rows 0-10"),
        ("24A11", "hexrow A has rows 1-10"),
        ("24", "not a board hex id"),
        ("aa5", "no board number"),
        ("24J04", "not a board hex id"),
    ],
)
def test_bad_hex_ids_are_refused(hex_id, words):
    with pytest.raises(ValueError) as err:
        parse_hex(hex_id)
    assert words in str(err.value)


def test_hex_on_another_board_is_not_on_the_map():
    geo = geometry(SIDE)
    with pytest.raises(ValueError, match=r"not on the map.*24, 23"):
        geo.canonical("99A1")
    with pytest.raises(ValueError, match="no board number"):
        geo.canonical("J4")
    assert not geo.valid("J4") and not geo.valid("24HH1") and geo.valid("24j4")


# -- one board --------------------------------------------------------------------------------------
def test_one_board_has_346_hexes_and_keeps_its_edge_half_hexes():
    geo = geometry([["24"]])
    hexes = geo.hexes()
    # 17 hexrows A, C, ..., GG of 10 hexes + 16 hexrows B, D, ..., FF of 11 (rows 0..10)
    assert len(hexes) == 346 == len(set(hexes)) == boards.HEXES_PER_BOARD
    assert sum(1 for h in hexes if parse_hex(h)[1] == "A") == 10
    assert sum(1 for h in hexes if parse_hex(h)[1] == "B") == 11
    assert hexes[:3] == ("24A1", "24A2", "24A3") and hexes[10] == "24B0" and hexes[-1] == "24GG10"
    assert geo.aliases == {}
    for h in ("24B0", "24B10", "24FF0", "24FF10", "24A1", "24A10", "24GG1", "24GG10"):
        assert geo.valid(h), h
    assert not geo.valid("24A0") and not geo.valid("24C0")
    # the north edge: the half hexes B0, D0, ... and the full hexes A1, C1, ... that touch it
    north = geo.edge("north")
    assert len(north) == 33 and {"24B0", "24A1", "24C1", "24GG1"} <= north and "24B1" not in north
    assert geo.edge("south") == frozenset(
        f"24{c}10" for c in boards.COLUMNS
    )
    assert geo.edge("west") == frozenset(f"24A{r}" for r in range(1, 11))
    assert geo.edge("east") == frozenset(f"24GG{r}" for r in range(1, 11))
    with pytest.raises(ValueError, match="north, south, east, west"):
        geo.edge("up")


def test_directions_and_stagger_match_the_board():
    geo = geometry([["24"]])
    # A1's south-east neighbour is B1 (B sits half a hex lower); B1's north-east is C1; B1's north is B0
    assert geo.neighbour("24A1", 3) == "24B1"
    assert geo.neighbour("24A1", 2) == "24B0"
    assert geo.neighbour("24B1", 2) == "24C1"
    assert geo.neighbour("24B1", 1) == "24B0"
    assert geo.neighbour("24B1", 4) == "24B2"
    assert geo.neighbour("24J4", 5) == "24I5"
    assert geo.neighbour("24J4", 6) == "24I4"
    # off the map: west of the A half hexes, north of a row-0 half hex
    assert geo.neighbour("24A5", 6) is None and geo.neighbour("24B0", 1) is None
    assert geo.neighbours("24B0") == ["24C1", "24B1", "24A1"]
    for h in geo.hexes():
        for d in range(1, 7):
            n = geo.neighbour(h, d)
            if n is not None:
                assert geo.neighbour(n, (d + 2) % 6 + 1) == h
    with pytest.raises(ValueError, match="direction"):
        geo.neighbour("24A1", 7)


def test_single_unturned_board_has_the_axial_coordinates_of_grid_a_gg():
    hexgrid = pytest.importorskip("cg.hexgrid")
    grid = hexgrid.Grid.from_spec("A-GG", 10)
    geo = geometry([["24"]])
    for h in grid.hexes():  # rows 1..10 of every hexrow
        assert geo.axial("24" + h) == grid.axial(h), h
    assert boards.DIRECTIONS == hexgrid.DIRECTIONS


# -- two boards side by side -------------------------------------------------------------------------
#   map column:   31     32        33
#   board 24:     FF     GG  |
#   board 23:                |A     B
#
#                 FF4     GG5 = A5         FF sits half a hex lower than GG,
#                         (one hex)  B4    so FF5 lies between GG5 and GG6,
#                 FF5               B5     and B5 between A5 and A6:
#                         GG6 = A6         24FF5 -> 24GG5/23A5 -> 23B5 = 2 steps
def test_side_by_side_boards_share_the_gg_a_column():
    geo = geometry(SIDE)
    assert len(geo.hexes()) == 2 * 346 - 10  # the joined half-hex column counted once
    for r in range(1, 11):
        assert geo.canonical(f"24GG{r}") == f"23A{r}"  # A2.2: the east board names the hex
        assert geo.aliases[f"24GG{r}"] == f"23A{r}"
    assert len(geo.aliases) == 10
    assert "24GG5" not in geo.hexes() and "23A5" in geo.hexes()
    assert geo.names("24gg5") == ("23A5", "24GG5")
    assert geo.axial("24GG5") == geo.axial("23A5")
    assert geo.neighbours("24GG5") == geo.neighbours("23A5")
    assert {"24FF5", "24FF4", "23B4", "23B5", "23A4", "23A6"} == set(geo.neighbours("24GG5"))


def test_distances_across_a_side_join():
    geo = geometry(SIDE)
    assert geo.distance("24FF5", "23B5") == 2
    assert boards.distance(SIDE, "24FF5", "23B5") == 2
    assert geo.distance("24FF5", "23A5") == 1 and geo.distance("24FF5", "24GG5") == 1
    assert geo.distance("24GG5", "23A5") == 0
    # straight along row 5 from 24A5 to 23GG5: 64 columns, the rows never fall behind
    assert geo.distance("24A5", "23GG5") == 64
    # 24EE1 -> 23C10: 4 columns, 9 rows down (the 4 column steps cover 2 of them): 4 + 7 = 11
    assert geo.distance("24EE1", "23C10") == 11
    line = geo.line("24FF5", "23B5")
    assert line[0] == "24FF5" and line[-1] == "23B5" and len(line) == 3 and line[1] == "23A5"


def test_side_by_side_edges_span_both_boards():
    geo = geometry(SIDE)
    assert len(geo.edge("north")) == 65 and len(geo.edge("south")) == 65
    assert geo.edge("west") == frozenset(f"24A{r}" for r in range(1, 11))
    assert geo.edge("east") == frozenset(f"23GG{r}" for r in range(1, 11))
    assert "23A1" in geo.edge("north") and "24GG1" not in geo.edge("north")  # canonical ids only


# -- two boards stacked ------------------------------------------------------------------------------
#   board 12:   A9          C9
#                     B9
#               A10         C10
#   ==========  B10 (12) = B0 (13)  ========  seam: one hex, named 12B10 (the northern board)
#               A1 (13)     C1
#                     B1
#   12A10 and 13A1 touch (S); 12B10 is SE of 12A10 and NE of 13A1.
def test_stacked_boards_share_the_row_10_row_0_half_hexes():
    geo = geometry(STACK)
    assert len(geo.hexes()) == 2 * 346 - 16
    odd = [c for i, c in enumerate(boards.COLUMNS) if i % 2]
    assert len(odd) == 16
    for c in odd:
        assert geo.canonical(f"13{c}0") == f"12{c}10"
    assert len(geo.aliases) == 16 and geo.names("13B0") == ("12B10", "13B0")
    assert geo.neighbour("12A10", 4) == "13A1"
    assert geo.neighbour("13A1", 1) == "12A10"
    assert geo.neighbour("12A10", 3) == "12B10"
    assert geo.neighbour("13A1", 2) == "12B10"
    assert geo.neighbour("12B10", 4) == "13B1" and geo.neighbour("13B1", 1) == "12B10"
    assert set(geo.neighbours("13B0")) == {"12B9", "12C10", "13C1", "13B1", "13A1", "12A10"}
    assert geo.distance("12A9", "13A2") == 3
    assert geo.distance("12B9", "13B1") == 2  # 12B9 -> 12B10/13B0 -> 13B1
    assert geo.edge("west") == frozenset({f"12A{r}" for r in range(1, 11)} | {f"13A{r}" for r in range(1, 11)})
    assert "13B10" in geo.edge("south") and "12B0" in geo.edge("north")
    assert "12B10" not in geo.edge("south")


# -- four boards -------------------------------------------------------------------------------------
#   24 | 23        the 24/23 and 12/13 seams are side joins (10 hexes each),
#   ---+---        the 24/12 and 23/13 seams are stacked joins (16 hexes each);
#   12 | 13        no hex is shared by more than two boards (the GG/A columns have no row 0 or 10 halves).
def test_four_boards():
    geo = geometry(SQUARE)
    assert len(geo.hexes()) == 4 * 346 - 2 * 10 - 2 * 16
    assert len(geo.aliases) == 2 * 10 + 2 * 16
    assert geo.canonical("24GG10") == "23A10" and geo.canonical("12GG1") == "13A1"
    assert geo.canonical("12B0") == "24B10" and geo.canonical("13FF0") == "23FF10"
    # 23A10 (= 24GG10) and 13A1 (= 12GG1) are one hex apart across the corner of all four boards
    assert geo.neighbour("24GG10", 4) == "13A1"
    assert geo.distance("24FF10", "13B1") == 2
    # north-west corner to south-east corner: 64 columns, 19 rows down (64 column steps cover 32)
    assert geo.distance("24A1", "13GG10") == 64
    # straight down the west edge: 24A1 .. 24A10, 12A1 .. 12A10
    assert geo.distance("24A1", "12A10") == 19
    line = geo.line("24A1", "13GG10")
    assert len(line) == 65 and all(geo.distance(a, b) == 1 for a, b in pairwise(line))
    assert [len(j.pairs) for j in geo.joins] == [10, 10, 16, 16]


def test_distance_is_the_walking_distance_on_the_map():
    for layout in (SIDE, [["12*"], ["13"]]):
        geo = geometry(layout)
        for start in (geo.hexes()[0], geo.hexes()[400], geo.hexes()[-1]):
            walked = bfs_distances(geo, start)
            assert len(walked) == len(geo.hexes())
            for h, d in walked.items():
                assert geo.distance(start, h) == d


# -- a turned board ----------------------------------------------------------------------------------
#   24 | 23* : board 23 turned 180 degrees. Its hexrow GG now lies against 24's GG, rows reversed:
#
#        24GG1  = 23GG10        23A10  (north-east corner of the map)
#        ...                    ...
#        24GG5  = 23GG6         23B10 is a half hex on the NORTH edge, 23B0 on the SOUTH edge
#        24GG6  = 23GG5
#        ...
#        24GG10 = 23GG1         23A1   (south-east corner of the map)
def test_turned_board_sits_upside_down():
    geo = geometry(TURNED)
    flat = geometry(SIDE)
    assert len(geo.hexes()) == 682
    assert geo.canonical("24GG5") == "23GG6" and geo.canonical("24GG10") == "23GG1"
    assert geo.distance("24GG5", "23GG5") == 1 and geo.neighbour("24GG5", 4) == "23GG5"
    assert "23A1" in geo.edge("south") and "23A1" in geo.edge("east")
    assert "23A10" in geo.edge("north") and "23A10" in geo.edge("east")
    assert "23B0" in geo.edge("south") and "23B10" in geo.edge("north")
    assert "23B0" not in geo.edge("north")
    # column X row r of the turned board sits where column GG-X, row 11-r (even) / 10-r (odd) sits unturned
    assert geo.axial("23K4") == flat.axial("23W7")  # K (10, even) -> W (22), 4 -> 7
    assert geo.axial("23J4") == flat.axial("23X6")  # J (9, odd) -> X (23), 4 -> 6
    assert geo.axial("23B0") == flat.axial("23FF10")
    assert geo.axial("23A1") == flat.axial("23GG10")
    # distances inside the turned board are those of the board (a rotation keeps them)
    one = geometry([["23"]])
    for a, b in (("23A1", "23A10"), ("23B0", "23FF10"), ("23J4", "23Q9")):
        assert geo.distance(a, b) == one.distance(a, b)
    # A1 is now west of B1's old place: A1's north-west neighbour is B1 (turned, SE becomes NW)
    assert geo.neighbour("23A1", 6) == "23B1" and one.neighbour("23A1", 3) == "23B1"


def test_turned_board_in_a_stack():
    #   12* over 13: the turned upper board shows its hexrow GG on the west, A on the east, row 1 at the bottom
    #       12GG10 ...... 12A10        (north edge)
    #       12GG1  ...... 12A1
    #   === 12FF0 = 13B0, ..., 12B0 = 13FF0 ===   (its row-0 half hexes now lie on the seam)
    #       13A1   ...... 13GG1
    geo = geometry([["12*"], ["13"]])
    assert geo.canonical("13B0") == "12FF0" and geo.canonical("13FF0") == "12B0"
    assert geo.neighbour("12A1", 4) == "13GG1" and geo.neighbour("12GG1", 4) == "13A1"
    assert "12GG10" in geo.edge("north") and "12GG10" in geo.edge("west")
    assert "12B10" in geo.edge("north") and "12B0" not in geo.edge("north")
    assert geo.distance("12GG1", "13A1") == 1 and geo.distance("12A1", "13A1") == 32


def test_join_table_lists_each_seam():
    text = join_table(SIDE)
    assert "24 | 23 (side by side):" in text
    assert "    23A5 = 24GG5" in text
    assert text.count(" = ") == 10
    turned = join_table(TURNED)
    assert "    23GG6 = 24GG5" in turned and "23A5 = 24GG5" not in turned
    stacked = join_table(STACK)
    assert "12 / 13 (stacked):" in stacked and "    12B10 = 13B0" in stacked and stacked.count(" = ") == 16
    assert "no joins" in join_table([["24"]])
    assert "A2.2" in boards.README_SECTION and "346" in boards.README_SECTION


def test_a_map_layout_is_built_once_and_cached():
    """The 2x2 map is built once per layout (its time is measured by `python -m bench.maps`), in the caches of
    the ledger at work (cg/caches.py), never in a module global."""
    from cg import caches

    own = caches.use(caches.Caches())
    first = geometry(SQUARE)
    assert geometry([["24", "23"], ["12", "13"]]) is first
    assert list(own.layouts.values()) == [first]
    caches.use(caches.Caches())
    assert geometry(SQUARE) is not first  # another ledger's caches build their own
