"""The keys of a published CG Card (issue 13, cg/card_boards_and_ob.py): a card of boards with an OB given, later
RGs and a night firefight plays through the CLI; every new key is documented and accepted; each bad key is
refused with its `path: what` line and nothing is created."""
from __future__ import annotations

import copy
import json
import re
import tomllib

import pytest

from cg import card_as_printed, card_boards_and_ob, card_schema, victory
from cg.card import apply_balance
from cg.card_schema import load_card
from cg.hexgrid import board_grid
from conftest import ROOT, Campaign, cli_run, to_toml
from test_card import _set

BRIDGEHEAD = ROOT / "cg" / "cards" / "bridgehead.toml"
DOC = ROOT / "docs" / "cg-card.md"


def _cli(db, *args):
    r = cli_run(db, *args)
    return r.code, r.out, r.err


def _data() -> dict:
    return tomllib.loads(BRIDGEHEAD.read_text(encoding="utf-8"))


def _write(tmp_path, data, name="card.toml") -> str:
    p = tmp_path / name
    p.write_text(to_toml(data), encoding="utf-8")
    return str(p)


# --- the doc and the loader agree ------------------------------------------------------------------


def _doc_paths() -> set[str]:
    """Every key path the doc's TOML examples show ("sides.X.rg.cost", "campaign.balance.side", ...)."""
    text = DOC.read_text(encoding="utf-8")
    out: set[str] = set()
    for block in re.findall(r"```toml\n(.*?)```", text, re.S):
        data = tomllib.loads(block)
        _walk(data, "", out)
    return out


def _walk(node, path, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if path.startswith("counters") or path in ("extra", "campaign.fortifications", "victory.hold",
                                                           "victory.tvp", "victory.cvp_ratio"):  # keyed by side
                continue
            p = f"{path}.{k}" if path else k
            p = re.sub(r"^sides\.(axis|allied)", "sides.X", p)
            out.add(p)
            _walk(v, p, out)
    elif isinstance(node, list) and node and isinstance(node[0], dict):
        for item in node:
            _walk(item, path, out)


def _loader_paths() -> set[str]:
    s = card_schema
    out = set(s._TOP_KEYS)
    out |= {f"campaign.{k}" for k in s._CAMPAIGN_KEYS}
    out |= {f"campaign.balance.{k}" for k in ("side", "text", *card_boards_and_ob.BALANCE_EFFECTS)}
    out |= {f"firefights.{k}" for k in s._FIREFIGHT_KEYS}
    out |= {f"map.{k}" for k in s._MAP_KEYS}
    out |= {f"map.friendly_edge.{k}" for k in ("axis", "allied")}
    out |= {f"map.entry.{k}" for k in ("axis", "allied")}
    out |= {"sides.X"} | {f"sides.X.{k}" for k in s._SIDE_KEYS}
    out |= {f"sides.X.rg.{k}" for k in s._RG_KEYS}
    out |= {f"sides.X.ob.{k}" for k in card_boards_and_ob.OB_KEYS}
    out |= {f"victory.{k}" for k in victory.KEYS} | {f"victory.objectives.{k}" for k in victory.OBJECTIVE_KEYS}
    out |= {f"map.hexsides.{k}" for k in card_as_printed.HEXSIDE_KINDS}  # third round
    return out


def _doc_table_keys() -> set[str]:
    """Keys the doc's "Keys plcg adds" table names (`campaign.legacy_leader_drm`, `map.buildings`, ...)."""
    text = DOC.read_text(encoding="utf-8")
    out = set()
    for k in re.findall(r"^\| `([a-z_.\[\]X]+)`", text, re.M):
        out.add(re.sub(r"^sides\.X\.rg\[\]", "sides.X.rg", k).strip("[]"))
    return out


def test_every_key_the_doc_shows_is_accepted_and_every_accepted_key_is_shown():
    shown = _doc_paths() | _doc_table_keys()
    accepted = _loader_paths()
    # tvp's keys are hexes, not key names
    shown = {k for k in shown if not re.match(r"map\.(tvp|hills)\.|sides\.X\.fortifications\.", k)}
    assert shown - accepted == set(), "the doc shows keys the loader refuses"
    assert accepted - shown - {"extra"} == set(), "the loader accepts keys the doc does not show"
    assert "[extra]" in DOC.read_text(encoding="utf-8")
    # a fortifications table is keyed by 2.38 kind (data, like tvp's hexes): each one shown is a kind
    from cg.tables import FORTIFICATIONS

    block = DOC.read_text(encoding="utf-8").split("## Keys of a published CG Card", 1)[1]
    kinds = tomllib.loads(block.split("```toml\n", 1)[1].split("```", 1)[0])["campaign"]["fortifications"]
    assert set(kinds) <= set(FORTIFICATIONS) | set(card_boards_and_ob.FORTIFICATION_EXTRA)


def test_every_published_card_key_has_a_rule_number():
    text = DOC.read_text(encoding="utf-8")
    block = text.split("## Keys of a published CG Card", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    for line in block.splitlines():
        if re.match(r"^[a-z_]+ *=", line):
            assert re.search(r"#.*([0-9]\.[0-9]|CG[0-9]+|ruling R[0-9]+|A2\.2)", line), line


def test_doc_example_block_is_a_valid_fragment_of_a_card():
    """The second-round example, merged into the shipped card, loads (its hexes are on boards 24 / 23*)."""
    text = DOC.read_text(encoding="utf-8")
    block = text.split("## Keys of a published CG Card", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    frag = tomllib.loads(block)
    data = _data()
    data["campaign"].update({k: v for k, v in frag["campaign"].items() if k != "balance_chosen"})
    data["firefights"][1].update(frag["firefights"][0])
    data["map"].update(frag["map"])
    data["sides"]["axis"]["ob"] = frag["sides"]["axis"]["ob"]
    data["sides"]["allied"]["rg"][1].update(frag["sides"]["allied"]["rg"][0])
    data["counters"] = frag["counters"]
    card = card_schema.parse_card(data)
    assert card.firefights[1].moon_drm and card.sides["axis"].ob[1].enters == 2


# --- the shipped card of boards ------------------------------------------------------------------------


def test_bridgehead_values():
    card = load_card("bridgehead")
    m = card.map
    assert m.boards == (("24", "23*"),)
    # 1.4: the Woods-Line (every hex of this small wood touches open ground) and the bridge are strategic
    for h in ("24M2", "24M3", "24N3", "24N4", "24O3", "24W6"):
        assert h in m.strategic
    assert "24C8" not in m.strategic  # brush is not
    assert card.firefights[1].time == "night" and card.firefights[1].moon_drm  # full moon: 2.74 +1
    assert not card.firefights[0].moon_drm
    assert card.weather_at(2) == "clear" and card.weather_at(3) == "overcast"
    assert not card.campaign.pto
    i2 = card.sides["allied"].rg_by_id("I2")
    assert (i2.available_from, i2.available_until) == (2, 3) and not i2.available_at(1) and i2.available_at(3)
    assert card.sides["allied"].rg_by_id("A1").reserve is False
    assert card.counters["american"]["6-6-6"]["hs"] == "3-3-6"


def test_woods_line_leaves_out_inner_woods_and_small_groups():
    """1.4: hexes of a group of 3 or more woods hexes adjacent to non-woods terrain (ruling R37)."""
    g = board_grid([["24"]])
    inner = "24J5"
    ring = g.neighbours(inner)  # a blob of 7: the centre touches woods only
    assert card_boards_and_ob.woods_line(g, (inner, *ring)) == set(ring)
    assert card_boards_and_ob.woods_line(g, ("24A1", "24A2")) == set()  # two hexes: no Woods-Line


def test_board_distances_across_a_join_hand_drawn():
    """Boards 24 | 23 side by side: 24GG5 and 23A5 are one hex (A2.2); a row of even hexrows counts
    one step per hexrow across the join, as on the table."""
    g = board_grid([["24", "23"]])
    assert g.canonical("24GG5") == "23A5" and g.distance("24GG5", "23A5") == 0
    assert g.distance("24EE5", "23C5") == 4  # EE, FF, GG=A, B, C
    assert g.distance("24FF5", "23B5") == 2  # FF5 -> A5 (=GG5) -> B5: odd hexrows sit lower
    assert "23A5" in g.neighbours("24FF5") and "23B5" in g.neighbours("23A5")
    t = board_grid([["24", "23*"]])
    assert t.canonical("24GG5") == "23GG6"  # a turned board meets its west neighbour with GG


def test_board_map_control_works_across_the_join():
    """CTHC (1.4, ruling R1) reaches across the join: 2 hexes from a controlled hex on the other board."""
    card = load_card("bridgehead")
    from cg.control import classify

    g = card.map.grid()
    mc = classify(g, frozenset(card.map.strategic), {"24W6": "allied"}, dict(card.map.friendly_edge))
    near = [h for h in g.within("24W6", 2)]
    assert all(mc.hexes[h].cthc == "allied" for h in near)
    assert mc.hexes[g.edge_hex("24W6", "west")].mlr == frozenset({"allied"})


# --- CLI: bridgehead played through, bad input, refusals ------------------------------------------------


def test_demo_plays_the_board_card_and_audits_clean(tmp_path):
    db = tmp_path / "b.plcg"
    code, out, err = _cli(None, "demo", "--card", "bridgehead", "--db", str(db))
    assert code == 0, err
    assert "CG ended" in out and "firefight 3" in out
    code, out, err = _cli(str(db), "audit")
    assert code == 0 and "audit clean" in out, out + err
    code, out, _ = _cli(str(db), "oob", "axis")
    assert "on map 23Q5" in out and "8-1" in out  # the OB given sat on the map from the start
    code, out, _ = _cli(str(db), "map")
    assert code == 0 and "GG FF EE" in out
    code, out, err = _cli(str(db), "export", "--format", "md")
    assert code == 0, err
    assert "- **FSR:** No Boats may be purchased" in out  # the card's FSR in the AAR
    assert "- **CG Card:** moon full; at most 5 game turns (CG2)." in out  # board 23 turned: its hexrows run GG, FF, EE west to east


def test_demo_alone_still_plays_the_sample(tmp_path):
    code, out, err = _cli(None, "demo", "--db", str(tmp_path / "s.plcg"))
    assert code == 0 and "The Mill at Marbouville" in out


def test_demo_refuses_a_card_it_has_no_script_for(tmp_path):
    code, _, err = _cli(None, "demo", "--card", "kolkhoz", "--db", str(tmp_path / "k.plcg"))
    assert code == 2 and "sample or bridgehead" in err and not (tmp_path / "k.plcg").exists()


def _new(tmp_path, *extra, card="bridgehead"):
    db = tmp_path / "c.plcg"
    code, out, err = _cli(str(db), "new", "--card", card, "--seed", "t", *extra)
    assert code == 0, err
    return db


def test_ob_given_is_in_play_from_the_start_at_no_cp(tmp_path):
    db = _new(tmp_path)
    camp = Campaign.attach(db)
    st = camp.state()
    ob = [u for u in st.units.values() if u.purchase == "OB1-axis"]
    assert [u.hex for u in ob] == ["23Q5", "23P6", "23Q5", "23P6", "23Q5"]
    assert all(u.status == "on_map" for u in ob)
    assert st.sides["axis"].cp == 10  # the card's initial CP: the OB cost nothing
    # 2.362: the 8-1 given counts against the Initial Firefight's leader limits
    assert st.sides["axis"].leaders_taken["general"]["8-1"] == 1
    # the allied OB owes its one 2.36 leader DR, and the 2.3 step says so
    _cli(str(db), "weather")
    _cli(str(db), "next")
    code, out, _ = _cli(str(db), "status", "--json")
    d = json.loads(out)
    assert [p["command"] for p in d["pending"]] == ["plcg leader allied OB1-allied"]
    code, out, err = _cli(str(db), "leader", "allied", "OB1", "--dice", "3,4")
    assert code == 0, err
    code, out, err = _cli(str(db), "leader", "allied", "OB1", "--dice", "3,4")
    assert code == 3 and "2.36" in err
    camp.led.close()


def test_status_options_name_the_rgs_buyable_now_with_their_cost(tmp_path):
    db = _new(tmp_path)
    _cli(str(db), "weather")
    _cli(str(db), "next")
    code, out, _ = _cli(str(db), "status", "--json")
    opts = json.loads(out)["options"]
    by = {(o["side"], o["rg"]): o for o in opts if "rg" in o}  # the RGs (patrols, Attack Option: no rg)
    # I2 arrives at firefight 2; A1 (axis) at 3; everything else is affordable now
    assert ("axis", "I2") not in by and ("axis", "A1") not in by and ("allied", "I2") not in by
    assert by[("axis", "I1")] == {
        "command": "plcg buy axis I1", "rule": "2.3", "side": "axis", "rg": "I1",
        "cost": {"entry": 5, "on-map": 6, "reserve": 4},  # 2.34: I on map +1, In Reserve -1
        "what": "Grenadier Platoon: 5 CP entry, 6 CP on-map, 4 CP reserve (2.34); bought 0 of 3",
    }
    assert "reserve" not in by[("allied", "A1")]["cost"]  # reserve = false
    assert "reserve" not in by[("axis", "F1")]["cost"]
    code, out, _ = _cli(str(db), "status")
    assert "plcg buy axis I1" in out and "FSR: No Boats may be purchased" in out


def test_rg_availability_and_per_reph_limits_are_refused_with_exit_3(tmp_path):
    db = _new(tmp_path)
    _cli(str(db), "weather")
    _cli(str(db), "next")
    code, _, err = _cli(str(db), "buy", "allied", "I2")
    assert code == 3 and "firefights 2-3" in err and "2.3" in err
    code, _, err = _cli(str(db), "buy", "allied", "A1", "--mode", "reserve")
    assert code == 3 and "reserve = false" in err and "2.33" in err
    assert _cli(str(db), "buy", "allied", "I1")[0] == 0
    assert _cli(str(db), "buy", "allied", "I1")[0] == 0
    code, _, err = _cli(str(db), "buy", "allied", "I1")
    assert code == 3 and "2 time(s) per RePh" in err


def test_end_turn_beyond_the_card_is_refused(tmp_path):
    db = _new(tmp_path)
    camp = Campaign.attach(db, plan={1: {"buy": [("allied", "I1")]}})
    camp.advance(1, "2.9")
    code, _, err = _cli(str(db), "end", "--turn", "8", "--cvp-lost", "axis=3", "--cvp-lost", "allied=4")
    assert code == 3 and "at most 7" in err and "CG2" in err
    code, _, err = _cli(str(db), "end", "--turn", "7", "--cvp-lost", "axis=3", "--cvp-lost", "allied=4")
    assert code == 0, err
    camp.led.close()


def test_a_hex_without_its_board_is_bad_input(tmp_path):
    db = _new(tmp_path)
    camp = Campaign.attach(db, plan={1: {"buy": [("allied", "I1", "on-map")]}})  # set up: not to enter (R50)
    camp.advance(1, "2.6")
    unit = next(u.id for u in camp.state().units.values() if u.side == "allied" and u.kind == "squad"
                and u.purchase.startswith("I1"))  # the OB given enters on turn 2: it sets up nowhere (R50)
    before = camp.state().seq
    code, _, err = _cli(str(db), "setup", "allied", unit, "E4")
    assert code == 2 and "no board number" in err and "24E4" in err
    assert camp.state().seq == before
    code, _, err = _cli(str(db), "setup", "allied", unit, "24e4")
    assert code == 0, err
    assert camp.state().unit(unit, "allied").hex == "24E4"
    camp.led.close()


def test_balance_is_recorded_in_the_log_and_applied(tmp_path):
    db = _new(tmp_path, "--balance", "allied:1", "--balance", "axis:1")
    code, out, _ = _cli(str(db), "status", "--json")
    assert json.loads(out)["sides"]["allied"]["cp"] == 17  # 14 + 3 (1.3)
    import cli

    led = cli.Ledger(str(db))
    card = next(iter(led.records(until=1)))[3]["card"]
    led.close()
    assert card["campaign"]["balance_chosen"] == ["allied:1", "axis:1"]
    assert card["sides"]["axis"]["cp_drm"] == 1  # 2.12 +1 for the Axis
    assert _cli(str(db), "audit")[0] == 0


def test_bad_balance_is_bad_input_and_creates_nothing(tmp_path):
    db = tmp_path / "x.plcg"
    code, _, err = _cli(str(db), "new", "--card", "bridgehead", "--balance", "axis:2")
    assert code == 2 and "axis:1, allied:1" in err and not db.exists()


def test_apply_balance_twice_is_refused():
    card = load_card("bridgehead")
    with pytest.raises(ValueError, match="twice"):
        apply_balance(card, ["axis:1", "axis:1"])


def test_first_format_cards_load_unchanged():
    for name in ("sample", "kolkhoz"):
        card = load_card(name)
        assert card.map.boards == () and card.counters == {} and card.campaign.balance == ()
        assert all(ff.turns is None and ff.fsr == () for ff in card.firefights)
        assert all(r.available_from == 1 and r.reserve and r.max_per_reph is None
                   for s in card.sides.values() for r in s.rg)


# --- bad cards: each new key gives its `path: what` ------------------------------------------------------

AX, AL = ("sides", "axis"), ("sides", "allied")
BAD = [
    ("theater-type", _set(("campaign", "theater"), 3), "campaign.theater: must be a string, not integer 3"),
    ("booby", _set(("campaign", "booby_traps"), "yes"), "campaign.booby_traps: must be true or false"),
    ("fort-kind", _set(("campaign", "fortifications"), {"moat": 2}),
     'campaign.fortifications.moat: "moat" is not a 2.38 fortification kind'),
    ("fort-limit", _set(("campaign", "fortifications"), {"wire": -1}),
     "campaign.fortifications.wire: must be 0 or more, not -1"),
    ("balance-side", _set(("campaign", "balance", 0, "side"), "soviet"),
     'campaign.balance#1.side: "soviet" is not one of axis | allied'),
    ("balance-effect", _set(("campaign", "balance", 0, "cp_drm"), "1"),
     'campaign.balance#1.cp_drm: must be an integer, not string "1"'),
    ("balance-key", _set(("campaign", "balance", 0, "cp"), 1), "campaign.balance#1.cp: unknown key"),
    ("balance-chosen", _set(("campaign", "balance_chosen"), ["axis:4"]),
     'campaign.balance_chosen#1: "axis:4" is not one of the card\'s Balance Provisions'),
    ("moon-day", _set(("firefights", 0, "moon"), "full"), "firefight 1.moon: is for a night firefight only"),
    ("moon-value", _set(("firefights", 1, "moon"), "half"), 'firefight 2.moon: "half" is not one of none | partial | full'),
    ("turns", _set(("firefights", 0, "turns"), 0), "firefight 1.turns: must be 1 or more, not 0"),
    ("attacker", _set(("firefights", 1, "attacker"), "russians"), 'firefight 2.attacker: "russians" is not one of'),
    ("attacker-initial", _set(("firefights", 0, "attacker"), "axis"),
     "firefight 1.attacker: axis is not campaign.initial_attacker allied"),
    ("fsr", _set(("firefights", 0, "fsr"), "No boats"), "firefight 1.fsr: must be an array, not string"),
    ("boards-shape", _set(("map", "boards"), ["24", "23"]), "map.boards: map boards: row 1 must be a list"),
    ("boards-twice", _set(("map", "boards"), [["24", "24"]]), "map.boards: map boards: board 24 is used twice"),
    ("boards-columns", _set(("map", "columns"), "A-R"), "map.columns: is for a single grid"),
    ("hex-no-board", _set(("map", "woods"), ["M2"]), "map.woods#1: hex 'M2' has no board number"),
    ("hex-other-board", _set(("map", "bridges"), ["12A1"]), "map.bridges#1: hex '12A1' is not on the map"),
    ("hex-row", _set(("map", "grain"), ["24A0"]), "map.grain#1: hex '24A0': hexrow A has rows 1-10"),
    ("entry-edge", _set(("map", "entry"), {"axis": ["up"]}), 'map.entry.axis#1: "up" is not an edge'),
    ("entry-side", _set(("map", "entry"), {"soviet": ["east"]}), "map.entry.soviet: unknown key"),
    ("ob-setup", _set(AX + ("ob", 0, "setup"), "air"), 'sides.axis.ob.OB1.setup: "air" is not one of on-map | entry'),
    ("ob-enters", _set(AL + ("ob", 0, "enters"), None), "sides.allied.ob.OB1.enters: missing"),
    ("ob-hexes", _set(AX + ("ob", 0, "hexes"), []), "sides.axis.ob.OB1.hexes: missing"),
    ("ob-control", _set(AX + ("ob", 0, "hexes"), ["24E4"]),
     "sides.axis.ob.OB1.hexes#1: 24E4 is outside axis's initial control (1.32"),
    ("ob-id", _set(AX + ("ob", 0, "id"), "I1"), "sides.axis.ob.I1.id: I1 is also an RG id of axis"),
    ("ob-kind", _set(AX + ("ob", 0, "kind"), "tanks"), 'sides.axis.ob.OB1.kind: "tanks" is not one of'),
    ("ob-quality", _set(AX + ("ob", 0, "quality"), None), "sides.axis.ob.OB1.quality: missing"),
    ("ob-key", _set(AX + ("ob", 0, "cost"), 3), "sides.axis.ob.OB1.cost: unknown key"),
    ("rg-from", _set(AX + ("rg", 1, "available_from"), 4), "sides.axis.rg.I2.available_from: must be 1..3, not 4"),
    ("rg-until", _set(AL + ("rg", 1, "available_until"), 1), "sides.allied.rg.I2.available_until: 1 is before available_from 2"),
    ("rg-per-reph", _set(AL + ("rg", 0, "max_per_reph"), 5), "sides.allied.rg.I1.max_per_reph: 5 is more than max 4"),
    ("rg-reserve", _set(AL + ("rg", 0, "reserve"), "no"), "sides.allied.rg.I1.reserve: must be true or false"),
    ("rg-commissar", _set(AL + ("rg", 0, "commissar"), 1), "sides.allied.rg.I1.commissar: must be true or false"),
    ("counters", _set(("counters",), {"american": {"6-6-6": {"colour": "green"}}}),
     'counters.american.6-6-6.colour: unknown key'),
]


@pytest.mark.parametrize("mutate, expected", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_new_key_is_refused_with_its_path_and_nothing_is_created(tmp_path, mutate, expected):
    data = copy.deepcopy(_data())
    mutate(data)
    data = _drop_none(data)
    path = _write(tmp_path, data)
    db = tmp_path / "c.plcg"
    code, _, err = _cli(str(db), "new", "--card", path)
    assert code == 2, err
    assert expected in err, err
    assert not db.exists()
    code, _, err2 = _cli(None, "card", "check", path)
    assert code == 2 and expected in err2


def _drop_none(node):
    if isinstance(node, dict):
        return {k: _drop_none(v) for k, v in node.items() if v is not None}
    if isinstance(node, list):
        return [_drop_none(v) for v in node]
    return node


def test_card_check_and_show(tmp_path):
    code, out, _ = _cli(None, "card", "check", str(BRIDGEHEAD))
    assert code == 0 and "is sound" in out
    code, out, _ = _cli(None, "card", "show", "bridgehead")
    assert code == 0
    assert "A1    Sherman Platoon: 9 CP (entry 9, on map 11, reserve 8); max 2, 1 per RePh, never In Reserve" in out
    assert "OB given OB1 Company HQ: 2x 6-6-6, 9-1; enters on turn 2; 1 leader DR (2.36)" in out
    assert "2. 1944-09-14, night, weather clear, moon full, 5 turns" in out
    code, out, _ = _cli(None, "card", "show", "bridgehead", "--json")
    d = json.loads(out)
    assert d["sides"]["axis"]["rg"][1]["availability"] == "from firefight 2"
    assert d["sides"]["axis"]["rg"][0]["costs"] == {"entry": 5, "on-map": 6, "reserve": 4}
    code, _, err = _cli(None, "card", "show", "nosuchcard")
    assert code == 2 and "no such card" in err


def _at_patrols(tmp_path, side="allied"):
    db = _new(tmp_path)
    camp = Campaign.attach(db, plan={1: {"buy": [("allied", "I1")], "patrols": [(side, 1)]}})
    camp.advance(1, "2.7")
    st = camp.state()
    squad = next(u.id for u in st.units.values() if u.side == side and u.kind == "squad")
    from cg import counters

    over = st.card.counter_overrides(side)  # rules revision 2: a Corporal, Sergeant or Lieutenant leads (2.72)
    nat = st.card.sides[side].nationality
    leader = next(u.id for u in st.units.values() if u.side == side and u.kind == "leader"
                  and counters.may_lead_patrol(nat, u.name, over) is not False)
    return db, camp, squad, leader


def test_ambush_mission_hex_needs_concealment_terrain(tmp_path):
    """2.73, ruling R36: on a card that maps woods/orchard/brush/grain, an Ambush needs one of them or a building."""
    db, camp, squad, leader = _at_patrols(tmp_path)
    before = camp.state().seq
    code, _, err = _cli(str(db), "patrol", "allied", "--type", "ambush", "--units", squad, "--leader", leader,
                        "--hex", "24K5", "--dice", "3,3")
    assert code == 3 and "concealment terrain" in err and "2.73" in err
    assert camp.state().seq == before
    code, out, err = _cli(str(db), "patrol", "allied", "--type", "ambush", "--units", squad, "--leader", leader,
                          "--hex", "24M3", "--dice", "3,3")
    assert code == 0, err
    camp.led.close()


def test_full_moon_adds_one_to_a_night_patrol_and_pto_switches_the_day_drm():
    """2.74: +1 for No Moon or Full Moon; PTO: no +2 by day, +2 at night."""
    from cg import drm

    card = load_card("bridgehead")
    night = card.firefights[1]
    with_moon = drm.patrol("recon", night=True, moon=night.moon_drm, pto=card.campaign.pto)
    assert [d.value for d in with_moon if "Moon" in d.reason] == [1]
    import attrs

    pto = attrs.evolve(card.campaign, theater="pto").pto
    assert not [d for d in drm.patrol("recon", night=False, pto=pto) if "day patrol" in d.reason]


def test_flames_spread_into_the_cards_burnable_terrain(tmp_path):
    """3.31, ruling R35: a Blaze spreads into adjacent woods/orchard/brush/grain and buildings the card
    maps, not into open ground; a first-format card (sample) keeps ruling R20: buildings only."""
    from cg.steps.leaving import _fire_3_31
    from cg.items import Kept
    from cg.state import Ground

    db = _new(tmp_path)
    camp = Campaign.attach(db)
    st = camp.state()
    st.ground = Ground(st.ground.control, {"24N3": [Kept("blaze")]}, st.ground.fortifications)  # firefight 2 is on the same date: Blazes spread (3.31)
    added = {h for h, op, item in ((c.hex, c.change, c.item) for c in _fire_3_31(st)) if op == "add"}
    grid = st.grid()
    woods = set(st.card.map.woods)
    assert added - {"24N3"} == {h for h in grid.neighbours("24N3") if h in woods}
    assert added  # 24M3, 24N4, 24O3 ... touch it
    camp.led.close()


def test_fortification_kinds_and_limits_of_the_card(tmp_path):
    """2.38 with the card's `fortifications`: a kind it does not list is refused; a limit counts the CG."""
    data = _data()
    data["campaign"]["fortifications"] = {"wire": 1, "foxhole": 12}
    db = _new(tmp_path, card=_write(tmp_path, data))
    camp = Campaign.attach(db)
    camp.advance(1, "2.3")
    camp.run("buy", side="axis", rg="F1")
    camp.run("buy", side="axis", rg="F1")
    code, _, err = _cli(str(db), "fortify", "axis", "sangar", "--hex", "23P6")
    assert code == 3 and "allows no" in err and "2.38" in err
    assert _cli(str(db), "fortify", "axis", "wire", "--hex", "23P7")[0] == 0
    code, _, err = _cli(str(db), "fortify", "axis", "wire", "--hex", "23P7")
    assert code == 3 and "has 1 of the CG's 1 Wire" in err
    camp.led.close()


def test_svg_map_draws_boards_joins_water_and_bridges(tmp_path):
    db = _new(tmp_path)
    out = tmp_path / "m.svg"
    code, _, err = _cli(str(db), "map", "--svg", str(out))
    assert code == 0, err
    svg = out.read_text(encoding="utf-8")
    assert "Board 24</text>" in svg and "Board 23 (turned)</text>" in svg
    assert "<title>join 24 | 23*</title>" in svg
    assert svg.count(": water (3.52)</title>") == 4 and "24W6: bridge" in svg
    # a single-grid card's map has no boards to name (its water is drawn all the same)
    db2 = tmp_path / "s.plcg"
    _cli(str(db2), "new", "--card", "sample")
    _cli(str(db2), "map", "--svg", str(tmp_path / "s.svg"))
    small = (tmp_path / "s.svg").read_text(encoding="utf-8")
    assert "<title>join" not in small and ">Board " not in small


def test_booby_traps_false_refuses_them(tmp_path):
    """CG12: a card with booby_traps = false refuses them (2.38 n6); absent, nothing changes."""
    data = _data()
    data["campaign"]["fortifications"] = {"booby_traps": 5}
    data["campaign"]["booby_traps"] = False
    db = _new(tmp_path, card=_write(tmp_path, data))
    camp = Campaign.attach(db)
    camp.advance(1, "2.3")
    camp.run("buy", side="axis", rg="F1")
    code, _, err = _cli(str(db), "fortify", "axis", "booby_traps", "--hex", "23P6")
    assert code == 3 and "CG12" in err
    camp.led.close()
    assert load_card("sample").campaign.booby_traps is None


def test_card_counters_override_the_table():
    """Ruling R34: the card's [counters] entries are what cg.counters.lookup gives for that side."""
    from cg import counters

    card = load_card("bridgehead")
    over = card.counter_overrides("allied")
    assert counters.half_squad("american", "6-6-6") == "3-4-6"  # the ledger's table alone
    assert counters.half_squad("american", "6-6-6", over) == "3-3-6"  # the card's entry wins
    assert card.counter_overrides("axis") == {}
    code, out, _ = _cli(None, "card", "show", "bridgehead")
    assert "Counters of american (ruling R34, over the ledger's table):" in out
    assert "6-6-6: hs 3-3-6, replaced 5-4-6, hardened 6-6-7" in out
