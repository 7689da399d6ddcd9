"""Issue 38 item 4: a terminal a player can read. The text `map` prints one line per row, fits a terminal's 80
columns (a wide map in panels of columns), and says why each Strategic hex is one (the card's TVP, or grown
by a fortification: 1.4, ruling R46); a keyed copy's `status` offers only its own side's options."""
from __future__ import annotations

import json

import pytest

from conftest import cli_run


@pytest.fixture(scope="module")
def demo(module_workdir):
    path = module_workdir / "demo.plcg"
    assert cli_run(path, "demo").code == 0
    return path


def _columns(m: dict) -> list[str]:
    """The map's columns west to east, from `map --json`'s hexes (A1, B1, ...)."""
    out: list[str] = []
    for h in m["hexes"]:
        col = h.rstrip("0123456789")
        if col not in out:
            out.append(col)
    return out


def test_the_text_map_is_one_line_per_row_within_a_terminal(demo):
    text = cli_run(demo, "map", "--at", "40").out  # firefight 1's RePh: the foxhole L5 has grown Strategic
    m = json.loads(cli_run(demo, "map", "--json", "--at", "40").out)
    assert all(len(x) <= 80 for x in text.splitlines()), max(text.splitlines(), key=len)
    lines = text.splitlines()
    head = next(i for i, x in enumerate(lines) if x.startswith("    "))
    columns = _columns(m)
    assert lines[head].split() == columns  # the header names the columns once
    rows = lines[head + 1 : head + 1 + m["rows"]]
    assert [int(x[:3]) for x in rows] == list(range(1, m["rows"] + 1))  # one line per row, each labelled
    assert lines[head + 1 + m["rows"]] == ""
    for r, line in enumerate(rows, 1):
        for ci, col in enumerate(columns):
            cell = line[4 + 3 * ci : 7 + 3 * ci].ljust(3)
            h = m["hexes"][f"{col}{r}"]
            assert cell[1] == (" " if not h["strategic"] else "+" if h["grown"] else "*"), (col, r, cell)


def test_the_map_says_why_each_hex_is_strategic(demo):
    text = cli_run(demo, "map", "--at", "40").out
    m = json.loads(cli_run(demo, "map", "--json", "--at", "40").out)
    why = text.split("Strategic Terrain (1.4), and why:\n", 1)[1].split("\n\n", 1)[0]
    said = {x.split(":")[0].strip(): x for x in why.replace("\n      ", " ").splitlines()}  # folded lines joined
    strategic = {h for h, x in m["hexes"].items() if x["strategic"]}
    assert set(said) == strategic
    grown = [h for h in strategic if m["hexes"][h]["grown"]]
    assert grown, "the demo's foxhole grows Strategic Terrain by seq 40"
    for h in strategic:
        x = m["hexes"][h]
        if x["grown"]:
            assert "grown by" in said[h] and "ruling R46: no TVP" in said[h], said[h]
            assert any(t.split(":")[0].replace("_", " ") in said[h] for t in x["terrain"]) or "Gun" in said[h]
        if x["tvp"]:
            assert f"card TVP {x['tvp']}" in said[h]
        held = f"{x['controller']} controls it" if x["controller"] else "controlled by neither side"
        assert said[h].endswith(f"({held})")
    assert "  +  Strategic Terrain the campaign grew" in text and "  *  Strategic Terrain from the CG Card" in text


def test_a_map_of_boards_prints_in_panels_within_a_terminal(workdir):
    path = workdir / "s.plcg"
    assert cli_run(path, "new", "--card", "sosnovka", "--seed", "t").code == 0
    text = cli_run(path, "map").out
    m = json.loads(cli_run(path, "map", "--json").out)
    assert all(len(x) <= 80 for x in text.splitlines()), max(text.splitlines(), key=len)
    grid = text.split("\nLegend", 1)[0]
    lines = grid.splitlines()
    heads = [i for i, x in enumerate(lines) if x.startswith("    ")]
    panels = [lines[i : i + 12] for i in heads]  # a board's rows 0-10 under each header
    assert len(panels) > 1
    assert sum(len(p[0].split()) for p in panels) == len({h[:2] + h[2:].rstrip("0123456789") for h in m["hexes"]})
    for p in panels:  # each panel: the header, then one line per row (0-10 on a board)
        assert [int(x[:3]) for x in p[1:]] == list(range(0, 11))


def test_a_keyed_copy_offers_only_its_own_sides_options(workdir):
    keys = {}
    for side in ("axis", "allied"):
        r = cli_run(workdir / "k.plcg", "keys", "new", "-o", str(workdir / f"{side}.key"))
        keys[side] = r.out.strip()
    path = workdir / "c.plcg"
    assert cli_run(path, "new", "--card", "sample", "--axis-key", keys["axis"], "--allied-key", keys["allied"]).code == 0
    for args in (("weather",), ("next",)):
        assert cli_run(path, "--key", str(workdir / "axis.key"), *args).code == 0
    both = json.loads(cli_run(path, "status", "--json").out)["options"]  # no key: the shared file's reader
    assert {o["command"].split()[2] for o in both if o["command"].startswith("plcg buy")} == {"axis", "allied"}
    for side, other in (("axis", "allied"), ("allied", "axis")):
        key = str(workdir / f"{side}.key")
        d = json.loads(cli_run(path, "--key", key, "status", "--json").out)
        buys = [o["command"] for o in d["options"] if o["command"].startswith("plcg buy")]
        assert buys and all(c.split()[2] == side for c in buys)
        assert len(buys) == sum(1 for o in both if o["command"].startswith(f"plcg buy {side} "))
        text = cli_run(path, "--key", key, "status").out
        assert f"plcg buy {side} I1" in text and f"plcg buy {other} " not in text and f"plcg patrols {other}" not in text
