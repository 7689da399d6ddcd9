"""Play by email against an adversary (issue 25, items 6-14): what one player can do to the other's
copy through bundles, and what the other copy shows. Each test is one attack, through the real
command line and two copies (tests/helpers/pbem.py)."""
from __future__ import annotations

import os

import pytest

from conftest import cli_run, rows
from helpers.pbem import Game

from events import bundle as bundles
from test_pbem import bundle_lines, log, write_lines  # noqa: F401 (the two files read bundles alike)


@pytest.fixture
def free_game(workdir):
    """Keys and signatures, the roller's own dice (--dice-policy any), open rosters."""
    return Game(workdir, policy="any", sealed=False)


# ---- item 11: receive reads a regular file, bounded ----------------------------------------------------

def test_receive_reads_only_a_regular_file_of_bounded_size_and_lines(free_game, monkeypatch):
    g = free_game
    db = g.db["allied"]
    before = rows(db)
    zero = g.tmp / "zero.bundle"
    os.symlink("/dev/zero", zero)  # would grow without end: refused before a byte is read
    r = cli_run(db, "receive", zero)
    assert r.code == 2 and "not a regular file" in r.err and r.err.count("\n") == 1
    fifo = g.tmp / "fifo.bundle"
    os.mkfifo(fifo)  # nobody writes it: the open must not hang
    r = cli_run(db, "receive", fifo)
    assert r.code == 2 and "not a regular file" in r.err
    monkeypatch.setattr(bundles, "MAX_BUNDLE", 4096)
    big = g.tmp / "big.bundle"
    with open(big, "wb") as f:
        f.truncate(4097)  # sparse: larger than the bound, nothing to read
    r = cli_run(db, "receive", big)
    assert r.code == 2 and "more than a plcg bundle can be" in r.err
    monkeypatch.setattr(bundles, "MAX_BUNDLE", 2**28)
    monkeypatch.setattr(bundles, "MAX_LINE", 1000)
    long = g.tmp / "long.bundle"
    long.write_bytes(b'{"plcg_bundle": 1}\n' + b"x" * 1001 + b"\n")
    r = cli_run(db, "receive", long)
    assert r.code == 2 and "line longer than" in r.err
    assert rows(db) == before


# ---- item 14: a signature over nothing new ---------------------------------------------------------------

def test_a_signature_over_nothing_new_is_refused(free_game):
    from cg import pbem
    from cg.ledger import Ledger
    from events.errors import Refused

    g = free_game
    g.do("axis", "weather")
    g.bundle("axis", 0)  # the head is now axis's own signature
    key = pbem.load_private(g.key["axis"])
    led = Ledger(g.db["axis"], write=True, key=key)
    try:
        seq, h = led.store.head()
        before = rows(g.db["axis"])
        with pytest.raises(Refused, match="nothing new"):  # a client of its own making: one row per call
            led.run({"name": "sign", "seq": seq, "hash": h, "sig": pbem.sign_head(key, seq, h)}, key)
        assert rows(g.db["axis"]) == before
    finally:
        led.close()
    again = g.bundle("axis", 0)  # the ledger's own bundle does not sign twice either
    assert [x for x in bundle_lines(again)[1:] if x["type"] == "head_signed"][-1]["seq"] == seq
