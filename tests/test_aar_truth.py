"""The After Action Report tells the truth (issue 27 items 2-5): every table shows what was true at its
time, the Markdown setup tables have their rows, the terrain a RePh made is kept in the result, a step
whose records are the setup tables is not said to have had nothing, and a purchase's leaders are not
listed among its units."""
from __future__ import annotations

import json
import re

import pytest

from conftest import Campaign, cli_run


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("aar") / "demo.plcg")
    r = cli_run(path, "demo")
    assert r.code == 0, r.err
    md = cli_run(path, "export", "--format", "md").out
    return path, md


def _firefight(md: str, n: int) -> str:
    return md.split(f"## Firefight {n} ")[1].split("\n## ")[0]


def _table_after(text: str, caption: str) -> list[str]:
    """The table rows printed after a caption line (empty when the caption stands alone)."""
    lines = text.split(f"**{caption}**\n", 1)[1].lstrip("\n").splitlines()
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_the_setup_table_shows_each_counter_as_it_was_at_its_setup(tmp_path):
    """A 4-6-7 that set up in firefight 1 and was Casualty Reduced at its end is a 2-4-7 now, and the
    report's setup table of firefight 1 still shows the 4-6-7 that set up."""
    db = tmp_path / "c.plcg"
    assert cli_run(db, "new", "--card", "sample", "--seed", "truth").code == 0
    c = Campaign.attach(db, plan={1: {"buy": [("axis", "I1", "on-map")],
                                      "end": {"reduced": ["axis:I1-1.1"],  # a squad to its HS: 1 CVP (R39)
                                              "cvp_lost": {"axis": 1, "allied": 0}}}})
    c.advance(1, "2.6")
    r = cli_run(db, "setup", "axis", "I1-1.1", "M5")
    assert r.code == 0, r.err
    seq = c.rows()
    c.advance(1, "3.1")
    c.close()
    now = {u["unit"]: u["name"] for u in json.loads(cli_run(db, "oob", "axis", "--json").out)}
    assert now["I1-1.1"] == "2-4-7"  # Casualty Reduced at the firefight's end
    md = cli_run(db, "export", "--format", "md").out
    rows = _table_after(_firefight(md, 1), "Axis setup")
    assert f"| I1-1.1 | 4-6-7 | M5 |  | {seq} |" in rows, rows  # a 4-6-7 when it set up


def test_the_markdown_setup_tables_print_their_rows(demo):
    path, md = demo
    ff1 = _firefight(md, 1)
    log = [json.loads(line) for line in cli_run(path, "log", "--json").out.splitlines()]
    set_up = {side: {e["summary"].split()[1] for e in log if e["type"] == "unit_set_up" and e["firefight"] == 1
                     and e["side"] == side and not e["reverted"]} for side in ("axis", "allied")}
    assert any(set_up.values())
    for side, units in set_up.items():
        if not units:
            continue
        rows = _table_after(ff1, f"{side.capitalize()} setup")
        assert rows[0] == "| Unit | Counter | Hex | HIP | Seq |" and len(rows) == 2 + len(units), rows


def test_a_step_whose_records_are_the_setup_tables_is_not_passed_with_nothing(demo):
    _path, md = demo
    ff1 = _firefight(md, 1)
    quiet = re.search(r"Passed with nothing to record: (.*)\.\*", ff1).group(1)
    assert "2.6" not in quiet
    assert "#### 2.6 Firefight Setup\n\n*Every unit set up is in the setup tables above.*" in ff1


def test_a_purchase_row_lists_its_units_as_bought_and_its_leaders_only_as_leaders(demo):
    _path, md = demo
    ff1 = _firefight(md, 1)
    # the 6+1 is the Leaders column's, not a unit; the 6-6-7 reduced to 3-4-7 by a patrol was a 6-6-7 bought
    assert "| Allied | I1-1 | I1 Rifle Platoon | entry | 5 |  | 6+1 | 3× 6-6-7, BAZ 44 |" in ff1
    assert "| Allied | I2-1 | I2 Ranger Platoon | entry | 7 |  | 8-0 | 3× 7-4-7, LMG, BAZ 44 |" in ff1


def test_the_terrain_the_reph_made_is_in_the_firefights_terrain_kept(tmp_path):
    db = str(tmp_path / "c.plcg")
    c = Campaign(db, plan={1: {"end": {"cvp_lost": {"axis": 4, "allied": 6}}}})
    c.advance(1, "3.3")
    c.close()
    assert cli_run(db, "rubble", "M4", "--kia", "3", "--dice", "1").code == 0  # B24.11: rubble
    assert cli_run(db, "flame", "D3", "--kindling", "7", "--dice", "6,6").code == 0  # Table 23: a Flame
    md = cli_run(db, "export", "--format", "md").out
    assert "- **Terrain kept (CG5):** M4 rubble (B24.11, seq " in md
    assert re.search(r"D3 flame \(Table 23, seq \d+\)\.", md)


def test_the_html_report_shows_the_verdict_above_the_fold_and_setups_as_they_were(demo, tmp_path):
    """In headless Chromium at 1280 wide: the verdict is laid out in the first screen, the Victory Conditions
    fold under it, and the first firefight's Axis setup shows the 4-6-7 that set up (issue 27 items 1, 2)."""
    from helpers.browser import measure

    path, _md = demo
    html = cli_run(path, "export", "--format", "html").out
    got = measure(html, tmp_path, """
        const li = [...document.querySelectorAll('ul.facts li')].find(e => e.textContent.startsWith('CG verdict:'));
        const vc = document.querySelector('details#victory summary');
        const cap = [...document.querySelectorAll('#ff1 caption')].find(c => c.textContent === 'Axis setup');
        const row = [...cap.parentElement.querySelectorAll('tr')].find(r => r.cells[0].textContent === 'I1-1.1');
        return {verdict: li.textContent, top: li.getBoundingClientRect().top, vc: vc.textContent,
                counter: row.cells[1].textContent};""")
    assert got["verdict"].startswith("CG verdict: Allied wins") and 0 < got["top"] < 1000
    assert got["vc"].startswith("CG Victory Conditions")
    assert got["counter"] == "4-6-7"


def test_the_purchase_record_lists_leaders_as_leaders_not_units(demo):
    path, _md = demo
    rows = json.loads(cli_run(path, "purchases", "allied", "--json").out)["purchases"]
    i1 = [r for r in rows if r["side"] == "allied" and r["purchase"] == "I1-1"][0]
    assert i1["leaders"] == ["6+1"] and "6+1" not in i1["units"]
