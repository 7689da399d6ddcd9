"""cg.hexgrid: ruling R17 (ASL hex grid geometry)."""
from collections import deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cg.hexgrid import Grid, column_labels

G = Grid.from_spec("A-R", 10)
BOARD = Grid.from_spec("A-GG", 10)  # a whole ASL board
HEXES = st.sampled_from(G.hexes())
BOARD_HEXES = st.sampled_from(BOARD.hexes())


def test_column_specs():
    assert column_labels("A-R") == tuple("ABCDEFGHIJKLMNOPQR")
    assert column_labels("A-Z")[-1] == "Z" and len(column_labels("A-Z")) == 26
    assert column_labels("A-GG")[25:] == ("Z", "AA", "BB", "CC", "DD", "EE", "FF", "GG")
    assert column_labels("c-e") == ("C", "D", "E")
    assert BOARD.columns[-1] == "GG" and len(BOARD.hexes()) == 330


@pytest.mark.parametrize("spec", ["", "A-", "R-A", "A-AB", "A-B-C", "1-5", "A-AAA"])
def test_bad_column_spec(spec):
    with pytest.raises(ValueError) as err:
        Grid.from_spec(spec, 10)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("rows", [0, -1, True, "10"])
def test_bad_rows(rows):
    with pytest.raises(ValueError):
        Grid.from_spec("A-R", rows)


def test_hexes_column_major_and_parse():
    hs = G.hexes()
    assert len(hs) == 18 * 10 and len(set(hs)) == len(hs)
    assert hs[:3] == ("A1", "A2", "A3") and hs[10] == "B1" and hs[-1] == "R10"
    assert G.parse("A1") == (0, 1) and G.parse("c4") == (2, 4) and G.parse("R10") == (17, 10)
    assert BOARD.parse("gg10") == (32, 10)
    assert G.canonical("d5") == "D5"
    for bad in ["S1", "A0", "A11", "A01", "AA1", "", "4C", "C"]:
        assert not G.valid(bad)
        with pytest.raises(ValueError):
            G.parse(bad)
    assert G.valid("a1")


def test_stagger_and_directions():
    # ruling R17: B sits half a hex below A, so A1-B1 is SE and B1-C1 is NE
    assert G.neighbour("A1", 3) == "B1"
    assert G.neighbour("B1", 2) == "C1"
    assert G.neighbour("B1", 6) == "A1"
    assert G.neighbour("B1", 5) == "A2"
    assert G.neighbour("C4", 1) == "C3" and G.neighbour("C4", 4) == "C5"
    assert [G.neighbour("C4", d) for d in range(1, 7)] == ["C3", "D3", "D4", "C5", "B4", "B3"]
    assert [G.neighbour("D4", d) for d in range(1, 7)] == ["D3", "E4", "E5", "D5", "C5", "C4"]
    assert G.neighbour("A1", 1) is None and G.neighbour("A1", 2) is None  # B0 is off the card map
    with pytest.raises(ValueError):
        G.neighbour("A1", 7)


@given(HEXES)
def test_direction_one_is_north(h):
    col, row = G.parse(h)
    n = G.neighbour(h, 1)
    if row == 1:
        assert n is None
    else:
        assert G.parse(n) == (col, row - 1)
    s = G.neighbour(h, 4)
    assert s is None if row == G.rows else G.parse(s) == (col, row + 1)


@given(HEXES, st.integers(1, 6))
def test_opposite_directions(h, d):
    n = G.neighbour(h, d)
    if n is not None:
        assert G.neighbour(n, (d + 2) % 6 + 1) == h  # d and d+3 are opposite
        assert G.distance(h, n) == 1


@given(HEXES)
def test_neighbours_are_distance_one(h):
    ns = G.neighbours(h)
    assert 2 <= len(ns) <= 6 and len(set(ns)) == len(ns)
    assert all(G.distance(h, n) == 1 for n in ns)
    assert set(ns) == {x for x in G.hexes() if G.distance(h, x) == 1}
    assert G.within(h, 1) == sorted([h, *ns], key=G.index)


@given(HEXES, HEXES)
def test_distance_symmetric(a, b):
    assert G.distance(a, b) == G.distance(b, a) >= 0
    assert (G.distance(a, b) == 0) == (a == b)
    assert G.distance(a.lower(), b) == G.distance(a, b)


@given(BOARD_HEXES, BOARD_HEXES, BOARD_HEXES)
def test_triangle_inequality(a, b, c):
    assert BOARD.distance(a, c) <= BOARD.distance(a, b) + BOARD.distance(b, c)


@given(BOARD_HEXES, BOARD_HEXES)
def test_line_contiguous_shortest(a, b):
    line = BOARD.line(a, b)
    assert line[0] == a and line[-1] == b
    assert len(line) == BOARD.distance(a, b) + 1
    assert all(BOARD.distance(x, y) == 1 for x, y in zip(line, line[1:]))
    assert all(BOARD.valid(h) for h in line)
    assert BOARD.line(b, a) == line[::-1]
    assert BOARD.line(a, b) == line  # deterministic


def test_line_examples():
    assert G.line("A1", "A4") == ["A1", "A2", "A3", "A4"]
    assert G.line("A1", "C1") == ["A1", "B1", "C1"]  # stays on the map (B0 is off it)
    assert G.line("A2", "H5") == ["A2", "B2", "C3", "D3", "E4", "F4", "G5", "H5"]  # straight SE
    assert G.line("C3", "C3") == ["C3"]


def _bfs(grid, start):
    dist = {start: 0}
    todo = deque([start])
    while todo:
        h = todo.popleft()
        for n in grid.neighbours(h):
            if n not in dist:
                dist[n] = dist[h] + 1
                todo.append(n)
    return dist


@pytest.mark.parametrize("grid", [Grid.from_spec("A-H", 6), Grid.from_spec("B-K", 7), Grid.from_spec("A-A", 4)])
def test_distance_is_on_map_path_length(grid):
    # exhaustive: hex distance = the shortest path that stays on the card map (ruling R17)
    for a in grid.hexes():
        bfs = _bfs(grid, a)
        assert all(bfs[b] == grid.distance(a, b) for b in grid.hexes())
        for b in grid.hexes():
            assert len(grid.line(a, b)) == bfs[b] + 1


def test_within_is_the_disc():
    for h in ["A1", "E5", "R10", "J1"]:
        for radius in range(4):
            assert G.within(h, radius) == [x for x in G.hexes() if G.distance(h, x) <= radius]
    assert len(G.within("E5", 2)) == 19


def test_edges():
    assert G.edge("north") == frozenset(f"{c}1" for c in G.columns)
    assert G.edge("south") == frozenset(f"{c}10" for c in G.columns)
    assert G.edge("west") == frozenset(f"A{r}" for r in range(1, 11))
    assert G.edge("east") == frozenset(f"R{r}" for r in range(1, 11))
    for side in ["north", "south", "east", "west"]:  # every edge hex has an off-map neighbour
        assert all(len(G.neighbours(h)) < 6 for h in G.edge(side))
    inner = set(G.hexes()) - set().union(*(G.edge(s) for s in ["north", "south", "east", "west"]))
    assert all(len(G.neighbours(h)) == 6 for h in inner)
    with pytest.raises(ValueError):
        G.edge("up")


def test_grid_is_a_value():
    assert Grid.from_spec("A-R", 10) == G and hash(Grid.from_spec("A-R", 10)) == hash(G)
    assert Grid(("A", "B"), 3).hexes() == ("A1", "A2", "A3", "B1", "B2", "B3")
    with pytest.raises(ValueError):
        Grid(("A", "C"), 3)
