"""Issue 27 items 6-9 and 11, issue 23 part 2: the third shipped card (`sosnovka`: three boards, six
firefights, OB given on both sides, 10+ RGs a side), cards as they are printed, `card check`/`card show`
words, the map picture and the CLI text."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from cg.card_schema import load_card
from conftest import Campaign, cli_run
from helpers.browser import close, hex_rgb, screenshot
from projections.mapview import BUILDING, GROUND, building_centre, ground_probe, hex_centres

SVG = "{http://www.w3.org/2000/svg}"


def _cli(db, *args):
    r = cli_run(db if db is not None else "unused.plcg", *args)
    return r.code, r.out, r.err


# --- (a) the third shipped card ----------------------------------------------------------------------


def test_sosnovka_is_a_card_as_big_as_a_published_one():
    card = load_card("sosnovka")
    # three geomorphic boards, one turned
    boards = [b for row in card.map.boards for b in row]
    assert len(boards) == 3 and sum(b.endswith("*") for b in boards) == 1
    # six firefights over three days, one at night
    assert len(card.firefights) == 6
    assert len({f.date for f in card.firefights}) == 3
    assert [f.time for f in card.firefights].count("night") == 1
    assert (card.sides["axis"].nationality, card.sides["allied"].nationality) == ("german", "russian")
    for side in ("axis", "allied"):
        s = card.sides[side]
        # an OB given with a Gun and a vehicle
        kinds = {g.kind for g in s.ob}
        assert "gun" in kinds and kinds & {"afv", "vehicle"}, (side, kinds)
        # 10+ RGs of every family, several with an availability window
        assert len(s.rg) >= 10, side
        assert {"infantry", "gun", "afv", "oba", "fortification_points"} <= {r.kind for r in s.rg}
        assert sum(1 for r in s.rg if r.available_from > 1 or r.available_until is not None) >= 3
    assert any(r.commissar for r in card.sides["allied"].rg)
    assert not any(r.commissar for r in card.sides["axis"].rg)
    code, out, err = _cli(None, "card", "check", "cg/cards/sosnovka.toml")
    assert code == 0, err
    code, out, _ = _cli(None, "cards")
    assert "sosnovka" in out and "Sosnovka Crossroads" in out


PLAN = {
    1: {
        "buy": [("axis", "I1", "on-map"), ("axis", "O1", "entry"), ("axis", "G2", "entry"),
                ("allied", "I1", "on-map"), ("allied", "G1", "on-map")],
        "end": {"turn": 7, "cvp_lost": {"axis": 6, "allied": 9}},
    },
}


def test_sosnovka_plays_a_firefight_and_its_reph_with_a_commissar_and_audits_clean(tmp_path):
    db = tmp_path / "s.plcg"
    code, _, err = _cli(str(db), "new", "--card", "sosnovka", "--seed", "sosnovka")
    assert code == 0, err
    c = Campaign.attach(db, plan=PLAN)
    c.advance(1, "2.3")
    # a Soviet rifle platoon takes a Commissar for a starred 2.361 row (the card's RG allows it)
    code, out, err = _cli(str(db), "buy", "allied", "I3", "--mode", "entry")
    assert code == 0, err
    code, out, err = _cli(str(db), "leader", "allied", "I3", "--commissar", "--dice", "3,4", "--json")
    assert code == 0, err
    assert json.loads(out)[0]["roll"]["outcome"] in ("8+1", "9-0", "10-0")
    # a German RG has no Commissar
    code, out, err = _cli(str(db), "buy", "axis", "I2", "--mode", "entry")
    assert code == 0, err
    code, _, err = _cli(str(db), "leader", "axis", "I2", "--commissar", "--dice", "3,4")
    assert code == 3 and "commissar" in err.lower()
    c.advance(2, "2.1")
    assert (1, "3.52") in c.visited and (1, "3.44") in c.visited  # the whole RePh was walked
    st = c.state()
    # the OB given of both sides is in the OOB: the Guns on the map, the vehicles still to enter
    for side, gun_hex in (("axis", "24H5"), ("allied", "23Q5")):
        ob = [u for u in st.units.values() if u.side == side and u.purchase == f"OB2-{side}"]
        assert ob and all(u.hex == gun_hex for u in ob), (side, [(u.name, u.hex) for u in ob])
    c.close()
    code, out, err = _cli(str(db), "audit")
    assert code == 0 and "audit clean" in out, out + err


def test_sosnovka_map_renders_its_three_boards(tmp_path):
    db = tmp_path / "m.plcg"
    assert _cli(str(db), "new", "--card", "sosnovka", "--seed", "m")[0] == 0
    c = Campaign.attach(db, plan=PLAN)
    c.advance(1, "2.6")
    st = c.state()
    c.close()
    code, text, err = _cli(str(db), "map")
    assert code == 0, err
    out = tmp_path / "sosnovka.svg"
    code, _, err = _cli(str(db), "map", "--svg", str(out))
    assert code == 0, err
    svg = out.read_text(encoding="utf-8")
    root = ET.fromstring(svg)
    w, h = int(float(root.get("width"))) + 1, int(float(root.get("height"))) + 1
    pic = screenshot(out, tmp_path / "sosnovka.png", w, h)
    title = root.find(f"{SVG}title").text
    centres = hex_centres(st.grid(), title)
    for hx in st.card.map.buildings:  # buildings on each of the three boards, stone or wooden
        want = BUILDING["stone" if hx in st.card.map.stone else "wooden"][0]
        assert close(pic.pixel(*building_centre(*centres[hx])), hex_rgb(want)), hx
    for hx in st.card.map.water:
        assert close(pic.pixel(*ground_probe(*centres[hx])), hex_rgb(GROUND["water"][0])), hx
    assert {hx[:2] for hx in st.card.map.buildings} == {"24", "23", "22"}
    counters = root.findall(f".//{SVG}g[@class='counter']")
    assert {cn.get("data-hex") for cn in counters} >= {"24H5", "23Q5", "23P6"}  # the OB given
