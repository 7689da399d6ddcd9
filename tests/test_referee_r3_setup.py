"""Rules revision 3, issue 24 items 1-8: setup and redeployment (2.33, 2.37, 2.41, 2.5, 3.21, 3.24, CTHC per
controlled Strategic Terrain hex: ruling R53). Each test drives the command line; the revision-2 campaign of
the same plan keeps the old decision (ruling R32)."""
from __future__ import annotations

import json

from conftest import Campaign, cli_run, rows


def new(tmp_path, plan, revision=None, name="c.plcg", card="sample"):
    db = tmp_path / name
    extra = ["--rules-revision", str(revision)] if revision else []
    r = cli_run(db, "new", "--card", card, "--seed", "r3", *extra)
    assert r.code == 0, r.err
    return Campaign.attach(db, plan=plan)


def oob(path, side="axis") -> dict:
    r = cli_run(path, "oob", side, "--json")
    assert r.code == 0, r.err
    return {u["unit"]: u for u in json.loads(r.out)}


def refused(path, *args, rule: str) -> str:
    before = rows(path)
    r = cli_run(path, *args)
    assert r.code == 3 and rule in r.err, (r.code, r.err)
    assert rows(path) == before
    return r.err


# ---- item 1: 2.33 In Reserve is for the firefight it was bought for ----------------------------------

RESERVE = {1: {"buy": [("axis", "I1", "reserve"), ("axis", "G1", "reserve"), ("allied", "I1")]},
           2: {"attack": ["axis"]}}


def _reserve(tmp_path, revision=None, name="c.plcg"):
    c = new(tmp_path, RESERVE, revision, name)
    c.advance(1, "2.6")
    gun = next(u.id for u in c.state().side_units("axis") if u.kind == "gun")
    assert cli_run(c.path, "setup", "axis", gun, "O5").code == 0  # 2.33: 10 hexes from the Allied E8
    c.advance(2, "2.6")
    return c, gun


def test_2_33_a_reserve_unit_kept_off_map_sets_up_normally_in_a_later_firefight(tmp_path):
    c, gun = _reserve(tmp_path)
    # the squad stayed off map in firefight 1: in firefight 2 it sets up like any unit, 6 hexes from E8
    assert cli_run(c.path, "setup", "axis", "I1-1.1", "K5").code == 0
    # the Gun set up In Reserve is on map after its firefight, an emplaced Gun: Strategic Terrain (1.4)
    u = oob(c.path)[gun]
    assert u["status"] == "on_map" and u["where"] == "on map O5", u
    hexes = json.loads(cli_run(c.path, "map", "--json").out)["hexes"]
    assert hexes["O5"]["strategic"] and hexes["O5"]["grown"]
    c.close()
    old, gun = _reserve(tmp_path, revision=2, name="old.plcg")
    refused(old.path, "setup", "axis", "I1-1.1", "K5", rule="2.33")  # as revision 2 decided
    assert oob(old.path)[gun]["status"] == "reserve"
    old.close()
