"""Issue 39, the fourth referee's round: what a CG Card gives the ledger. The OB given dealt over its hexes in
the card's order and checked against 2.37 (ruling R94); the card keys for what the ledger guessed."""
from __future__ import annotations

import copy
import json
from pathlib import Path

from conftest import cli_run, load_sample, to_toml


def write_card(directory, data: dict, name: str = "card") -> str:
    path = Path(directory) / f"{name}.toml"
    path.write_text(to_toml(data) + "\n", encoding="utf-8")
    return str(path)


def with_ob(directory, *groups: dict, name: str = "ob") -> str:
    """The sample card with an Allied OB given (1.2) of `groups`."""
    data = copy.deepcopy(load_sample())
    data["sides"]["allied"]["ob"] = [dict(g) for g in groups]
    return write_card(directory, data, name)


def oob(path, side: str) -> dict:
    r = cli_run(path, "oob", side, "--json")
    assert r.code == 0, r.err
    return {u["unit"]: u for u in json.loads(r.out)}


PLATOON = {"id": "OB1", "name": "Rifle platoon", "kind": "infantry", "quality": "first_line",
           "units": ["2x 6-6-6", "1x LMG"], "leaders": ["8-0"], "platoons": 1, "setup": "on-map"}


# ---- 1.2 OB given, 2.37 (issue 39 defect 6, ruling R94) ---------------------------------------------------------

def test_the_ob_given_is_dealt_over_its_hexes_in_the_cards_order(workdir):
    """D3 is listed first though C3 comes first on the map: the first unit sets up in D3, the second in C3,
    the LMG with the first squad, the leader with the second (the n-th unit in hexes[(n - 1) mod 2])."""
    card = with_ob(workdir, dict(PLATOON, hexes=["D3", "C3"]))
    db = workdir / "ob.plcg"
    r = cli_run(db, "new", "--card", card, "--seed", "ob")
    assert r.code == 0, r.err
    units = oob(db, "allied")
    placed = {u: (units[u]["name"], units[u]["hex"]) for u in units if u.startswith("OB1-allied.")}
    assert placed == {"OB1-allied.1": ("6-6-6", "D3"), "OB1-allied.2": ("6-6-6", "C3"),
                      "OB1-allied.3": ("LMG", "D3"), "OB1-allied.4": ("8-0", "C3")}
    assert cli_run(db, "audit").code == 0


def test_card_check_refuses_an_ob_given_whose_placement_breaks_2_37(workdir):
    """The referee's card: a Gun dealt to one hex and its crew to another, an LMG alone in a third; the same
    placements typed with `setup` are refused by 2.37, so the card is refused too (and `new` with it)."""
    gun = {"id": "OB2", "name": "37mm AT Gun", "kind": "gun", "units": ["1x 37L AT Gun", "1x 2-2-7 crew"],
           "setup": "on-map", "hexes": ["C3", "D3"]}
    lone = dict(PLATOON, units=["1x 6-6-6", "1x 6-6-6", "1x LMG"], leaders=[], hexes=["C3", "D3", "E8"])
    card = with_ob(workdir, gun, lone)
    r = cli_run(str(workdir / "x.plcg"), "card", "check", card)
    assert r.code == 2, r.out + r.err
    assert "its unit 1 (37L AT Gun) is dealt to C3 with no unit of OB2 (2.37)" in r.err, r.err
    assert "its unit 3 (LMG) is dealt to E8 with no unit of OB1 (2.37)" in r.err, r.err
    assert "crew" not in r.err  # the crew is a MMC: it may stand alone
    r = cli_run(str(workdir / "x.plcg"), "new", "--card", card)
    assert r.code == 2 and "2.37" in r.err
    fixed = with_ob(workdir, dict(gun, hexes=["C3"]), dict(lone, hexes=["C3", "D3"]), name="fixed")
    r = cli_run(str(workdir / "x.plcg"), "card", "check", fixed)
    assert r.code == 0, r.out + r.err


def test_a_leader_dealt_to_a_hex_with_only_a_sw_breaks_2_37(workdir):
    """2.37: a leader stands stacked with a MMC/AFV of its RG; a SW or another leader is not one."""
    card = with_ob(workdir, dict(PLATOON, units=["1x 6-6-6", "1x LMG"], leaders=["8-0"], hexes=["C3", "D3"]))
    r = cli_run(str(workdir / "x.plcg"), "card", "check", card)
    assert r.code == 2 and "its unit 2 (LMG) is dealt to D3 with no unit of OB1 (2.37)" in r.err, r.err
    assert "its unit 3 (8-0)" not in r.err  # dealt to C3, with the squad


# ---- card keys for what the ledger guessed (issue 39, ruling R96) ------------------------------------------------

def _card(workdir, name: str, *, axis_rg=None, map=None) -> str:
    data = copy.deepcopy(load_sample())
    for rg in data["sides"]["axis"]["rg"]:
        rg.update((axis_rg or {}).get(rg["id"], {}))
    data["map"].update(map or {})
    return write_card(workdir, data, name)


def _at_3_52(workdir, card: str, name: str):
    from conftest import Campaign

    db = str(workdir / f"{name}.plcg")
    assert cli_run(db, "new", "--card", card, "--seed", "cl").code == 0
    c = Campaign.attach(db, plan={1: {"buy": [("axis", "I1"), ("allied", "I1")],
                                      "end": {"cvp_lost": {"axis": 1, "allied": 1}, "terrain": ["M7=rubble"]}}})
    c.advance(1, "3.52")
    c.close()
    return db


ENGINEERS = "-1 for 3 non-Isolated Assault Engineer squads (3.52)"


def test_an_rg_the_card_marks_assault_engineers_counts_whatever_its_name(workdir):
    """3.52: "-1 Friendly side currently contains three non-Isolated Assault Engineer squads": a "Pionier
    Platoon" marked `assault_engineers = true` gives it; the name alone (no "Assault Engineer" in it) never did."""
    marked = _card(workdir, "marked", axis_rg={"I1": {"name": "Pionier Platoon", "assault_engineers": True}})
    r = cli_run(_at_3_52(workdir, marked, "marked"), "clear", "axis", "M7", "rubble", "--dice", "3")
    assert r.code == 0, r.err
    assert ENGINEERS in r.out, r.out
    plain = _card(workdir, "plain", axis_rg={"I1": {"name": "Pionier Platoon"}})
    r = cli_run(_at_3_52(workdir, plain, "plain"), "clear", "axis", "M7", "rubble", "--dice", "3")
    assert r.code == 0 and "Assault Engineer" not in r.out, r.out


def test_assault_engineers_false_overrides_the_name(workdir):
    """The name test stays only for a card that does not say (a campaign started before the key)."""
    named = _card(workdir, "named", axis_rg={"I1": {"name": "Assault Engineer Platoon"}})
    r = cli_run(_at_3_52(workdir, named, "named"), "clear", "axis", "M7", "rubble", "--dice", "3")
    assert r.code == 0 and ENGINEERS in r.out, r.out
    said = _card(workdir, "said", axis_rg={"I1": {"name": "Assault Engineer Platoon", "assault_engineers": False}})
    r = cli_run(_at_3_52(workdir, said, "said"), "clear", "axis", "M7", "rubble", "--dice", "3")
    assert r.code == 0 and "Assault Engineer" not in r.out, r.out


def test_card_check_reads_the_two_keys(workdir):
    bad = _card(workdir, "bad", axis_rg={"G1": {"assault_engineers": True}, "I1": {"assault_engineers": "yes"}},
                map={"frozen": ["H4", "B2"]})
    r = cli_run(str(workdir / "x.plcg"), "card", "check", bad)
    assert r.code == 2, r.out
    assert 'sides.axis.rg.G1.assault_engineers: is for an infantry RG (3.52: Assault Engineer squads), not "gun"' \
        in r.err, r.err
    assert "sides.axis.rg.I1.assault_engineers: must be true or false" in r.err, r.err
    assert "map.frozen#2: B2 is not a water hex of the card (`water`): only water freezes" in r.err, r.err
    assert "frozen#1" not in r.err  # H4 is water
    good = _card(workdir, "good", axis_rg={"I4": {"assault_engineers": True}}, map={"frozen": ["H4"]})
    r = cli_run(str(workdir / "x.plcg"), "card", "check", good)
    assert r.code == 0, r.out + r.err
    r = cli_run(str(workdir / "x.plcg"), "card", "show", good)
    assert r.code == 0 and "  frozen: H4\n" in r.out and "Assault Engineers (3.52)" in r.out, r.out


def test_a_frozen_water_hex_is_a_mission_hex_another_is_not(workdir):
    """2.73 "Accessible to Infantry" (ruling R56): water is no mission hex; a hex the card marks frozen is."""
    from conftest import Campaign

    card = _card(workdir, "winter", map={"frozen": ["H4"]})
    db = str(workdir / "winter.plcg")
    assert cli_run(db, "new", "--card", card, "--seed", "pat").code == 0
    c = Campaign.attach(db, plan={1: {"buy": [("axis", "I1", "on-map"), ("allied", "I1")], "patrols": [("axis", 1)]}})
    c.advance(1, "2.7")
    c.close()
    patrol = ("patrol", "axis", "--type", "recon", "--units", "I1-1.1", "--leader", "I1-1.L1", "--dice", "2,2")
    r = cli_run(db, *patrol, "--hex", "H3")  # water, not frozen
    assert r.code == 3 and "mission hex H3 is a water hex, not Accessible to Infantry" in r.err, r.err
    r = cli_run(db, *patrol, "--hex", "H4")  # frozen over
    assert r.code == 0, r.err
