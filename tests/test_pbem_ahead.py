"""Ruling R121 (issue 37 item 7): the RePh rolls a side commits ahead of their steps. Each is answered at once, decided
only at its own step as the rules stand there, never twice, and neither side can take it back or step past it.
Driven through the command line (tests/helpers/pbem.py's Game: two copies, bundles, two-party dice from chains)."""
from __future__ import annotations

import hashlib
import json

import pytest

from helpers.pbem import Game

from cg import pbem
from cg.app.keys import load_private
from cg.app.ledger import Ledger
from events.errors import Refused

PLAN = {(1, "2.3"): [(s, ["buy", s, "I1"]) for s in ("axis", "allied")]}


def _log(g: Game, side: str) -> list[dict]:
    r = g.cli(side, "log", "--json")
    assert r.code == 0, r.err
    return [json.loads(line) for line in r.out.splitlines()]


def _raw(g: Game, side: str) -> list[tuple]:
    """(seq, type, step, payload) of every row, read straight from the file."""
    import sqlite3

    con = sqlite3.connect(f"file:{g.db[side]}?mode=ro", uri=True)
    try:
        return [(s, t, st, json.loads(p)) for s, t, st, p in
                con.execute("SELECT seq, type, step, payload FROM events ORDER BY seq")]
    finally:
        con.close()


@pytest.fixture
def at_3_41(workdir):
    g = Game(workdir)
    g.play_to(1, "3.41", plan=PLAN)
    if g.holder != "axis":
        g.send(g.holder)
    return g


def test_rolls_committed_ahead_are_answered_at_once_and_decided_at_their_own_steps(at_3_41):
    g = at_3_41
    for name in ("promote", "leaders", "elr"):
        r = g.cli("axis", name, "axis")
        assert r.code == 0, (name, r.err)
    mine = {r.command["name"]: r for r in g.state("axis").pbem.requests.values() if r.side == "axis"}
    assert {n: r.command.get("ahead") for n, r in mine.items()} == {"promote": "3.44", "leaders": "3.45", "elr": "3.47"}
    assert mine["elr"].chain is not None and mine["leaders"].chain is not None  # from the allied chain (R83)
    assert mine["promote"].chain is None  # 3.44 is sealed: ruling R44's commitment, revealed sealed at 3.44
    g.send("axis")
    g.send("allied")  # the allied bundle answers all three
    st = g.state("axis")
    assert st.step == "3.41" and all(r.answer is not None for r in st.pbem.requests.values() if r.side == "axis")
    kinds = [t for _, t, _, _ in _raw(g, "axis")]
    assert not {"promotion_rolled", "leaders_rolled", "elr_rolled"} & set(kinds)  # nothing decided before its step
    elr_before = st.sides["axis"].elr
    assert g.cli("axis", "elr", "axis").code == 3  # never a second commitment to the same roll (R67, R118)
    g.play_to(2, "2.1")
    if g.holder != "axis":
        g.send(g.holder)
    rows_ = _raw(g, "axis")
    committed = {p["commit"]: p for _, t, _, p in rows_ if t == "dice_committed" and p["side"] == "axis"
                 and p["command"].get("ahead") == "3.47"}
    (commit, c), = committed.items()
    answer = next(p["value"] for _, t, _, p in rows_ if t == "dice_answered" and p["request"] == commit)
    elr = [(st_, p) for _, t, st_, p in rows_ if t == "elr_rolled" and p["side"] == "axis"]
    assert len(elr) == 1 and elr[0][0] == "3.47"  # decided once, at 3.47
    dice = [int.from_bytes(hashlib.sha256(f"{c['value']}:{answer}:{commit}:0:{d}".encode()).digest()[:8], "big") % 6 + 1
            for d in range(2)]
    assert elr[0][1]["roll"]["dice"] == dice and elr[0][1]["before"] == elr_before
    leaders = [st_ for _, t, st_, p in rows_ if t == "leaders_rolled" and p["side"] == "axis"]
    assert leaders == ["3.45"]
    assert not g.state("axis").pbem.requests
    # the log says when each is decided: at its own step, not by the other side's next bundle (which answers it)
    said = {line["seq"]: line["summary"] for line in _log(g, "axis") if line["type"] == "dice_committed"}
    for seq, _t, _st, p in rows_:
        if _t == "dice_committed" and p["command"].get("ahead"):
            assert f"decided at {p['command']['ahead']}" in said[seq] and "R121" in said[seq], said[seq]
            assert "decided by the other side's next bundle" not in said[seq], said[seq]
    for s in ("axis", "allied"):
        assert g.cli(s, "audit").code == 0
    assert g.cli("axis", "audit", "--against", g.db["allied"]).code == 0


def test_a_campaign_started_before_conventions_3_refuses_a_roll_ahead_of_its_step(at_3_41):
    from cg.commands import decide_all

    g = at_3_41
    st = g.state("axis")
    st.conventions = 2
    cmd = {"name": "elr", "side": "axis", "by": "axis", "commit": "0" * 64, "nonce": "n"}
    with pytest.raises(Refused, match="3.47"):
        decide_all(st, cmd, st.seq + 1, None)


def test_the_answerer_cannot_reject_a_leave_that_a_roll_committed_ahead_follows(at_3_41):
    """Ruling R107 holds for a roll committed ahead: the allied side, which knows the axis dice from its chain the
    moment the commitment arrives, cannot undo them by rejecting the axis leave before it."""
    g = at_3_41
    r = g.cli("axis", "next")  # 3.41 left provisionally (R71 (a))
    assert r.code == 0 and g.state("axis").step == "3.42", r.err
    assert g.cli("axis", "elr", "axis").code == 0  # its 3.47 DR, ahead
    g.send("axis")
    r = g.cli("allied", "reject", "--reason", "rather not")
    assert r.code == 3 and "dice_committed" in r.err, (r.code, r.out, r.err)
    assert g.state("allied").step == "3.42"


def test_no_command_is_taken_at_a_step_before_the_rolls_committed_ahead_of_it_are_decided(at_3_41):
    """A client of a player's own making that steps on without deciding the roll committed ahead of this step is
    refused (exit 3): the roll would fall behind its step for good. The ledger decides it first, so `next` works."""
    from cg.commands import decide_all

    g = at_3_41
    assert g.cli("axis", "elr", "axis").code == 0
    g.send("axis")
    g.send("allied")  # answered
    st = g.state("axis")
    assert not pbem.due(st)  # at 3.41 it waits
    st.position = st.position.to(step="3.47")  # the copy as a client that walked on to 3.47 without deciding it has it
    assert [r.command["name"] for _, r in pbem.due(st)] == ["elr"]
    for cmd in ({"name": "next"}, {"name": "confirm"}):
        with pytest.raises(Refused, match="committed ahead"):
            decide_all(st, {**cmd, "by": "allied", "own_rolls": True}, st.seq + 1, None)


def test_sync_names_the_rolls_a_side_may_commit_ahead_until_it_has(at_3_41, workdir):
    g = at_3_41
    box = workdir / "box"
    box.mkdir()
    said = g.cli("axis", "sync", "--folder", str(box))
    assert said.code == 0, said.err
    assert "ahead of their steps, your 3.44, 3.45, 3.47 roll(s) may go in this bundle (ruling R121): plcg promote" \
           " axis, plcg leaders axis, plcg elr axis" in said.out, said.out
    assert g.cli("axis", "elr", "axis").code == 0
    said = g.cli("axis", "sync", "--folder", str(box))
    assert "(ruling R121): plcg promote axis, plcg leaders axis\n" in said.out + "\n", said.out
