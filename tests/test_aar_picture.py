"""The HTML After Action Report as a player sees it in headless Chromium: a six-firefight campaign fits
under 4,000 px at 1280 wide; setups are one table per side; chart lines cannot hide each other; nothing
is plotted for firefights not yet played."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html import unescape

import cli
from conftest import Campaign, cli_run
from helpers.browser import close, hex_rgb, measure, page_size, screenshot
from projections import aar
from projections.charts import ALLIED_COLOR, AXIS_COLOR, line_chart
from test_aar import demo  # noqa: F401  (the played demo, its state and its reports: a fixture)


def _rows(path: str) -> list:
    led = cli.Ledger(path)
    try:
        return list(led.store.read())
    finally:
        led.close()


def test_the_six_firefight_demo_report_is_under_4000_px_at_1280_wide(demo, tmp_path):
    st = demo["state"]
    assert len(st.card.firefights) == 6 and st.ended
    size = page_size(demo["html"], tmp_path, width=1280)
    assert size["width"] <= 1280 and size["height"] < 4000, size
    # and the screenshot agrees: nothing is drawn below 4,000 px, something is drawn near the end
    f = tmp_path / "aar.html"
    f.write_text(demo["html"], encoding="utf-8")
    pic = screenshot(f, tmp_path / "aar.png", 1280, 4400)
    assert 3000 < pic.last_row_not() < 4000


def test_a_map_opened_in_the_report_is_drawn_at_its_own_size_so_its_counters_stay_legible(demo, tmp_path):
    script = """
      document.querySelectorAll('details.map').forEach(d => d.open = true);
      return Array.from(document.querySelectorAll('svg.map')).map(s => ({
        drawn: s.getBoundingClientRect().width, own: parseFloat(s.getAttribute('width')),
        font: Math.min(...Array.from(s.querySelectorAll('g.counters')).map(
          g => parseFloat(getComputedStyle(g).fontSize)))}));"""
    maps = measure(demo["html"], tmp_path, script, width=1280)
    played = [ff for ff in demo["state"].firefights if ff.winner is not None]
    assert len(maps) == len(played)
    for m in maps:
        assert abs(m["drawn"] - m["own"]) < 1, m  # not scaled down
        assert m["font"] >= 10, m


def _tables(html: str) -> dict[str, list[list[str]]]:
    out = {}
    for m in re.finditer(r"<table><caption>([^<]*)</caption>(.*?)</table>", html, re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", m.group(2), re.S)
        out.setdefault(unescape(m.group(1)), []).append(
            [[unescape(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r)] for r in rows])
    return out


def test_setups_are_one_table_per_side_not_a_line_per_unit(demo):
    html = demo["html"]
    sec1 = html[html.index('<section id="ff1"'):html.index('<section id="ff2"')]
    tables = _tables(sec1)
    from cg.evolve import reverted_seqs

    rows = _rows(demo["path"])
    undone = reverted_seqs([(r.seq, r.batch, r.type, r.payload) for r in rows])
    placed = [r.payload for r in rows if r.type == "unit_set_up" and r.firefight == 1 and r.seq not in undone]
    assert placed
    for side, caption in (("axis", "Axis setup"), ("allied", "Allied setup")):
        if not any(p["side"] == side for p in placed):  # the demo's Allies enter in firefight 1 (ruling R50)
            assert caption not in tables
            continue
        [table] = tables[caption]
        assert table[0] == ["Unit", "Counter", "Hex", "HIP", "Seq"]
        want = {p["unit"]: p["hex"] for p in placed if p["side"] == side}  # a unit's last setup stands
        assert {r[0]: r[2] for r in table[1:]} == want and len(table) - 1 == len(want)
        for r in table[1:]:  # the counter as it was at its setup, not as it is now (issue 27 item 2)
            then = json.loads(cli_run(demo["path"], "oob", side, "--json", "--at", r[4]).out)
            assert r[1] == {u["unit"]: u["name"] for u in then}[r[0]]
    assert " set up in " not in sec1  # no line per unit in the sequence


def _series(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    return root.findall(".//g[@class='series']")


def test_chart_lines_have_distinct_markers_and_dashes_and_an_equal_line_is_labelled(tmp_path):
    x = ["FF1", "FF2", "FF3"]
    svg = line_chart("SAN", {"Axis": [2, 3, 3], "Allied": [2, 3, 3], "Other": [1, 1, 2]}, x, width=380,
                     height=240)
    groups = _series(svg)
    assert len({g.get("data-marker") for g in groups}) == 3
    assert len({g.get("data-dash") for g in groups}) == 3
    allied = next(g for g in groups if g.get("data-series") == "Allied")
    assert [t.text for t in allied.iter("text") if t.get("class") == "same"] == ["= Axis"]
    assert "Allied (same as Axis)" in svg
    # in the browser the Allied line, lying on the Axis one, still shows: around each shared point the
    # Allied colour (its hollow marker) rings the Axis colour (its filled one)
    f = tmp_path / "chart.html"
    f.write_text(f"<!DOCTYPE html><html><body style='margin:0'>{svg}</body></html>", encoding="utf-8")
    pic = screenshot(f, tmp_path / "chart.png", 380, 240)
    axis_pts = [(float(c.get("cx")), float(c.get("cy")))
                for c in ET.fromstring(svg).find(".//g[@class='points'][@data-series='Axis']").iter("circle")]
    assert len(axis_pts) == 3
    for cx, cy in axis_pts:
        assert close(pic.pixel(cx, cy), hex_rgb(AXIS_COLOR), 40), (cx, cy, pic.pixel(cx, cy))
        ring = pic.count(cx - 7, cy - 7, cx + 8, cy + 8, lambda p: close(p, hex_rgb(ALLIED_COLOR), 40))
        assert ring >= 8, (cx, cy, ring)


def test_the_demo_charts_use_distinct_looks_in_every_chart(demo):
    charts = re.findall(r'<svg class="chart".*?</svg>', demo["html"], re.S)
    assert len(charts) == 5
    for svg in charts:
        groups = _series(svg)
        assert len({g.get("data-marker") for g in groups}) == len(groups)
        assert len({g.get("data-dash") for g in groups}) == len(groups)


def test_nothing_is_plotted_for_firefights_not_yet_played(tmp_path):
    c = Campaign(tmp_path / "p.plcg", plan={1: {"end": {"cvp_lost": {"axis": 5, "allied": 8}}}})
    c.advance(2, "2.3")
    c.close()
    led = cli.Ledger(c.path)
    try:
        html = aar.export(led, "html")
        d = aar.chart_series(aar.walk(led))
    finally:
        led.close()
    # the report runs to the firefight in hand (2, at its purchases): what it has not got to is None
    for s in ("axis", "allied"):
        assert len(d["elr"][s]) == 2
        assert d["elr"][s][0] is not None and d["elr"][s][1] is None
        assert d["san"][s][1] is None and d["tvp"][s][1] is None and d["cvp"][s][1] is None
        assert d["cp_gained"][s][1] is not None  # 2.1 is over
        assert d["cp_left"][s][1] is None  # 2.3 is not
    for svg in re.findall(r'<svg class="chart".*?</svg>', html, re.S):
        tips = re.findall(r"<title>[^<]*, (FF\d)[^<]*: [^<]*</title>", svg)
        assert tips and set(tips) <= {"FF1", "FF2"}, set(tips)
        if "CP per firefight" not in svg:
            assert set(tips) == {"FF1"}, set(tips)
