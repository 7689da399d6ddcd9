"""The application service: one campaign file, its state (snapshot + tail), a command decided and
appended in one transaction. The one place where the rules (`cg/`) and the store (`events/`) meet;
it knows nothing of click or printing (cli.py does that).
"""
from __future__ import annotations

import os
import secrets
import sqlite3

from events.errors import BadInput

VERSION = "0.1.0"  # pyproject.toml reads it from here

_CARDS: dict = {}  # parsed CG Cards by the hash of the campaign_started event that holds them
SNAPSHOT_EVERY = 64  # refresh the stored snapshot once the unsnapshotted tail is this long


class Ledger:
    """One campaign file: read the state, decide a command, append its events."""

    def __init__(self, path: str, write: bool = False):
        from events.store import Store

        self.path = path
        self.store = Store.open(path, write=write)

    @classmethod
    def create(cls, path: str, card_ref: str, seed: str | None, redeployment: str | None,
               mark: dict | None = None) -> "Ledger":
        """A new campaign file. `mark`: keys added to the recorded `new` command (the demo marks its own
        files so that `plcg demo` can replace them, and only them)."""
        from cg.card import card_to_dict
        from cg.card_schema import load_card
        from cg.commands import start_event
        from events.convert import unstructure
        from events.store import NewEvent, Store

        if os.path.exists(path):
            raise BadInput(f"{path} exists already: plcg new never overwrites a campaign (use --db)")
        card = load_card(card_ref)
        seed = seed or secrets.token_hex(16)
        e = start_event(card, card_ref, card_to_dict(card), seed, redeployment, VERSION)
        store = Store.create(path, {"product": "plcg", "product_version": VERSION})
        try:
            store.append(0, [NewEvent(type=e.TYPE, version=e.VERSION, payload=unstructure(e), firefight=1,
                                      step="2.2")], command={"name": "new", "card": card_ref,
                                                             "redeployment": redeployment, **(mark or {})})
        except BaseException:
            store.close()
            os.unlink(path)
            raise
        store.close()
        return cls(path, write=True)

    # reading
    def records(self, since: int = 0, until: int | None = None):
        """(seq, batch, type, payload) of the log, each payload at its event's current version."""
        from events.versions import VERSIONS

        rows = self.store.read_fold(since, until)
        # a whole-log read asks once which versions the log holds; a short tail checks each row
        if since == 0 and all(VERSIONS.get(t) == v for t, v in self.store.versions()):
            return ((seq, b, t, p) for seq, b, t, _v, p in rows)  # nothing to upcast
        return ((seq, b, t, p if v == VERSIONS.get(t) else _upcast(t, v, p)) for seq, b, t, v, p in rows)

    _kept = None  # (seq, hash, state) the last `run` of this Ledger left the campaign in

    def state(self, at: int | None = None, use_snapshot: bool = True, lazy: bool = False):
        """The folded state (at seq `at`, else the head), a new object on every call. `lazy`: from
        the snapshot, the settled units are loaded only when something asks for them (`unit`,
        `load_all`): commands and status."""
        from cg import snapshot
        from cg.evolve import fold

        if at is not None:  # --at SEQ: a seq of the log, not a guess past either end of it
            last = self.store.head()[0]
            if not 1 <= at <= last:
                raise BadInput(f"--at {at}: the log holds seqs 1 to {last}")
        if at is None and use_snapshot:
            snap = self.store.snapshot()
            if snap is not None:
                seq, h, blob = snap
                if self.store.hash_at(seq) == h:
                    tail = list(self.records(since=seq))
                    if not any(t == "reverted" for _, _, t, _ in tail):
                        st = snapshot.load(blob, self._card(), self._cold_part)
                        if st is not None:
                            if not lazy:
                                st.load_all()
                            st = fold(tail, st)
                            st._tail = len(tail)
                            return st
        from cg.bulk import gc_paused
        from cg.evolve import fold_stored, reverted_seqs
        from events.versions import VERSIONS

        try:
            chunks, common, last = self.store.fold_chunks(VERSIONS, until=at)
            with gc_paused():
                st = fold_stored(chunks, common, reverted_seqs(self.store.reverts(until=last)), VERSIONS, _upcast)
        except sqlite3.DatabaseError as e:
            raise BadInput(f"cannot read {self.path}: {e}") from None
        if st is None:
            raise BadInput(f"{self.path} holds no campaign_started event")
        st.last_batch = self.store.batch_of(st.seq)
        st._tail = None  # folded from the log: refresh the snapshot on the next write
        return st

    def _cold_part(self, token: str, probe: bool = False):
        """The stored cold snapshot part named `token` (probe: only whether it is the stored one)."""
        if probe:
            return self.store.cold_token() == token
        try:
            return self.store.cold_snapshot(token)
        except sqlite3.ProgrammingError:  # closed: a state kept after the command (state_after)
            from events.store import Store

            store = Store.open(self.path)
            try:
                return store.cold_snapshot(token)
            finally:
                store.close()

    def _card(self):
        from cg.card_schema import parse_card

        key = self.store.hash_at(1)  # the first event holds the card; its hash names it
        card = _CARDS.get(key)
        if card is None:
            first = next(iter(self.records(until=1)))
            card = _CARDS[key] = parse_card(first[3]["card"], source="campaign_started")
        return card

    # writing
    def run(self, cmd: dict) -> list:
        from cg import snapshot
        from cg.commands import decide, decide_undo
        from cg.evolve import evolve, fold, reverted_seqs
        from events.convert import unstructure
        from events.store import NewEvent

        # A Ledger that ran the last command itself (a script, the demo, a long-lived process) goes
        # on from the state that command left while the file's head is still that command's seq and
        # hash: no other writer came in between, so it is the state the log folds to. It is folded
        # forward in place below, so it is kept again only once the append is in.
        try:  # the command is stored with its events: a value JSON cannot hold is bad input, not a crash
            import orjson

            orjson.dumps(cmd)
        except TypeError as e:
            raise BadInput(f"a value given cannot be recorded ({e})") from None
        kept, self._kept = self._kept, None
        head = self.store.head()
        st = kept[2] if kept is not None and head == kept[:2] else self.state(lazy=True)
        head_seq = head[0]
        if st.seq != head_seq:
            st = self.state(use_snapshot=False)
        if cmd["name"] == "undo":
            recs = list(self.records())
            history = [(s, b, t) for s, b, t, _ in recs]
            events = decide_undo(st, history, reverted_seqs(recs), cmd.get("to"), cmd.get("reason") or "",
                                 bool(cmd.get("force")))
        else:
            events = decide(st, cmd, head_seq + 1)
        new = [NewEvent(type=e.TYPE, version=e.VERSION, payload=unstructure(e), firefight=st.firefight,
                        step=st.step) for e in events]
        if any(n.type == "reverted" for n in new):
            recs = list(self.records()) + [(head_seq + 1 + i, head_seq + 1, n.type, n.payload)
                                           for i, n in enumerate(new)]
            st = fold(recs)
            refresh = True
        else:
            for i, n in enumerate(new):
                evolve(st, n.type, n.payload, head_seq + 1 + i, head_seq + 1)
            tail = getattr(st, "_tail", None)
            refresh = tail is None or tail + len(new) >= SNAPSHOT_EVERY
        snap = (lambda _seq, _h: snapshot.dump_split(st, self.store.cold_token())) if refresh else None
        stored = self.store.append(head_seq, new, command=cmd, snapshot=snap)
        self.state_after = st  # the state after the command, until this Ledger's next run folds on from it
        if stored:
            st._tail = 0 if snap is not None else (st._tail or 0) + len(stored)
            self._kept = (stored[-1].seq, stored[-1].hash, st)
        return stored

    def close(self):
        self.store.close()


def _upcast(etype: str, version: int, payload: dict) -> dict:
    """An event of an older schema is upgraded; one the release does not know is refused (exit 2)."""
    from events.convert import upcast

    return upcast(etype, version, payload)
