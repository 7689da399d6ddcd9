"""Play by email, round four (issue 37): secrets that stay hidden until the rules reveal them, and the order
the steps owe. Two copies, bundles only, everything through the real command line (tests/helpers/pbem.py)."""
from __future__ import annotations

import json

import pytest
from conftest import cli_run
from helpers.pbem import Game

from test_pbem import log

from cg.units import PRESENT
from cg.app.keys import load_private


@pytest.fixture
def sealed(workdir):
    """Keys, the roller's own dice, sealed secrets (ruling R47)."""
    return Game(workdir, policy="any")


def _seals_at_2_3(db, firefight: int, side: str) -> list[str]:
    """The public kinds of SIDE's seals at 2.3 of FIREFIGHT, in the order of the log, as the other copy reads them."""
    return [x["what"] for x in log(db) if x["type"] == "sealed" and x["firefight"] == firefight
            and x["step"] == "2.3" and x["summary"].split()[0].lower() == side]


# ---- attack 3: the Attack Option shows through the order of the seals (ruling R109) -----------------------

@pytest.mark.parametrize("order", [("attack", "buy"), ("buy", "attack"), ("buy",)])
def test_the_attack_option_choice_is_sealed_as_the_side_leaves_2_3_whatever_the_order_typed(sealed, order):
    """Issue 37 attack 3 (ruling R69): a yes was sealed when `attack` was typed, a no only as the side left 2.3,
    so an attack seal followed by a purchase seal could only be a yes. Now the choice is sealed as the side
    leaves 2.3, yes or no, and the typed `attack` is a purchase like any other: the allied copy sees the same
    sequence of kinds whatever the axis player typed, and 2.4 still announces the choice."""
    g = sealed
    g.play_to(2, "2.3")
    if g.holder != "axis":
        g.send(g.holder)
    for what in order:
        args = ["attack", "axis"] if what == "attack" else ["buy", "axis", "I1"]
        r = g.cli("axis", *args)
        assert r.code == 0, (args, r.err)
    before = len(log(g.db["axis"]))
    r = g.cli("axis", "next")  # the bought RG's leader DR is owed first: refused, and no choice is sealed either
    assert r.code == 3 and "2.36" in r.err, r.err
    assert len(log(g.db["axis"])) == before
    r = g.cli("axis", "leader", "axis", "I1-1")
    assert r.code == 0, r.err
    r = g.cli("axis", "next")
    assert r.code == 0, r.err
    g.send("axis")
    kinds = _seals_at_2_3(g.db["allied"], 2, "axis")
    assert kinds == ["purchase"] * (len(order) + 1) + ["attack"], kinds  # the leader DR is a purchase too
    # the choice is announced at 2.4 as typed, and the other copy reads it there
    g.do("allied", "confirm")
    g.play_to(2, "2.4")
    g.do("axis", "reveal")
    g.send("axis")
    theirs = json.loads(g.cli("allied", "status", "--json").out)["sides"]["axis"]
    assert theirs["attack_option"] is ("attack" in order)


def test_a_sealed_attack_option_choice_that_contradicts_the_purchase_is_refused(sealed):
    """Ruling R109: the choice sealed as the side leaves 2.3 must say what its purchases say; a client of the
    player's own making that seals a "no" over a bought Attack Option is refused by the ledger (exit 3)."""
    from cg import pbem
    from cg.app.ledger import Ledger
    from events.errors import Refused

    g = sealed
    g.play_to(2, "2.3")
    if g.holder != "axis":
        g.send(g.holder)
    assert g.cli("axis", "attack", "axis").code == 0
    key = load_private(g.key["axis"])
    led = Ledger(g.db["axis"], write=True, key=key)
    try:
        with pytest.raises(Refused, match="R109"):
            led.run({"name": "attack", "side": "axis", "announce": "no"}, key)
    finally:
        led.close()
    r = g.cli("axis", "attack", "axis")  # bought once only
    assert r.code == 3 and "already bought" in r.err, r.err


# ---- item 8: 2.6 owes each side's setup, in the order 2.41 gives (ruling R110) ------------------------------

def first_side_set_up_at_2_6(g: Game) -> tuple[str, str]:
    """Firefight 1 at 2.6, each side's I1 bought on-map and revealed; the side 2.41 sets up first has set up
    I1-1.1 and given its `next` (ruling R110: it waits). Returns (that side, the side that still sets up)."""
    g.play_to(1, "2.6", plan={(1, "2.3"): [("axis", ["buy", "axis", "I1", "--mode", "on-map"]), ("allied", ["buy", "allied", "I1", "--mode", "on-map"])]})
    for side in ("axis", "allied"):  # the 2.6 reveals (setup shows the purchases)
        if g.holder != side:
            g.send(g.holder)
        r = g.cli(side, "reveal")
        assert r.code == 0, r.err
        g.holder = side
    first = g.state().ff.setup_first
    second = "allied" if first == "axis" else "axis"
    if g.holder != first:
        g.send(g.holder)
    assert g.cli(first, "setup", first, "I1-1.1", "M5" if first == "axis" else "C4").code == 0
    assert g.cli(first, "next").code == 0
    return first, second


def test_the_first_side_s_next_at_2_6_waits_for_the_other_side_to_set_up(sealed, workdir):
    """Issue 37 item 8: the side that set up first left 2.6 with its `next` (provisionally, ruling R71), so the
    other side could not set up without rejecting the step, and `sync` said "your optional commands, then plcg
    next". Now its `next` says it is done and waits: the other side sets up, and its `next` leaves 2.6;
    `sync` tells each player who still sets up."""
    g = sealed
    first, second = first_side_set_up_at_2_6(g)
    assert g.state(first).step == "2.6"  # not left: the other side still sets up
    box = workdir / "box"
    box.mkdir()
    assert g.cli(first, "sync", "--folder", str(box), "--send").code == 0
    said = g.cli(second, "sync", "--folder", str(box))
    assert said.code == 0, said.err
    mine = said.out.split(f"your move ({second}):")[1]
    assert f"{second} still sets up (2.6; {first} has set up and waits): plcg setup {second} UNIT HEX" in mine, said.out
    theirs = g.cli(first, "sync", "--folder", str(box))
    assert f"{second} owes:\n  {second} still sets up (2.6" in theirs.out, theirs.out
    r = g.cli(second, "setup", second, "I1-1.1", "M5" if second == "axis" else "C4")
    assert r.code == 0, r.err
    assert g.cli(second, "next").code == 0
    assert g.state(second).step == "2.7"


# ---- item 10: hints name `sync --send`; `confirm` does what `next` does ------------------------------------

@pytest.fixture
def chain_game(workdir):
    """Two-party dice with open rosters, a roll answered from the other side's chain (ruling R83)."""
    return Game(workdir, sealed=False)


def test_confirm_answers_the_proposers_dice_first_as_next_does_and_the_hint_names_sync_send(chain_game):
    """Issue 37 item 10: the other side's `confirm` of a proposal to leave was refused while the proposer's roll
    waited for its answer ("step 2.3 still owes: allied owes the answer ... (plcg bundle -o FILE)"), where its
    `next`, which answers first (ruling R84), confirmed it. Both are offered ("`plcg next` or `plcg confirm`
    confirms it"): `confirm` now answers first too, and the hint names `plcg sync --send`."""
    g = chain_game
    g.play_to(1, "2.3")
    if g.holder != "axis":
        g.send(g.holder)
    assert g.cli("axis", "buy", "axis", "I1").code == 0
    assert g.cli("axis", "leader", "axis", "I1-1").code == 0  # a roll from the allied chain (ruling R83)
    status = g.cli("axis", "status").out
    assert "allied owes the answer to axis's two-party dice" in status and "plcg sync --send" in status \
        and "bundle -o" not in status
    r = g.cli("axis", "next")  # ruling R71 (c): only allied owes something: proposed
    assert r.code == 0 and "proposed to leave step 2.3" in r.out, (r.out, r.err)
    g.send("axis")
    r = g.cli("allied", "confirm")
    assert r.code == 0, r.err
    assert g.state("allied").step != "2.3"


# ---- item 9: a leave waits for the side's own rolls; sync names what a decided roll allows (ruling R111) -----

def test_a_side_leaves_a_step_only_once_its_own_roll_of_it_is_decided(chain_game):
    """Issue 37 item 9: at 3.45 `leaders axis; next` proposed the leave before the roll was back, and the roll
    then allowed a hardening the proposal shut out. The `next` is refused (exit 3, nothing written) while the
    roll waits for its answer; once the other copy's answer is in, it leaves."""
    g = chain_game
    g.play_to(1, "3.45")
    if g.holder != "axis":
        g.send(g.holder)
    assert g.cli("axis", "leaders", "axis").code == 0
    before = g.head("axis")
    r = g.cli("axis", "next")
    assert r.code == 3 and "axis's roll of this step is not decided yet: leaders" in r.err \
        and "plcg sync --send" in r.err, (r.code, r.err)
    assert g.head("axis") == before
    g.send("axis")
    assert g.cli("allied", "leaders", "allied").code == 0  # its command answers the axis roll first (ruling R84)
    g.send("allied")
    assert not g.state("axis").pbem.requests or all(x.side != "axis" for x in g.state("axis").pbem.requests.values())
    r = g.cli("axis", "next")
    assert r.code == 0, r.err


def test_sync_names_the_hardening_a_decided_3_45_roll_allows(workdir):
    """Issue 37 item 9: the roll allowed a hardening that `sync` never mentioned (only `status`'s "you may
    also", which offers `harden` whatever the roll). `sync` now says what the player's decided result lets
    him still do at the step, by the count the rules give."""
    g = Game(workdir, policy="any", seed="a")
    g.play_to(1, "3.45", plan={(1, "2.3"): [("axis", ["buy", "axis", "I1"])]})
    if g.holder != "axis":
        g.send(g.holder)
    box = workdir / "box"
    box.mkdir()
    said = g.cli("axis", "sync", "--folder", str(box))
    assert "your 3.45 result" not in said.out  # not rolled yet: nothing to say
    assert g.cli("axis", "leaders", "axis").code == 0
    st = g.state("axis")
    leaders = [u for u in st.side_units("axis") if u.kind == "leader" and u.status in PRESENT]
    allowed = min(st.reph.leader_result["axis"], len(leaders) + st.reph.may_generate["axis"])
    assert allowed > 0  # the seed's dr gives a result this test can read
    said = g.cli("axis", "sync", "--folder", str(box))
    assert said.code == 0, said.err
    assert f"your 3.45 result allows {allowed} more leader(s) to harden or be generated " \
           f"(of {st.reph.leader_result['axis']}): plcg harden axis LEADER" in said.out, said.out


def _at_2_6_with_the_purchases_revealed(g: Game, plan: dict) -> None:
    """Play to 2.6 of the first firefight, each side revealing its sealed purchases there (setup shows them);
    the axis copy then holds the latest history."""
    g.play_to(1, "2.6", plan=plan)
    for side in ("axis", "allied"):
        if g.holder != side:
            g.send(g.holder)
        g.holder = side
        if g.cli(side, "status").out.count(f"{side} owes the reveal"):
            assert g.cli(side, "reveal").code == 0
    if g.holder != "axis":
        g.send(g.holder)


# ---- secrets: a unit set up HIP shows the other copy nothing until 2.9 (ruling R112) ----------------------

def test_a_hip_setup_and_mines_placed_are_sealed_until_the_firefight_ends(workdir):
    """Issue 37 item 7: every setup named the unit and its hex in the other copy, HIP included, and its `sync`
    printed "Axis placed A-P mines in Q4". A unit set up HIP (A12.3: nothing shows) and A-P mines placed at 2.6
    (B28.1: recorded secretly) are sealed, and revealed at 2.9, before the firefight's result: both copies then
    hold the same setup and audit clean."""
    g = Game(workdir)  # keys, two-party dice, sealed secrets: the default of a campaign played by email
    plan = {(1, "2.3"): [("axis", ["buy", "axis", "F1"]), ("axis", ["buy", "axis", "I1", "--mode", "on-map"]),
                         ("axis", ["leader", "axis", "I1-1"]), ("axis", ["fortify", "axis", "hip", "--unit", "I1-1.L1"]),
                         ("axis", ["fortify", "axis", "ap_mine", "--factors", "2"])]}  # placed at 2.6 (2.38)
    _at_2_6_with_the_purchases_revealed(g, plan)
    assert g.cli("axis", "setup", "axis", "I1-1.1", "M5").code == 0
    r = g.cli("axis", "setup", "axis", "I1-1.L1", "M5", "--hip")
    assert r.code == 0 and "sealed" in r.out, r.err
    r = g.cli("axis", "fortify", "axis", "ap_mine", "--hex", "M5")
    assert r.code == 0 and "sealed" in r.out, r.err
    g.send("axis")
    seen = [x for x in log(g.db["allied"]) if x["step"] == "2.6" and x["type"] in ("unit_set_up", "sealed",
                                                                                   "fortification_placed")]
    assert [x["type"] for x in seen] == ["unit_set_up", "sealed", "sealed"], seen
    assert not any("I1-1.L1" in x["summary"] or "M5" in x["summary"] or "A-P" in x["summary"] for x in seen[1:])
    assert g.state("allied").unit("I1-1.L1", "axis").hex is None  # the allied copy knows nothing of where
    g.play_to(1, "2.9")
    g.send(g.holder)
    owed = json.loads(g.cli("allied", "status", "--json").out)["pending"]
    assert any(o["command"] == "plcg reveal" and o["what"].startswith("axis owes the reveal of its sealed HIP")
               for o in owed), owed
    g.play_to(1, "3.1")
    g.send(g.holder)
    u = g.state("allied").unit("I1-1.L1", "axis")
    assert (u.hex, u.hip) == ("M5", True)
    revealed = [x for x in log(g.db["allied"]) if x["type"] == "seals_revealed" and x["step"] == "2.9"]
    assert len(revealed) == 1 and "I1-1.L1 set up in M5 (HIP)" in revealed[0]["summary"] \
        and "placed A-P mines in M5" in revealed[0]["summary"]
    for side in ("axis", "allied"):
        assert cli_run(g.db[side], "audit").code == 0, side


def test_mines_are_given_their_hex_at_2_6_where_it_stays_sealed(sealed):
    """Ruling R112: a hex given to A-P mines at 2.3 would show when 2.6 reveals the purchases (the other player
    read "A-P mines in Q4" before the firefight). Played by email, the hex is given at 2.6, sealed until 2.9."""
    g = sealed
    g.play_to(1, "2.3")
    if g.holder != "axis":
        g.send(g.holder)
    assert g.cli("axis", "buy", "axis", "F1").code == 0
    before = g.head("axis")
    r = g.cli("axis", "fortify", "axis", "ap_mine", "--factors", "2", "--hex", "M5")
    assert r.code == 3 and "placed at 2.6" in r.err and "R112" in r.err, (r.code, r.err)
    assert g.head("axis") == before
    r = g.cli("axis", "fortify", "axis", "ap_mine", "--factors", "2")
    assert r.code == 0, r.err


def test_a_concealed_setup_shows_the_other_copy_a_question_mark_stack_in_its_hex_until_2_9(workdir):
    """Issue 37 item 2: a concealed unit's setup named the unit in the other copy. A12.1: a concealment counter
    shows where a stack is, not what is in it. By email the setup is sealed with its hex public (ruling R112):
    the other copy's map, map --json, log, oob and AAR show a "?" in that hex and never the unit, until the 2.9
    reveal (the firefight's own revelation); both copies then hold the unit there and audit clean."""
    g = Game(workdir)
    _at_2_6_with_the_purchases_revealed(g, {(1, "2.3"): [("axis", ["buy", "axis", "I1", "--mode", "on-map"])]})
    assert g.cli("axis", "setup", "axis", "I1-1.1", "M5").code == 0
    r = g.cli("axis", "setup", "axis", "I1-1.2", "M6", "--concealed")
    assert r.code == 0 and "I1-1.2 set up in M6 (sealed" in r.out, (r.code, r.err)
    g.send("axis")
    text = g.cli("allied", "map").out
    assert "  M6: axis ? (concealed)" in text.splitlines() and "I1-1.2" not in text, text
    assert "  M6: axis 4-6-7 (I1-1.2)" in g.cli("axis", "map").out.splitlines()  # its own player's copy opens it
    assert json.loads(g.cli("allied", "map", "--json").out)["concealed"] == {"M6": ["axis"]}
    import cli

    site = cli.web_site(g.db["allied"], g.key["allied"], load_private(g.key["allied"]))  # the page `plcg serve` serves
    api = site.api_state(None)
    assert api["map"]["concealed"] == {"M6": ["axis"]} and "I1-1.2" not in json.dumps(api["map"])
    sealed_at = [x["seq"] for x in log(g.db["allied"]) if x["type"] == "sealed" and x["step"] == "2.6"][0]
    before = site._svg(site.state(sealed_at - 1))  # the same units on the map: the page's SVG is kept by what it draws
    svg = site._svg(site.state(None))
    assert "<title>?</title>" not in before
    assert 'data-hex="M6" data-side="axis"><rect' in svg and "<title>?</title>" in svg and "I1-1.2" not in svg
    seen = [x for x in log(g.db["allied"]) if x["step"] == "2.6" and x["type"] in ("unit_set_up", "sealed")]
    assert [x["type"] for x in seen] == ["unit_set_up", "sealed"], seen
    assert 'a "?" in M6' in seen[1]["summary"] and "I1-1.2" not in seen[1]["summary"], seen[1]
    rows = {r["unit"]: r for r in json.loads(g.cli("allied", "oob", "axis", "--json").out)}
    assert (rows["I1-1.1"]["hex"], rows["I1-1.2"]["hex"]) == ("M5", None)
    aar = workdir / "aar.md"
    assert g.cli("allied", "export", "--format", "md", "-o", str(aar)).code == 0
    assert "I1-1.2" not in aar.read_text()
    assert g.state("allied").unit("I1-1.2", "axis").hex is None
    for side in ("axis", "allied"):  # each copy audits clean with the seal shut (the audit's view opens no box)
        assert cli_run(g.db[side], "audit").code == 0, side
    g.play_to(1, "2.9")
    g.send(g.holder)
    owed = json.loads(g.cli("allied", "status", "--json").out)["pending"]
    assert any(o["command"] == "plcg reveal" and "concealed setups" in o["what"] and o["what"].startswith("axis")
               for o in owed), owed
    g.play_to(1, "3.1")
    g.send(g.holder)
    assert g.state("allied").unit("I1-1.2", "axis").hex == "M6"
    text = g.cli("allied", "map").out
    assert "  M6: axis 4-6-7 (I1-1.2)" in text.splitlines() and "?" not in text.split("Units:")[1], text
    assert "concealed" not in json.loads(g.cli("allied", "map", "--json").out)
    for side in ("axis", "allied"):
        assert cli_run(g.db[side], "audit").code == 0, side


def test_a_seal_whose_question_mark_stack_is_not_where_its_unit_set_up_is_refused(workdir):
    """Ruling R112: the "?" stack's hex is the seal's public part, so a client of his own that shows one hex and
    sets the unit up in another is refused where the seal is opened (a view that opens it: the audit's once it is
    revealed), and a hex given to any other seal is bad input."""
    from cg import pbem, seal
    from cg.commands.base import decide
    from cg.app.ledger import Ledger
    from events import types as ev
    from events.convert import unstructure
    from events.errors import BadInput, Refused

    g = Game(workdir)
    _at_2_6_with_the_purchases_revealed(g, {(1, "2.3"): [("axis", ["buy", "axis", "I1", "--mode", "on-map"])]})
    key = load_private(g.key["axis"])
    cmd = {"name": "setup", "by": "axis", "side": "axis", "unit": "I1-1.2", "hex": "M6", "hip": False,
           "concealed": True}
    public, _ = seal.make(key, "axis", "concealed", cmd, [ev.UnitSetUp(side="axis", unit="I1-1.2", hex="M6", hip=False)],
                          unstructure)
    led = Ledger(g.db["axis"], key=key)
    try:
        st, seq = led.state(), g.head("axis") + 1
    finally:
        led.close()
    assert seal.opening_of(st, public["commitment"], public["nonce"], public["box"]) is not None  # this view opens it
    assert [e.hex for e in decide(st, dict(public), seq)] == ["M6"]
    with pytest.raises(Refused, match='shows its "\\?" stack in M7, its opening sets up elsewhere'):
        decide(st, {**public, "hex": "M7"}, seq)
    with pytest.raises(BadInput, match="no other seal a hex"):
        decide(st, {**public, "what": "hidden"}, seq)


def test_booby_traps_and_a_known_minefield_bought_stay_sealed_until_setup_shows_them(workdir):
    """Issue 37 item 2: Booby Traps and Known Minefields follow the secrets' rule. Both are 2.3 purchases, sealed
    (the other copy sees "a purchase (2.3)", never the kind, the level or the hex) until 2.6, where setup shows
    them: a Booby Trap Level is played openly (CG12) and a Known Minefield is known (its counter is on the map),
    so the 2.6 reveal of the purchases is their revelation (ruling R112)."""
    from conftest import card_variant

    card = card_variant(workdir, campaign={"booby_traps": True})
    g = Game(workdir, card=card)
    g.play_to(1, "2.3")
    if g.holder != "axis":
        g.send(g.holder)
    for args in (["buy", "axis", "F1"], ["buy", "axis", "F1"], ["fortify", "axis", "booby_traps"],
                 ["fortify", "axis", "known_minefield", "--factors", "2", "--hex", "M5"]):
        r = g.cli("axis", *args)
        assert r.code == 0 and "(sealed: the other side sees it when the rules reveal it)" in r.out, (args, r.err)
    g.send("axis")
    seen = [x for x in log(g.db["allied"]) if x["step"] == "2.3" and x["type"] == "sealed"]
    assert [x["summary"].split(" (")[0] for x in seen] == ["Axis sealed a purchase"] * 4, seen
    told = " ".join(x["summary"] for x in log(g.db["allied"])).casefold()
    assert "booby" not in told and "minefield" not in told and "m5" not in told, told
    assert "Terrain:" not in g.cli("allied", "map").out  # nothing kept on the map yet
    status = json.loads(g.cli("allied", "status", "--json").out)
    assert "booby" not in json.dumps(status["sides"]["axis"]).casefold(), status["sides"]["axis"]
    g.play_to(1, "2.6")
    g.send(g.holder)
    g.holder = "allied"
    if "axis owes the reveal" in g.cli("allied", "status").out:
        g.do("axis", "reveal")
        g.send("axis")
    revealed = [x["summary"] for x in log(g.db["allied"]) if x["type"] == "seals_revealed" and x["step"] == "2.6"
                and x["summary"].startswith("Axis")]
    assert len(revealed) == 1 and "Booby Traps" in revealed[0] and "Known Minefield, 2 factors, in M5" in revealed[0], \
        revealed
    assert "  M5: Known Minefield" in g.cli("allied", "map").out, g.cli("allied", "map").out


def at_2_9_owing_a_hip_reveal(g: Game) -> Game:
    """Firefight 1 at 2.9, the axis leader I1-1.L1 set up HIP in M5 (its reveal owed, ruling R112), the allied
    copy holding the latest history."""
    plan = {(1, "2.3"): [("axis", ["buy", "axis", "F1"]), ("axis", ["buy", "axis", "I1", "--mode", "on-map"]),
                         ("axis", ["leader", "axis", "I1-1"]), ("axis", ["fortify", "axis", "hip", "--unit", "I1-1.L1"])]}
    _at_2_6_with_the_purchases_revealed(g, plan)
    assert g.cli("axis", "setup", "axis", "I1-1.1", "M5").code == 0
    assert g.cli("axis", "setup", "axis", "I1-1.L1", "M5", "--hip").code == 0
    g.play_to(1, "2.9")
    if g.holder != "allied":
        g.send(g.holder)
    return g


def test_at_2_9_the_hint_names_the_reveal_the_other_side_owes_not_an_end_that_would_be_refused(workdir):
    """Issue 37 item 6: at 2.9, while the axis side still owed the reveal of its HIP setup (ruling R112), the allied
    `sync` said "your move (allied): firefight result: plcg end ..." and `status` "either player to move", and that
    `end` was refused. The hint names what is owed, the axis reveal, and `end` as what comes once it is in."""
    g = at_2_9_owing_a_hip_reveal(Game(workdir))
    end = ["end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0"]
    refused = g.cli("allied", *end)
    assert refused.code == 3 and "axis owes the reveal" in refused.err, refused.err
    box = workdir / "box"
    box.mkdir()
    said = g.cli("allied", "sync", "--folder", str(box))
    assert said.code == 0, said.err
    assert "your move (allied)" not in said.out, said.out
    assert "axis owes:\n  axis owes the reveal of its sealed HIP" in said.out, said.out
    assert "then, once axis has revealed: firefight result: plcg end" in said.out, said.out
    status = g.cli("allied", "status")
    assert "either player to move" not in status.out and "allied waits for axis" in status.out, status.out
    owed = json.loads(g.cli("allied", "status", "--json").out)["pending"]
    assert [o.get("waits_for") for o in owed if o["command"].startswith("plcg end")] == [["axis"]], owed
    # the options too: each would be refused before the reveal, as `end` is (ruling R112)
    offered = json.loads(g.cli("allied", "status", "--json").out)["options"]
    rubble = [o for o in offered if o["command"].startswith("plcg rubble")]
    assert rubble and all(o.get("waits_for") == ["axis"] for o in offered), offered
    refused = g.cli("allied", "rubble", "M6", "--kia", "1")
    assert refused.code == 3 and "axis owes the reveal" in refused.err, refused.err
    assert f"{rubble[0]['what']}, once axis has revealed" in status.out, status.out
    assert g.cli("axis", "reveal").code == 0
    g.send("axis")
    owed = json.loads(g.cli("allied", "status", "--json").out)["pending"]
    assert [o.get("waits_for") for o in owed if o["command"].startswith("plcg end")] == [None], owed
    offered = json.loads(g.cli("allied", "status", "--json").out)["options"]
    assert offered and all(o.get("waits_for") is None for o in offered), offered
    assert g.cli("allied", *end).code == 0
