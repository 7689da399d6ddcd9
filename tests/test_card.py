"""The CG Card: loading, the contract checks (docs/cg-card.md), round trip, shipped cards."""
from __future__ import annotations

import copy
import importlib.resources
import json
import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cg.card import (
    COLUMN_LETTERS,
    Card,
    card_to_dict,
    columns_of,
    split_hex,
)
from cg.card_schema import load_card, parse_card, shipped_cards
from events.errors import BadInput


def sample_data() -> dict:
    text = importlib.resources.files("cg.cards").joinpath("sample.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


SAMPLE = sample_data()


def problems_of(data: dict) -> str:
    with pytest.raises(BadInput) as exc:
        parse_card(data, "test.toml")
    return str(exc.value)


# --- the sample card ------------------------------------------------------------------------------


def test_sample_loads_by_name():
    card = load_card("sample")
    assert isinstance(card, Card)
    assert card.campaign.name == "The Mill at Marbouville"
    assert set(card.sides) == {"axis", "allied"}
    assert load_card("sample.toml") == card


def test_sample_is_the_card_the_brief_asked_for():
    card = load_card("sample")
    ffs = card.firefights
    assert len(ffs) == 6
    dates = [f.date for f in ffs]
    assert len(set(dates)) == 3 and len(set(dates)) < len(dates)
    assert [f.time for f in ffs].count("night") == 1
    assert card.campaign.intensity == "low" and card.campaign.reserves
    assert card.campaign.patrols_per_reph == 1  # 2.31 Low
    assert card.map.friendly_edge == {"axis": "east", "allied": "west"}
    assert 8 <= len(card.map.strategic) <= 10
    assert 3 <= len(card.map.tvp) <= 4
    assert card.map.water and card.map.stone and set(card.map.stone) <= set(card.map.buildings)
    kinds = {side: {rg.kind for rg in s.rg} for side, s in card.sides.items()}
    for side, s in card.sides.items():
        assert {"infantry", "heavy_weapons", "gun", "afv", "vehicle", "oba", "fortification_points"} <= kinds[side]
        assert {rg.quality for rg in s.rg if rg.platoons} == {"elite", "first_line", "second_line"}
        assert any(rg.kind == "infantry" and rg.leader_drs == 0 for rg in s.rg)  # a section
        assert all(rg.armor_leader and rg.leader_drs == 1 for rg in s.rg if rg.kind == "afv")
        assert all(1 <= rg.max <= 4 for rg in s.rg)
        assert 14 <= s.initial_cp <= 20 and 2 <= s.attack_cost <= 3
        assert 2 <= len(s.control) <= 3
    assert "air" in kinds["axis"] | kinds["allied"]
    assert (card.sides["axis"].elr, card.sides["allied"].elr) in {(3, 4), (4, 3)}
    # each side controls hexes on its own half of the A-P map (allied west: A-H, axis east: I-P)
    assert all(split_hex(h)[0] <= "H" for h in card.sides["allied"].control)
    assert all(split_hex(h)[0] >= "I" for h in card.sides["axis"].control)


def test_round_trip_through_plain_json():
    for name, _, _ in shipped_cards():
        card = load_card(name)
        data = card_to_dict(card)
        assert json.loads(json.dumps(data)) == data  # JSON-able as it is
        assert parse_card(json.loads(json.dumps(data))) == card


def test_rg_platoons_default_by_ruling_r12():
    card = load_card("sample")
    axis = card.sides["axis"]
    assert axis.rg_by_id("I1").platoons == 1  # infantry platoon, 1 leader DR
    assert axis.rg_by_id("i4").platoons == 0  # section: no leader DR
    assert axis.rg_by_id("A1").platoons == 0  # an AFV platoon is not an infantry platoon
    assert axis.rg_by_id("hw1").platoons == 0
    assert axis.rg_by_id("X9") is None
    data = copy.deepcopy(SAMPLE)
    data["sides"]["axis"]["rg"][0]["platoons"] = 2
    data["sides"]["axis"]["rg"][3]["leader_drs"] = 4
    card = parse_card(data)
    assert card.sides["axis"].rg_by_id("I1").platoons == 2  # the card's own value wins
    assert card.sides["axis"].rg_by_id("I4").platoons == 1
    company = load_card("kolkhoz").sides["allied"].rg_by_id("I1")
    assert (company.leader_drs, company.platoons) == (4, 3)


def test_tvp_and_building_hexes_are_strategic():
    data = copy.deepcopy(SAMPLE)
    data["map"]["strategic"] = ["D3"]
    data["map"]["buildings"] = []
    data["map"]["stone"] = []
    data["map"]["tvp"] = {"I5": 3, "m5": 1}
    data["sides"]["axis"]["control"] = ["M5"]  # strategic only through its TVP (1.4)
    data["sides"]["allied"]["control"] = ["D3"]
    card = parse_card(data)
    assert card.map.strategic == ("D3", "I5", "M5")
    assert card.map.tvp == {"I5": 3, "M5": 1}
    data["map"]["stone"] = ["C3"]  # a stone building is a building, and Strategic Terrain
    card = parse_card(data)
    assert card.map.buildings == ("C3",) and "C3" in card.map.strategic


def test_defaults_and_normalising():
    data = copy.deepcopy(SAMPLE)
    camp = data["campaign"]
    del camp["disease"]
    camp["intensity"] = "High"
    data["map"]["water"] = ["g1", "H03"]
    data["sides"]["axis"]["control"] = ["l4", "n7"]
    data["sides"]["axis"]["rg"][0]["id"] = "i1"
    del data["sides"]["axis"]["patrol_cost"]
    data["firefights"][0]["date"] = tomllib.loads("d = 1944-07-14")["d"]  # a bare TOML date
    card = parse_card(data)
    assert card.campaign.intensity == "high" and card.campaign.patrols_per_reph == 3  # 2.31
    assert card.campaign.disease is False and card.campaign.max_infantry_platoons == 3
    assert card.map.water == ("G1", "H3")
    assert card.sides["axis"].control == ("L4", "N7")
    assert card.sides["axis"].rg[0].id == "I1"
    assert card.sides["axis"].patrol_cost == 1
    assert card.firefights[0].date == "1944-07-14"
    camp["patrols_per_reph"] = 0  # 0 = no patrols
    assert parse_card(data).campaign.patrols_per_reph == 0


def test_extra_table_is_free_form():
    data = copy.deepcopy(SAMPLE)
    data["extra"] = {"anything": [1, "two", {"three": True}], "elr": "not checked"}
    assert parse_card(data) == load_card("sample")


def test_double_letter_columns():
    assert columns_of("A-GG")[-3:] == ("EE", "FF", "GG")
    assert len(columns_of("a-gg")) == 33
    card = load_card("kolkhoz")
    assert card.map.on_map("BB6") and card.map.on_map("gg10") and not card.map.on_map("HH1")
    assert card.map.strategic[-1] == "BB6"  # map order: AA.. after Z


# --- broken cards ---------------------------------------------------------------------------------


def _set(path, value):
    """A mutation setting data[path...] = value; path items are keys or list indexes."""

    def mutate(data):
        *parents, last = path
        node = data
        for p in parents:
            node = node[p]
        node[last] = value

    return mutate


def _delete(path):
    def mutate(data):
        *parents, last = path
        node = data
        for p in parents:
            node = node[p]
        del node[last]

    return mutate


def _append(path, value):
    def mutate(data):
        node = data
        for p in path:
            node = node[p]
        node.append(value)

    return mutate


AX, AL = ("sides", "axis"), ("sides", "allied")

BROKEN = [
    # (id, mutation, expected fragment of one problem line)
    ("bool-as-int", _set(AX + ("elr",), True), "sides.axis.elr: must be an integer, not boolean"),
    ("int-as-bool", _set(("campaign", "reserves"), 1), "campaign.reserves: must be true or false, not integer"),
    ("string-as-int", _set(AX + ("initial_cp",), "16"), 'sides.axis.initial_cp: must be an integer, not string "16"'),
    ("float-as-int", _set(AX + ("rg", 2, "cost"), 2.5), "sides.axis.rg.I3.cost: must be an integer, not float"),
    ("elr-range", _set(AX + ("elr",), 6), "sides.axis.elr: must be 0..5, not 6"),
    ("san-negative", _set(AL + ("san",), -1), "sides.allied.san: must be 0 or more"),
    ("rg-cost-zero", _set(AX + ("rg", 2, "cost"), 0), "sides.axis.rg.I3.cost: must be 1 or more, not 0"),
    ("rg-max-zero", _set(AL + ("rg", 0, "max"), 0), "sides.allied.rg.I1.max: must be 1 or more"),
    ("leader-drs-neg", _set(AL + ("rg", 0, "leader_drs"), -1), "sides.allied.rg.I1.leader_drs: must be 0 or more"),
    ("attack-cost-neg", _set(AX + ("attack_cost",), -2), "sides.axis.attack_cost: must be 0 or more"),
    ("fp-zero-for-fp", _set(AX + ("rg", 10, "fp"), 0), "sides.axis.rg.F1.fp: must be 1 or more for a fortification"),
    ("fp-missing-for-fp", _delete(AX + ("rg", 10, "fp")), "sides.axis.rg.F1.fp: must be 1 or more"),
    ("fp-on-a-gun", _set(AX + ("rg", 5, "fp"), 4), "sides.axis.rg.G1.fp: is for fortification_points RGs only"),
    ("intensity-enum", _set(("campaign", "intensity"), "extreme"), 'campaign.intensity: "extreme" is not one of low'),
    ("time-enum", _set(("firefights", 2, "time"), "dusk"), 'firefight 3.time: "dusk" is not one of day | night'),
    ("kind-enum", _set(AX + ("rg", 1, "kind"), "paratroops"), "sides.axis.rg.I2.kind:"),
    ("quality-enum", _set(AX + ("rg", 1, "quality"), "veteran"), "sides.axis.rg.I2.quality:"),
    ("quality-missing", _delete(AL + ("rg", 0, "quality")), "sides.allied.rg.I1.quality: missing"),
    ("quality-on-gun", _set(AL + ("rg", 5, "quality"), "elite"), "sides.allied.rg.G1.quality: is for infantry RGs only"),
    ("edge-enum", _set(("map", "friendly_edge", "axis"), "up"), 'map.friendly_edge.axis: "up" is not one of north'),
    ("edge-missing", _delete(("map", "friendly_edge", "allied")), "map.friendly_edge.allied: missing"),
    ("attacker-enum", _set(("campaign", "initial_attacker"), "germans"), "campaign.initial_attacker:"),
    ("nationality-empty", _set(AX + ("nationality",), "  "), "sides.axis.nationality: must not be empty"),
    ("no-firefights", _set(("firefights",), []), "firefights: the card needs at least 1 firefight"),
    ("bad-date", _set(("firefights", 1, "date"), "1944-02-30"), 'firefight 2.date: "1944-02-30" is not a date'),
    ("date-format", _set(("firefights", 0, "date"), "14/07/1944"), "firefight 1.date:"),
    ("dates-backwards", _set(("firefights", 3, "date"), "1944-07-13"), "firefight 4.date: 1944-07-13 is before"),
    ("rows-range", _set(("map", "rows"), 0), "map.rows: must be 1..99, not 0"),
    ("rows-too-many", _set(("map", "rows"), 100), "map.rows: must be 1..99"),
    ("columns-reversed", _set(("map", "columns"), "P-A"), 'map.columns: "P-A" is not a column range'),
    ("columns-mixed", _set(("map", "columns"), "A-AB"), 'map.columns: "A-AB" is not a column range'),
    ("columns-no-dash", _set(("map", "columns"), "AP"), "map.columns:"),
    ("strategic-off-map", _append(("map", "strategic"), "Z99"), "map.strategic#11: Z99 is off the map"),
    ("row-off-map", _append(("map", "water"), "C11"), "map.water#10: C11 is off the map (columns A-P, rows 1-10)"),
    ("not-a-hex", _append(("map", "buildings"), "4C"), 'map.buildings#10: "4C" is not a hex id'),
    ("tvp-off-map", _set(("map", "tvp", "Q9"), 2), "map.tvp.Q9: Q9 is off the map"),
    ("tvp-value", _set(("map", "tvp", "I5"), 0), "map.tvp.I5: must be 1 or more"),
    ("stone-off-map", _set(("map", "stone"), ["A0"]), "map.stone#1:"),
    ("control-off-map", _append(AX + ("control",), "P12"), "sides.axis.control#4: P12 is off the map"),
    ("control-non-strategic", _append(AL + ("control",), "A1"), "sides.allied.control#4: A1 is not Strategic Terrain"),
    ("control-both-sides", _append(AL + ("control",), "L4"), "sides.allied.control#4: L4 is also controlled by axis"),
    ("control-twice", _append(AX + ("control",), "m5"), "sides.axis.control#4: M5 is listed twice"),
    ("rg-id-duplicate", _set(AX + ("rg", 1, "id"), "i1"), "sides.axis.rg#2.id: I1 is already used by RG #1"),
    ("rg-id-shape", _set(AX + ("rg", 1, "id"), "1X"), 'sides.axis.rg#2.id: "1X" must be letters then digits'),
    ("rg-units-type", _set(AX + ("rg", 0, "units"), "3x 4-6-7"), "sides.axis.rg.I1.units: must be an array"),
    ("rg-not-table", _set(AX + ("rg", 0), "I1"), "sides.axis.rg#1: must be a table"),
    ("unknown-campaign-key", _set(("campaign", "weather"), "rain"), "campaign.weather: unknown key"),
    ("unknown-map-key", _set(("map", "mountains"), []), "map.mountains: unknown key"),  # hills: a third-round key
    ("unknown-side-key", _set(AX + ("cp",), 3), "sides.axis.cp: unknown key"),
    ("unknown-rg-key", _set(AL + ("rg", 4, "colour"), "red"), "sides.allied.rg.HW1.colour: unknown key"),
    ("unknown-top-key", _set(("sidez",), {}), "sidez: unknown key"),
    ("unknown-side", _set(("sides", "neutral"), {}), "sides.neutral: unknown side"),
    ("missing-side", _delete(AL), "sides.allied: missing"),
    ("missing-campaign-key", _delete(("campaign", "name")), "campaign.name: missing"),
    ("missing-map", _delete(("map",)), "map: missing"),
    ("cp-provided-too-long", _set(AX + ("cp_provided",), [5] * 6), "sides.axis.cp_provided: 6 entries, but only 5"),
    ("cp-provided-negative", _set(AX + ("cp_provided",), [5, -1]), "sides.axis.cp_provided#2: must be 0 or more"),
    ("patrols-negative", _set(("campaign", "patrols_per_reph"), -1), "campaign.patrols_per_reph: must be 0 or more"),
]


@pytest.mark.parametrize("mutate, expected", [pytest.param(m, e, id=i) for i, m, e in BROKEN])
def test_broken_card_names_the_problem(mutate, expected):
    data = copy.deepcopy(SAMPLE)
    mutate(data)
    message = problems_of(data)
    assert message.startswith("card test.toml has ")
    lines = message.splitlines()[1:]
    assert any(line.startswith(expected) for line in lines), message


def test_every_problem_is_listed_at_once():
    data = copy.deepcopy(SAMPLE)
    data["campaign"]["intensity"] = "extreme"
    data["sides"]["axis"]["elr"] = True
    data["sides"]["allied"]["rg"][2]["cost"] = 0
    data["map"]["tvp"]["Z99"] = 1
    data["sides"]["allied"]["control"].append("B2")
    with pytest.raises(BadInput) as exc:
        parse_card(data, "sample.toml")
    err = exc.value
    assert err.exit_code == 2
    lines = str(err).splitlines()
    assert lines[0] == "card sample.toml has 5 problems:"
    assert [p for p, _ in err.problems] == [
        "campaign.intensity",
        "map.tvp.Z99",
        "sides.axis.elr",
        "sides.allied.control#4",
        "sides.allied.rg.I3.cost",
    ]
    assert lines[1:] == [f"{p}: {w}" for p, w in err.problems]


def test_one_problem_is_singular():
    data = copy.deepcopy(SAMPLE)
    data["map"]["rows"] = 0
    assert problems_of(data).splitlines()[0] == "card test.toml has 1 problem:"


def test_not_a_table_at_all():
    assert "card: must be a table" in problems_of([1, 2])  # type: ignore[arg-type]


# --- files ----------------------------------------------------------------------------------------


def test_load_from_a_path(tmp_path):
    text = importlib.resources.files("cg.cards").joinpath("sample.toml").read_text(encoding="utf-8")
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    assert load_card(str(path)) == load_card("sample")


def test_missing_file():
    with pytest.raises(BadInput) as exc:
        load_card("no/such/card.toml")
    assert str(exc.value) == (
        "no such card file or shipped card: no/such/card.toml (plcg cards lists the shipped ones)"
    )
    assert exc.value.exit_code == 2
    with pytest.raises(BadInput, match="no such card file or shipped card: nothere"):
        load_card("nothere")


def test_not_toml(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('[campaign]\nname = "x"\nintensity = low\n', encoding="utf-8")
    with pytest.raises(BadInput) as exc:
        load_card(str(path))
    message = str(exc.value)
    assert "\n" not in message
    assert message.startswith(f"card {path} is not valid TOML:")
    assert "line 3" in message


def test_broken_file_lists_problems_with_its_name(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[campaign]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(BadInput) as exc:
        load_card(str(path))
    lines = str(exc.value).splitlines()
    assert lines[0].startswith(f"card {path} has ")
    assert "firefights: missing" in lines and "map: missing" in lines and "sides: missing" in lines
    assert "campaign.intensity: missing" in lines


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes('[campaign]\nname = "Lécuyer"\n'.encode("latin-1"))
    with pytest.raises(BadInput, match="cannot read card"):
        load_card(str(path))


def test_shipped_cards_listing():
    cards = shipped_cards()
    names = [name for name, _, _ in cards]
    assert names == sorted(names) and "sample" in names
    name, title, line = next(c for c in cards if c[0] == "sample")
    assert title == "The Mill at Marbouville"
    assert "6 firefights" in line and "low intensity" in line and "\n" not in line


# --- properties -----------------------------------------------------------------------------------


@given(st.integers(min_value=-3, max_value=9))
def test_elr_accepted_exactly_in_0_to_5(elr):
    data = copy.deepcopy(SAMPLE)
    data["sides"]["allied"]["elr"] = elr
    if 0 <= elr <= 5:
        assert parse_card(data).sides["allied"].elr == elr
    else:
        assert "sides.allied.elr: must be 0..5" in problems_of(data)


@given(st.integers(0, len(COLUMN_LETTERS) - 1), st.integers(0, len(COLUMN_LETTERS) - 1))
def test_columns_spec(i, j):
    spec = f"{COLUMN_LETTERS[i]}-{COLUMN_LETTERS[j]}"
    cols = columns_of(spec)
    if i <= j:
        assert cols == COLUMN_LETTERS[i : j + 1] and columns_of(spec.lower()) == cols
    else:
        assert cols == ()


@given(st.sampled_from(columns_of("A-P")), st.integers(1, 10), st.booleans())
def test_any_on_map_hex_is_accepted_and_normalised(col, row, lower):
    data = copy.deepcopy(SAMPLE)
    text = f"{col}{row}"
    data["map"]["strategic"].append(text.lower() if lower else text)
    assert text in parse_card(data).map.strategic
