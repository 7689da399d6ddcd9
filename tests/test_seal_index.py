"""The seals not revealed yet, as `cg/seal._unrevealed` finds them through the state's index of them by
side and kind (issue 36 item 3: every command at 2.4, 2.6 and 3.44 asks, and a sealed CP DR stays to the
CG's end): after every row of a campaign by email, folded one row at a time as a long-lived state is
(the Ledger's kept state, the audit's), the index answers what a walk of every seal answers, in the
order sealed, and whether there is any (`_any_unrevealed`) as the walk does. A seal made or revealed since the
last ask is in it or gone from it."""
from __future__ import annotations

import pytest
from helpers.pbem import Game

from cg import seal
from cg.evolve import fold, reverted_seqs
from cg.app.ledger import Ledger

KINDS = (None, ("cp",), ("purchase",), ("attack",), ("hidden",), ("promote", "harden"))


def walked(st, side, whats, ff) -> list:
    """Every seal of the state looked at, in the order sealed: what the index must give."""
    return [(c, r) for c, r in st.pbem.seals.items()
            if r.side == side and (whats is None or r.what in whats) and (ff is None or r.ff == ff)]


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    g = Game(tmp_path_factory.mktemp("sealidx"), policy=None)  # keys, sealed secrets (the default)
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")  # sealed; the setup at 2.6 reveals it
    g.play_to(1, "2.6")
    g.do("axis", "reveal")
    g.play_to(2, "2.1")
    g.do("axis", "cp", "axis")  # sealed to the CG's end
    g.play_to(2, "2.3")
    return g


def test_the_index_of_unrevealed_seals_answers_as_a_walk_of_every_seal_after_each_row(game):
    led = Ledger(game.db["axis"])
    try:
        records = list(led.records())
        reverted = reverted_seqs(records)
        st, asked, made, revealed = None, 0, 0, 0
        for rec in records:
            st = fold([rec], st, reverted, view=led.opener())
            made += rec[2] == "sealed"
            revealed += rec[2] == "seals_revealed"
            if st.pbem is None:
                continue
            for side in ("axis", "allied"):
                for whats in KINDS:
                    for ff in (None, 1, 2):
                        want = walked(st, side, whats, ff)
                        assert seal._unrevealed(st, side, whats, ff) == want, (rec[0], side, whats, ff)
                        # the yes-or-no every command asks (owed, check_unseen_units), without the list
                        assert seal._any_unrevealed(st, side, whats, ff) is bool(want), (rec[0], side, whats, ff)
                        asked += 1
    finally:
        led.close()
    assert made >= 6 and revealed >= 3  # the campaign sealed and revealed: the index was built, emptied, rebuilt
    assert st.pbem.seals  # ... and some seals are still sealed at its end (the CP DRs)
    assert asked > 100


def test_a_copy_of_the_state_builds_its_own_index(game):
    led = Ledger(game.db["axis"])
    try:
        st = led.state()
    finally:
        led.close()
    before = seal._unrevealed(st, "axis")
    copy = st.copy()
    gone = next(iter(copy.pbem.seals))
    del copy.pbem.seals[gone]  # the copy changes: the original's index and answer do not
    assert gone not in [c for c, _ in seal._unrevealed(copy, "axis") + seal._unrevealed(copy, "allied")]
    assert seal._unrevealed(st, "axis") == before
    assert "_by_kind" not in st.pbem.data()  # derived: never stored, so the digest is what it was
