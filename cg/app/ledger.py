"""The application service: one campaign file, its state (snapshot + tail), a command decided and
appended in one transaction. The one place where the rules (`cg/`) and the store (`events/`) meet;
it knows nothing of click or printing (cli.py does that).
"""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import cast
import sqlite3

import orjson

from cg import pbem, seal, snapshot
from cg.caches import Caches, current, use
from cg.rules import CONVENTIONS
from cg.sequence import StepId
from cg.bulk import gc_paused
from cg.card import apply_balance, card_to_dict
from cg.card_schema import load_card, parse_card
from cg.evolve import evolve, fold, fold_stored, reverted_seqs
from cg.state import CampaignState, Seal  # Seal: the Attack Option choice as the fold records it (R109)
from events.errors import BadInput, Refused, WriteConflict
from events import types as ev
from events.store import (NewEvent, SnapshotBlob, Store, link_problem, place, remove_file,
                          sweep_temps, temp_path)
from events.upcasters import upcast  # payload dicts only: an old log reads without cattrs
from events.versions import VERSIONS

VERSION = "0.1.0"  # pyproject.toml reads it from here

SNAPSHOT_EVERY = 64  # refresh the stored snapshot once the unsnapshotted tail is this long


def _writer():
    """cg/app/writer.py, taken where a write starts: the command handlers and the events' stored form."""
    from cg.app import writer  # lazy: cg.commands and events.convert (~70 ms) only where a write starts

    return writer


class Ledger:
    """One campaign file: read the state, decide a command, append its events."""

    def __init__(self, path: str, write: bool = False, key=None, store: Store | None = None,
                 caches: Caches | None = None):
        """key: the viewer's private key, or a function giving it (loaded only when a sealed secret of
        a campaign played by email is met): its own seals open in this view (ruling R47). store: the
        file already open (a received bundle checked inside the writer's transaction), else opened.
        caches: the memos the rules keep (cg/caches.py), this ledger's from now on in its context;
        without, the context's (what an earlier ledger of this process or thread learnt)."""
        self.caches = use(caches) if caches is not None else current()
        self.path = path
        self.store = Store.open(path, write=write) if store is None else store
        self._key_src = key
        self._opener: seal.Opener | None = None
        self.sealed_events: dict[int, list[tuple[str, dict]]] | None = None  # {seq: [(type, payload)]}: what the last command sealed (its own words)
        self.state_after: CampaignState | None = None  # the state after the last run, until the next folds on

    def viewer_key(self):
        k = self._key_src
        if callable(k):
            k = self._key_src = k()
        return k

    def opener(self):
        """Which sealed secrets this view opens: the reveals in the log, and with a key its own."""
        if self._opener is None:
            self._opener = seal.Opener(lambda: seal.log_openings(self.store), self.viewer_key)
        return self._opener

    @classmethod
    def create(cls, path: str, card_ref: str, seed: str | None, redeployment: str | None,
               dice_policy: str = "any", balance=(), pbem: dict | None = None,
               rules_revision: int | None = None, mark: dict | None = None,
               conventions: int | None = CONVENTIONS) -> "Ledger":
        """A new campaign file. Without `seed` the ledger rolls from the OS random source (ruling R31).
        balance: the 1.3 provisions chosen; pbem: play by email's settings (cg/pbem.settings), recorded
        in the first event; rules_revision: an earlier rules revision asked for (ruling R32). Built
        under a temporary name beside PATH and renamed into place: killed at any moment, it leaves
        nothing at PATH or a whole campaign (the next `new` removes the leftover). mark: keys added to the
        recorded `new` command (the demo marks its own files so that `plcg demo` can replace them, and only
        them)."""
        w = _writer()
        if os.path.exists(path):
            raise BadInput(f"{path} exists already: plcg new never overwrites a campaign (use --db)")
        if link_problem(path):  # a link in a loop or to nothing: say so, not "exists already" (issue 25)
            raise BadInput(f"{link_problem(path)}; plcg new makes a campaign at a new name")
        if seed is not None and not seed.strip():
            raise BadInput("--seed: give some text (or leave --seed out: unforeseeable dice)")
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise BadInput(f"cannot write {path}: no directory {directory}")
        card = load_card(card_ref)
        if balance:  # 1.3: the chosen provisions go into the logged card, applied (card.campaign.balance_chosen)
            try:
                card = apply_balance(card, balance)
            except ValueError as err:
                raise BadInput(str(err)) from None
        e = w.start_event(card, card_ref, card_to_dict(card), seed, redeployment, VERSION, dice_policy, pbem,
                        rules_revision, conventions)
        sweep_temps(path)
        tmp = temp_path(path, "new")
        store = Store.create(tmp, {"product": "plcg", "product_version": VERSION})
        try:
            store.append(0, [NewEvent(type=e.TYPE, version=e.VERSION, payload=w.unstructure(e), firefight=1,
                                      step="2.2")], command={"name": "new", "card": card_ref,
                                                             **({"balance": list(balance)} if balance else {}),
                                                             "redeployment": redeployment,
                                                             **({} if rules_revision is None else
                                                                {"rules_revision": rules_revision}),
                                                             **(mark or {})})
            store.close()
            place(tmp, path)
        except BaseException:
            store.close()
            remove_file(tmp)
            raise
        return cls(path, write=True)

    def head_witness(self) -> tuple[int, str]:
        """The log's head as a witness (`plcg head`): (seq, the first 16 hex digits of its chain hash)."""
        seq, h = self.store.head()
        return seq, h[:16]

    # reading
    def records(self, since: int = 0, until: int | None = None):
        """(seq, batch, type, payload) of the log, each payload at its event's current version."""
        rows = (r for chunk in self.store.read_rows(since, until, _FOLD, parse=True) for r in chunk)
        # a whole-log read asks once which versions the log holds (a scan of every row); a short tail,
        # or a head such as the first row the card is read from, checks each row
        if since == 0 and until is None and all(VERSIONS.get(t) == v for t, v in self.store.versions()):
            return ((seq, b, t, p) for seq, b, t, _v, p in rows)  # nothing to upcast
        return ((seq, b, t, p if v == VERSIONS.get(t) else upcast(t, v, p)) for seq, b, t, v, p in rows)

    _kept = None  # (seq, hash, state) the last `run` of this Ledger left the campaign in

    def state(self, at: int | None = None, use_snapshot: bool = True, lazy: bool = False):
        """The folded state (at seq `at`, else the head), a new object on every call. `lazy`: from
        the snapshot, the settled units are loaded only when something asks for them (`unit`,
        `load_all`): commands and status. Sealed secrets (ruling R47) are open as this view opens them."""
        st = self._state(at, use_snapshot, lazy)
        if st.pbem is not None and st.pbem.seals and not self._view_ok(st):
            st = self._state(at, False, lazy)  # folded for another view, or a reveal came since
        return st

    def _tail_reverts(self, seq: int, tail: list) -> set[int] | None:
        """What is undone, for folding `tail` (the rows after the snapshot at `seq`) onto the snapshot: the
        reverts of the whole log where those of the tail change the force of no row at or before `seq`
        (an undo of recent commands); None where they do (the snapshot was folded otherwise: fold the log)."""
        if not any(t == "reverted" for _, _, t, _ in tail):
            return set()
        before = self.store.reverts(until=seq)
        now = reverted_seqs(before + [r for r in tail if r[2] == "reverted"])
        changed = now ^ reverted_seqs(before)
        return now if not changed or min(changed) > seq else None

    def _view_ok(self, st) -> bool:
        op = self.opener()
        if st.pbem.stale:
            return False
        keys = st.pbem.keys
        return all(r.opened == op.can_open(c, r.side, keys) for c, r in st.pbem.seals.items())

    def _state(self, at, use_snapshot, lazy):
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
                    reverted = self._tail_reverts(seq, tail)
                    if reverted is not None:
                        st = snapshot.load(blob, self._card(), self._cold_part, view=self.opener())
                        if st is not None:
                            try:
                                if not lazy:
                                    st.load_all()
                            except snapshot.SnapshotDamaged:
                                st = None  # its settled part was edited: fold the log (and rebuild it)
                        if st is not None and st.pbem is not None and st.pbem.seals and not self._view_ok(st):
                            st = None  # sealed secrets opened for another view, or revealed since (R47)
                        if st is not None:
                            try:
                                st = fold(tail, st, reverted)
                            except snapshot.SnapshotDamaged:  # a fold handler loaded an edited settled part
                                st = None
                        if st is not None:
                            st._tail = len(tail)
                            return st
        try:
            chunks, common, last = self.store.fold_chunks(VERSIONS, until=at)
            with gc_paused():
                st = fold_stored(chunks, common, reverted_seqs(self.store.reverts(until=last)), VERSIONS, upcast,
                                 view=self.opener())
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
            store = Store.open(self.path)
            try:
                return store.cold_snapshot(token)
            finally:
                store.close()

    def _card(self):
        key = self.store.hash_at(1)  # the first event holds the card; its hash names it
        cards = self.caches.cards  # parsed CG Cards by the hash of the campaign_started event that holds them
        card = cards.get(key)
        if card is None:
            first = next(iter(self.records(until=1)))
            card = cards[key] = parse_card(first[3]["card"], source="campaign_started")
        return card

    # writing
    def run(self, cmd: dict, key=None) -> list:
        """Decide `cmd` and append its events. `key`: the acting player's private key (play by
        email: the command is recorded as that side's, `by`)."""
        w = _writer()  # only a command decides: the reads skip every handler and cattrs
        decide_all, unstructure = w.decide_all, w.unstructure

        # A Ledger that ran the last command itself (a script, the demo, a long-lived process) goes
        # on from the state that command left while the file's head is still that command's seq and
        # hash: no other writer came in between, so it is the state the log folds to. It is folded
        # forward in place below, so it is kept again only once the append is in.
        try:  # the command is stored with its events: a value JSON cannot hold is bad input, not a crash
            orjson.dumps(cmd)
        except TypeError as e:
            raise BadInput(f"a value given cannot be recorded ({e})") from None
        cmd = {k: v for k, v in cmd.items() if k != "ledger_dice"}  # the ledger's own (ruling R31)
        if key is not None and self._key_src is None:  # the acting player's view: his own seals open
            self._key_src, self._opener, self._kept = key, None, None
        kept, self._kept = self._kept, None
        head = self.store.head()
        st = kept[2] if kept is not None and head == kept[:2] else self.state(lazy=True)
        head_seq = head[0]
        if st.seq != head_seq:
            st = self.state(use_snapshot=False)
        if st.pbem is not None:
            given, cmd = cmd, _by_key(st, cmd, key)
            answers = cmd.get("name") not in pbem.OWN + ("undo",) or cmd.get("name") == "confirm"  # does what `next` does
            if answers and pbem.unanswered(st, cmd["by"]):
                # ruling R84: the other side's dice answered first (no choice of his), unless the command
                # is refused even then: a refused command writes nothing (decided first on a copy)
                self._after_answers(st, cmd, head_seq, key)
                made = self.answer(key)
                return made + self.run(given, key)
            if cmd.get("name") in ("next", "confirm") and seal.owes_attack_seal(st, cmd["by"]):
                prop = st.pbem.proposal
                if cmd["name"] == "next" or (prop and prop.command.get("name") == "next"):
                    # 2.3 left: this side's sealed Attack Option choice first, yes or no as its own view has it
                    # (its `attack`, a sealed purchase): always here, whatever order it typed (ruling R109)
                    answer = "yes" if st.sides[cmd["by"]].attack else "no"
                    announce = {"name": "attack", "side": cmd["by"], "announce": answer}
                    self._after_announce(st, announce, cmd, head_seq)  # a refused `next` writes no choice either
                    made = self.run(announce, key)
                    return made + self.run(given, key)

        if st.pbem is not None and cmd.get("name") == "next" and st.step == StepId.SETUP and "setups" not in cmd:
            cmd = {**cmd, "setups": True}  # ruling R110: leaves 2.6 once both sides said they set up (a log of before: provisional)
        if st.pbem is not None and cmd.get("name") == "fortify" and st.step == StepId.PURCHASE and "mines_at_setup" not in cmd:
            cmd = {**cmd, "mines_at_setup": True}  # ruling R112: a mine's hex waits for 2.6 (a log of before: taken)
        if st.pbem is not None and cmd.get("name") in ("next", "confirm") and "own_rolls" not in cmd:
            cmd = {**cmd, "own_rolls": True}  # ruling R111: left once the side's own rolls are decided (a log of before: not asked)
        if st.pbem is not None and cmd.get("name") == "next" and "their_results" not in cmd:
            cmd = {**cmd, "their_results": True}  # ruling R127: waits for the other side's result (a log of before: not)
        if st.pbem is not None and cmd.get("name") in ("next", "confirm") and st.step in (StepId.CP, StepId.PURCHASE) \
                and "sealed_rolls" not in cmd:
            cmd = {**cmd, "sealed_rolls": True}  # rulings R119, R120: left with sealed rolls answered (a log of before: not)
        history = self._history(head_seq)
        try:
            # decide records the OS dice it rolled in cmd["ledger_dice"] (ruling R31): stored below
            events = decide_all(st, cmd, head_seq + 1, history)  # the state carries its view (st.view)
        except snapshot.SnapshotDamaged:  # the snapshot's settled part fails its digest: fold the log
            st = self.state(use_snapshot=False)
            events = decide_all(st, cmd, head_seq + 1, history)
        if st.pbem is not None and key is not None:
            # ruling R71: the confirmation of a step left provisionally stays outside the seal (cg/commands/base.py)
            lead = events[:1] if events and events[0].TYPE == "fact_confirmed" and pbem_provisional(st) else []
            what = seal.secret(st, cmd, events[len(lead):])
            if what is not None:  # ruling R47: sealed; its opening encrypted to the side's own key

                events, at = events[len(lead):], head_seq + 1 + len(lead)
                self.sealed_events = {**(self.sealed_events or {}), at: [(e.TYPE, unstructure(e)) for e in events]}
                cmd, opening = seal.make(key, cmd["by"], what, cmd, events, unstructure)
                self.opener().add(cmd["commitment"], opening)
                events = [*lead, ev.Sealed(side=cmd["by"], what=what, at=at, commitment=cmd["commitment"],
                                        nonce=cmd["nonce"], box=cmd["box"], opens=cmd.get("opens"),
                                        closes=cmd.get("closes"), hex=cmd.get("hex"))]
        new = [NewEvent(type=e.TYPE, version=e.VERSION, payload=unstructure(e), firefight=st.firefight,
                        step=st.step) for e in events]
        before = None  # the snapshot of the state before the command, stored at head_seq (issue 28)
        if any(n.type == "reverted" for n in new):
            st = self._refold(head_seq, new, undo=True)
            tail = st._tail  # folded on from the snapshot: rows since it; None: from the log
            refresh = tail is None or tail + len(new) >= SNAPSHOT_EVERY  # a run of undos folds on from it
        else:
            tail = getattr(st, "_tail", None)
            refresh = tail is None or tail + len(new) >= SNAPSHOT_EVERY
            try:
                if refresh and not seal.opened_secrets(st):
                    # the state before the command is the one stored: an undo of it folds on from there
                    before = snapshot.dump_split(st, self.store.cold_token())
                for i, n in enumerate(new):
                    evolve(st, n.type, n.payload, head_seq + 1 + i, head_seq + 1)
            except snapshot.SnapshotDamaged:  # a fold handler loaded an edited settled part: fold the log
                st, before, refresh = self._refold(head_seq, new), None, True
            if st.pbem is not None and st.pbem.stale:  # a reveal of a seal this view had not opened
                st, before, refresh = self._refold(head_seq, new), None, True
        # a state with the player's own seals open is his alone: never stored (issue 25 item 13)
        snap: Callable[[int, str], SnapshotBlob | None] | None
        if before is not None:
            snap = lambda _seq, _h: before  # noqa: E731
        else:
            snap = (lambda _seq, _h: snapshot.dump_split(st, self.store.cold_token())) \
                if refresh and not seal.opened_secrets(st) else None
        stored = self.store.append(head_seq, new, command=cmd, snapshot=snap, snapshot_before=before is not None)
        self.state_after = st  # the state after the command, until this Ledger's next run folds on from it
        if stored:
            st._tail = len(stored) if before is not None else 0 if snap is not None else (st._tail or 0) + len(stored)
            self._kept = (stored[-1].seq, stored[-1].hash, st)
        return stored

    def _history(self, head_seq: int):
        """undo's history: (seq, batch, type) of the rows read backward as far as it goes, and what is undone."""
        return lambda: (self.store.backward(head_seq), reverted_seqs(self.store.reverts(until=head_seq)))

    def _refold(self, head_seq: int, new: list, undo: bool = False) -> CampaignState:
        """The state after `new` (not yet stored) follow the log's `head_seq` rows. An undo changes what
        is in force: where everything it changes lies after the stored snapshot (an undo of the last
        commands, the usual one), the snapshot is folded on with the new reverts, so the undo costs
        what a write costs; else the log is folded again, once, through the chunked reader. (Round three
        took this out when the explorer found states after an undo that differed from a replay: the
        3.211 Isolated mark cleared at a firefight's end on settled units, which a state folded on from
        the snapshot did not load and the next snapshot did not write; cg/evolve.py `_ended` now does.)"""
        extra = [(head_seq + 1 + i, head_seq + 1, n.type, n.payload) for i, n in enumerate(new)]
        reverted = reverted_seqs(self.store.reverts(until=head_seq) + [r for r in extra if r[2] == "reverted"])
        st = self._from_snapshot(head_seq, reverted) if undo else None  # a reveal made stale: the log
        if st is not None:
            return fold(extra, st, reverted)
        try:
            chunks, common, _last = self.store.fold_chunks(VERSIONS, until=head_seq)
            with gc_paused():
                st = fold_stored(chunks, common, reverted, VERSIONS, upcast, view=self.opener())
        except sqlite3.DatabaseError as e:
            raise BadInput(f"cannot read {self.path}: {e}") from None
        return fold(extra, st, reverted)

    def _from_snapshot(self, head_seq: int, reverted: set[int]):
        """The state at `head_seq` with `reverted` in force, from the stored snapshot and the rows after
        it, where every seq whose force differs from what the snapshot was folded with (the reverts up to
        its own seq: a received bundle's undo leaves an older snapshot in place) lies after it; else None."""
        snap = self.store.snapshot()
        if snap is None:
            return None
        seq, h, blob = snap
        if seq > head_seq or self.store.hash_at(seq) != h:
            return None
        changed = reverted ^ reverted_seqs(self.store.reverts(until=seq))
        if changed and min(changed) <= seq:
            return None
        st = snapshot.load(blob, self._card(), self._cold_part, view=self.opener())  # lazy, as a command's
        if st is None or st.pbem is not None and st.pbem.seals and not self._view_ok(st):
            return None  # another release's, or sealed secrets opened for another view (R47): fold the log
        try:
            st = fold(self.records(since=seq, until=head_seq), st, reverted)
        except snapshot.SnapshotDamaged:  # its settled part was edited: fold the log
            return None
        st._tail = head_seq - seq
        if st.pbem is not None and (st.pbem.seals or st.pbem.stale) and not self._view_ok(st):
            return None  # a reveal since the snapshot of a seal this view had not opened (R47): fold the log
        return st

    # play by email (cg/pbem.py, events/bundle.py)
    def _player(self, key):
        st = self.state(lazy=True)
        if st.pbem is None:
            raise Refused("this campaign was not started with the players' keys (plcg new ... --axis-key PUB"
                          " --allied-key PUB)", "pbem", st.step)
        if key is None:
            raise Refused("play by email needs the acting player's key (--key FILE or $PLCG_KEY)", "pbem", st.step)
        by = pbem.side_of_key(st.pbem, key)
        if by is None:
            raise Refused("the key given is neither side's key of this campaign", "pbem", st.step)
        return st, by

    def sign(self, key) -> list:
        """Before a bundle: answer the other side's open two-party dice, then sign the head (unless
        this side's signature is the head already). The stored events appended."""
        st, by = self._player(key)
        out = []
        if any(not pbem.deferred(st, r) for _, r in pbem.open_requests(st, side=by, answered=True)):  # ruling R67: a signature over an answer not
            out += self.reveal(key)  # revealed withholds it; the ledger reveals first
            st = self.state(lazy=True)
        out += self.answer(key)
        st = self.state(lazy=True) if out else st
        if pbem.needs_chain(st, by):  # ruling R83: the answers to the other side's next rolls, fixed now
            nonce = pbem.new_nonce()
            out += self.run({"name": "chain", "nonce": nonce, "length": pbem.CHAIN_LENGTH,
                             "anchor": pbem.chain_anchor(key, nonce)}, key)
        seq, h = self.store.head()
        last = next(iter(self.store.read(since=seq - 1)), None)
        if last is None or last.type != "head_signed" or last.payload.get("side") != by:
            try:
                out += self.run({"name": "sign", "seq": seq, "hash": h, "sig": pbem.sign_head(key, seq, h)}, key)
            except Refused:
                now = self.store.head()
                if now != (seq, h):  # another command came in while the head was signed: a race (issue 37 F4)
                    raise WriteConflict(f"another writer appended first (seq {now[0]}); run the command again"
                                        ) from None
                raise
        return out

    def _after_answers(self, st, cmd: dict, head_seq: int, key) -> None:
        """Decide `cmd` on a copy of the state after this side's answers to the other side's open dice
        (ruling R84); raises what it would (nothing is written)."""
        w = _writer()
        scratch, seq = st.copy(), head_seq
        for commit, r in pbem.due(st):  # ruling R121: the rolls committed ahead of this step, decided here first
            seq += len(w.decided_into(scratch, {"name": "reveal", "request": commit, "value": r.value, "by": cmd["by"]},
                                      seq + 1))
        for commit, r in pbem.open_requests(st, answered=False):
            if r.side != cmd["by"]:
                seq += len(w.decided_into(scratch, {"name": "answer", "request": commit,
                                                    "value": pbem.answer_to(key, st, r), "by": cmd["by"]}, seq + 1))
        w.decide_all(scratch, dict(cmd), seq + 1, self._history(head_seq))

    def _after_announce(self, st, announce: dict, cmd: dict, head_seq: int) -> None:
        """Decide `cmd` (the side's `next` or `confirm` leaving 2.3) on a copy of the state after its sealed
        Attack Option choice (ruling R109); raises what it would, so that a refused leave writes nothing."""
        w = _writer()
        scratch, by = st.copy(), cmd["by"]
        events = w.decided_into(scratch, {**announce, "by": by}, head_seq + 1)
        scratch.pbem.seals = {**scratch.pbem.seals,
                              "scratch": Seal(by, "attack", st.firefight, st.step, head_seq + 1, "", "", True, None, None)}
        w.decide_all(scratch, dict(cmd), head_seq + 1 + len(events), self._history(head_seq))

    def answer(self, key) -> list:
        """Answer the other side's open two-party dice (its bundle's `sign` does; `sync` does it as soon as
        the bundle is taken in, so that a roll from a chain is decided before the player acts, ruling R83)."""
        st, by = self._player(key)
        out = []
        for commit, r in pbem.due(st):  # ruling R121: the rolls committed ahead of this step, decided here first
            out += self.run({"name": "reveal", "request": commit, "value": r.value}, key)
        for commit, r in pbem.open_requests(st, answered=False):
            if r.side != by:  # ruling R83: from this side's chain, where the roll named a place of it
                out += self.run({"name": "answer", "request": commit, "value": pbem.answer_to(key, st, r)}, key)
        return out

    def reveal(self, key) -> list:
        """Reveal every answered two-party dice commitment of the key's side, in the order made."""
        st, by = self._player(key)
        owed = [(c, r) for c, r in pbem.open_requests(st, side=by, answered=True) if not pbem.deferred(st, r)]
        if any(r.sealed_at not in (None, st.step) for _, r in owed) and seal.owed(st, by) is not None:
            # ruling R119: a 2.3 roll revealed after 2.3 was left: its seals first (the other copy then holds
            # its command), then its dice
            return self._unseal(st, by, key) + self.reveal(key)
        if not owed:
            point = seal.owed(st, by)
            if point is not None:  # ruling R47: what the rules reveal here of its sealed secrets
                return self._unseal(st, by, key)
            waiting = pbem.open_requests(st, side=by, answered=False)
            raise Refused(f"{by} has nothing to reveal: no answered two-party dice, no sealed secret the rules"
                          " reveal here"
                          + (f" ({len(waiting)} two-party dice await the other side's answer)" if waiting else ""),
                          "pbem", st.step)
        out = []
        for commit, r in owed:
            # its own roll: the nonce it committed with (a seal of its own is opened by its key)
            out += self.run({"name": "reveal", "request": commit, "value": pbem.commit_value(key, cast(str, r.nonce))}, key)
        return out

    def _unseal(self, st, by: str, key) -> list:
        """Ruling R47: `by` reveals what the rules reveal here of its sealed secrets (seal.owed names the point)."""
        point = cast(str, seal.owed(st, by))  # both callers found it set
        op = self.opener()
        seals = st.pbem.seals
        cs = seal.due(st, by, point, lambda c: op(c, seals[c].nonce, seals[c].box))
        openings = [{"commitment": c, "opening": op(c, seals[c].nonce, seals[c].box)} for c in cs]
        if any(o["opening"] is None for o in openings):
            raise Refused(f"{by}'s key does not open its own seals: not the key that sealed them", "pbem", st.step)
        return self.run({"name": "unseal", "point": point, "openings": openings}, key)

    def acknowledged(self, key) -> int:
        """The seq the other side's copy is known to hold (issue 26): the row of its last signature
        (a side signs the head of its own copy, and its signature is the next row); 0 before any."""
        st, by = self._player(key)
        h = st.pbem.signed["allied" if by == "axis" else "axis"]
        return 0 if h is None else min(h[0] + 1, self.store.head()[0])

    def claim(self, key) -> list:
        """Ruling R67: claim every two-party roll the other side withheld (decided from this side's answer)."""
        st, by = self._player(key)
        owed = pbem.claimable(st, by)
        if not owed:
            raise Refused(f"{by} has nothing to claim: the other side has withheld no two-party dice (it signs"
                          " a head after the answer without revealing)", "pbem", st.step)
        out = []
        for commit, _r in owed:
            out += self.run({"name": "claim", "request": commit, "sig": pbem.sign_claim(key, commit)}, key)
        return out

    def bundle_rows(self, since: int) -> tuple[list, str]:
        """The rows after `since` and the hash of row 1 (the campaign's name in a bundle)."""
        head = self.store.head()[0]
        if not 0 <= since <= head:
            raise BadInput(f"--since {since}: the log holds seqs 1 to {head}")
        return rows_after(self.store, since), cast(str, self.store.hash_at(1))  # row 1: the campaign bundled is started

    def close(self):
        self.store.close()


_FOLD = ("seq", "batch", "type", "version", "payload")  # what folding needs of a row, no more


def rows_after(store, since: int, until: int | None = None) -> list[tuple]:
    """The rows with since < seq <= until as stored, every column (a bundle's, a copy joined again)."""
    return [r for chunk in store.read_rows(since, until) for r in chunk]


def pbem_provisional(st):
    return pbem.provisional(st)


def _by_key(st, cmd: dict, key) -> dict:
    """A keyed campaign's command as its acting side's (`by`, from the private key); a rolling
    command under two-party dice gets its commitment (cg/pbem.py)."""
    if key is None:
        raise Refused("a campaign played by email takes each command with the acting player's key"
                      " (--key FILE or $PLCG_KEY)", "pbem", st.step)
    by = pbem.side_of_key(st.pbem, key)
    if by is None:
        raise Refused("the key given is neither side's key of this campaign", "pbem", st.step)
    cmd = {**cmd, "by": by}
    if pbem.two_party(st) and cmd.get("name") not in ("sign", "answer", "reveal", "reject", "claim", "chain"):
        nonce = pbem.new_nonce()
        value = pbem.commit_value(key, nonce)
        cmd["nonce"], cmd["commit"] = nonce, pbem.commitment(value)
        chain = pbem.chain_of(st, pbem.other(by)) if pbem.chained(st, cmd) else None  # live when chained
        if chain is not None:  # ruling R83: the value shown, decided by the other side's next answer
            cmd["value"], cmd["chain"] = value, chain.next
    return cmd
