"""After Action Reports (`plcg export --format md|html`): what a player pastes into a forum post and
the one-file HTML report with its charts and maps, opened in a real browser."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html import unescape
from html.parser import HTMLParser

import pytest

import cli
from cg import tables
from cg.app.demo import play
from conftest import Campaign, cli_run
from helpers.browser import chromium
from projections import aar
from projections.charts import line_chart, nice_ticks
from projections.digest import digest

CHARTS = 5  # CP, ELR, SAN, CVP lost, CG TVP


# ---- the campaigns -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The shipped demo (six firefights, the second Idle), its state, and its md and html reports."""
    path = str(tmp_path_factory.mktemp("aar") / "demo.plcg")
    play(path, echo=lambda _line: None)
    led = cli.Ledger(path)
    try:
        st = led.state(use_snapshot=False)
        md = aar.export(led, "md")
        html = aar.export(led, "html")
    finally:
        led.close()
    return {"path": path, "state": st, "md": md, "html": html}


PLAN = {1: {"buy": [("axis", "I1"), ("allied", "I2")], "end": {"cvp_lost": {"axis": 14, "allied": 3}}}}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """Firefight 1 played (Axis lost 14 CVP); at 2.1 of firefight 2 a mistyped Axis CP DR is undone and
    rolled again as 4,3; then, at 2.3, the Axis buys an RG and the Attack Option, not yet revealed."""
    path = tmp_path_factory.mktemp("aar") / "small.plcg"
    c = Campaign(path, seed="aar-test", plan=PLAN)
    try:
        c.advance(2, "2.1")
        c.run("cp", side="axis", dice="6,6")
        c.run("undo", reason="wrong dice typed")
        [cp] = c.run("cp", side="axis", dice="4,3")
        c.run("cp", side="allied", dice="2,2")
        c.next()
        c.run("weather")  # 2.2 in every firefight (ruling R27)
        c.next()
        c.run("buy", side="axis", rg="HW1", mode="entry")
        c.run("attack", side="axis")
        led = c.led
        md = aar.export(led, "md")
        html = aar.export(led, "html")
        st = led.state(use_snapshot=False)
    finally:
        c.close()
    return {"path": str(path), "cp": cp, "md": md, "html": html, "state": st}


def _section(md: str, heading: str) -> str:
    """The text of a `## ` section of the Markdown report."""
    start = md.index(heading + "\n")
    nxt = md.find("\n## ", start + len(heading))
    return md[start: nxt if nxt != -1 else len(md)]


# ---- Markdown ----------------------------------------------------------------------------------------

def test_md_has_a_section_per_firefight_with_steps_purchases_and_result(demo):
    md, st = demo["md"], demo["state"]
    assert md.startswith(f"# After Action Report — {st.card.campaign.name}\n")
    heads = re.findall(r"^## Firefight (\d+) — (\S+), (day|night)", md, re.M)
    assert [int(n) for n, _d, _t in heads] == list(range(1, len(st.firefights) + 1)) == [1, 2, 3, 4, 5, 6]
    for ff in st.firefights:
        sec = _section(md, next(line for line in md.splitlines() if line.startswith(f"## Firefight {ff.n} — ")))
        assert f"{ff.date}, {ff.time}" in sec
        for part in ("### Purchases", "### Sequence", "### Result"):
            assert part in sec, (ff.n, part)
        if ff.type == "idle":
            assert "Idle Firefight" in sec
            continue
        p = ff.attacker
        assert f"attacker {p.title()}" in sec if p else "Dual Attack" in sec
        assert f"**End:** turn {ff.turn} " in sec
        assert f"**Winner:** {ff.winner.title()} " in sec
        assert f"**CVP lost:** Axis {ff.cvp_lost['axis']}" in sec
        assert f"(CG total {ff.tvp_total['axis']})" in sec
        assert ("#### 2.1 CP Replenishment" in sec) == (ff.n > 1)  # the Initial Firefight has no 2.1 (the card's CP)
        assert "#### 3.47 ELR Loss/Gain" in sec
    # the roster as a Markdown table, then the totals and the undos
    roster = _section(md, "## CG Roster")
    assert "| FF | Date | Time | Type | Side | ELR | SAN | CP gained |" in roster
    assert len([line for line in roster.splitlines() if line.startswith("| ") and " | Axis | " in line]) == 6
    assert f"**Axis:** CP gained {sum(f.cp_gained['axis'] for f in st.firefights)}" in roster
    assert f"CG TVP {st.sides['allied'].tvp_total}." in roster
    assert "## Undos\n\nNo undo: every command stands as first recorded." in md


def test_md_control_changes_and_purchases_follow_the_log(demo):
    md, st = demo["md"], demo["state"]
    sec1 = _section(md, next(line for line in md.splitlines() if line.startswith("## Firefight 1 — ")))
    # the demo's first result gives H6 and I5 to the Allied side
    assert "**Control changes:** H6 uncontrolled → Allied; I5 uncontrolled → Allied." in sec1
    for pur in st.purchases.values():
        if pur.firefight == 1:
            assert f"| {pur.side.title()} | {pur.id} | {pur.rg} " in sec1
    # every event of the demo that stands is told once, with its seq
    told = re.findall(r"^- \[(\d+)\] ", md, re.M)
    assert len(told) == len(set(told))


def test_md_tells_each_roll_in_words_with_its_drm_and_table_row(small):
    md, cp = small["md"], small["cp"]
    roll = cp.payload["roll"]
    assert roll["dice"] == [4, 3]
    intensity = small["state"].card.campaign.intensity
    hit = tables.cp_replenishment(roll["final"], intensity)
    assert roll["drm"] == [{"rule": "2.12", "reason": "14 CVP suffered in firefight 1 (incl. RePh)", "value": -1}]
    assert roll["final"] == 6 and hit.result == 12  # 7 - 1 on the low column of 2.12
    line = (f"- [{cp.seq}] Axis CP replenishment: DR 7 (4+3), -1 for 14 CVP suffered in firefight 1 (incl. RePh)"
            f" (2.12) = 6, row {hit.row} of 2.12: 12 CP")
    sec2 = _section(md, next(x for x in md.splitlines() if x.startswith("## Firefight 2 — ")))
    assert line in sec2
    assert sec2.index("#### 2.1 CP Replenishment") < sec2.index(line)


def test_md_leaves_undone_events_out_and_lists_them_struck_through_with_the_reason(small):
    md = small["md"]
    narrative, undos = md.split("\n## Undos\n")
    assert "DR 12 (6+6)" not in narrative
    assert "wrong dice typed" in undos
    assert re.search(r"^- \[\d+\] ~~Axis CP replenishment: DR 12 \(6\+6\)[^~]*~~$", undos, re.M)


def test_md_hides_what_is_not_yet_revealed_in_the_firefight_being_set_up(small):
    md = small["md"]
    sec2 = _section(md, next(x for x in md.splitlines() if x.startswith("## Firefight 2 — ")))
    assert "bought HW1" not in sec2 and "Attack Option for" not in sec2
    assert "not yet revealed" in sec2
    assert "#### 2.3 Purchasing Reinforcements (in progress)" in sec2
    # what the Axis spent would give the purchases away: neither the section nor the roster tells it
    st = small["state"]
    spent = st.firefights[1].cp_spent["axis"]
    assert spent == 3 + st.card.sides["axis"].attack_cost  # HW1 and the Attack Option
    assert "Axis gained 12, spending not yet revealed" in sec2
    roster = _section(md, "## CG Roster")
    axis2 = next(x for x in roster.splitlines() if x.startswith("| 2 | "))
    assert "| Axis | 3 | 3 | 12 | ? | ? |" in axis2
    assert f"spent {st.firefights[0].cp_spent['axis']} (and what is not yet revealed)" in roster
    # firefight 1 was played: its purchases are all shown
    sec1 = _section(md, next(x for x in md.splitlines() if x.startswith("## Firefight 1 — ")))
    assert "Axis bought I1 (" in sec1 and "Allied bought I2 (" in sec1
    assert "| Axis | I1-1 |" in sec1 and "| Allied | I2-1 |" in sec1


def test_export_through_the_cli_writes_the_same_report(demo, tmp_path):
    out = tmp_path / "aar.md"
    r = cli_run(demo["path"], "export", "--format", "md", "-o", str(out))
    assert r.code == 0, r.err
    assert out.read_text(encoding="utf-8") == demo["md"]
    r = cli_run(demo["path"], "export", "--format", "md")
    assert r.code == 0 and r.out == demo["md"]


@pytest.mark.parametrize("argv", [["export", "--format", "jsonl"], ["export", "--format", "md"],
                                  ["export", "--format", "html"], ["log"], ["log", "--json"]])
def test_a_payload_edited_into_not_json_gives_one_line_never_a_traceback(demo, tmp_path, argv):
    """The streamed readers stop on the edited row and the file is closed: the cursor left behind must
    not print "Exception ignored ... Traceback" when it is collected (the player sees one line)."""
    import sqlite3
    import sys

    path = tmp_path / "edited.plcg"
    shutil.copyfile(demo["path"], path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE events SET payload = '{bad' WHERE seq = 50")
    conn.execute("DELETE FROM snapshot")
    conn.commit()
    conn.close()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.run([sys.executable, os.path.join(root, "cli.py"), "--db", str(path), *argv],
                       capture_output=True, text=True, cwd=root)
    assert p.returncode != 0
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("plcg: "), p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("fmt", ["jsonl", "md", "html"])
def test_export_to_a_file_that_fails_half_way_leaves_no_file(demo, tmp_path, fmt):
    """A row damaged late in the log is met after the report has begun: -o FILE must not be left
    holding half a report (nothing written on an error), nor a temporary file beside it."""
    import sqlite3

    path = tmp_path / "edited.plcg"
    shutil.copyfile(demo["path"], path)
    conn = sqlite3.connect(path)
    last = conn.execute("SELECT max(seq) FROM events").fetchone()[0]
    conn.execute("UPDATE events SET payload = '{bad' WHERE seq = ?", (last - 3,))
    conn.execute("DELETE FROM snapshot")
    conn.commit()
    conn.close()
    out = tmp_path / "reports" / f"aar.{fmt}"
    out.parent.mkdir()
    r = cli_run(str(path), "export", "--format", fmt, "-o", str(out))
    assert r.code != 0
    assert list(out.parent.iterdir()) == []


def test_walk_folds_the_log_like_replay(demo):
    led = cli.Ledger(demo["path"])
    try:
        h = aar.walk(led)
        assert digest(h.final) == digest(led.state(use_snapshot=False))
    finally:
        led.close()


# ---- charts ------------------------------------------------------------------------------------------

def test_line_chart_draws_each_series_with_gaps_a_legend_and_axes():
    svg = line_chart("CVP lost", {"Axis": [3, None, 5, 7], "Allied": [1, 2, 3, 4]}, ["FF1", "FF2", "FF3", "FF4"])
    assert svg.startswith('<svg class="chart"') and svg.endswith("</svg>")
    assert svg.count("<polyline") == 2  # Axis: a lone point, the gap, then a line of two; Allied: one line
    assert svg.count("<circle") == 3 + 1 and svg.count("<rect x=") >= 4  # Axis circles, Allied squares
    assert "#2f5b8a" in svg and "#5c8a1e" in svg  # the two sides' colours
    assert ">Axis</text>" in svg and ">Allied</text>" in svg and ">FF3</text>" in svg
    assert "<title>CVP lost</title>" in svg and "Axis, FF4: 7" in svg
    with pytest.raises(ValueError):
        line_chart("bad", {"Axis": [1, 2]}, ["FF1"])


def test_nice_ticks():
    assert nice_ticks(0, 4) == [0, 1, 2, 3, 4]
    assert nice_ticks(0, 23) == [0, 10, 20, 30]
    assert nice_ticks(-3, 7) == [-5, 0, 5, 10]
    assert nice_ticks(0, 0.5) == [0, 0.2, 0.4, 0.6]
    assert nice_ticks(0, 0) == [-1, 0, 1]
    assert nice_ticks(0, 1) == [0, 1]


# ---- HTML --------------------------------------------------------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Checker(HTMLParser):
    """Well-formedness (every element closed in order), ids unique, and what the page holds."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.ids: list[str] = []
        self.doctype = None
        self.svgs: list[dict] = []  # root svg elements: class and the shapes inside
        self.tags: list[tuple[str, dict]] = []
        self.events: list[str] = []  # text of each li in ul.events
        self._li: list[str] | None = None
        self._uls: list[bool] = []  # for each open ul: is it a list of events
        self.text: list[str] = []

    def handle_decl(self, decl):
        self.doctype = decl

    def _open(self, tag, attrs, closes):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "svg" and "svg" not in self.stack:
            self.svgs.append({"class": a.get("class", ""), "shapes": 0})
        elif "svg" in self.stack and tag in ("polygon", "polyline", "path", "circle", "rect", "line"):
            self.svgs[-1]["shapes"] += 1
        if tag == "ul":
            self._uls.append("events" in a.get("class", "").split())
        if tag == "li" and self._uls and self._uls[-1]:
            self._li = []
        if not closes and tag not in VOID:
            self.stack.append(tag)

    def handle_starttag(self, tag, attrs):
        self._open(tag, attrs, closes=False)

    def handle_startendtag(self, tag, attrs):
        self._open(tag, attrs, closes=True)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()
        if tag == "li" and self._li is not None:
            self.events.append(" ".join("".join(self._li).split()))
            self._li = None
        if tag == "ul":
            self._uls.pop()

    def handle_data(self, data):
        if "svg" not in self.stack and "style" not in self.stack:
            self.text.append(data)
        if self._li is not None:
            self._li.append(data)


def _check(html: str) -> Checker:
    c = Checker()
    c.feed(html)
    c.close()
    assert not c.problems, c.problems[:5]
    assert c.stack == [], c.stack
    assert c.doctype and c.doctype.lower() == "doctype html"
    dup = {i for i in c.ids if c.ids.count(i) > 1}
    assert not dup, f"duplicate ids: {sorted(dup)[:5]}"
    return c


def test_html_is_one_self_contained_valid_page_with_charts_and_a_map_per_played_firefight(demo):
    html, st = demo["html"], demo["state"]
    c = _check(html)
    assert ("meta", {"charset": "utf-8"}) in c.tags
    assert ("html", {"lang": "en"}) in c.tags
    # nothing fetched from anywhere: no scripts, no external stylesheets, images or frames
    for tag, a in c.tags:
        assert tag not in ("script", "link", "img", "iframe", "object", "embed"), tag
        for k in ("src", "href"):
            v = a.get(k) or ""
            assert not v or v.startswith("#"), (tag, k, v)
    assert "@import" not in html and not re.search(r"url\((?!#)", html)
    charts = [s for s in c.svgs if "chart" in s["class"].split() and "dice" not in s["class"].split()]
    dice = [s for s in c.svgs if "dice" in s["class"].split()]
    maps = [s for s in c.svgs if "map" in s["class"].split()]
    played = [ff for ff in st.firefights if ff.winner is not None]
    assert len(played) == 5
    assert len(charts) == CHARTS and len(maps) == len(played)
    assert len(dice) == 4  # a DR and a dr chart per side (plcg dice-stats)
    assert all(s["shapes"] > 5 for s in charts + maps + dice)
    assert len(c.svgs) == CHARTS + len(dice) + len(played)
    # print stylesheet
    assert "@media print" in html
    for ff in played:
        assert f"Control after firefight {ff.n} (" in html


def test_html_tells_the_same_events_as_the_md(demo):
    c = _check(demo["html"])
    md_events = [line[2:] for line in demo["md"].splitlines() if re.match(r"^- \[\d+\] ", line)]
    md_events = [" ".join(unescape(re.sub(r"~~(.*)~~", r"\1", e)).split()) for e in md_events]  # MD escapes < > &
    assert md_events and c.events == md_events
    text = " ".join(" ".join(c.text).split())
    for line in demo["md"].splitlines():
        if line.startswith("## "):
            assert unescape(line[3:]) in text


def test_html_of_a_campaign_in_progress_has_maps_only_for_played_firefights(small):
    c = _check(small["html"])
    assert len([s for s in c.svgs if "map" in s["class"].split()]) == 1
    assert len([s for s in c.svgs if "chart" in s["class"].split() and "dice" not in s["class"].split()]) == CHARTS
    assert "bought HW1" not in small["html"]


# ---- in a browser ------------------------------------------------------------------------------------

PROBE_HEAD = """<script>window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message || e)); }, true);
window.onerror = function (m) { window.__errors.push(String(m)); };</script>"""

PROBE_BODY = """<pre id="measure"></pre><script>
window.addEventListener('load', function () {
  var out = {errors: window.__errors, svgs: []};
  try {
    document.querySelectorAll('svg.chart, svg.map').forEach(function (s) {
      var r = s.getBoundingClientRect();
      var shapes = s.querySelectorAll('polyline, polygon, path, circle, rect');
      var drawn = 0;
      shapes.forEach(function (e) { var b = e.getBoundingClientRect(); if (b.width > 0 || b.height > 0) drawn++; });
      var lines = s.querySelectorAll('polyline');
      var lineBox = lines.length ? lines[0].getBoundingClientRect() : null;
      out.svgs.push({cls: s.getAttribute('class'), w: r.width, h: r.height, shapes: shapes.length,
                     drawn: drawn, polylines: lines.length,
                     line: lineBox ? [lineBox.width, lineBox.height] : null});
    });
  } catch (e) { out.errors.push('measure: ' + e); }
  document.getElementById('measure').textContent = JSON.stringify(out);
});
</script>"""


def test_html_opens_in_headless_chromium_without_errors_and_draws_charts_and_maps(demo, tmp_path):
    browser = chromium()
    html = demo["html"]
    assert html.count("<head>") == 1 and html.count("</body>") == 1
    page = html.replace("<head>", "<head>" + PROBE_HEAD, 1).replace("</body>", PROBE_BODY + "</body>", 1)
    f = tmp_path / "aar.html"
    f.write_text(page, encoding="utf-8")
    profile = tmp_path / "profile"
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
           f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000",
           "--dump-dom", f.as_uri()]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert r.returncode == 0, r.stderr[-2000:]
    console = [line for line in r.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console[:5]
    m = re.search(r'<pre id="measure">(.*?)</pre>', r.stdout, re.S)
    assert m, "the page did not run its measuring script:\n" + r.stdout[:500] + r.stderr[-1000:]
    result = json.loads(unescape(m.group(1)))
    assert result["errors"] == []
    st = demo["state"]
    played = [ff for ff in st.firefights if ff.winner is not None]
    charts = [s for s in result["svgs"] if "chart" in s["cls"].split()]  # the dice charts too
    dice = [s for s in charts if "dice" in s["cls"].split()]
    assert len(dice) == 4
    charts = [s for s in charts if s not in dice] + dice
    maps = [s for s in result["svgs"] if "map" in s["cls"].split()]
    assert len(charts) == CHARTS + len(dice) and len(maps) == len(played)
    for s in charts + maps:
        assert s["w"] > 100 and s["h"] > 100, s
        assert s["drawn"] > 0 and s["drawn"] >= s["shapes"] // 2, s
    for s in charts:
        assert s["polylines"] >= 2 and s["line"] is not None and max(s["line"]) > 0, s
    for s in maps:
        assert s["shapes"] >= 100, s  # a polygon per hex at least


def test_html_tables_and_sequence_lines_escape_what_must_be_escaped_and_nothing_else():
    """The HTML report's tables and Sequence lines are joined a table (a list) at a time where nothing in them needs
    escaping (the setup tables: ~50,000 rows at 100k events): a cell or a line holding `&`, `<` or `>` is escaped
    all the same, a quote in a table's cell too (an attribute-safe escape), and a numeric column keeps its class."""
    from projections.aar import iter_html

    plain = ("table", ["Unit", "Seq"], [["A1", "12"], ["B2", "13"]], {1})
    odd = ("table", ["Unit", "Seq"], [["A1", "12"], ['R&D "x" <1>', "14"]], {1})
    lines = ("ul", [[("seq", "7"), "Axis A1 -> B2 & back"], [("seq", "8"), "Allied <none>"]], "events")
    out = "".join(iter_html([plain, odd, lines], title="t")).split("<main>\n", 1)[1]
    head = '<table><thead><tr><th scope="col">Unit</th><th scope="col">Seq</th></tr></thead>'
    assert out.split("\n")[:3] == [
        head + '<tbody><tr><td>A1</td><td class="num">12</td></tr><tr><td>B2</td><td class="num">13</td></tr>'
               "</tbody></table>",
        head + '<tbody><tr><td>A1</td><td class="num">12</td></tr>'
               '<tr><td>R&amp;D &quot;x&quot; &lt;1&gt;</td><td class="num">14</td></tr></tbody></table>',
        '<ul class="events"><li><span class="seq">[7]</span> Axis A1 -&gt; B2 &amp; back</li>'
        '<li><span class="seq">[8]</span> Allied &lt;none&gt;</li></ul>']
