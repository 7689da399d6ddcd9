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
