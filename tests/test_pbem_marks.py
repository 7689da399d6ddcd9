"""Play by email (issue 37, rulings R110, R111, R112, R119): a campaign holds its rulings whatever the marks of
the commands say. Each ruling marks the commands it governs, so that a log of before it is decided as before; a
player's own client (written against the Python API, or a hand-made bundle) that left a mark out got the rule of
before it. A campaign started under the ledger's conventions 2 decides each ruling by itself
(`Rules.ruling_marks`): two copies, bundles only, the hostile command given through the Python API."""
from __future__ import annotations

import pytest
from helpers.pbem import OTHER, Game
from test_pbem_hidden import _at_2_6_with_the_purchases_revealed
from test_pbem_trust import allied_sealed_leader_dr_sent

from cg.app.keys import load_private
from cg.app.ledger import Ledger
from events.errors import Refused


def _run(g: Game, side: str, cmd: dict) -> None:
    """`cmd` as a player's own client gives it to SIDE's copy, with SIDE's key (the ledger adds no mark it holds)."""
    key = load_private(g.key[side])
    led = Ledger(g.db[side], write=True, key=key)
    try:
        led.run(cmd, key)
    finally:
        led.close()


def test_a_client_that_leaves_out_the_r110_mark_still_waits_for_the_other_side_to_set_up(workdir):
    """Ruling R110: the side that sets up first says so with its `next` at 2.6, which waits for the other side's
    setup. Its own client sends the `next` marked `setups: false`, to leave 2.6 provisionally before the other
    side has set up (as R71 decided it before): the campaign still records a proposal, and 2.6 is not left."""
    g = Game(workdir, policy="any")
    assert g.state("axis").conventions >= 2
    _at_2_6_with_the_purchases_revealed(g, {(1, "2.3"): [(s, ["buy", s, "I1", "--mode", "on-map"]) for s in OTHER]})
    first = g.state().ff.setup_first
    second = "allied" if first == "axis" else "axis"
    if g.holder != first:
        g.send(g.holder)
    assert g.cli(first, "setup", first, "I1-1.1", "M5" if first == "axis" else "C4").code == 0
    _run(g, first, {"name": "next", "setups": False})
    st = g.state(first)
    assert st.step == "2.6" and st.pbem.provisional is None  # not left, not even provisionally
    assert st.pbem.proposal is not None and st.pbem.proposal.side == first
    g.send(first)
    owed = g.cli(second, "status").out
    assert f"{second} still sets up (2.6; {first} has set up and waits)" in owed, owed
    assert g.cli(second, "setup", second, "I1-1.1", "M5" if second == "axis" else "C4").code == 0
    assert g.cli(second, "next").code == 0
    assert g.state(second).step == "2.7"


def test_a_client_that_leaves_out_the_r111_mark_cannot_leave_before_its_own_roll_is_decided(workdir):
    """Ruling R111: at 3.45 a side's `next` is refused while its own leader dr waits for its answer (its result
    may allow a hardening the leave would shut out). Its own client sends the `next` marked `own_rolls: false`:
    refused all the same, nothing written."""
    g = Game(workdir, sealed=False)
    g.play_to(1, "3.45")
    if g.holder != "axis":
        g.send(g.holder)
    assert g.cli("axis", "leaders", "axis").code == 0
    before = g.head("axis")
    with pytest.raises(Refused, match="axis's roll of this step is not decided yet"):
        _run(g, "axis", {"name": "next", "own_rolls": False})
    assert g.head("axis") == before


def test_a_client_that_leaves_out_the_r112_mark_cannot_give_mines_their_hex_at_2_3(workdir):
    """Ruling R112: played by email, A-P mines get their hex at 2.6 (a hex given at 2.3 would show when 2.6
    reveals the purchases). Its own client sends `fortify axis ap_mine --hex M5` at 2.3 marked
    `mines_at_setup: false`: refused all the same (rule 2.38), nothing written."""
    g = Game(workdir, policy="any")
    g.play_to(1, "2.3")
    if g.holder != "axis":
        g.send(g.holder)
    assert g.cli("axis", "buy", "axis", "F1").code == 0
    before = g.head("axis")
    cmd = {"name": "fortify", "side": "axis", "kind": "ap_mine", "factors": 2, "hex": "M5", "mines_at_setup": False}
    with pytest.raises(Refused, match="R112"):
        _run(g, "axis", cmd)
    assert g.head("axis") == before


def test_a_client_that_leaves_out_the_r119_mark_cannot_have_a_sealed_2_3_roll_revealed_at_2_3(workdir):
    """Ruling R119: allied's sealed 2.36 leader DR, answered, does not hold 2.3: it is revealed at 2.6 with the
    purchase it belongs to. Axis's own client answers it and confirms the allied leave with a `next` marked
    `sealed_rolls: false`, so that 2.3 would wait for the reveal and show axis the roll before 2.6: the campaign
    leaves 2.3 all the same, the roll unrevealed."""
    g = allied_sealed_leader_dr_sent(workdir)
    _run(g, "axis", {"name": "next", "sealed_rolls": False})  # answers the roll first (ruling R84)
    seen = g.state("axis")
    assert seen.step == "2.4", seen.step
    (request,) = seen.pbem.requests.values()
    assert request.side == "allied" and request.answer is not None and request.sealed_at == "2.3"
    g.send("axis")
    early = g.cli("allied", "reveal")
    assert early.code == 3 and "nothing to reveal" in early.err, (early.code, early.err)
