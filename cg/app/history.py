"""The campaign as of any seq, for the web page's slider (issue 34): a bounded fold from the nearest
checkpoint this object keeps, not a fold of the whole log on every move.

`Ledger.state(at=SEQ)` (the CLI's `--at`) folds the log from its first row up to SEQ with the reverts
made up to SEQ in force. `History.state(SEQ)` answers the same state: it keeps copies of the states
it folded at every `every`-th seq (its checkpoints, in this object: never a module global) and folds on
from the nearest one at or before SEQ, where no revert made between the checkpoint and SEQ changes the
force of a row at or before the checkpoint (an undo of recent commands, the usual one); else, and for
a campaign played by email with sealed secrets (what a view opens depends on the key and on reveals
later in the log), it asks the Ledger for the whole fold, as `--at` does.
"""
from __future__ import annotations

import threading

from cg.evolve import fold, reverted_seqs
from cg.app.ledger import Ledger
from cg.caches import Caches


class History:
    """States at seqs of one campaign file, each a new object the caller may change."""

    def __init__(self, path: str, key=None, every: int = 0, keep: int = 96):
        self.path = path
        self._key = key
        self._every = every  # 0: chosen from the log's length (about 64 checkpoints over the log)
        self._keep = keep
        self._points: dict[tuple, tuple] = {}  # (seq, the seqs taken back up to it) -> (its hash, state)
        self._lock = threading.Lock()
        self.folded = 0  # rows folded by this object (the bench and the tests read it)
        # the rules' memos of this campaign (its card, its map's pictures), kept across the ledgers this
        # object opens, whichever thread of the page asks (cg/caches.py)
        self.caches = Caches()

    def ledger(self) -> Ledger:
        return Ledger(self.path, key=self._key, caches=self.caches)

    def state(self, at: int | None = None):
        """The state as of seq `at` (None: the head), as `Ledger.state(at=at)` folds it."""
        led = self.ledger()
        try:
            head = led.store.head()[0]
            if at is None or at == head:
                return led.state()
            if not 1 <= at <= head:
                return led.state(at=at)  # refused (bad input) as --at refuses it
            st = None
            with self._lock:
                st = self._from_point(led, at)
                if st is None:
                    st = self._from_start(led, at)
            return st
        finally:
            led.close()

    def warm(self) -> None:
        """Lay the checkpoints over the whole log at once (one fold of it), so that every later read
        folds at most one stretch: `plcg serve` does it in the background as it starts."""
        led = self.ledger()
        try:
            head = led.store.head()[0]
            units = len(led.state().units) if head > 1 else 0
        finally:
            led.close()
        if head > 1:
            self._cap = min(64, self._keep_for(units))  # the stretch between checkpoints: they all stay
            self.state(head - 1)

    _cap = 64  # how many checkpoints the log is cut into

    def _step(self, head: int) -> int:
        return self._every or max(64, head // self._cap)

    def _keep_for(self, units: int) -> int:
        """At most `keep` copies, fewer of a long campaign's big states (about 600k units in all)."""
        return max(8, min(self._keep, 600_000 // max(1, units)))

    def _from_point(self, led: Ledger, at: int):
        if not self._points:
            return None
        now = reverted_seqs(led.store.reverts(until=at))
        for seq, then in sorted((k for k in self._points if k[0] <= at), key=lambda k: k[0], reverse=True):
            if {x for x in now if x <= seq} != then:
                continue  # folded with other rows taken back than `at` takes back: an older checkpoint
            h, st = self._points[(seq, then)]
            if led.store.hash_at(seq) != h:  # another file at this path, or a log rewritten: start again
                self._points.clear()
                return None
            st = st.copy()
            if at > seq:
                st = self._fold_on(led, st, seq, at, now)
            return st
        return None

    def _from_start(self, led: Ledger, at: int):
        """The whole fold up to `at`, in stretches that leave checkpoints behind (none by email)."""
        first = min(self._step(led.store.head()[0]), at)
        now = reverted_seqs(led.store.reverts(until=at))
        then = reverted_seqs(led.store.reverts(until=first))
        if {x for x in now if x <= first} != then:  # an undo after `first` takes back a row before it
            st = led.state(at=at)
            self.folded += at
            self._put(led, at, st, now)
            return st
        st = led.state(at=first)
        self.folded += first
        if st.pbem is not None:
            return led.state(at=at) if at != first else st
        self._put(led, first, st, then)
        if at > first:
            st = self._fold_on(led, st, first, at, now)
        return st

    def _fold_on(self, led: Ledger, st, since: int, at: int, reverted: set):
        """Fold the rows since..at onto `st`, keeping a checkpoint at each `every`-th seq passed."""
        step = self._step(led.store.head()[0])
        start = since
        for mark in [m for m in range((since // step + 1) * step, at, step)] + [at]:
            st = fold(led.records(since=start, until=mark), st, reverted)
            self.folded += mark - start
            start = mark
            if mark != at:
                self._put(led, mark, st, reverted)
        st.last_batch = led.store.batch_of(st.seq)
        st._tail = None
        return st

    def _put(self, led: Ledger, seq: int, st, reverted: set) -> None:
        """Keep a copy of `st`, the state at `seq` folded with the seqs `reverted` taken back (those of
        them at or before `seq` say which later seqs it may be folded on to)."""
        if st.pbem is not None:
            return
        k = (seq, frozenset(x for x in reverted if x <= seq))
        if k in self._points:
            return
        while len(self._points) >= self._keep_for(len(st.units)):  # the farthest from this seq goes
            del self._points[max(self._points, key=lambda p: abs(p[0] - seq))]
        self._points[k] = (led.store.hash_at(seq), st.copy())
