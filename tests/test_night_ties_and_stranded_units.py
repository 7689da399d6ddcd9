"""Issue 39, the fourth referee's round: the rulings he disputed (R5 in a Dual Night Assault; R48 against R58
and 3.11; the 3.23 proximity test), each played through the command line."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import Campaign, cli_run, load_sample, to_toml

DUAL_NIGHT = {2: {"attack": ["axis", "allied"]}}  # the sample's firefight 2 is a night firefight


def at_dual_night_end(tmp_path, revision: int | None = None) -> Campaign:
    db = tmp_path / f"dn{revision}.plcg"
    extra = ["--rules-revision", str(revision)] if revision else []
    assert cli_run(db, "new", "--card", "sample", "--seed", "dn", *extra).code == 0
    c = Campaign.attach(db, plan=DUAL_NIGHT)
    c.advance(2, "2.9")
    ff = c.state().ff
    assert ff.type == "dual" and ff.time == "night" and ff.move_first in ("axis", "allied")
    return c


def end(c, *more):
    return cli_run(c.path, "end", "--turn", "5", "--cvp-lost", "axis=3", "--cvp-lost", "allied=3", *more)


def test_r5_a_cvp_tie_in_a_dual_night_assault_is_a_draw(tmp_path):
    """2.421: both sides are Firefight ATTACKERS and "neither side receives the benefits/penalties of the
    Firefight Defender": the tie 1.31 gives the defender has no one to go to."""
    c = at_dual_night_end(tmp_path)
    r = end(c)
    assert r.code == 0, r.err
    assert "no winner, a draw (2.421" in r.out, r.out
    ff = c.state().ff
    assert ff.winner is None and ff.winner_rule == "2.421"
    c.close()


def test_r5_the_players_may_name_the_dual_night_winner(tmp_path):
    c = at_dual_night_end(tmp_path)
    r = end(c, "--winner", "axis")  # CG Objectives, or the card's own firefight objective (1.31 "unless noted")
    assert r.code == 0, r.err
    assert c.state().ff.winner == "axis" and c.state().ff.winner_rule == "--winner"
    c.close()


def test_r5_a_reph_loss_decides_the_dual_night_tie_again(tmp_path):
    """3.11 / R25: RePh losses count for the firefight: the draw becomes a win once one side lost more."""
    c = at_dual_night_end(tmp_path)
    assert end(c).code == 0
    c.advance(2, "3.1")
    assert cli_run(c.path, "casualties", "allied", "--cvp", "2").code == 0
    ff = c.state().ff
    assert ff.winner == "axis" and ff.winner_rule == "1.31"
    c.close()


@pytest.mark.parametrize("revision", [1, 2])
def test_r5_revisions_1_and_2_gave_the_night_tie_to_the_side_that_moved_second(tmp_path, revision):
    c = at_dual_night_end(tmp_path, revision)
    assert end(c).code == 0
    ff = c.state().ff
    assert ff.winner == ("allied" if ff.move_first == "axis" else "axis") and ff.winner_rule == "R5"
    c.close()


# ---- R48 against R58 and 3.11: a stranded unit's CVP count (ruling R95) ------------------------------------------

def _oob(path, side: str) -> dict:
    r = cli_run(path, "oob", side, "--json")
    assert r.code == 0, r.err
    return {u["unit"]: u for u in json.loads(r.out)}


def _left_without_a_cthc(workdir, revision: int | None = None) -> str:
    """`end --control` gave all three Allied Strategic hexes to the Axis: the Allied squads, one in the Axis MLR,
    can redeploy nowhere (ruling R48); the Allies lost 9 CVP in the firefight."""
    extra = ["--rules-revision", str(revision)] if revision else []
    return _at_3_2(str(workdir / f"nocthc{revision}.plcg"), "sample", extra, [("allied", "I1", "on-map")],
                   "allied=9", "--control", "axis=C3", "--control", "axis=D3", "--control", "axis=E8",
                   "--position", "allied:I1-1.1=L5")


def _at_3_2(path: str, card: str, new: list, buy: list, allied_cvp: str, *end: str) -> str:
    """A new campaign on `card` (`new`: more options), `buy` bought on map, firefight 1 ended with `end`, then
    3.2 with Redeployment Option A chosen."""
    assert cli_run(path, "new", "--card", card, "--seed", "tests", *new).code == 0
    c = Campaign.attach(path, plan={1: {"buy": buy}})
    c.advance(1, "2.9")
    c.close()
    r = cli_run(path, "end", "--turn", "5", "--cvp-lost", "axis=2", "--cvp-lost", allied_cvp, *end)
    assert r.code == 0, r.err
    for _ in range(2):
        assert cli_run(path, "next").code == 0
    assert cli_run(path, "option", "A").code == 0
    return path


def test_r95_a_unit_eliminated_as_it_could_not_redeploy_adds_its_cvp(workdir):
    """3.11 "All RePh losses count for the previous firefight for all purposes": the squad 3.214 eliminates adds
    its 2 CVP (A26.2 as R39/R58 value it), as the same squad eliminated by a 3.21 roll does (R58)."""
    path = _left_without_a_cthc(workdir)
    r = cli_run(path, "next")
    assert r.code == 0, r.err
    assert "eliminated (3.214: no redeployment possible; a vehicle is its wreck, CS NA; their CVP count for the " \
        "firefight (3.11)): allied I1-1.1" in r.out, r.out
    assert _oob(path, "allied")["I1-1.1"]["status"] == "eliminated"
    c = Campaign.attach(path, plan={})
    ff = c.state().firefights[0]
    assert ff.cvp_lost["allied"] == 9 + 2  # a squad: 2 CVP
    c.close()
    assert cli_run(path, "audit").code == 0


# ---- 3.23: "a friendly MMC/AFV/Gun-armed Vehicle" (ruling R95) ---------------------------------------------------

def _immobilized_near(workdir, *positions: str, counters: dict | None = None) -> str:
    """The Allies' Sherman A1-1.1 Immobilized in G3 (Uncontrolled Terrain), their M3 halftrack V1-1.1 and
    whatever else `positions` places, then 3.2 with Option A."""
    card = "sample"
    if counters is not None:
        data = copy.deepcopy(load_sample())
        data["counters"] = counters
        card = str(Path(workdir) / "counters.toml")
        Path(card).write_text(to_toml(data) + "\n", encoding="utf-8")
    return _at_3_2(str(workdir / "immobilized.plcg"), card, [], [("allied", "A1", "on-map"), ("allied", "V1", "on-map")],
                   "allied=2", "--position", "allied:A1-1.1=G3", "--repair", "allied:A1-1.1=immobilized", *positions)


def test_r95_a_vehicle_not_known_to_be_an_afv_does_not_keep_an_immobilized_one_from_its_wreck(workdir):
    path = _immobilized_near(workdir, "--position", "allied:V1-1.1=F2")  # the halftrack 1 hex away
    r = cli_run(path, "next")
    assert r.code == 0, r.err
    assert "eliminated (3.23: alone and Immobilized after all redeployment" in r.out and "A1-1.1" in r.out, r.out
    assert _oob(path, "allied")["A1-1.1"]["status"] == "eliminated"


def test_r95_a_vehicle_the_card_counts_as_an_afv_keeps_it(workdir):
    path = _immobilized_near(workdir, "--position", "allied:V1-1.1=F2",
                             counters={"american": {"M3 halftrack": {"kind": "afv"}}})
    r = cli_run(path, "next")
    assert r.code == 0, r.err
    unit = _oob(path, "allied")["A1-1.1"]
    assert unit["status"] == "on_map" and "isolated" in unit["flags"]  # 3.216: within 3 hexes of an AFV


def test_r5_a_drawn_firefight_keeps_its_cvp_lost_on_the_roster_and_in_the_cg_totals(tmp_path):
    """A draw is a played firefight: the CG Roster (1.4) shows each side's CVP lost in it, and the CG totals
    (and R74's CVP ratio read from them) count it. Found by the explorer: the roster took "no winner" for
    "not played yet" and left the drawn firefight's CVP lost out."""
    c = at_dual_night_end(tmp_path)
    before = {r["side"]: r["cvp_lost"] for r in _roster(c.path)["rows"] if r["firefight"] == 1}
    assert end(c).code == 0
    rows = {r["side"]: r for r in _roster(c.path)["rows"] if r["firefight"] == 2}
    patrols = c.state().ff.patrol_cvp  # ruling R39: the patrols' losses count for the firefight too
    for side in ("axis", "allied"):
        assert rows[side]["winner"] is None
        assert rows[side]["cvp_lost"] == 3 + patrols[side]
    totals = _roster(c.path)["totals"]
    assert {s: totals[s]["cvp_lost"] for s in ("axis", "allied")} == \
        {s: before[s] + 3 + patrols[s] for s in ("axis", "allied")}
    text = cli_run(c.path, "roster").out
    assert f"CVP lost {before['axis'] + 3 + patrols['axis']}," in text
    html = cli_run(c.path, "export", "--format", "html").out  # the AAR's chart of CVP lost draws the draw too
    chart = html[html.index("CVP lost per firefight"):]
    chart = chart[:chart.index("</svg>")]
    for side in ("Axis", "Allied"):
        assert f"<title>{side}, FF2: {3 + patrols[side.lower()]}</title>" in chart
    c.close()


def _roster(path) -> dict:
    r = cli_run(path, "roster", "--json")
    assert r.code == 0, r.err
    return json.loads(r.out)
