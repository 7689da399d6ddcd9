"""Ruling R45 in the audit (issue 36 item 3): a `next` proposed by one side is checked as the step stands and
decided again when the other side confirms it. Where nothing but signatures stands between the proposal and its
confirmation, the state the confirmation decides on is the one checked, but for what the leave never reads (the
rows' seq, the signed heads): the audit takes the leave as checked (cg/app/audit.py `_proposed_leave`), so each
step's leave is worked out once. Anything else between, and it is decided again; a leave forged at the
confirmation is still found. Counted, not timed."""
from __future__ import annotations

import sqlite3

import orjson
import pytest
from conftest import cli_run
from helpers.pbem import Game
from helpers.sandbox import rechain

from cg.commands.base import HANDLERS


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> str:
    """A campaign by email (the roller's own dice, secrets sealed) through the first firefight, under rules revision
    2 (the bench's campaign by email: a `next` is never left provisionally, ruling R71 revision 3): each `next` where
    a side's command is accepted proposed by one side and confirmed by the other (ruling R45)."""
    g = Game(tmp_path_factory.mktemp("leave"), policy=None, revision=2)
    g.play_to(2, "2.1")
    return g.db[g.holder]


def _rows(db: str) -> list[tuple]:
    c = sqlite3.connect(db)
    try:
        return c.execute("SELECT seq, batch, type, payload, command FROM events ORDER BY seq").fetchall()
    finally:
        c.close()


def _leaves(monkeypatch) -> list:
    """Every leave of a step the audit works out (`next`'s handler, cg/commands/flow.py), by the step left."""
    calls: list = []
    real = HANDLERS["next"]
    monkeypatch.setitem(HANDLERS, "next", lambda ctx, cmd: calls.append(ctx.state.step) or real(ctx, cmd))
    return calls


def _confirmed_after_a_signature(rows) -> list[tuple[int, int, int]]:
    """(proposal seq, signature seq, confirmation seq) of each `next` proposed, signed, then confirmed."""
    out = []
    for i in range(len(rows) - 2):
        (p, b1, t1, _, c1), (s, _, t2, _, _), (c, _, t3, _, _) = rows[i:i + 3]
        if t1 == "fact_proposed" and b1 == p and orjson.loads(c1)["name"] == "next" and t2 == "head_signed" \
                and t3 == "fact_confirmed":
            out.append((p, s, c))
    return out


def test_a_confirmed_leave_is_worked_out_once(played, monkeypatch):
    rows = _rows(played)
    proposed = _confirmed_after_a_signature(rows)
    assert len(proposed) >= 5  # 2.3, 3.1, 3.2, 3.3, ... each proposed, signed with the bundle, confirmed
    left = sum(1 for r in rows if r[2] == "step_left")
    calls = _leaves(monkeypatch)
    r = cli_run(played, "audit")
    assert r.code == 0, r.out + r.err
    # each step left once: the check of a proposal, or a `next` decided at once; the confirmation takes the check's
    assert len(calls) == left


def test_a_row_between_that_is_no_signature_has_the_leave_decided_again(played, tmp_path, monkeypatch):
    """The signature between a proposal and its confirmation made into another row (by a forger who recomputed
    every hash): the proof no longer holds, and the confirmation decides the leave again."""
    db = str(tmp_path / "forged.plcg")
    with open(played, "rb") as src, open(db, "wb") as dst:
        dst.write(src.read())
    rows = _rows(db)
    _p, sig, confirmed = _confirmed_after_a_signature(rows)[0]
    payload = orjson.dumps({"revision": 3, "from_firefight": 99}, option=orjson.OPT_SORT_KEYS).decode()
    rechain(db, ("UPDATE events SET type = 'rules_upgraded', payload = ? WHERE seq = ?", (payload, sig)))
    left = sum(1 for r in rows if r[2] == "step_left")
    calls = _leaves(monkeypatch)
    r = cli_run(db, "audit", "--json")
    assert r.code == 1
    findings = orjson.loads(r.out)["findings"]
    assert [f for f in findings if f["seq"] == sig and f["rule"] == "pbem"], findings  # sign gives another row
    assert [f for f in findings if f["seq"] in (confirmed, confirmed + 1)] == []  # the leave is the same, found so
    assert len(calls) == left + 1


def test_a_leave_forged_at_its_confirmation_is_still_found(played, tmp_path):
    """The step_left a confirmation recorded, edited (every hash recomputed): the leave checked at the proposal is
    the rules', and the stored one is compared with it."""
    db = str(tmp_path / "forged.plcg")
    with open(played, "rb") as src, open(db, "wb") as dst:
        dst.write(src.read())
    rows = _rows(db)
    _p, _s, confirmed = _confirmed_after_a_signature(rows)[0]
    seq, _b, t, payload, _c = rows[confirmed]  # the row after the fact_confirmed: the leave's step_left
    assert t == "step_left"
    p = orjson.loads(payload)
    p["firefight"] += 1
    rechain(db, ("UPDATE events SET payload = ? WHERE seq = ?",
                 (orjson.dumps(p, option=orjson.OPT_SORT_KEYS).decode(), seq)))
    r = cli_run(db, "audit", "--json")
    assert r.code == 1
    found = [f for f in orjson.loads(r.out)["findings"] if f["seq"] == seq]
    assert found and "firefight recorded" in found[0]["what"], orjson.loads(r.out)["findings"]


@pytest.mark.parametrize("revision, card", [(1, "sample"), (2, "kolkhoz"), (None, "sample")])
def test_every_leave_taken_as_checked_is_the_leave_decided_again(revision, card, tmp_path, monkeypatch):
    """The proof `_proposed_leave` writes down (the leave reads nothing the folds between its check and its
    confirmation change) held against the rules themselves: each time the audit takes a leave as checked, the
    same confirmation is decided again on the same state and its events compared, over campaigns by email
    under each rules revision (ruling R32) and two cards. A leave that came to read `seq`, `last_batch` or a
    signed head would differ here first."""
    from cg.commands import base

    g = Game(tmp_path, policy=None, revision=revision, card=card)
    g.play_to(2, "2.1")
    real = base._own_dice
    taken: list = []

    def compared(state, cmd, base_seq, handler, leave=None):
        reused = leave is not None and leave.proven and leave.events is not None and cmd.get("name") == "next"
        got = real(state, cmd, base_seq, handler, leave)
        if reused:
            again = real(state, dict(cmd), base_seq, handler, None)
            assert got == again, (state.step, got, again)
            taken.append(state.step)
        return got

    monkeypatch.setattr(base, "_own_dice", compared)
    r = cli_run(g.db[g.holder], "audit")
    assert r.code == 0, r.out + r.err
    assert taken  # a leave taken as checked in each (under revision 3 a `next` is mostly left provisionally, R71)
    if revision in (1, 2):
        assert len(set(taken)) >= 10  # most steps of a firefight and its RePh
