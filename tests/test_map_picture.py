"""The SVG map as a player sees it: taken in headless Chromium at 1x and compared with the map's data.
Water, woods, bridges, roads and buildings (stone grey, wooden brown) are sampled at points computed
from the hex geometry; counters are in their side's colour with their name in >= 10 px text; the
legend names terrain in words."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from cg.control import classify
from cg.hexgrid import Grid
from conftest import Campaign, cli_run
from helpers.browser import close, hex_rgb, screenshot
from projections import mapview
from projections.mapview import (BRIDGE, BUILDING, COUNTER, COUNTER_FONT, GROUND, building_centre, ground_probe,
                                 hex_centres, render_svg)

SVG = "{http://www.w3.org/2000/svg}"

GROUND_DATA = {
    "water": ("D1", "D2", "E3", "E5", "F5"),
    "bridges": ("E4",),
    "roads": ("A4", "B4", "C4", "D4", "F4", "G4"),
    "woods": ("B7", "C7", "C8"),
    "orchard": ("G8",),
    "grain": ("A9",),
    "brush": ("H2",),
    "buildings": ("B2", "G6", "F7"),
    "stone": ("G6",),
}
UNITS = {"B3": [("axis", "4-6-7")], "F8": [("allied", "6-6-7"), ("allied", "9-1"), ("allied", "BAZ 44")],
         "H8": [("axis", "StuG IIIG")]}


def _picture(tmp_path, svg: str):
    f = tmp_path / "map.svg"
    f.write_text(svg, encoding="utf-8")
    root = ET.fromstring(svg)
    w, h = int(float(root.get("width"))) + 1, int(float(root.get("height"))) + 1
    return root, screenshot(f, tmp_path / "map.png", w, h)


def test_the_ground_is_drawn_where_the_map_says_and_nowhere_else(tmp_path):
    g = Grid.from_spec("A-H", 9)
    control = {"B2": "allied", "G6": "axis"}
    mc = classify(g, frozenset(control), control, {"axis": "east", "allied": "west"})
    svg = render_svg(g, mc, units=UNITS, ground=GROUND_DATA, title="ground")
    _root, pic = _picture(tmp_path, svg)
    centres = hex_centres(g, "ground")
    for kind in ("water", "woods", "orchard", "grain", "brush"):
        colour = hex_rgb(GROUND[kind][0])
        marked = set(GROUND_DATA[kind])
        for h in g.hexes():
            if h in GROUND_DATA["bridges"]:
                continue  # the deck covers the probe; below
            got = pic.pixel(*ground_probe(*centres[h]))
            if h in marked:
                assert close(got, colour), (kind, h, got)
            elif kind != "brush":  # brush's olive is near allied CTHC green; the others stand apart
                assert not close(got, colour, 12), (kind, h, got)
    # a bridge crosses the water: its deck at the hex centre, across the stream (here N-S: the deck E-W)
    [br] = GROUND_DATA["bridges"]
    cx, cy = centres[br]
    assert close(pic.pixel(cx, cy), hex_rgb(BRIDGE[0]))
    assert close(pic.pixel(cx + 0.6 * mapview.SIZE, cy), hex_rgb(BRIDGE[0]))
    assert not close(pic.pixel(cx, cy - 0.45 * mapview.SIZE), hex_rgb(BRIDGE[0]))
    assert close(pic.pixel(cx, cy - 0.45 * mapview.SIZE), hex_rgb(GROUND["water"][0]))  # the water under it
    # a road runs between road hexes: a third of the way from C4's centre to D4's
    (x1, y1), (x2, y2) = centres["C4"], centres["D4"]
    assert close(pic.pixel((2 * x1 + x2) / 3, (2 * y1 + y2) / 3), hex_rgb(mapview.ROAD[0]))
    for h in g.hexes():
        got = pic.pixel(*building_centre(*centres[h]))
        if h in GROUND_DATA["stone"]:
            assert close(got, hex_rgb(BUILDING["stone"][0])), (h, got)
        elif h in GROUND_DATA["buildings"]:
            assert close(got, hex_rgb(BUILDING["wooden"][0])), (h, got)
        else:
            assert not close(got, hex_rgb(BUILDING["stone"][0]), 10) and \
                not close(got, hex_rgb(BUILDING["wooden"][0]), 10), (h, got)


def test_units_are_counters_in_their_side_colour_with_a_readable_name(tmp_path):
    g = Grid.from_spec("A-H", 9)
    mc = classify(g, frozenset({"B2"}), {"B2": "allied"}, {"axis": "east", "allied": "west"})
    svg = render_svg(g, mc, units=UNITS, ground=GROUND_DATA)
    root, pic = _picture(tmp_path, svg)
    counters = root.findall(f".//{SVG}g[@class='counter']")
    assert sorted(c.get("data-hex") for c in counters) == sorted(UNITS)
    group = root.find(f".//{SVG}g[@class='counters']")
    assert float(group.get("font-size")) >= 10 and COUNTER_FONT >= 10
    for c in counters:
        h, side = c.get("data-hex"), c.get("data-side")
        assert side == UNITS[h][0][0]
        rect, text = c.find(f"{SVG}rect"), c.find(f"{SVG}text")
        assert text.text == UNITS[h][0][1]  # the counter's name, whole
        assert text.get("font-size") is None or float(text.get("font-size")) >= 10
        x, y, w, hh = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
        face = hex_rgb(COUNTER[side])
        assert close(pic.pixel(x + 2, y + hh / 2), face), (h, pic.pixel(x + 2, y + hh / 2))
        # the name is white on the face, and at least 7 px tall (a 10 px font's figures)
        inked = pic.rows_where(x + 1, y + 1, x + w - 1, y + hh - 1, lambda p: min(p) > 200)
        assert inked and inked[-1] - inked[0] + 1 >= 7, (h, inked)
        assert pic.count(x + 1, y + 1, x + w - 1, y + hh - 1, lambda p: min(p) > 200) >= 4 * len(text.text)
    # a stack of three: a black disc saying 3
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "3" in texts


def test_the_demo_map_through_the_cli_draws_the_cards_water_and_buildings_and_words_its_legend(tmp_path):
    path = str(tmp_path / "m.plcg")
    c = Campaign(path)
    c.advance(1, "2.3")
    c.run("buy", side="axis", rg="I1", mode="on-map")  # set up below: not bought to enter (ruling R50)
    c.run("buy", side="axis", rg="F1", mode="entry")
    c.run("fortify", side="axis", kind="ap_mine", hex="M6", factors=3)
    c.advance(1, "2.6")
    [u] = [u for u in c.state().units.values() if u.side == "axis" and u.kind == "squad"][:1]
    c.run("setup", side="axis", unit=u.id, hex="L4")
    st = c.state()
    c.close()
    out = tmp_path / "demo.svg"
    r = cli_run(path, "map", "--svg", str(out))
    assert r.code == 0, r.err
    svg = out.read_text(encoding="utf-8")
    root, pic = _picture(tmp_path, svg)
    title = root.find(f"{SVG}title").text
    centres = hex_centres(st.grid(), title)
    for h in st.card.map.water:
        assert close(pic.pixel(*ground_probe(*centres[h])), hex_rgb(GROUND["water"][0])), h
    for h in st.card.map.buildings:
        want = BUILDING["stone" if h in st.card.map.stone else "wooden"][0]
        assert close(pic.pixel(*building_centre(*centres[h])), hex_rgb(want)), h
    legend = " ".join("".join(t.itertext()) for t in root.find(f".//{SVG}g[@class='legend']").iter(f"{SVG}text"))
    assert "A-P mines, 3 factors (Axis)" in legend
    assert "stone building" in legend and "wooden building" in legend and "water" in legend
    assert not re.search(r"\b(None|True|False)\b|ap_mine", svg)
    [counter] = root.findall(f".//{SVG}g[@class='counter']")
    assert counter.get("data-hex") == "L4" and counter.find(f"{SVG}text").text == u.name
