"""Issue 27 items 6-9 and 11, issue 23 part 2: the third shipped card (`sosnovka`: three boards, six
firefights, OB given on both sides, 10+ RGs a side), cards as they are printed, `card check`/`card show`
words, the map picture and the CLI text."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

from cg.card_schema import load_card
from cg.items import Kept
from cg.state import BySide
import cli
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
    # printed as a published card is: SSR, a day-only Stuka, a setup area, booby traps for one side, hills, walls
    assert card.campaign.ssr and card.sides["axis"].rg_by_id("AS1").time == "day"
    assert card.sides["allied"].ob[0].area == ("23K-Q",) and card.sides["allied"].booby_traps == "B"
    assert card.map.hills and card.map.hexsides["wall"]
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


# --- (b) the card format: cards as they are printed ----------------------------------------------------

import tomllib  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from cg.hexgrid import board_grid  # noqa: E402
from conftest import ROOT, card_variant, ff_list, to_toml  # noqa: E402

BRIDGEHEAD = ROOT / "cg" / "cards" / "bridgehead.toml"


def _bridgehead() -> dict:
    return tomllib.loads(BRIDGEHEAD.read_text(encoding="utf-8"))


def _write(tmp_path, data, name="card.toml") -> str:
    p = Path(tmp_path) / name
    p.write_text(to_toml(data) + "\n", encoding="utf-8")
    return str(p)


def _at_2_3(tmp_path, card, firefight=1, plan=None):
    db = tmp_path / "c.plcg"
    code, _, err = _cli(str(db), "new", "--card", card, "--seed", "r3")
    assert code == 0, err
    c = Campaign.attach(db, plan=plan or {})
    c.advance(firefight, "2.3")
    return c, str(db)


def test_an_rg_for_day_firefights_only_is_not_bought_for_the_night_firefight(tmp_path):
    card = card_variant(tmp_path, firefights=ff_list(3, ("day", "night", "day")),
                        axis_rg={"O1": {"time": "day"}}, allied_rg={"I4": {"time": "night"}})
    code, out, err = _cli(None, "card", "show", card)
    assert code == 0, err
    assert "every firefight, day firefights only" in out and "every firefight, night firefights only" in out
    c, db = _at_2_3(tmp_path, card)
    assert _cli(db, "buy", "axis", "O1")[0] == 0  # a day firefight: the battery may be bought
    code, _, err = _cli(db, "buy", "allied", "I4")
    assert code == 3 and "night firefights only" in err and "2.3" in err
    c.advance(2, "2.3")
    code, _, err = _cli(db, "buy", "axis", "O1")
    assert code == 3 and "day firefights only" in err and "firefight 2 is a night firefight" in err
    opts = json.loads(_cli(db, "status", "--json")[1])["options"]
    rgs = {(o["side"], o["rg"]) for o in opts if "rg" in o}
    assert ("axis", "O1") not in rgs and ("allied", "I4") in rgs
    c.close()


def test_a_side_without_reserves_buys_nothing_in_reserve(tmp_path):
    card = card_variant(tmp_path, allied={"reserve": False})
    c, db = _at_2_3(tmp_path, card)
    code, _, err = _cli(db, "buy", "allied", "I1", "--mode", "reserve")
    assert code == 3 and "2.33" in err and "allied buys nothing In Reserve" in err
    assert _cli(db, "buy", "axis", "I1", "--mode", "reserve")[0] == 0
    opts = json.loads(_cli(db, "status", "--json")[1])["options"]
    by = {(o["side"], o["rg"]): o for o in opts if "rg" in o}
    assert "reserve" not in by[("allied", "I1")]["cost"] and "reserve" in by[("axis", "I2")]["cost"]
    assert "buys nothing In Reserve (2.33)" in _cli(None, "card", "show", card)[1]
    c.close()


def test_booby_traps_with_their_level_and_fortification_kinds_for_one_side(tmp_path):
    card = card_variant(tmp_path, campaign={"booby_traps": False}, axis={"booby_traps": "B"},
                        allied={"booby_traps": False, "fortifications": {"foxhole": 2}})
    code, out, err = _cli(None, "card", "show", card)
    assert code == 0, err
    assert "Booby Traps allowed, level B (CG12, B28.9)" in out and "Booby Traps not allowed (CG12, B28.9)" in out
    assert "fortifications (2.38, whole CG): foxhole 2" in out
    c, db = _at_2_3(tmp_path, card)
    for side in ("axis", "allied"):
        assert _cli(db, "buy", side, "F1")[0] == 0
    code, _, err = _cli(db, "fortify", "allied", "booby_traps")
    assert code == 3 and "CG12" in err and "allied no Booby Traps" in err
    code, _, err = _cli(db, "fortify", "allied", "wire", "--hex", "C3")
    assert code == 3 and "2.38" in err and "foxhole" in err
    assert _cli(db, "buy", "axis", "F1")[0] == 0
    code, out, err = _cli(db, "fortify", "axis", "booby_traps")  # its own level B beats the FSR
    assert code == 0, err
    assert "Booby Traps: Level C" in out  # B raised to C (ruling R99: a level, bought without a hex)
    code, _, err = _cli(db, "fortify", "axis", "wire", "--hex", "M5")  # the campaign's kinds: wire allowed
    assert code == 3 and "costs 10 FP" in err  # (refused for its cost, not its kind)
    c.close()


def test_setup_areas_as_printed_resolve_to_their_hexes():
    from cg.card_as_printed import area_hexes

    g = board_grid([["24", "23*"]])
    west = area_hexes("west of 24G", g)
    assert len(west) == 10 + 11 + 10 + 11 + 10 + 11  # hexrows A-F of board 24
    assert "24F5" in west and "24G5" not in west
    assert "24G5" in area_hexes("on/west of 24G", g)
    kq = area_hexes("23K-Q", g)
    assert len(kq) == 4 * 10 + 3 * 11 and {"23K1", "23Q10", "23L0"} <= set(kq) and "23J5" not in kq
    east = area_hexes("east of 23C", g)  # board 23 is turned: its hexrows A-B lie east of C
    assert {g.canonical(h) for h in ("23A5", "23B5")} <= set(east) and "23D5" not in east
    with pytest.raises(ValueError, match="does not start with a board"):
        area_hexes("12K-Q", g)


def test_an_ob_sets_up_in_its_printed_area(tmp_path):
    data = _bridgehead()
    ob = data["sides"]["axis"]["ob"][0]
    ob["area"] = ["23P-Q"]
    ob["hexes"] = ["23K4"]  # inside the axis control, outside its area
    code, _, err = _cli(None, "card", "check", _write(tmp_path, data, "bad.toml"))
    assert code == 2 and "sides.axis.ob.OB1.hexes#1: 23K4 is outside its setup area 23P-Q" in err
    del ob["hexes"]
    card = _write(tmp_path, data)
    code, out, err = _cli(None, "card", "show", card)
    assert code == 0 and "sets up in its area 23P-Q" in out, err
    c, db = _at_2_3(tmp_path, card)
    c.advance(1, "2.6")
    unit = "OB1-axis.1"
    code, _, err = _cli(db, "setup", "axis", unit, "23K4")
    assert code == 3 and "outside the setup area of OB1 (23P-Q" in err and "1.2" in err
    code, _, err = _cli(db, "setup", "axis", unit, "23Q5")
    assert code == 0, err
    c.close()


def test_board_rows_of_different_lengths(tmp_path):
    data = _bridgehead()
    data["map"]["boards"] = [["24", "23*"], ["22"]]
    card = _write(tmp_path, data)
    assert _cli(None, "card", "check", card)[0] == 0
    g = board_grid([["24", "23*"], ["22"]])
    assert g.valid("22A1") and g.valid("22GG10") and not g.valid("21A1")
    east, south = g.edge("east"), g.edge("south")
    assert "22GG5" in east and g.canonical("23A5") in east  # each row's last board ends the map there
    assert "22A10" in south and any(h.startswith("23") for h in south) and not any(h.startswith("24") for h in south)
    assert g.canonical("22B0") == "24B10"  # the stacked join of 24 over 22
    assert g.neighbours("22GG5") and g.edge_hex("22J5", "east") == "22GG5"
    code, _, err = _cli(str(tmp_path / "r.plcg"), "new", "--card", card, "--seed", "r")
    assert code == 0, err
    code, out, err = _cli(str(tmp_path / "r.plcg"), "map")
    assert code == 0 and "boards 24 23* / 22" in out, err


def test_hills_and_hexside_terrain_are_card_data(tmp_path):
    data = _bridgehead()
    data["map"]["hills"] = {"24K5": 1, "24L5": 2}
    data["map"]["hexsides"] = {"wall": ["24E5-24E4"], "hedge": ["23P6-23P7"], "bocage": []}
    card = _write(tmp_path, data)
    code, out, err = _cli(None, "card", "show", card)
    assert code == 0, err
    assert "hills (level): 24K5 1, 24L5 2" in out and "wall hexsides: 24E4-24E5" in out
    data["map"]["hexsides"] = {"wall": ["24E4-24E6"], "fence": []}
    code, _, err = _cli(None, "card", "check", _write(tmp_path, data, "bad.toml"))
    assert code == 2 and "map.hexsides.wall#1: 24E4 and 24E6 are not adjacent" in err
    assert "map.hexsides.fence: unknown key" in err


def test_ssr_text_is_shown_by_card_show_and_the_aar(tmp_path):
    card = card_variant(tmp_path, campaign={"ssr": ["Kindling is NA", "The stream is fordable"]})
    code, out, _ = _cli(None, "card", "show", card)
    assert "SSR: Kindling is NA" in out and "SSR: The stream is fordable" in out
    db = tmp_path / "s.plcg"
    assert _cli(str(db), "new", "--card", card, "--seed", "s")[0] == 0
    code, md, err = _cli(str(db), "export", "--format", "md")
    assert code == 0 and "**SSR:** Kindling is NA" in md, err


def test_a_commissar_on_a_german_rg_is_refused(tmp_path):
    card = card_variant(tmp_path, axis_rg={"I1": {"commissar": True}})
    code, _, err = _cli(None, "card", "check", card)
    assert code == 2 and "sides.axis.rg.I1.commissar: a Commissar is Russian (A25.22); this side is german" in err


def test_a_side_whose_rg_table_is_not_a_list_is_bad_input_not_a_crash(tmp_path):
    """Found by tests/test_fuzz.py: `rg = true` on a non-Russian side made the Commissar check iterate a bool
    (exit 5); it is the card's error, named by path (exit 2)."""
    from conftest import load_sample

    data = load_sample()
    data["sides"]["axis"]["rg"] = True
    card = tmp_path / "rg-true.toml"
    card.write_text(to_toml(data))
    code, _, err = _cli(None, "card", "check", str(card))
    assert code == 2 and "sides.axis.rg" in err
    data = tomllib.loads((ROOT / "cg" / "cards" / "bridgehead.toml").read_text())  # a side with an OB given too
    data["sides"]["axis"]["rg"] = True
    card.write_text(to_toml(data))
    code, _, err = _cli(None, "card", "check", str(card))
    assert code == 2 and "sides.axis.rg" in err


# --- (c) card check: paths a player reads, one precise error, every problem at once --------------------


def test_problems_name_rgs_by_id_and_firefights_by_number(tmp_path):
    ffs = ff_list(4)
    ffs[2]["date"] = "1944-02-30"
    card = card_variant(tmp_path, firefights=ffs, axis_rg={"I3": {"cost": 0}}, allied={"cp_provided": [1, -2]})
    code, _, err = _cli(None, "card", "check", card)
    assert code == 2
    assert "sides.axis.rg.I3.cost: must be 1 or more, not 0" in err
    assert 'firefight 3.date: "1944-02-30" is not a date' in err
    assert "sides.allied.cp_provided#2: must be 0 or more" in err
    assert "rg[" not in err and "firefights[" not in err


def test_a_bad_board_row_is_one_precise_problem(tmp_path):
    data = _bridgehead()
    data["map"]["boards"] = [["24", "2-3"]]
    code, _, err = _cli(None, "card", "check", _write(tmp_path, data))
    assert code == 2
    lines = [x for x in err.splitlines() if x.startswith("  ")]
    assert len(lines) == 1 and lines[0].startswith("  map.boards: map boards: row 1 place 2"), err
    data["map"]["woods"] = ["M2"]  # a hex id without its board is still named, once
    code, _, err = _cli(None, "card", "check", _write(tmp_path, data))
    assert "2 problems" in err and "map.woods#1: hex 'M2' has no board number" in err
    data = tomllib.loads((ROOT / "cg" / "cards" / "sosnovka.toml").read_text(encoding="utf-8"))
    data["map"]["boards"] = [["24", "23*", "2 2"]]  # hills, walls, a printed setup area: read by form only
    code, _, err = _cli(None, "card", "check", _write(tmp_path, data, "s.toml"))
    assert code == 2 and "1 problem:" in err and "map.boards: map boards: row 1 place 3" in err, err


def test_every_problem_of_every_stage_in_one_pass(tmp_path):
    data = _bridgehead()
    data["sides"]["axis"]["ob"][0]["hexes"] = ["24E4"]  # outside the axis's initial control (1.32)
    data["firefights"][0]["attacker"] = "axis"  # not campaign.initial_attacker (2.4)
    data["sides"]["axis"]["rg"][0]["cost"] = 0
    data["sides"]["allied"]["rg"][1]["strength"] = 5
    data["sides"]["allied"]["rg"][1]["max"] = 0
    code, _, err = _cli(None, "card", "check", _write(tmp_path, data))
    assert code == 2
    for said in ("sides.axis.ob.OB1.hexes#1: 24E4 is outside axis's initial control",
                 "firefight 1.attacker: axis is not campaign.initial_attacker allied",
                 "sides.axis.rg.I1.cost: must be 1 or more", "sides.allied.rg.I2.strength: must be a string",
                 "sides.allied.rg.I2.max: must be 1 or more"):
        assert said in err, said


def test_the_fortification_kinds_a_card_may_allow_are_listed_once_and_priced(tmp_path):
    card = card_variant(tmp_path, campaign={"fortifications": {"trench": 1}})
    code, _, err = _cli(None, "card", "check", card)
    kinds = err.split("(", 1)[1].split(")", 1)[0].split(" | ")
    assert code == 2 and kinds.count("hip") == 1 and kinds.count("dummy_minefield") == 1 and "foxhole" in kinds
    card = card_variant(tmp_path, campaign={"fortifications": {"dummy_minefield": 2}})  # ruling R22: no price
    code, _, err = _cli(None, "card", "check", card)
    assert code == 2 and "campaign.fortifications.dummy_minefield: " in err and "dummy_minefield_fp" in err


def test_the_text_map_of_three_boards_names_its_boards(tmp_path):
    db = tmp_path / "t.plcg"
    assert _cli(str(db), "new", "--card", "sosnovka", "--seed", "t")[0] == 0
    code, out, err = _cli(str(db), "map")
    first = " ".join(out.split("\n\n")[0].splitlines()[:3])  # the title, folded to the terminal's width
    assert code == 0 and first.startswith("Map control, boards 24 23* 22"), first
    assert "23* turned" in first and "rows 0-10" in first and "columns A-A" not in first


# --- (d) card show words -------------------------------------------------------------------------------


def test_card_show_lists_contents_cp_given_drms_and_oba_strength():
    code, out, _ = _cli(None, "card", "show", "sample")
    assert code == 0
    assert "brings 3x 4-6-7, 1x LMG; 1 leader DR (2.36)" in out
    assert "brings 1x 105mm OBA, 1x Radio; strength 105mm (2.35)" in out
    assert "DRMs: CP +0 (2.12), leader +0 (2.361), OBA +1 (2.351)" in out
    code, out, _ = _cli(None, "card", "show", "kolkhoz")
    assert "CP given by the card instead of the 2.12 roll (2.1 EXC): firefight 2 10, firefight 3 8" in out


def test_the_purchase_record_shows_the_oba_strength(tmp_path):
    c, db = _at_2_3(tmp_path, "sample")
    assert _cli(db, "buy", "axis", "O1")[0] == 0
    code, out, _ = _cli(db, "purchases", "axis")
    row = next(x for x in out.splitlines() if "O1-" in x)
    assert "105mm" in row
    rows = json.loads(_cli(db, "purchases", "axis", "--json")[1])["purchases"]
    assert next(r for r in rows if r["rg"] == "O1")["strength"] == "105mm"
    c.close()


def test_leader_drs_is_not_required_on_a_gun_or_oba_rg(tmp_path):
    data = tomllib.loads((ROOT / "cg" / "cards" / "sample.toml").read_text(encoding="utf-8"))
    for rg in data["sides"]["axis"]["rg"]:
        if rg["kind"] in ("gun", "oba"):
            del rg["leader_drs"]
    code, _, err = _cli(None, "card", "check", _write(tmp_path, data))
    assert code == 0, err
    assert load_card(_write(tmp_path, data)).sides["axis"].rg_by_id("O1").leader_drs == 0
    del data["sides"]["axis"]["rg"][0]["leader_drs"]  # an infantry RG still says how many
    code, _, err = _cli(None, "card", "check", _write(tmp_path, data))
    assert code == 2 and "sides.axis.rg.I1.leader_drs: missing" in err


# --- (e) the map picture ------------------------------------------------------------------------------

from cg.control import classify  # noqa: E402
from cg.hexgrid import Grid  # noqa: E402
from projections import mapview  # noqa: E402
from projections.mapview import COUNTER, HEIGHT, SIZE, render_svg  # noqa: E402


def _shot(tmp_path, svg: str, name="map"):
    f = Path(tmp_path) / f"{name}.svg"
    f.write_text(svg, encoding="utf-8")
    root = ET.fromstring(svg)
    w, h = int(float(root.get("width"))) + 1, int(float(root.get("height"))) + 1
    return root, screenshot(f, Path(tmp_path) / f"{name}.png", w, h)


def _small_map(units=None, terrain=None, tvp=None, ground=None):
    g = Grid.from_spec("A-H", 9)
    control = {"B2": "axis", "G6": "allied"}
    mc = classify(g, frozenset(control) | frozenset(tvp or {}), control, {"axis": "west", "allied": "east"})
    return g, render_svg(g, mc, units=units, terrain=terrain, tvp=tvp, ground=ground, title="t")


def test_counter_names_are_never_cut_into_another_counters_name(tmp_path):
    units = {"B4": [("axis", "PzKpfw IVH")], "D4": [("axis", "PzKpfw I")],
             "F4": [("allied", "Regimental 76mm Gun crew")], "C7": [("axis", "StuG IIIG")]}
    g, svg = _small_map(units=units)
    root, pic = _shot(tmp_path, svg)
    shown = {c.get("data-hex"): c for c in root.findall(f".//{SVG}g[@class='counter']")}
    label = {h: c.find(f"{SVG}text").text for h, c in shown.items()}
    assert label["B4"] == "PzKpfw IVH" and label["D4"] == "PzKpfw I" and label["C7"] == "StuG IIIG"
    assert label["F4"] == "Regimental\u2026"  # whole words, and an ellipsis says something follows
    assert shown["F4"].find(f"{SVG}title").text == "Regimental 76mm Gun crew"
    for h, c in shown.items():  # the name's ink stays on its counter: nothing white spills past its edge
        rect = c.find(f"{SVG}rect")
        x, y, w, hh = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
        spill = pic.count(x + w + 1, y + 2, x + w + 5, y + hh - 2, lambda p: min(p) > 245)
        spill += pic.count(x - 5, y + 2, x - 1, y + hh - 2, lambda p: min(p) > 245)
        assert spill == 0, (h, spill)


def test_the_tvp_badge_is_not_a_stack_badge(tmp_path):
    units = {"B2": [("axis", "4-6-7"), ("axis", "4-6-7"), ("axis", "8-1")]}
    g, svg = _small_map(units=units, tvp={"B2": 3}, ground={"buildings": ("B2",)})
    root, pic = _shot(tmp_path, svg)
    [badge] = root.findall(f".//{SVG}path[@class='strategic tvp-badge']")
    [stack] = root.findall(f".//{SVG}circle[@class='stack-badge']")
    centres = mapview.hex_centres(g, "t")
    cx, cy = centres["B2"]
    bx = cx + mapview.BUILDING_W / 2 + 9 + 1
    by = cy + mapview.BUILDING_AT[1]
    assert close(pic.pixel(bx - 5, by), hex_rgb(mapview.TVP_BADGE[0]))  # gold, beside its figure
    assert close(pic.pixel(float(stack.get("cx")) - 4, float(stack.get("cy"))), (17, 17, 17))
    legend = " ".join("".join(t.itertext()) for t in root.find(f".//{SVG}g[@class='legend']").iter(f"{SVG}text"))
    assert "TVP value of the hex (3.33)" in legend and "units in a stack" in legend


def test_rubbled_and_burning_buildings_are_drawn_so(tmp_path):
    ground = {"buildings": ("B2", "G6", "F7")}
    g, svg = _small_map(terrain={"B2": ["rubble"], "G6": ["blaze"]}, ground=ground)
    root, pic = _shot(tmp_path, svg)
    centres = mapview.hex_centres(g, "t")
    wooden = hex_rgb(mapview.BUILDING["wooden"][0])
    bx, by = mapview.building_centre(*centres["F7"])
    assert close(pic.pixel(bx - 8, by), wooden)  # a whole building
    bx, by = mapview.building_centre(*centres["B2"])
    assert not close(pic.pixel(bx + 9, by - 6), wooden, 30)  # the block is gone: a heap of pieces
    assert root.find(f".//{SVG}g[@class='building building-rubbled']") is not None
    bx, by = mapview.building_centre(*centres["G6"])
    top = by - mapview.BUILDING_H / 2
    assert close(pic.pixel(bx, top), hex_rgb(mapview.BURNING[0]), 30)  # flames over the roof
    assert close(pic.pixel(bx - 8, by + 2), hex_rgb(mapview.BURNING[0]), 30)
    legend = " ".join("".join(t.itertext()) for t in root.find(f".//{SVG}g[@class='legend']").iter(f"{SVG}text"))
    assert "rubbled building (B24)" in legend and "burning building (Blaze, 3.31)" in legend


@pytest.fixture(scope="module")
def sosnovka_picture(tmp_path_factory):
    """The sosnovka map at its start, drawn through `plcg map --svg` and taken in Chromium."""
    tmp_path = tmp_path_factory.mktemp("sosnovka-map")
    db = Path(tmp_path) / "w.plcg"
    assert _cli(str(db), "new", "--card", "sosnovka", "--seed", "w")[0] == 0
    out = Path(tmp_path) / "w.svg"
    code, _, err = _cli(str(db), "map", "--svg", str(out))
    assert code == 0, err
    c = Campaign.attach(db)
    st = c.state()
    c.close()
    svg = out.read_text(encoding="utf-8")
    root, pic = _shot(tmp_path, svg, "w")
    return st, svg, root, pic, mapview.hex_centres(st.grid(), root.find(f"{SVG}title").text)


def test_the_board_names_lie_under_the_counters(sosnovka_picture):
    st, svg, root, pic, centres = sosnovka_picture
    assert svg.index('class="card-map"') < svg.index('class="counters"')
    for c in root.findall(f".//{SVG}g[@class='counter']"):  # no counter face is darkened by a watermark
        rect = c.find(f"{SVG}rect")
        x, y, w, hh = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
        face = hex_rgb(COUNTER[c.get("data-side")])
        # (the right end left out: a stack's badge sits over it)
        darker = pic.count(x + 2, y + 2, x + w - 9, y + hh - 2, lambda p: all(a < b - 12 for a, b in zip(p, face)))
        assert darker == 0, (c.get("data-hex"), darker)


def test_the_outer_half_hexes_are_drawn_as_halves(sosnovka_picture):
    st, svg, root, pic, centres = sosnovka_picture
    white = (255, 255, 255)
    for h, gone, kept in (("24B0", (0, -HEIGHT / 4), (0, HEIGHT / 4)), ("22Z10", (0, HEIGHT / 4), (0, -HEIGHT / 4)),
                          ("24A5", (-SIZE / 2, 0), (SIZE / 2, 0)), ("22GG5", (SIZE / 2, 0), (-SIZE / 2, 0))):
        cx, cy = centres[h]
        assert pic.pixel(cx + gone[0], cy + gone[1]) == white, h
        assert pic.pixel(cx + kept[0], cy + kept[1]) != white, h


def test_hills_and_hexside_terrain_are_drawn(sosnovka_picture):
    st, svg, root, pic, centres = sosnovka_picture
    cx, cy = centres["22M4"]  # level 2: two contour lines
    for k in (0, 1):
        assert close(pic.pixel(cx, cy + (0.92 - 0.07 * k) * HEIGHT / 2), hex_rgb(mapview.HILL[0]), 30), k
    (ax, ay), (bx, by) = centres["23P6"], centres["23P7"]
    assert close(pic.pixel((ax + bx) / 2, (ay + by) / 2), hex_rgb(mapview.HEXSIDE["wall"][0]), 20)
    legend = " ".join("".join(t.itertext()) for t in root.find(f".//{SVG}g[@class='legend']").iter(f"{SVG}text"))
    assert "hill, level 1 (B10)" in legend and "wall (B9)" in legend and "hedge (B9)" in legend


# --- (f) what a player types and reads ----------------------------------------------------------------


def _at_end(tmp_path, extra=()):
    db = tmp_path / "e.plcg"
    assert _cli(str(db), "new", "--card", "sample", "--seed", "e")[0] == 0
    c = Campaign.attach(db, plan={1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1", "on-map"), *extra]}})
    c.advance(1, "2.9")
    return c, str(db)


def test_both_separators_are_accepted_everywhere(tmp_path):
    c, db = _at_end(tmp_path)
    st = c.state()
    allied = next(u.id for u in st.units.values() if u.side == "allied" and u.kind == "squad")
    axis = [u.id for u in st.units.values() if u.side == "axis" and u.kind == "squad"]
    code, out, err = _cli(db, "end", "--turn", "5", "--cvp-lost", "axis:3", "--cvp-lost", "allied=2",
                          "--lost", f"allied={allied}", "--reduced", f"axis={axis[0]}", "--control", "axis:L4",
                          "--position", f"axis={axis[1]}:M5", "--terrain", "M4:rubble")
    assert code == 0, err
    st = c.state()
    assert st.unit(allied, "allied").status == "eliminated"
    assert st.unit(axis[0], "axis").kind == "hs" and st.unit(axis[1], "axis").hex == "M5"
    assert st.ground.control["L4"] == "axis" and Kept("rubble") in st.ground.terrain["M4"]
    assert st.firefights[0].cvp_lost == BySide(axis=3, allied=2)
    end = next(x for x in map(json.loads, _cli(db, "log", "--json")[1].splitlines()) if x["type"] == "firefight_ended")
    assert end["seq"] > 0
    c.close()
    assert _cli(db, "audit")[0] == 0  # the log keeps one spelling: the audit decides it again the same
    db2 = tmp_path / "b.plcg"
    code, _, err = _cli(str(db2), "new", "--card", "bridgehead", "--seed", "b", "--balance", "axis=1")
    assert code == 0, err


def test_purchases_side_is_whose_record_and_the_viewer_is_the_key_or_as(tmp_path):
    db = tmp_path / "p.plcg"
    assert _cli(str(db), "new", "--card", "sample", "--seed", "p")[0] == 0
    c = Campaign.attach(db, plan={1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1", "on-map")]},
                                  2: {"buy": [("allied", "I2", "entry")]}})
    c.advance(2, "2.4")  # firefight 1's purchases are revealed (played); the allied I2 of firefight 2 is not
    c.close()
    rows = json.loads(_cli(str(db), "purchases", "axis", "--json")[1])["purchases"]
    assert {r["side"] for r in rows} == {"axis"}  # axis's record only
    rows = json.loads(_cli(str(db), "purchases", "allied", "--json")[1])["purchases"]
    assert {r["rg"] for r in rows} == {"I1", "I2"}  # the allied player's own record: all of it
    rows = json.loads(_cli(str(db), "purchases", "allied", "--as", "axis", "--json")[1])["purchases"]
    assert [r["rg"] for r in rows] == ["I1"]  # the axis player sees what is revealed
    rows = json.loads(_cli(str(db), "purchases", "allied", "--as", "axis", "--reveal", "--json")[1])["purchases"]
    assert {r["rg"] for r in rows} == {"I1", "I2"}
    code, _, err = _cli(str(db), "purchases", "allied", "--as", "russians")
    assert code == 2


def test_a_mistyped_unit_id_gets_did_you_mean(tmp_path):
    c, db = _at_end(tmp_path, [("allied", "I2", "on-map")])  # the Allies' I2-1 ids: no Axis unit has one
    st = c.state()
    squad = next(u.id for u in st.units.values() if u.side == "axis" and u.kind == "squad")
    axis_ids = {u.id for u in st.units.values() if u.side == "axis"}
    allied = next(u.id for u in st.units.values() if u.side == "allied" and u.id not in axis_ids)
    typo = squad.replace(".", "")  # I1-1.1 typed I1-11
    code, _, err = _cli(db, "position", "axis", typo, "M5")
    assert code == 2 and "did you mean" in err and squad in err.split("did you mean", 1)[1], err
    code, _, err = _cli(db, "position", "axis", allied, "M5")
    assert code == 2 and f"{allied} is an allied unit" in err
    c.close()


def test_help_groups_the_commands_by_phase():
    code, out, _ = _cli(None, "--help")
    assert code == 0
    sections = re.findall(r"^(\S[^\n]*):$", out, re.M)
    assert sections[:3] == ["Options", "Start a campaign, cards", "Where it stands, what happened"]
    assert "2.1-2.3 Purchases" in sections and "3.1-3.52 Refit Phase" in sections and "Play by email" in sections
    purchases = out.split("2.1-2.3 Purchases:", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"^\s+buy\s", purchases, re.M) and not re.search(r"^\s+elr\s", purchases, re.M)
    listed = re.findall(r"^  ([a-z][a-z-]*)\s", out.split("Start a campaign, cards:", 1)[1], re.M)
    assert len(listed) == len(set(listed)) == len(cli.main.list_commands(None))
    assert "Other commands" not in sections  # every command has its phase (a new one is given one)


def test_leader_generation_says_why_it_may_generate_fewer(tmp_path):
    c, db = _at_end(tmp_path)
    c.advance(1, "3.45")
    c.close()
    code, out, err = _cli(db, "leaders", "axis", "--dice", "1")
    assert code == 0, err
    assert "may generate 0, not" in out and "it lost 0 leaders this firefight" in out and "(3.45)" in out, out
