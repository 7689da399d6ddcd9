"""Issues 23 and 35: the dead ends and free looks players met off the tested paths, each played through the
command line where a player meets it (rulings R48-R51; ruling R48 under every rules revision, promise 28)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Campaign, cli_run


def _status(path) -> dict:
    r = cli_run(path, "status", "--json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def _oob(path, side: str) -> dict:
    r = cli_run(path, "oob", side, "--json")
    assert r.code == 0, r.err
    return {u["unit"]: u for u in json.loads(r.out)}


def _rows(path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


# ---- 1. an Immobilized AFV in Uncontrolled Terrain at 3.2 (ruling R48) --------------------------------------

def _immobilized_at_3_2(workdir, *extra: str) -> str:
    """Firefight 1 ended with the Allies' Sherman A1-1.1 Immobilized in G3 (Uncontrolled Terrain of the sample
    card), then 3.2 with Redeployment Option A chosen."""
    path = str(workdir / "immobilized.plcg")
    c = Campaign(path, plan={1: {"buy": [("allied", "A1", "on-map")]}})
    c.advance(1, "2.9")
    c.close()
    r = cli_run(path, "end", "--turn", "5", "--cvp-lost", "axis=2", "--cvp-lost", "allied=2",
                "--position", "allied:A1-1.1=G3", "--repair", "allied:A1-1.1=immobilized", *extra)
    assert r.code == 0, r.err
    for _ in range(2):
        assert cli_run(path, "next").code == 0
    assert _status(path)["step"] == "3.2"
    assert cli_run(path, "option", "A").code == 0
    return path


def test_an_immobilized_vehicle_alone_in_uncontrolled_terrain_owes_no_redeployment_and_is_wrecked(workdir):
    path = _immobilized_at_3_2(workdir)
    owed = [p["command"] for p in _status(path)["pending"]]
    assert not any("A1-1.1" in c for c in owed), owed  # 3.211: it cannot move, so it owes no redeployment
    r = cli_run(path, "next")
    assert r.code == 0, r.err  # the RePh goes on
    assert "3.23" in r.out and "A1-1.1" in r.out
    assert _oob(path, "allied")["A1-1.1"]["status"] == "eliminated"  # 3.23: flipped to its wreck, CS NA
    assert cli_run(path, "audit").code == 0


def test_an_immobilized_vehicle_near_a_friendly_afv_stays_isolated_and_owes_no_repair_it_cannot_get(workdir):
    path = _immobilized_at_3_2(workdir, "--position", "allied:A1-1.2=F2")
    r = cli_run(path, "next")
    assert r.code == 0, r.err
    unit = _oob(path, "allied")["A1-1.1"]
    assert unit["status"] == "on_map" and unit["hex"] == "G3" and "isolated" in unit["flags"]  # 3.216, within 3 of A1-1.2
    for _ in range(30):  # the RePh runs to its end: 3.46 owes no repair the vehicle cannot get in G3
        st = _status(path)
        if st["firefight"] == 2:
            break
        for p in st["pending"]:
            assert "A1-1.1" not in p["command"], p
            assert p["runnable"], p
            r = cli_run(path, *p["command"].split()[1:])
            assert r.code == 0, (p, r.err)
        r = cli_run(path, "next")
        assert r.code == 0, r.err
    assert _status(path)["firefight"] == 2


# ---- 4 and 5. 2.6: what sets up, and who first (rulings R50, R51) ----------------------------------------------

def _at_2_6(workdir) -> str:
    """Firefight 1 of the sample card at 2.6 (the Axis, the Defender, sets up first): the Allies bought I1 to enter
    (2.34: cheaper) and I3 on map, the Axis I1 on map."""
    path = str(workdir / "setup.plcg")
    c = Campaign(path, plan={1: {"buy": [("allied", "I1", "entry"), ("allied", "I3", "on-map"),
                                         ("axis", "I1", "on-map")]}})
    c.advance(1, "2.6")
    assert c.state().ff.setup_first == "axis"
    c.close()
    return path


def test_a_unit_bought_to_enter_does_not_set_up_on_the_map(workdir):
    path = _at_2_6(workdir)
    assert cli_run(path, "setup", "axis", "I1-1.1", "M4").code == 0
    before = _rows(path)
    r = cli_run(path, "setup", "allied", "I1-1.1", "C3")  # I1-1 was paid as entering (5 CP, not 6)
    assert r.code == 3, r.out
    assert "2.34" in r.err and "enter" in r.err and "2.6" in r.err
    assert _rows(path) == before
    assert cli_run(path, "setup", "allied", "I3-1.1", "C3").code == 0  # bought on map: it sets up


def test_the_side_that_sets_up_second_cannot_begin_first_and_lock_the_first_side_out(workdir):
    path = _at_2_6(workdir)
    before = _rows(path)
    r = cli_run(path, "setup", "allied", "I3-1.1", "C3")
    assert r.code == 3, r.out
    assert "axis sets up first" in r.err and "2.6" in r.err  # names who sets up first
    assert _rows(path) == before
    assert cli_run(path, "setup", "axis", "I1-1.1", "M4").code == 0  # the first side is not locked out
    assert cli_run(path, "setup", "allied", "I3-1.1", "C3").code == 0
    assert cli_run(path, "next").code == 0


# ---- 3. a refused command rolls no fresh dice (ruling R49) ----------------------------------------------------

def _os_dice(monkeypatch, values):
    """The ledger's OS dice (ruling R31) made to show `values`; the list of rolls asked for."""
    import cg.dice

    asked = []

    def fake(count):
        asked.append(count)
        return tuple(values[:count])

    monkeypatch.setattr(cg.dice, "os_dice", fake)
    return asked


def _russian_at_2_3(workdir, variant, commissar=True) -> str:
    card = variant(allied={"nationality": "russian"}, allied_rg={"I1": {"commissar": commissar}})
    path = str(workdir / "commissar.plcg")
    assert cli_run(path, "new", "--card", card).code == 0  # no --seed: the ledger's OS dice
    c = Campaign.attach(path, plan={})
    c.advance(1, "2.3")
    c.close()
    assert cli_run(path, "buy", "allied", "I1").code == 0
    return path


def test_a_commissar_asked_for_on_a_row_without_a_star_keeps_the_leader_rolled(workdir, variant, monkeypatch):
    path = _russian_at_2_3(workdir, variant)
    asked = _os_dice(monkeypatch, [1, 1])  # row <4: no * on it
    r = cli_run(path, "leader", "allied", "I1", "--commissar", "--json")
    assert r.code == 0, r.err  # no refusal after the roll: the dice it saw are spent
    roll = json.loads(r.out)[0]["roll"]
    assert roll["dice"] == [1, 1] and roll["source"] == "ledger" and roll["row"] not in ("5-6", "7-8")
    assert asked == [2]
    r = cli_run(path, "leader", "allied", "I1", "--commissar")  # owes no more leader DR: refused, no dice
    assert r.code == 3 and asked == [2]
    assert cli_run(path, "audit").code == 0


def test_a_commissar_on_a_starred_row_still_replaces_the_leader(workdir, variant, monkeypatch):
    path = _russian_at_2_3(workdir, variant)
    _os_dice(monkeypatch, [3, 4])
    r = cli_run(path, "leader", "allied", "I1", "--commissar", "--json")
    assert r.code == 0, r.err
    roll = json.loads(r.out)[0]["roll"]
    assert roll["row"] in ("5-6", "7-8") and roll["outcome"] in ("8+1", "9-0", "10-0") and roll["rolled"]


def test_a_commissar_the_card_refuses_is_refused_before_any_die_is_rolled(workdir, variant, monkeypatch):
    path = _russian_at_2_3(workdir, variant, commissar=False)
    asked = _os_dice(monkeypatch, [3, 4])
    before = _rows(path)
    r = cli_run(path, "leader", "allied", "I1", "--commissar")
    assert r.code == 3 and "commissar" in r.err.lower()
    assert asked == [] and _rows(path) == before


# ---- 2. play by email on the shipped bridgehead card, sealed secrets on (ruling R47) -------------------------

def test_bridgehead_by_email_with_sealed_secrets_passes_the_sealed_leader_dr_of_its_ob_given(workdir):
    from helpers.pbem import Game

    g = Game(workdir, card="bridgehead")  # two-party dice, secrets sealed (the default)
    g.play_to(1, "2.7")  # 2.3: the Allies' OB given owes a leader DR, sealed in the Axis copy
    g.send(g.holder)
    for side in ("axis", "allied"):
        assert g.cli(side, "audit").code == 0
    r = cli_run(g.db["axis"], "audit", "--against", g.db["allied"])
    assert r.code == 0, r.out + r.err
    st = g.state("axis")  # the Axis view, after the 2.6 reveal: the OB given's leader DR made, and seen
    ob = next(p for p in st.purchases.values() if p.id == "OB1-allied")
    assert ob.leader_owed == 0


# ---- what the explorer found (tests/test_explorer.py): each a plain regression test ----------------------------

def test_a_unit_lost_after_its_3_2_redeployment_folds_the_same_from_the_snapshot_as_from_the_log(workdir, monkeypatch):
    """Explorer, bridgehead: a unit that redeployed at 3.2 and was lost later in the RePh keeps its redeployment
    mark while it settles into the snapshot's cold part; leaving the next 2.5 took the mark off every unit of a
    state folded from the log, but not off the settled units of a command's state loaded from the snapshot."""
    from cg.app.ledger import Ledger
    from projections.digest import canonical_state

    path = str(workdir / "settled.plcg")
    c = Campaign(path, plan={1: {"buy": [("allied", "I1", "on-map")]}, 2: {"attack": ["allied"]}})
    c.advance(1, "2.9")
    c.run("end", turn=5, cvp_lost={"axis": 2, "allied": 2}, position=["allied:I1-1.1=G3"])
    c.advance(1, "3.2")
    c.run("option", option="A")
    c.run("redeploy", side="allied", unit="I1-1.1", to="F2", dice="1,1")
    c.advance(1, "3.3")
    c.run("casualties", side="allied", cvp=2, lost=["I1-1.1"])
    c.advance(2, "2.5")
    c.close()
    assert cli_run(path, "replay").code == 0  # the snapshot: I1-1.1 settled, in its cold part
    import cg.app.ledger

    monkeypatch.setattr(cg.app.ledger, "SNAPSHOT_EVERY", 1)  # the next command writes the snapshot again
    assert cli_run(path, "next").code == 0  # a command's state: loaded from the snapshot, the cold part left
    led = Ledger(path)
    try:
        assert canonical_state(led.state()) == canonical_state(led.state(use_snapshot=False))
    finally:
        led.close()


def test_units_of_a_side_left_without_a_cthc_owe_no_redeployment_they_cannot_make(workdir):
    """Explorer, kolkhoz: `end --control` gave every Strategic Terrain hex of a side to the enemy; its units out
    of its MLR were owed a 3.2 redeployment to a friendly CTHC that no longer existed, and `next` refused for
    good (ruling R48: 3.214 eliminates them in the enemy MLR, 3.216 leaves them Isolated elsewhere)."""
    path = str(workdir / "nocthc.plcg")
    c = Campaign(path, plan={1: {"buy": [("allied", "I1", "on-map")]}})
    c.advance(1, "2.9")
    c.close()
    r = cli_run(path, "end", "--turn", "5", "--cvp-lost", "axis=2", "--cvp-lost", "allied=9",
                "--control", "axis=C3", "--control", "axis=D3", "--control", "axis=E8",
                "--position", "allied:I1-1.1=G3", "--position", "allied:I1-1.2=A7")
    assert r.code == 0, r.err
    for _ in range(2):
        assert cli_run(path, "next").code == 0
    assert cli_run(path, "option", "A").code == 0
    assert not [p for p in _status(path)["pending"] if "redeploy" in p["command"]]
    r = cli_run(path, "next")
    assert r.code == 0, r.err
    oob = _oob(path, "allied")
    assert oob["I1-1.1"]["status"] == "eliminated"  # G3, in the axis MLR now: failed to redeploy (3.214)
    assert oob["I1-1.2"]["status"] != "eliminated" and "isolated" in oob["I1-1.2"]["flags"]  # A7: 3.216
    assert cli_run(path, "audit").code == 0


def test_by_email_an_idle_firefight_with_a_sealed_patrol_is_determined_in_both_copies(workdir):
    """Explorer, kolkhoz by email: the Allies bought a patrol (sealed) for a firefight nobody attacked in; the
    2.41 determination named the patrols the Idle Firefight loses (ruling R11) as the proposing copy saw them,
    and the other copy, which cannot see the sealed patrol, refused the bundle for good."""
    from helpers.pbem import Game

    g = Game(workdir)  # the sample card, two-party dice, secrets sealed
    g.play_to(2, "2.3")
    g.do("allied", "patrols", "allied", "1")
    g.play_to(2, "2.4")
    from cg import seal

    for side in ("axis", "allied"):  # 2.4: a side with sealed purchases reveals its (no) Attack Option
        g.send(g.holder)
        if seal.owed(g.state(side), side):
            g.do(side, "reveal")
    g.do("axis", "determine")  # Idle (no Attack Option bought): the Axis proposes, the Allies confirm
    g.play_to(2, "3.41")
    g.send(g.holder)
    r = cli_run(g.db["axis"], "audit", "--against", g.db["allied"])
    assert r.code == 0, r.out + r.err


def test_by_email_a_unit_still_sealed_in_the_other_copy_is_named_by_no_command_until_its_reveal(workdir):
    """Explorer, kolkhoz by email: the Allies bought an RG for an Idle Firefight (sealed: no 2.6 reveals it until the
    next firefight) and asked a 3.46 repair dr for one of its weapons; the Axis copy, which knew no such unit,
    refused the bundle for good. Ruling R80 (rules revision 3): the Idle Firefight's 2.4 reveals what 2.6 would,
    so the repair is made and the Axis copy takes it in."""
    from helpers.pbem import Game

    g = Game(workdir)
    g.play_to(2, "2.3")
    g.do("allied", "buy", "allied", "I1")
    g.play_to(2, "3.46")  # Idle: 3.41, 3.46 (ruling R11)
    sw = next(u.id for u in g.state("allied").units.values() if u.side == "allied" and u.kind == "sw")
    g.send(g.holder)
    assert g.state("axis").unit(sw, "allied") is not None  # revealed in the other copy before the RePh
    g.do("allied", "repair", "allied", sw, "--kind", "malfunction")
    g.play_to(3, "2.3")
    g.send(g.holder)
    assert cli_run(g.db["axis"], "audit", "--against", g.db["allied"]).code == 0


def test_a_redeployment_asks_for_the_counter_the_table_lacks_before_its_roll(workdir, monkeypatch):
    """Ruling R49: the counter a Replaced result would need (ruling R34) is asked for before the DR, never after
    the dice were seen (an American 3-3-7 HS has no replacement in the counter table)."""
    path = str(workdir / "counter.plcg")
    c = Campaign(path, seed=None, plan={1: {"buy": [("allied", "HW1", "on-map")]}})  # the ledger's OS dice
    c.advance(1, "2.9")
    hs = next(u for u in c.state().units.values() if u.side == "allied" and u.name.startswith("3-3-7"))
    c.run("end", turn=5, cvp_lost={"axis": 2, "allied": 2}, position=[f"allied:{hs.id}=G3"])
    c.advance(1, "3.2")
    c.run("option", option="A")
    c.close()
    asked = _os_dice(monkeypatch, [1, 2])  # a DR of 3: redeploys, no counter needed by the result
    before = _rows(path)
    r = cli_run(path, "redeploy", "allied", hs.id, "--to", "F2")
    assert r.code == 2 and "--counter" in r.err and "before the roll" in r.err, r.out + r.err
    assert asked == [] and _rows(path) == before
    r = cli_run(path, "redeploy", "allied", hs.id, "--to", "F2", "--counter", "3-3-6 HS")
    assert r.code == 0, r.err
    assert asked == [2]


# the explorer's walk (bridgehead, seed 2003), shrunk: the ledger's dice as each command recorded them
ISOLATED_SW = [
    {"name": "weather"},
    {"name": "next"},
    {"name": "buy", "side": "allied", "rg": "I1", "mode": "on-map"},
    {"name": "patrols", "side": "axis", "count": 1},
    {"name": "leader", "side": "allied", "rg": "OB1-allied", "dice": [[1, 3]]},
    {"name": "leader", "side": "allied", "rg": "I1-1", "dice": [[3, 5]]},
    {"name": "next"},
    {"name": "determine"},
    {"name": "next"},
    {"name": "next"},
    {"name": "patrol", "side": "axis", "give_up": "not sent (explorer)"},
    {"name": "next"},
    {"name": "next"},
    {"name": "end", "turn": 7, "cvp_lost": {"axis": 2, "allied": 11}, "control": ["allied=23P6", "allied=23K4"], "lost": ["axis:OB1-axis.1"], "position": ["axis:OB1-axis.5=23B9", "axis:OB1-axis.3=23B5", "allied:OB1-allied.L1=24T5"], "repair": ["axis:OB1-axis.4=malfunction"], "replaced": ["allied:I1-1.3"]},
    {"name": "next"},
    {"name": "next"},
    {"name": "option", "option": "B"},
    {"name": "redeploy", "side": "axis", "unit": "OB1-axis.2", "to": "23O4", "dice": [[2, 3]]},
    {"name": "redeploy", "side": "axis", "unit": "OB1-axis.5", "to": "23R4", "dice": [[4, 6]]},
    {"name": "next"},
    {"name": "next"},
    {"name": "next"},
    {"name": "next"},
    {"name": "next"},
    {"name": "promote", "side": "axis", "dice": [[3]]},
    {"name": "promote", "side": "allied", "dice": [[5]]},
    {"name": "next"},
    {"name": "leaders", "side": "axis", "dice": [[5]]},
    {"name": "leaders", "side": "allied", "dice": [[2]]},
    {"name": "next"}
]


def test_a_weapon_held_by_an_isolated_unit_owes_no_repair_it_cannot_get(workdir):
    """Explorer, bridgehead: an MMG flagged malfunctioned at 2.9 stayed in Uncontrolled Terrain at 3.2 (Isolated,
    3.216); 3.46 owed its repair dr and `repair` refused it (no repair for an Isolated possessor): `next` refused
    for good (ruling R48)."""
    from test_explorer import Replay

    r = Replay(str(workdir), "bridgehead")
    for cmd in ISOLATED_SW:
        r.run(cmd)
    r.led.close()
    st = _status(r.path)
    assert st["step"] == "3.46"
    assert not [p for p in st["pending"] if "OB1-axis.4" in p["command"]], st["pending"]
    assert cli_run(r.path, "repair", "axis", "OB1-axis.4", "--kind", "malfunction").code == 3  # still none
    r = cli_run(r.path, "next")
    assert r.code == 0, r.err


# ---- issue 35: no rules revision has a dead end (ruling R48 under every revision, promise 28) ------------------

def _ok(path, *args: str) -> str:
    r = cli_run(path, *args)
    assert r.code == 0, (args, r.out + r.err)
    return r.out


def _at_2_9(workdir, revision: int, buy: str, name: str = "dead") -> str:
    """The issue's script: the sample card under `revision`, seed d1, the Allies' `buy` bought on map, at 2.9 of
    the Initial Firefight."""
    path = str(workdir / f"{name}-r{revision}.plcg")
    _ok(path, "new", "--card", "sample", "--rules-revision", str(revision), "--seed", "d1")
    _ok(path, "weather")
    _ok(path, "next")
    _ok(path, "buy", "allied", buy, "--mode", "on-map")
    for item in _status(path)["pending"]:  # 2.36: its leader DRs, where it has any
        _ok(path, *_answer(item))
    _ok(path, "next")
    _ok(path, "determine")
    for _ in range(4):
        _ok(path, "next")
    assert _status(path)["step"] == "2.9"
    return path


def _answer(item: dict) -> list[str]:
    """The command that does a `pending` item: as written where runnable, Option A, a redeployment to the nearest
    friendly CTHC hex the item names."""
    words = item["command"].split()[1:]
    if item["runnable"]:
        return words
    if words[0] == "option":
        return ["option", "A"]
    if words[0] == "redeploy" and "nearest friendly CTHC hex: " in item["what"]:
        return words[:3] + ["--to", item["what"].rsplit(": ", 1)[1]]
    raise AssertionError(f"the walk does not know how to do {item}")


def _walk_to_the_next_firefight(path, limit: int = 120) -> None:
    """Promise 28 through the command line: every item `status` owes is done by its command, and `next` leaves
    every step that owes nothing, until firefight 2 begins."""
    for _ in range(limit):
        st = _status(path)
        if st["firefight"] == 2:
            return
        if st["pending"]:
            _ok(path, *_answer(st["pending"][0]))
        else:
            _ok(path, "next")
    raise AssertionError(f"firefight 2 not reached in {limit} commands: {_status(path)}")


# the states of issue 35: (what 2.9 records, the RG bought)
DEAD_ENDS = {
    # D1: an Immobilized vehicle in Uncontrolled Terrain (G1) at 3.2
    "immobilized-uncontrolled": ("A1", ["--position", "allied:A1-1.1=G1", "--repair", "allied:A1-1.1=immobilized"]),
    # D2: an Immobilized vehicle in its own MLR (D5) next to an enemy CTHC (D6, once E8 is the Axis')
    "immobilized-by-the-enemy": ("A1", ["--control", "axis=E8", "--position", "allied:A1-1.1=D5",
                                        "--repair", "allied:A1-1.1=immobilized"]),
    # D3: the Allies hold no Strategic hex; I1-1.2 in the Axis MLR (K5), I1-1.1 in Uncontrolled Terrain (A6)
    "no-strategic-hex": ("I1", ["--control", "axis=C3", "--control", "axis=D3", "--control", "axis=E8",
                                "--position", "allied:I1-1.1=A6", "--position", "allied:I1-1.2=K5"]),
    # a squad flagged Immobilized (2.9 takes any item): 3.46 owed the repair of something no repair can be for
    "immobilized-squad": ("I1", ["--repair", "allied:I1-1.1=immobilized"]),
    # a malfunctioned Gun and its crew in an Allied Isolated Location (M5 taken by the Allies inside the Axis MLR):
    # Isolated when 3.2 is left (3.25), so no repair (3.46)
    "isolated-gun": ("G1", ["--control", "allied=M5", "--position", "allied:G1-1.1=M5",
                            "--position", "allied:G1-1.2=M5", "--repair", "allied:G1-1.1=malfunction"]),
}


def _ended(workdir, revision: int, state: str) -> str:
    buy, end = DEAD_ENDS[state]
    path = _at_2_9(workdir, revision, buy, state)
    _ok(path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0", *end)
    return path


@pytest.mark.parametrize("revision", [1, 2, 3])
@pytest.mark.parametrize("state", sorted(DEAD_ENDS))
def test_every_revision_walks_from_each_dead_end_of_issue_35_to_the_next_firefight(workdir, revision, state):
    path = _ended(workdir, revision, state)
    _walk_to_the_next_firefight(path)
    assert cli_run(path, "audit").code == 0


def test_d1_an_immobilized_vehicle_in_uncontrolled_terrain_holds_up_no_revision_2_redeployment(workdir):
    """Issue 35 D1, the issue's script: revision 2 refuses the vehicle's redeployment (3.211) and owed it all
    the same, so `next` refused for good."""
    path = _at_2_9(workdir, 2, "A1")
    _ok(path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0",
        "--position", "allied:A1-1.1=G1", "--repair", "allied:A1-1.1=immobilized")
    _ok(path, "next")
    _ok(path, "next")
    _ok(path, "option", "A")
    r = cli_run(path, "redeploy", "allied", "A1-1.1", "--to", "E2")
    assert r.code == 3 and "3.211" in r.err and "Immobilized" in r.err, r.out + r.err
    assert not [p for p in _status(path)["pending"] if "A1-1.1" in p["command"]]
    out = _ok(path, "next")
    assert "3.23" in out and "A1-1.1" in out  # alone beyond 3 hexes of a friendly MMC/AFV: its wreck (ruling R48)
    assert _oob(path, "allied")["A1-1.1"]["status"] == "eliminated"
    assert _status(path)["step"] == "3.3"
    assert cli_run(path, "audit").code == 0


def test_d2_an_immobilized_vehicle_next_to_an_enemy_cthc_owes_no_revision_2_repair_it_cannot_get(workdir):
    """Issue 35 D2: in its own MLR but adjacent to an enemy CTHC, revision 2 refuses its repair (3.46) and owed
    it all the same; it now stays Immobilized, owed again at the next RePh's 3.46."""
    path = _ended(workdir, 2, "immobilized-by-the-enemy")
    for _ in range(40):
        st = _status(path)
        if st["step"] == "3.46":
            break
        _ok(path, *_answer(st["pending"][0])) if st["pending"] else _ok(path, "next")
    assert _status(path)["step"] == "3.46"
    r = cli_run(path, "repair", "allied", "A1-1.1")
    assert r.code == 3 and "repaired only there" in r.err, r.out + r.err
    assert not [p for p in _status(path)["pending"] if "A1-1.1" in p["command"]]
    _ok(path, "next")
    unit = _oob(path, "allied")["A1-1.1"]
    assert unit["status"] == "on_map" and unit["hex"] == "D5"


@pytest.mark.parametrize("revision", [1, 2])
def test_d3_a_side_without_a_strategic_hex_owes_no_redeployment_under_revisions_1_and_2(workdir, revision):
    """Issue 35 D3: the Allies hold no Strategic hex; revisions 1 and 2 owed the redeployment of their units out of
    their MLR and refused every hex (3.214): 3.214 eliminates the one in the Axis MLR, 3.216 leaves the other
    Isolated (ruling R48)."""
    path = _ended(workdir, revision, "no-strategic-hex")
    _ok(path, "next")
    _ok(path, "next")
    _ok(path, "option", "A")
    assert not [p for p in _status(path)["pending"] if "redeploy" in p["command"]]
    _ok(path, "next")
    oob = _oob(path, "allied")
    assert oob["I1-1.2"]["status"] == "eliminated"  # K5, in the Axis MLR (3.214)
    assert oob["I1-1.1"]["status"] == "on_map" and "isolated" in oob["I1-1.1"]["flags"]  # A6 (3.216)


@pytest.mark.parametrize("revision", [1, 2, 3])
def test_d3_the_refusal_says_why_3_2_owes_no_redeployment(workdir, revision):
    """Issue 35 D3's words: "owes no redeployment at 3.2 (enemy mlr); units in a friendly MLR redeploy at 2.5" named
    a friendly MLR the unit was not in; the refusal says the side holds no friendly-controlled hex, and what leaving
    3.2 does with it."""
    path = _ended(workdir, revision, "no-strategic-hex")
    _ok(path, "next")
    _ok(path, "next")
    _ok(path, "option", "A")
    r = cli_run(path, "redeploy", "allied", "I1-1.2", "--to", "B3")
    assert r.code == 3, r.out + r.err
    assert "2.5" not in r.err and "friendly MLR" not in r.err
    assert "holds no friendly-controlled hex" in r.err and "eliminated (3.214)" in r.err and "R48" in r.err
    r = cli_run(path, "redeploy", "allied", "I1-1.1", "--to", "B3")
    assert r.code == 3 and "Isolated (3.216)" in r.err, r.out + r.err


@pytest.mark.parametrize("revision", [1, 2, 3])
def test_a_side_without_an_mmc_owes_no_casualty_reduction_at_3_52(workdir, revision):
    """Ruling R100: the Allies, with no MMC in play (only the Shermans of A1), clear a Known minefield with an Original
    6; revision 3 owed the Casualty Reduction of one MMC (3.52 dagger) and `casualties --reduced` refused every unit,
    so `next` refused for good."""
    path = _at_2_9(workdir, revision, "A1", "cr")
    _ok(path, "end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0",
        "--terrain", "C4=known_minefield:axis")
    for _ in range(60):
        st = _status(path)
        if st["step"] == "3.52":
            break
        _ok(path, *_answer(st["pending"][0])) if st["pending"] else _ok(path, "next")
    out = _ok(path, "clear", "allied", "C4", "mines", "--dice", "6")
    assert "Casualty Reduction of one MMC (original 6)" in out  # against a Known minefield
    r = cli_run(path, "casualties", "allied", "--reduced", "A1-1.1")
    assert r.code == 3, r.out + r.err
    assert not _status(path)["pending"]
    _walk_to_the_next_firefight(path)
    assert cli_run(path, "audit").code == 0


@pytest.mark.parametrize("revision", [1, 2, 3])
def test_control_of_a_hex_that_stops_being_strategic_lapses(tmp_path, revision):
    """Explorer finding F1 (issue 35 item 3; ruling R116): a hex Strategic Terrain only by an emplaced Gun (1.4,
    switch strategic_grows) was given to a side by the `end` that lost the Gun; from then on every read of map
    control was an internal error (exit 5) and 3.2 could not be played. Control of a hex lapses while it is no
    Strategic Terrain: the map reads, and the campaign goes on through the RePh to the next firefight."""
    db = tmp_path / "f1.plcg"
    extra = [] if revision == 3 else ["--rules-revision", str(revision)]
    assert cli_run(db, "new", "--card", "sample", "--seed", "f1", *extra).code == 0
    for args in (("weather",), ("next",), ("buy", "axis", "G1", "--mode", "on-map"), ("next",), ("determine",),
                 ("next",), ("next",), ("next",), ("next",), ("position", "axis", "G1-1.1", "K7")):
        r = cli_run(db, *args)
        assert r.code == 0, (args, r.err)
    end = cli_run(db, "end", "--turn", "5", "--cvp-lost", "axis=2", "--cvp-lost", "allied=1", "--control", "axis=K7",
                  "--lost", "axis:G1-1.1")
    if revision == 1:  # revision 1 grows no Strategic Terrain: K7 never was, and giving it is refused
        assert end.code == 3, end.err
        return
    assert end.code == 0, end.err
    m = cli_run(db, "map", "--json")
    assert m.code == 0, m.err
    shown = json.loads(m.out)
    assert "K7" not in shown["control"]
    assert (shown["hexes"]["K7"]["strategic"], shown["hexes"]["K7"]["controller"]) == (False, None)
    c = Campaign.attach(str(db))
    c.advance(2, "2.1")
    c.close()
    assert cli_run(db, "audit").code == 0
