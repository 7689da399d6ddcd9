"""1.4 (rules revision 2): rubble, pillboxes, entrenchments and emplaced Guns the campaign gives a hex make
it Strategic Terrain: controlled, heading a CTHC, counted for the MLR; ruling R46: only the CG Card gives a
Location TVP (1.4 TVP, 3.33), so a grown hex adds none and a card TVP hex that is rubbled keeps its value."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from conftest import Campaign, cli_run

SVG = "{http://www.w3.org/2000/svg}"
PLAN = {1: {"buy": [("axis", "I1"), ("allied", "I1")],
            "end": {"cvp_lost": {"axis": 1, "allied": 1}, "terrain": ["K7=rubble", "I5=rubble"]}},
        2: {"attack": ["axis"]}}


def test_grown_strategic_terrain_is_controlled_but_scores_no_tvp(tmp_path):
    c = Campaign(tmp_path / "c.plcg", plan=PLAN)
    c.advance(2, "2.9")
    r = cli_run(c.path, "end", "--turn", "4", "--cvp-lost", "axis=1", "--cvp-lost", "allied=1",
                "--control", "axis=K7", "--control", "axis=I5")
    assert r.code == 0, r.err
    before = json.loads(cli_run(c.path, "status", "--json").out)["sides"]
    c.advance(2, "3.41")  # 3.33 TVP were awarded on leaving 3.3
    st = c.state()
    card_tvp = st.card.map.tvp
    want = {s: sum(v for h, v in card_tvp.items() if st.ground.control.get(h) == s) for s in ("axis", "allied")}
    assert st.ground.control["K7"] == "axis" and "K7" not in card_tvp
    assert c.last("tvp_awarded")["tvp"] == want and want["axis"] >= card_tvp["I5"]
    after = json.loads(cli_run(c.path, "status", "--json").out)["sides"]
    assert {s: after[s]["tvp_total"] - before[s]["tvp_total"] for s in want} == want
    hexes = json.loads(cli_run(c.path, "map", "--json").out)["hexes"]
    k7, i5 = hexes["K7"], hexes["I5"]
    assert (k7["strategic"], k7["controller"], k7["cthc"], k7["tvp"], k7["grown"]) == (True, "axis", "axis", 0, True)
    assert (i5["tvp"], i5["grown"]) == (3, False) and "rubble" in i5["terrain"]  # a card TVP hex keeps its value
    out = tmp_path / "m.svg"
    assert cli_run(c.path, "map", "--svg", str(out)).code == 0
    tips = {g.get("data-hex"): g.find(f"{SVG}title").text
            for g in ET.fromstring(out.read_text(encoding="utf-8")).iter(f"{SVG}g") if g.get("class") == "hex"}
    assert "Strategic Terrain (axis, grown in the campaign (1.4): no TVP)" in tips["K7"]
    assert "grown" not in tips["I5"] and "TVP 3" in tips["I5"]
    aar = cli_run(c.path, "export", "--format", "md").out
    assert f"Axis {want['axis']} (CG total {after['axis']['tvp_total']})" in aar
    c.close()


def test_revision_1_grows_nothing(tmp_path):
    db = tmp_path / "r1.plcg"
    assert cli_run(db, "new", "--card", "sample", "--seed", "gs", "--rules-revision", "1").code == 0
    c = Campaign.attach(db, plan=PLAN)
    c.advance(2, "2.9")
    hexes = json.loads(cli_run(c.path, "map", "--json").out)["hexes"]
    assert (hexes["K7"]["strategic"], hexes["K7"]["grown"]) == (False, False)
    c.close()
