"""projections.mapview: the text and SVG hex maps."""
import re
import xml.etree.ElementTree as ET

import pytest

from cg.control import classify
from cg.hexgrid import Grid
from projections.mapview import CELL, CODES, MARGIN, code, render_svg, render_text

SVG = "{http://www.w3.org/2000/svg}"


def ring_map():
    # axis G7 ringed by allied strategic hexes: NML, an Isolated Location, both MLRs
    g = Grid.from_spec("A-N", 13)
    corners = ["G4", "J5", "J8", "G10", "D8", "D5"]
    control = {"G7": "axis", "B12": "axis", **{c: "allied" for c in corners}}
    mc = classify(g, frozenset(control) | {"L12"}, control, {"axis": "west", "allied": "east"})
    return g, mc


TERRAIN = {"G7": ["rubble"], "c3": ["wire", "A-P mines 6"], "J5": ["flame", "blaze"]}
UNITS = {"G7": ["4-6-7", "8-1 Ldr"], "J8": ["M4A3 Sherman"]}


def map_lines(text: str, grid: Grid) -> list[str]:
    """The map's rows: one line each (issue 38 item 4), under the header that names the columns."""
    lines = text.splitlines()
    head = next(i for i, x in enumerate(lines) if x.split()[:2] == [grid.columns[0], grid.columns[1]])
    return lines[head + 1 : head + 1 + grid.rows]


def test_text_has_one_cell_per_hex():
    g, mc = ring_map()
    text = render_text(g, mc, terrain=TERRAIN, units=UNITS)
    rows = map_lines(text, g)
    assert len(rows) == g.rows
    cells = {}
    for i, line in enumerate(rows):
        row = i + 1
        assert line[: MARGIN - 1].strip() == str(row)
        for ci, col in enumerate(g.columns):  # every column's hex of the row on the row's one line
            x = MARGIN + CELL * ci
            cell = line[x : x + CELL].ljust(CELL)
            h = f"{col}{row}"
            assert cell[0] in CODES, (h, cell)
            cells[h] = cell
    assert set(cells) == set(g.hexes())
    total = sum(1 for line in rows for ch in line[MARGIN:] if ch in CODES)
    assert total == len(g.hexes())
    assert cells["G7"] == "I*&" and cells["C3"] == ". !" and cells["J8"] == "L*@"
    assert all(cells[h][0] == code(mc.hexes[h]) for h in g.hexes())
    assert "Legend (" in text and "C3: wire, A-P mines 6" in text and "G7: 4-6-7, 8-1 Ldr" in text
    assert "Isolated Locations G7" in text


def test_text_without_extras():
    g = Grid.from_spec("A-E", 4)
    mc = classify(g, frozenset({"C2"}), {"C2": "axis"}, {"axis": "west"})
    text = render_text(g, mc)
    rows = map_lines(text, g)
    assert sum(1 for line in rows for ch in line[MARGIN:] if ch in CODES) == 20
    assert "Terrain:" not in text and "Units:" not in text


def test_unknown_hex_in_units():
    g, mc = ring_map()
    with pytest.raises(ValueError):
        render_text(g, mc, units={"Z99": ["4-6-7"]})
    with pytest.raises(ValueError):
        render_svg(g, mc, terrain={"Z99": ["rubble"]})


def test_svg_parses_one_polygon_per_hex():
    g, mc = ring_map()
    svg = render_svg(g, mc, terrain=TERRAIN, units=UNITS, title="Test CG <after FF 2> & co", tvp={"G7": 3, "J5": 2})
    assert not svg.lstrip().startswith("<?xml")  # inline-embeddable in HTML
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    assert root.get("width") and root.get("height") and root.get("viewBox")
    polygons = root.findall(f".//{SVG}polygon")
    assert len(polygons) == len(g.hexes())
    hexes = root.findall(f".//{SVG}g[@class='hex']")
    assert [e.get("data-hex") for e in hexes] == list(g.hexes())
    assert {e.get("data-hex"): e.get("data-control") for e in hexes} == {
        h: code(hc) for h, hc in mc.hexes.items()
    }
    texts = "".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "Test CG <after FF 2> & co" in texts
    for h in ["A1", "G7", "N13"]:
        assert h in texts
    assert "Rb" in texts and "Wi" in texts and "Mi" in texts and "Fl" in texts and "Bz" in texts
    assert root.findall(f".//{SVG}path[@class='mlr mlr-allied']")
    assert root.findall(f".//{SVG}path[@class='mlr mlr-axis']")
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    for e in root.iter():  # every url(#id) points at a defined id
        for ref in re.findall(r"url\(#([^)]+)\)", e.get("fill") or ""):
            assert ref in ids


def test_svg_geometry_matches_the_grid():
    # adjacent hexes share a hexside: the two corners of h towards d are n's corners towards d+3
    g, mc = ring_map()
    root = ET.fromstring(render_svg(g, mc))
    pts = {}
    for e in root.findall(f".//{SVG}g[@class='hex']"):
        poly = e.find(f"{SVG}polygon")
        pts[e.get("data-hex")] = [tuple(map(float, p.split(","))) for p in poly.get("points").split()]
    for h in g.hexes():
        for d in range(1, 7):
            n = g.neighbour(h, d)
            if n is None:
                continue
            mine = {(round(x), round(y)) for x, y in _side(pts[h], d)}
            theirs = {(round(x), round(y)) for x, y in _side(pts[n], (d + 2) % 6 + 1)}
            assert mine == theirs, (h, d, n)
    # direction 1 is north: the neighbour's centre is straight above
    cx = lambda h: sum(x for x, _ in pts[h]) / 6  # noqa: E731
    cy = lambda h: sum(y for _, y in pts[h]) / 6  # noqa: E731
    assert abs(cx("C3") - cx("C4")) < 0.01 and cy("C3") < cy("C4")
    assert cy("B1") > cy("A1") and cy("B1") > cy("C1")  # ruling R17: B half a hex lower


def _side(corners, d):
    return corners[(d + 3) % 6], corners[(d + 4) % 6]


def test_svg_without_extras_is_small_and_valid():
    g = Grid.from_spec("A-GG", 10)
    mc = classify(g, frozenset({"C4", "X5"}), {"C4": "axis", "X5": "allied"}, {"axis": "west", "allied": "east"})
    root = ET.fromstring(render_svg(g, mc))
    assert len(root.findall(f".//{SVG}polygon")) == 330


def test_a_map_of_boards_draws_its_row_0_half_hexes_below_the_title_not_over_it():
    """On geomorphic boards the B, D, ... columns start with row 0 half hexes: they are drawn below the
    title line and the column letters, and the legend below the last row (a screenshot showed the top
    half row over the title)."""
    from cg.hexgrid import board_grid
    from projections import mapview

    grid = board_grid((("24", "23*"),))
    title = "Bridgehead"
    centres = mapview.hex_centres(grid, title)
    top_edge = min(y for _x, y in centres.values()) - mapview.HEIGHT / 2
    title_baseline = mapview.PAD + 18
    assert top_edge > title_baseline + 12  # the letters' line (10 px) fits between
    assert any(grid.parse(h)[1] == 0 for h in centres)  # the map does have row 0
    bottom_edge = max(y for _x, y in centres.values()) + mapview.HEIGHT / 2
    top, _left = mapview._origin(title)
    map_h = mapview.HEIGHT * (grid.rows + 1 - mapview._first_row(grid)) + mapview.HEIGHT / 2
    assert bottom_edge <= top + map_h + 0.01  # the legend starts below the last row
