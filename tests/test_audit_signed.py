"""The audit of a campaign played by email (issue 36 item 3): the stored snapshot is checked against the
audit's own fold where the reader's view opens the seals the audit's did, not against a second fold of
the whole log; a forged snapshot is still found, and a view that opens another seal still folds again.

Counted, not timed (Ledger._state: the replay the check would fold)."""
from __future__ import annotations

import pytest
from conftest import cli_run
from helpers.pbem import Game

from cg.app.ledger import Ledger
from helpers.campaigns import forge_snapshot


@pytest.fixture
def sealed_cp(workdir):
    """The allied copy after the axis 2.1 CP DR of firefight 2 is sealed (not revealed: ruling R47), its
    snapshot rebuilt at the head (`plcg replay`, as a player's file has it)."""
    g = Game(workdir, policy=None)
    g.play_to(2, "2.1")
    g.do("axis", "cp", "axis")
    g.send("axis")
    db = g.db["allied"]
    assert cli_run(db, "replay").code == 0
    led = Ledger(db)
    try:
        assert led.store.snapshot()[0] == led.store.head()[0]
        st = led.state()
        assert [(r.side, r.what, r.opened) for r in st.pbem.seals.values()] == [("axis", "cp", False)]
    finally:
        led.close()
    return g, db


def _replays(monkeypatch) -> list:
    replays = []
    real = Ledger._state
    monkeypatch.setattr(Ledger, "_state", lambda self, at, use, lazy: replays.append((at, use)) or real(self, at, use, lazy))
    return replays


def test_a_signed_campaigns_audit_checks_the_snapshot_against_its_own_fold(sealed_cp, monkeypatch):
    """A seal neither view opens leaves the two folds the same: no second fold (it took 9-11% at 100k)."""
    _g, db = sealed_cp
    replays = _replays(monkeypatch)
    r = cli_run(db, "audit")
    assert r.code == 0, r.out + r.err
    assert [at for at, use in replays if use is False] == []


def test_a_forged_snapshot_of_a_signed_campaign_is_still_found_without_a_second_fold(sealed_cp, monkeypatch):
    _g, db = sealed_cp
    led = Ledger(db)
    try:
        st = led.state(use_snapshot=False)  # a forgery, its digest recomputed: the allied ELR
        st.sides["allied"].elr -= 1
    finally:
        led.close()
    forge_snapshot(db, st)
    replays = _replays(monkeypatch)
    r = cli_run(db, "audit")
    assert r.code == 1 and "the stored snapshot is not the replay of the log" in r.out and "allied elr" in r.out, r.out
    assert [at for at, use in replays if use is False] == []


def test_a_view_that_opens_a_seal_the_audit_did_not_is_not_compared_with_the_audits_fold(sealed_cp):
    """The axis player's key opens his own sealed CP DR, the audit's view (the log's reveals) does not:
    the axis copy's audit, with its key, finds nothing (the stored snapshot, made without the key, is
    for another view and is not compared)."""
    g, _db = sealed_cp
    db = g.db["axis"]
    assert cli_run(db, "replay").code == 0
    r = g.cli("axis", "audit")
    assert r.code == 0, r.out + r.err


def test_the_audit_and_its_reader_read_the_logs_reveals_once(sealed_cp, monkeypatch):
    """Every opening the log reveals is held once: the reader's view of the snapshot check shares the
    audit's (two copies were about 7 MB of a 100k campaign's peak)."""
    from cg import seal

    _g, db = sealed_cp
    reads = []
    real = seal.log_openings
    monkeypatch.setattr(seal, "log_openings", lambda store: reads.append(1) or real(store))
    r = cli_run(db, "audit")
    assert r.code == 0, r.out + r.err
    assert len(reads) == 1
