"""The CG's verdict (issue 27 item 1, issue 24 item 22, ruling R74): the card's `[victory]` table names the
winner and why in `status`, `roster` and the AAR; a card without Victory Conditions says so; a CG Objective
fulfilled after the firefight it names ends the CG (1.3)."""
from __future__ import annotations

import copy
import json

from conftest import Campaign, cli_run, ff_list, load_sample, to_toml


def _card(tmp_path, victory: dict | None, n: int = 1, name: str = "vc") -> str:
    data = copy.deepcopy(load_sample())
    data["firefights"] = ff_list(n)
    data.pop("victory", None)
    if victory is not None:
        data["victory"] = victory
    path = tmp_path / f"{name}.toml"
    path.write_text(to_toml(data) + "\n", encoding="utf-8")
    return str(path)


MILL = {"text": "Whoever holds the mill and the bridge wins.", "hold": {"axis": ["I5", "H6"], "allied": ["I5", "H6"]},
        "default": "axis"}


def _play_one(tmp_path, card: str, control: list[str], *rev) -> str:
    """A one-firefight CG played to its end through the command line's `next` and `end`."""
    db = str(tmp_path / "c.plcg")
    assert cli_run(db, "new", "--card", card, "--seed", "v", *rev).code == 0
    camp = Campaign.attach(db, plan={1: {"end": {"cvp_lost": {"axis": 4, "allied": 6}, "control": control}}})
    camp.advance(1, "3.52")
    camp.close()
    r = cli_run(db, "next")
    assert r.code == 0, r.err
    return db


def test_the_cg_end_names_the_winner_and_why_in_status_roster_and_the_aar(tmp_path):
    db = _play_one(tmp_path, _card(tmp_path, MILL), ["allied=I5", "allied=H6"])
    v = json.loads(cli_run(db, "status", "--json").out)["victory"]
    assert v["winner"] == "allied"
    assert "Allied wins" in v["why"] and "I5, H6" in v["why"]
    held = [c for c in v["conditions"] if c["kind"] == "hold" and c["side"] == "allied"][0]
    assert held["met"] is True and held["hexes"] == ["I5", "H6"]
    assert "CG verdict: Allied wins: Allied controls I5, H6 at the CG's end" in cli_run(db, "status").out
    roster = json.loads(cli_run(db, "roster", "--json").out)
    assert roster["victory"] == v and roster["rows"] and roster["totals"]["allied"]["cg_tvp"] >= 0
    assert "CG verdict: Allied wins" in cli_run(db, "roster").out
    md = cli_run(db, "export", "--format", "md").out
    assert "**CG verdict:** Allied wins" in md
    assert "Whoever holds the mill and the bridge wins." in md  # the printed text
    log = cli_run(db, "log").out
    assert "CG ended (last firefight); CG TVP" in log and log.rstrip().endswith("winner Allied")


def test_no_condition_met_gives_the_cards_default_and_both_met_a_draw(tmp_path):
    db = _play_one(tmp_path, _card(tmp_path, MILL), ["allied=I5"])
    v = json.loads(cli_run(db, "status", "--json").out)["victory"]
    assert v["winner"] == "axis" and "no side meets a Victory Condition" in v["why"]
    both = dict(MILL, hold={"allied": ["I5"]}, tvp={"axis": 0})
    (tmp_path / "b").mkdir()
    db = _play_one(tmp_path / "b", _card(tmp_path, both, name="both"), ["allied=I5"])
    v = json.loads(cli_run(db, "status", "--json").out)["victory"]
    assert v["winner"] == "draw" and "both sides meet a condition" in v["why"]


def test_before_the_end_the_winner_is_null_and_the_standing_is_said(tmp_path):
    db = str(tmp_path / "c.plcg")
    assert cli_run(db, "new", "--card", _card(tmp_path, MILL), "--seed", "v").code == 0
    v = json.loads(cli_run(db, "status", "--json").out)["victory"]
    assert v["winner"] is None and v["why"].startswith("the CG goes on (1.3)")


def test_a_card_without_victory_conditions_says_so(tmp_path):
    db = str(tmp_path / "k.plcg")
    assert cli_run(db, "new", "--card", _card(tmp_path, None), "--seed", "v").code == 0
    v = json.loads(cli_run(db, "status", "--json").out)["victory"]
    assert v == {"winner": None, "conditions": [],
                 "why": "the CG Card states no CG Victory Conditions: plcg cannot name a winner (1.3)"}
    assert "states no CG Victory Conditions" in cli_run(db, "status").out
    show = cli_run(db, "card", "show", _card(tmp_path, None)).out
    assert "CG Victory Conditions (1.3): the card states none" in show
    assert cli_run(db, "concede", "axis").code == 0  # a concession names a winner all the same
    v = json.loads(cli_run(db, "status", "--json").out)["victory"]
    assert v["winner"] == "allied" and "Axis conceded" in v["why"]


OBJECTIVE = dict(MILL, objectives=[{"after": 1, "side": "axis", "hold": ["L4", "M5"],
                                    "text": "The Germans keep the church and the mairie"}])


def test_a_cg_objective_fulfilled_after_its_firefight_ends_the_cg(tmp_path):
    card = _card(tmp_path, OBJECTIVE, n=3)
    db = str(tmp_path / "o.plcg")
    assert cli_run(db, "new", "--card", card, "--seed", "v").code == 0
    camp = Campaign.attach(db, plan={1: {"end": {"cvp_lost": {"axis": 4, "allied": 6}}}})  # Axis keeps L4, M5
    camp.advance(1, "3.52")
    camp.close()
    why = json.loads(cli_run(db, "status", "--json").out)["victory"]["why"]
    assert "a CG Objective after firefight 1 is fulfilled as things stand: the CG ends when `next` leaves 3.52" in why
    r = cli_run(db, "next")
    assert r.code == 0 and "CG ended (CG Objectives)" in r.out and "winner Axis" in r.out, r.out
    s = json.loads(cli_run(db, "status", "--json").out)
    assert s["ended"] and s["firefight"] == 1
    assert s["victory"]["winner"] == "axis"
    assert "CG Objective after firefight 1: Axis controls L4, M5" in s["victory"]["why"]
    obj = [c for c in s["victory"]["conditions"] if c["kind"] == "objective"][0]
    assert obj["met"] is True and obj["after"] == 1


def test_a_cg_objective_not_fulfilled_lets_the_cg_go_on_and_revision_2_never_ends_early(tmp_path):
    card = _card(tmp_path, OBJECTIVE, n=3)
    db = str(tmp_path / "o.plcg")
    assert cli_run(db, "new", "--card", card, "--seed", "v").code == 0
    camp = Campaign.attach(db, plan={1: {"end": {"cvp_lost": {"axis": 4, "allied": 6}, "control": ["allied=L4"]}}})
    camp.advance(2, "2.1")
    camp.close()
    obj = [c for c in json.loads(cli_run(db, "status", "--json").out)["victory"]["conditions"]
           if c["kind"] == "objective"][0]
    assert obj["met"] is False  # checked after firefight 1, not fulfilled
    db2 = str(tmp_path / "r2.plcg")  # ruling R32: a campaign under revision 2 keeps going
    assert cli_run(db2, "new", "--card", card, "--seed", "v", "--rules-revision", "2").code == 0
    camp = Campaign.attach(db2, plan={1: {"end": {"cvp_lost": {"axis": 4, "allied": 6}}}})
    camp.advance(2, "2.1")
    camp.close()


def test_card_check_lists_every_problem_of_a_victory_table(tmp_path):
    bad = {"hold": {"axis": ["Z99"], "russians": ["I5"]}, "tvp": {"allied": -1}, "default": "germans",
           "cvp_ratio": {"axis": "two", "allied": float("inf")}, "objectives": [{"after": 9, "side": "axis"}],
           "colour": "red"}
    r = cli_run(str(tmp_path / "x.plcg"), "card", "check", _card(tmp_path, bad))
    assert r.code == 2
    # list items are counted from 1 (`#1`), as card check names every list item (issue 27 item 7)
    for path in ("victory.hold.axis#1", "victory.hold.russians", "victory.tvp.allied", "victory.default",
                 "victory.cvp_ratio.axis", "victory.cvp_ratio.allied", "victory.objectives#1.after", "victory.objectives#1: needs",
                 "victory.colour"):
        assert path in r.err, (path, r.err)


def test_the_shipped_cards_state_their_victory_conditions_and_the_demo_names_its_winner(tmp_path):
    from cg.card_schema import shipped_cards

    names = [name for name, _title, _what in shipped_cards()]
    assert set(names) == {"sample", "kolkhoz", "bridgehead", "sosnovka"}
    for name in names:
        show = cli_run(str(tmp_path / "x"), "card", "show", name).out
        assert "CG Victory Conditions (1.3, ruling R74):" in show and "as printed:" in show
    r = cli_run(str(tmp_path / "demo.plcg"), "demo")
    assert r.code == 0
    assert "CG verdict: Allied wins: no side meets a Victory Condition; then the higher CG TVP Total wins: " \
           "Axis 15, Allied 25" in r.out


def test_a_cvp_ratio_wins_when_the_enemy_lost_that_many_cvp_per_cvp_lost(tmp_path):
    ratio = {"cvp_ratio": {"axis": 1.5}, "default": "allied"}
    db = _play_one(tmp_path, _card(tmp_path, ratio), [])  # Axis lost 4, the Allies 6: 6 >= 1.5 x 4
    v = json.loads(cli_run(db, "status", "--json").out)["victory"]
    assert v["winner"] == "axis"
    assert "Axis inflicts at least 1.5 CVP for each CVP lost over the CG (inflicted 6, lost 4)" in v["why"]
