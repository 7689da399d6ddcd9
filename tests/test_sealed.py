"""Play by email, sealed secrets (ruling R47): what PL makes secret (2.1 CP DR, 2.3 purchases and CP
spent, 2.36 leader DRs, 3.44 promotion dr) is a commitment the other copy holds but cannot read,
revealed where the rules reveal it and checked then; the final reveal lets the audit check it all.
Everything through the real command line, two copies, bundles only (tests/helpers/pbem.py)."""
from __future__ import annotations

import json

import pytest
from conftest import cli_run
from helpers.pbem import Game

from cg import seal
from cg.app.ledger import Ledger
from cg.app.keys import load_private
from events.store import NewEvent


@pytest.fixture
def g(workdir):
    return Game(workdir, policy=None)  # keys, the ledger's own dice, sealed secrets (the default)


def js(r):
    assert r.code == 0, r.err
    return json.loads(r.out)


def sync(g, reader: str) -> None:
    """The reader's copy receives what the other holds."""
    if g.holder != reader:
        g.send(g.holder)


def rows(db) -> int:
    led = Ledger(db)
    try:
        return led.store.head()[0]
    finally:
        led.close()


def test_a_purchase_is_sealed_in_the_other_copy_until_setup_reveals_it(g):
    g.play_to(1, "2.3")
    r = g.do("axis", "buy", "axis", "I1")
    assert "bought I1 as I1-1" in r.out and "sealed" in r.out  # the buyer reads his own purchase
    g.send("axis")
    # the allied player's copy holds the commitment, not the purchase
    theirs = js(g.cli("allied", "purchases", "axis", "--json"))["purchases"]
    assert theirs and all(p["sealed"] is True and p["rg"] is None and p["cost"] is None for p in theirs)
    line = [x for x in map(json.loads, g.cli("allied", "log", "--json").out.splitlines()) if x["type"] == "sealed"][-1]
    assert line["sealed"] is True and line["command"] is None and "events" not in line
    assert "I1" not in g.cli("allied", "log").out.split("left step 2.2")[1]
    # the axis player's own copy opens it with his key; without the key it is sealed there too
    mine = js(g.cli("axis", "purchases", "axis", "--json"))["purchases"]
    assert [p["purchase"] for p in mine] == ["I1-1"] and not mine[0].get("sealed")
    assert js(cli_run(g.db["axis"], "purchases", "axis", "--json"))["purchases"][0]["sealed"] is True
    # 2.4 reveals only the Attack Option (none bought: nothing shown); setup reveals the purchases
    g.play_to(1, "2.6")
    sync(g, "allied")
    assert js(g.cli("allied", "purchases", "axis", "--json"))["purchases"][0].get("sealed") is True
    st = js(g.cli("allied", "status", "--json"))
    assert any(p["command"] == "plcg reveal" and p["what"].startswith("axis owes the reveal") for p in st["pending"])
    g.send(g.holder)
    blocked = g.cli("axis", "setup", "axis", "I1-1.1", "23M5")
    assert blocked.code == 3 and "reveal" in blocked.err
    g.do("axis", "reveal")
    g.send("axis")
    theirs = js(g.cli("allied", "purchases", "axis", "--json"))["purchases"]
    assert [(p["purchase"], p["rg"]) for p in theirs] == [("I1-1", "I1")]
    assert cli_run(g.db["allied"], "audit").code == 0


def test_a_cp_dr_stays_sealed_and_the_cg_end_reveals_it(g):
    g.play_to(2, "2.1")
    g.do("axis", "cp", "axis")
    g.send("axis")
    theirs = js(g.cli("allied", "status", "--json"))["sides"]["axis"]
    assert theirs["cp"] is None and theirs["sealed"] is True
    mine = js(g.cli("axis", "status", "--json"))["sides"]["axis"]
    assert isinstance(mine["cp"], int) and "sealed" not in mine
    seals = [x for x in js(g.cli("allied", "status", "--json"))["pbem"]["seals"] if x["firefight"] == 2]
    assert [(x["side"], x["what"], x["step"], x["sealed"]) for x in seals] == [("axis", "cp", "2.1", True)]
    roll = [x for x in map(json.loads, g.cli("allied", "log", "--json").out.splitlines()) if x["type"] == "sealed"][-1]
    assert roll["what"] == "cp" and roll["roll"] == {"dice": None, "final": None, "outcome": None, "sealed": True}
    # the step no longer owes axis's CP DR in either copy
    assert not any("axis CP" in p["what"] for p in js(g.cli("allied", "status", "--json"))["pending"])
    # the CG ends: every secret left is owed, then revealed and checked whole
    g.do("axis", "concede", "axis")
    sync(g, "allied")
    r = cli_run(g.db["allied"], "audit")  # the final audit cannot check what is still sealed: it says so
    assert r.code == 1 and "axis has not revealed 1 sealed secret(s) since the CG ended" in r.out, r.out
    st = js(g.cli("allied", "status", "--json"))
    assert st["ended"] and any("axis owes the reveal" in p["what"] for p in st["pending"])
    g.do("axis", "reveal")
    g.send("axis")
    assert js(g.cli("allied", "status", "--json"))["sides"]["axis"]["cp"] == mine["cp"]
    for side in ("axis", "allied"):
        assert cli_run(g.db[side], "audit").code == 0


def _forge(g, side: str, cmd_inner: dict | None = None, bad_opening: bool = False, rich: bool = False) -> str:
    """A cheating `side` appends what his ledger would refuse (straight into his file), signs and
    bundles it; the path of the bundle. cmd_inner: a sealed command the rules refuse; bad_opening:
    his reveal of the last seal holds another opening than the one committed to."""
    from events.convert import unstructure
    from events.types import Sealed, SealsRevealed

    key = load_private(g.key[side])
    led = Ledger(g.db[side], write=True, key=key)
    st = led.state()
    head = led.store.head()[0]
    if cmd_inner is not None:  # its events do not matter: the rules refuse the command before
        inner = {**cmd_inner, "by": side}
        events = []
        if rich:  # the events an honest buy would make, as if the side had the CP: they pass every check
            from cg.commands import decide  # that does not know its CP (the other copy's, until the CG's end)

            st.sides[side].cp += 1000
            events = decide(st, dict(inner), head + 1)
            st.sides[side].cp -= 1000
        public, _ = seal.make(key, side, "purchase", inner, events, unstructure)
        e = Sealed(side=side, what="purchase", at=head + 1, commitment=public["commitment"], nonce=public["nonce"],
                   box=public["box"])
        cmd = public
    else:
        c = [c for c, r in st.pbem.seals.items() if r.side == side][-1]
        fake = {"command": {"name": "buy", "side": side, "rg": "I2", "by": side}, "events": [], "salt": "00"}
        e = SealsRevealed(side=side, point="2.6", openings=({"commitment": c, "opening": fake},))
        cmd = {"name": "unseal", "by": side, "point": "2.6", "openings": [dict(o) for o in e.openings]}
    led.store.append(head, [NewEvent(type=e.TYPE, version=e.VERSION, payload=unstructure(e), firefight=st.firefight,
                                     step=st.step)], command=cmd)
    led.close()
    since = g.head("allied" if side == "axis" else "axis")
    led = Ledger(g.db[side], write=True, key=key)
    led.sign(key)
    led.close()
    return g.bundle(side, since)


def test_a_sealed_purchase_the_rules_refuse_is_caught_at_its_reveal(g):
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I2")
    # a second I2, beyond the card's max of 1 (2.3): forged into a seal
    path = _forge(g, "axis", {"name": "buy", "side": "axis", "rg": "I2", "mode": "entry"})
    before = rows(g.db["allied"])
    r = cli_run(g.db["allied"], "receive", path)
    assert r.code == 0, r.err  # the commitment alone breaks no rule the allied copy can see
    assert rows(g.db["allied"]) > before
    # the honest allied copy goes on; the cheat's reveal at 2.6 puts the sealed purchase to the rules
    g.holder = "allied"
    g.play_to(1, "2.6")
    g.send(g.holder)
    assert g.cli("axis", "reveal").code == 0  # his own copy makes the reveal ...
    path = g.bundle("axis", g.head("allied"))
    before = rows(g.db["allied"])
    r = cli_run(g.db["allied"], "receive", path)  # ... the other copy decides it and refuses it
    assert r.code == 3 and "seal refused by the rules" in r.err and "I2" in r.err, (r.code, r.err)
    assert rows(g.db["allied"]) == before
    assert cli_run(g.db["axis"], "audit").code == 1


def test_a_reveal_that_does_not_match_its_commitment_is_refused(g):
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")
    g.play_to(1, "2.6")
    g.send(g.holder)
    path = _forge(g, "axis", bad_opening=True)
    before = rows(g.db["allied"])
    r = cli_run(g.db["allied"], "receive", path)
    assert r.code == 3 and "does not match its commitment" in r.err, (r.code, r.err)
    assert rows(g.db["allied"]) == before
    # the cheat's own copy says so too
    assert cli_run(g.db["axis"], "audit").code == 1


def test_the_reveal_at_2_4_shows_the_attack_option_and_nothing_else(g):
    g.play_to(2, "2.3")
    g.do("axis", "buy", "axis", "I1")
    g.do("axis", "attack", "axis")
    g.play_to(2, "2.4")
    g.send(g.holder)
    st = js(g.cli("allied", "status", "--json"))
    blocked = g.cli("allied", "determine")
    assert blocked.code == 3 and "axis owes the reveal" in blocked.err
    g.do("axis", "reveal")
    g.send("axis")
    line = [x for x in map(json.loads, g.cli("allied", "log", "--json").out.splitlines())
            if x["type"] == "seals_revealed"][-1]
    assert "attack" in line["summary"].lower() and "buy" not in line["summary"]
    theirs = js(g.cli("allied", "status", "--json"))["sides"]["axis"]
    assert theirs["attack_option"] is True
    assert all(p.get("sealed") for p in js(g.cli("allied", "purchases", "axis", "--json"))["purchases"]
               if p["firefight"] == 2)
    assert st is not None


def test_overspending_hidden_by_a_sealed_cp_dr_is_caught_when_the_cg_end_reveals_it(g):
    g.play_to(2, "2.3")
    g.do("allied", "attack", "allied")  # firefight 2 is fought (not Idle): its setup reveals the purchases
    g.do("axis", "buy", "axis", "I1")  # spent in the open way first: what is left does not depend on the dice
    cp = js(g.cli("axis", "status", "--json"))["sides"]["axis"]["cp"]
    assert js(g.cli("allied", "status", "--json"))["sides"]["axis"]["cp"] is None  # sealed at 2.1
    # the axis player forges purchases beyond his CP (his own ledger would refuse the last of them)
    spent = 0
    for rg in ("A1", "I2", "G1", "G2", "I3", "V1", "HW1", "I4", "F1"):  # enough whatever the seeded CP DR gave
        path = _forge(g, "axis", {"name": "buy", "side": "axis", "rg": rg, "mode": "entry"}, rich=True)
        r = cli_run(g.db["allied"], "receive", path)
        assert r.code == 0, r.err  # the allied copy cannot see his CP: nothing to refuse yet
        g.holder = "allied"
        spent += {"A1": 8, "I2": 7, "G1": 4, "G2": 3, "I3": 3, "V1": 2, "HW1": 3, "I4": 3, "F1": 2}[rg]
        if spent > cp:
            break
    assert spent > cp
    # the purchases are revealed at 2.6 and pass every rule the allied copy can check then
    g.play_to(2, "2.6")
    g.do("axis", "reveal")
    sync(g, "allied")
    theirs = js(g.cli("allied", "purchases", "axis", "--json"))["purchases"]
    assert not any(p.get("sealed") for p in theirs) and js(g.cli("allied", "status", "--json"))["sides"]["axis"][
        "cp"] is None
    # the CG ends (axis concedes): his reveal of the CP DR shows the overspending, and is refused
    g.do("allied", "concede", "allied")
    g.send("allied")
    assert g.cli("axis", "reveal").code == 0
    path = g.bundle("axis", g.head("allied"))
    before = rows(g.db["allied"])
    r = cli_run(g.db["allied"], "receive", path)
    assert r.code == 3 and "CP" in r.err and "2.3" in r.err, (r.code, r.err)
    assert rows(g.db["allied"]) == before
    r = cli_run(g.db["axis"], "audit", "--json")  # the cheat's own copy says so too
    assert r.code == 1 and any(f["rule"] == "2.3" and "CP" in f["what"] for f in json.loads(r.out)["findings"])


def test_what_the_other_player_reads_shows_sealed_values_as_sealed_never_as_figures(g, tmp_path):
    g.play_to(2, "2.3")
    g.do("axis", "buy", "axis", "I1")
    sync(g, "allied")
    mine = js(g.cli("axis", "roster", "--json"))["rows"]
    theirs = js(g.cli("allied", "roster", "--json"))["rows"]
    ax2 = [r for r in theirs if r["firefight"] == 2 and r["side"] == "axis"][0]
    assert ax2["cp_gained"] is None and ax2["cp_spent"] is None and ax2["cp_left"] is None
    assert set(ax2["sealed"]) == {"cp_gained", "cp_spent", "cp_left"}
    own = [r for r in mine if r["firefight"] == 2 and r["side"] == "axis"][0]
    assert isinstance(own["cp_gained"], int) and own["cp_spent"] == 5 and "sealed" not in own
    al2 = [r for r in theirs if r["firefight"] == 2 and r["side"] == "allied"][0]
    assert isinstance(al2["cp_gained"], int)  # his own figures: open in his own copy
    for args in (["status"], ["roster"], ["purchases", "axis"], ["log"], ["export", "--format", "md"],
                 ["export", "--format", "html"]):
        r = g.cli("allied", *args)
        assert r.code == 0, (args, r.err)
        assert "None" not in r.out and "seal" in r.out, (args, [x for x in r.out.splitlines() if "None" in x or "sealed" in x][:5])
        assert f"{own['cp_left']} CP left" not in r.out
    text = g.cli("allied", "status").out
    assert [line.split()[1] for line in text.splitlines() if line.startswith("axis ")] == ["seal"]


def test_the_fold_opens_what_the_view_it_is_given_opens_and_nothing_is_global(g):
    """Issue 22: which seals a fold opens is the view passed to it (the state's `view`), not a module
    global: one log folded for the buyer's key opens his sealed purchase, folded for nobody it stays shut,
    in the same process, in either order."""
    from cg import pbem, seal
    from cg.evolve import fold_stored, reverted_seqs
    from cg.app.ledger import Ledger
    from events.upcasters import upcast
    from events.versions import VERSIONS

    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")
    assert not hasattr(seal, "viewing") and not hasattr(seal, "_opener")
    led = Ledger(g.db["axis"])
    try:
        def folded(view):
            chunks, common, last = led.store.fold_chunks(VERSIONS)
            return fold_stored(chunks, common, reverted_seqs(led.store.reverts(until=last)), VERSIONS, upcast,
                               view=view)

        for keyed in (True, False, True):
            key = load_private(g.key["axis"]) if keyed else None
            st = folded(seal.Opener(lambda: seal.log_openings(led.store), key))
            opened = [r.opened for r in st.pbem.seals.values() if r.what == "purchase"]
            assert opened == [keyed], (keyed, opened)
            assert any(p.rg == "I1" for p in st.purchases.values() if p.side == "axis") is keyed
    finally:
        led.close()
