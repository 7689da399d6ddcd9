"""`plcg audit`: walk the log and report every finding with its seq and rule.

1. The hash chain (events/chain.py, as Store.verify_chain): edited, deleted or reordered rows.
2. Every recorded command is decided again (cg.commands.decide) against the history as recorded
   before it, with the same seeded roller position. The events it gives must be the events stored.
   Where they differ the finding says why: dice out of range, dice that are not the seeded roller's,
   a final that does not follow from dice and DRM, a DRM list that differs from what the history
   implies, a result that does not follow from the table row, any other recorded value the rules
   give differently (a cost, a limit); a command the rules or the step order refuse is a finding
   with that rule.
3. Undos are notes, not findings: each with its reason and what it took back, and every roll of
   the same kind made again after it ("undo until the dice are kind" stays visible).
The stored snapshot is never read; the chain check (1.) takes only its seq and hash, as evidence of
deleted rows.

One pass reads the rows: each is checked in the chain and parsed once. A command whose events come
out byte for byte as stored has nothing to explain; only the others are compared in detail.
"""
from __future__ import annotations

import bisect
import functools
import typing
from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

import attrs
import orjson

from cg import seal, snapshot
from cg.bulk import gc_paused
from cg.caches import current
from cg.commands import decide, decide_all
from cg.commands.base import LeaveCheck
from events.errors import UNFOLDABLE, BadInput, Refused, UnreadableRow, unknown_row
from events.roll import Roll
from events.stored import build
from cg.evolve import evolve, fold, reverted_seqs, start
from events.chain import ChainCheck
from events.codec import canonical, loads
from events.convert import converter, unstructure
from events.types import AUDIT_RULE, REGISTRY
from events.store import COLUMNS, COPIED_AFTER_KILL
from events.upcasters import upcast

if TYPE_CHECKING:  # the folds the audit keeps; cg.state is loaded by the fold itself
    from cg.state import CampaignState



def _norm(x):
    return orjson.loads(orjson.dumps(x))


# A row of the log as the audit keeps it: the columns it needs, payload and command parsed, and the
# payload's stored text (tuples: there are a hundred thousand of them)
SEQ, BATCH, TYPE, VERSION, FIREFIGHT, STEP, PAYLOAD, COMMAND, TEXT = range(9)


def run_audit(ledger, witnesses=()) -> dict:
    """The findings and notes; `witnesses`: (seq, hash prefix) pairs noted earlier (`plcg head`)."""
    # The audit keeps a long campaign's state alive and makes next to no reference cycles: the cyclic
    # collector, triggered by the allocations, would only walk it again and again.
    folded: dict = {}
    report = audit_store(ledger.store, witnesses, folded)
    # not where the log itself does not fold, nor where the reverts index the replay reads failed the check
    if not any(f["rule"] in ("format", "integrity") for f in report["findings"]):
        _snapshot_against_replay(ledger, report["findings"], folded)
    report["findings"].sort(key=lambda f: (f["seq"], f["rule"]))
    return report


def audit_store(store, witnesses=(), folded: dict | None = None) -> dict:
    """The audit of an open store (`plcg receive` audits a new copy made from a bundle this way
    before it takes its place). `folded`: given, it gets {seq: state} of the states the audit folded the log
    to at the stored snapshot's seq and at the end (each as a replay up to that seq gives it)."""
    damaged = _integrity(store)
    with gc_paused():
        report = _audit(store, trust_index=not damaged, folded=folded)
    report["findings"] += damaged
    for seq, prefix in witnesses:
        _witness(store, report["findings"], seq, prefix)
    report["findings"].sort(key=lambda f: (f["seq"], f["rule"]))
    return report


def _integrity(store) -> list[dict]:
    """SQLite's own check of the file (PRAGMA integrity_check): every page, and every index against
    its table. An index edited below the schema (its SQL text unchanged, its entries not the table's:
    the reverts index losing its undos) is a finding, and the audit takes nothing from an index that
    failed it (issue 25)."""
    try:
        said = store.integrity_check(20)
    except Exception as e:  # sqlite3.DatabaseError: a file too damaged to check
        said = [f"the check itself failed: {e}"]
    if said == ["ok"]:
        return []
    return [{"seq": 0, "rule": "integrity", "what": f"SQLite's integrity check of the file: {line} (the file was"
             " changed below its schema, by another tool; plcg export/import from a good copy)"} for line in said]


def _snapshot_against_replay(ledger, findings, folded: dict | None = None) -> None:
    """The stored snapshot (derived data: what `status` and every command start from) against a fold
    of the log alone up to its seq (issue 25). A snapshot the readers would ignore anyway (another
    release's fold code, a failed digest, its seq no longer the log's, opened for another player's
    view) is not compared; one they would load and that differs from the replay is a finding naming
    what differs: a forgery with its digest recomputed."""
    snap = ledger.store.snapshot()
    if snap is None:
        return
    seq, h, blob = snap
    if ledger.store.hash_at(seq) != h:
        return
    # the reader's view reads the log's reveals as the audit's did: one copy of them, not two (every
    # opening of a long campaign by email: about 7 MB at 100k, issue 36)
    view = next((s.view for s in (folded or {}).values() if s.view is not None), None)
    if view is not None and ledger._opener is None:
        ledger._opener = seal.Opener(view.revealed, ledger.viewer_key)
    try:
        stored = snapshot.load(blob, ledger._card(), ledger._cold_part, view=ledger.opener())
        if stored is None:
            return
        try:
            stored.load_all()
        except snapshot.SnapshotDamaged:
            return
        if stored.pbem is not None and stored.pbem.seals and not ledger._view_ok(stored):
            return
        # the audit folded every row in force already: where that state is the one at the snapshot's seq
        # (the usual case: the snapshot at the head), the log is not folded a second time (issue 28). The
        # audit's view opens what the log reveals, the reader's also what his key does: the two folds are
        # the same where the reader's view opens exactly the seals the audit's did. A seal the log reveals
        # is open in both (the reveal leaves the state); one folded shut then revealed marks the state
        # stale; the rest, the seals not revealed yet, are the state's own index of them (pbem.seals), each
        # asked whether the reader's key opens it (Ledger._view_ok, as for a stored snapshot: issue 36)
        at = (folded or {}).get(seq)
        same = at is not None and at.seq == seq and (at.pbem is None or ledger._view_ok(at))
        replayed = at if same and at is not None else ledger.state(at=seq, use_snapshot=False)  # same: at is set
        a, b = snapshot.state_data(stored), snapshot.state_data(replayed)
    except (*UNFOLDABLE, BadInput, UnreadableRow):  # a log that does not fold: the audit found it already
        return
    if a == b:
        return
    what = []
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k), b.get(k)
        if x == y:
            continue
        if k == "sides" and isinstance(x, dict) and isinstance(y, dict):
            for side in sorted(set(x) | set(y)):
                sx, sy = x.get(side) or {}, y.get(side) or {}
                what += [f"{side} {f} {_short(sx.get(f))} (the log gives {_short(sy.get(f))})"
                         for f in sorted(set(sx) | set(sy)) if sx.get(f) != sy.get(f)]
        else:
            what.append(f"{k} differs")
    findings.append({"seq": seq, "rule": "snapshot", "what": "the stored snapshot is not the replay of the log: "
                     + "; ".join(what[:8]) + (" ..." if len(what) > 8 else "")
                     + " (status and every command would start from it; plcg replay rebuilds it)"})


def _witness(store, findings, seq: int, prefix: str) -> None:
    """A witness noted or posted earlier: the log must still hold row SEQ with that hash (ruling R42)."""
    h = store.hash_at(seq)
    if h is None:
        head = store.head()[0]
        findings.append({"seq": seq, "rule": "witness", "what": f"witness {seq}:{prefix}: the log no longer holds"
                         f" seq {seq} (it ends at seq {head}): cut after the witness was taken"})
    elif not (isinstance(h, str) and h.startswith(prefix.lower())):
        findings.append({"seq": seq, "rule": "witness", "what": f"witness {seq}:{prefix}: row {seq} now has hash"
                         f" {str(h)[:16]}: the log was rewritten at or before seq {seq}"})


class _Dice:
    """Who made the dice (ruling R31): the campaign's roller, its policy, and every roll and every roll
    made again after an undo, counted per source and side."""

    def __init__(self):
        self.first = None  # the campaign_started event (an instance, _event)
        self.rolls: dict = {}
        self.again: dict = {}

    def add(self, event, again: bool = False) -> None:
        """The rolls of an event (_event; again: as made again after an undo)."""
        counts = self.again if again else self.rolls
        side = _side(event)
        side = side if side in ("axis", "allied") else "both"
        for roll in _rolls_of(event):
            src = _source(roll)
            counts.setdefault(src, {}).setdefault(side, 0)
            counts[src][side] += 1

    def report(self) -> dict:
        first = self.first
        # a campaign started before the key was recorded was seeded
        mode = (first.dice if first is not None else None) or "seeded"
        pbem = first.pbem if first is not None else None  # play by email's keys and policy: a dict by the schema
        return {"roller": mode, "shown": "seeded (predictable)" if mode == "seeded" else "ledger (unforeseeable)",
                "policy": (pbem.get("dice_policy") if isinstance(pbem, dict) else None)
                or (first.dice_policy if first is not None else None) or "any",
                "rolls": self.rolls, "rerolls": self.again}


class _Reader:
    """One pass over the file's rows, in rowid order: the hash chain checked (each problem found with
    its seq), payload and command parsed, handed out a batch at a time (`batches`); nothing is kept
    but the current batch. Also the first unreadable row: a payload or command that is not JSON ends
    the batches (the commands from its batch on cannot be decided again); `drain` reads the rest for
    the chain and the count of rows. `findings` holds what the read found, in the order found."""

    def __init__(self, store):
        self.store = store
        self.check = ChainCheck.of(store)  # the stored snapshot's (seq, hash) only as evidence of deleted rows
        self.rows = self._readable(store)
        self.unreadable = None
        self.total = 0
        self.findings: list[tuple] = []
        self.prev = (0, None)  # the row before: a head_signed row must sign exactly it (play by email)
        self.signed_before: dict = {}  # seq of a head_signed row -> (seq, hash) of the row before it
        self.names: dict = {}  # each event type and step name as first read

    def _readable(self, store):
        """The rows, chunked as the replay reads them; a row SQLite cannot give as text (not UTF-8)
        ends them with a finding naming it."""
        try:
            for chunk in store.read_rows(columns=COLUMNS, chunk=AUDIT_CHUNK):
                yield from chunk
        except UnreadableRow as e:
            if self.unreadable is None:
                self.unreadable = e.seq
            self.findings.append((e.seq, "format", f"{e}; no row from here on can be read"))

    def _next(self):
        """The next readable row as the audit keeps it, or None at the end or at the first unreadable."""
        for row in self.rows:
            self.total += 1
            seq, batch, etype, version, ff, step, text, _recorded, command, _link, _hash = row
            if etype == "head_signed":
                self.signed_before[seq] = self.prev
            self.prev = (seq, _hash)
            try:
                p = loads(text)
                c = None if command is None else loads(command)
            except (TypeError, ValueError):  # the chain check reports the row
                self.check.row(row)
                self.unreadable = batch if type(batch) is int else seq
                self.findings.append((seq, "format", f"row {seq}'s payload or command is not JSON: no command from"
                                                     " here on can be decided again"))
                return None
            self.check.row(row, (p, c))
            # one string per type and step name, not one per row: _Seen keeps every row's type (issue 36)
            names = self.names
            etype = names.setdefault(etype, etype)
            step = names.setdefault(step, step)
            return (seq, batch, etype, version, ff, step, p, c, text)
        return None

    def batches(self):
        """Each batch (its rows, consecutive rows of one batch) as soon as it is whole."""
        cur: list = []
        while True:
            r = self._next()
            if r is None:
                break
            if cur and cur[0][BATCH] == r[BATCH]:
                cur.append(r)
                continue
            if cur:
                yield cur
            cur = [r]
        # rows of the unreadable row's batch read before it are not decided (nor are any after it)
        if cur and (self.unreadable is None or (type(cur[0][BATCH]) is int and cur[0][BATCH] < self.unreadable)):
            yield cur

    def close(self) -> None:
        """Let go of the cursor (an audit stopped by an error leaves the read half done)."""
        self.rows.close()

    def drain(self) -> None:
        """The rows not read yet: the chain checked, the rows counted, nothing decided."""
        for row in self.rows:
            self.total += 1
            seq, *_rest = row
            try:
                parsed = (loads(row[6]), None if row[8] is None else loads(row[8]))
            except (TypeError, ValueError):
                parsed = None
                if self.unreadable is None:
                    self.unreadable = row[1] if type(row[1]) is int else seq
                    self.findings.append((seq, "format", f"row {seq}'s payload or command is not JSON: no command"
                                                         " from here on can be decided again"))
            if parsed is None:
                self.check.row(row)
            else:
                self.check.row(row, parsed)
        for seq, problem in self.check.finish():
            self.findings.append((seq, "chain", problem))


# What folding or deciding an event that does not follow its schema raises (a missing key, a wrong
# type, a hex off the map, a unit that is not there): a finding, never a crash of the audit.


class _Held(list):
    """(seq, batch, type, payload) of every row, as audit_tail holds a copy's history."""

    def chained_after(self, since: int) -> list[tuple[int, str | None]]:
        """As events.store.Backward.chained_after: what the other side may not take back (R71, R83)."""
        committed = ((r[0], _event("dice_committed", r[0], r[3], strict=False)) for r in self
                     if r[0] > since and r[2] == "dice_committed")  # None: a row its class cannot hold
        return [(seq, e.side) for seq, e in committed if e is not None and e.chain is not None]


class _Seen:
    """(seq, batch, type) of every row folded so far, in seq order: the history undos are decided on
    (cg.commands.undo walks it back from the end). Only these three columns: the payloads are read
    again from the file for the few folds and notes of an undo that need them."""

    def __init__(self):
        self.seqs: list[int] = []
        self.heads: list[int] = []  # the seq of the first row of each row's batch
        self.rows: list[tuple] = []
        self.chained: list[tuple[int, str | None]] = []  # (seq, side) of the two-party rolls committed with a chain place (R83)

    def add(self, seq, batch, etype, head, event=None) -> None:
        """`event`: the row's instance where it is a dice_committed (_event), else None."""
        self.seqs.append(seq)
        self.heads.append(head)
        self.rows.append((seq, batch, etype))
        if event is not None and event.chain is not None:
            self.chained.append((seq, event.side))

    def chained_after(self, since: int) -> list[tuple[int, str | None]]:
        """As events.store.Backward.chained_after: what the other side may not take back (R71, R83)."""
        return self.chained[bisect.bisect_right(self.chained, (since, "\uffff")):]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]

    def __iter__(self):
        return iter(self.rows)

    def __reversed__(self):
        return reversed(self.rows)

    def __contains__(self, seq) -> bool:
        i = bisect.bisect_left(self.seqs, seq)
        return i < len(self.seqs) and self.seqs[i] == seq

    def head_of(self, seq) -> int:
        return self.heads[bisect.bisect_left(self.seqs, seq)]


AUDIT_CHUNK = 1024  # rows per chunk of the audit's pass
_RAW = ("seq", "batch", "type", "version", "payload")  # a row as the undos' folds read it again


def _records(store, current, seqs=None, since=None, until=None, seen=None):
    """(seq, batch, type, payload at its current version) read again from the file: the rows with
    since < seq <= until that `seen` holds (in seq order), or those of `seqs` (in its order; seqs
    not in the file left out)."""
    if seqs is not None:
        got = {r[0]: r for r in store.rows_of(seqs)}
        rows: Iterable[tuple] = [got[x] for x in seqs if x in got]
    else:
        rows = (r for chunk in store.read_rows(since, until, _RAW) for r in chunk if r[0] in seen)
    for seq, b, t, v, text in rows:
        p = loads(text)
        yield (seq, b, t, p if current.get(t) == v else upcast(t, v, p))


def _checkpoints(store, current) -> tuple[set, dict]:
    """Where to keep a copy of the state for the undos, known before the pass from the reverts alone
    (an indexed query): the first batch each revert reaches back to (transitively through reverts of
    reverts), and how many reverts fold on from each. Only where copies are made: the undo itself
    decides where it folds from as it meets it, and folds the whole history where no copy is kept."""
    try:
        reverts = store.reverts()
    except (TypeError, ValueError, BadInput):  # an unreadable revert: the audit finds it; no copies
        return set(), {}
    reach: dict[int, int] = {}
    named = {r[0] for r in reverts}
    events = {seq: _event("reverted", seq, p, strict=False) for seq, _, _, p in reverts}  # None: one it cannot hold
    for rv in events.values():
        took = rv.seqs if rv is not None else None
        if isinstance(took, list):
            named.update(x for x in took if type(x) is int)
    heads: dict[int, int] = {}
    head = prev = None
    for seq, batch in (r for chunk in store.read_rows(columns=("seq", "batch")) for r in chunk):
        if head is None or batch != prev:
            head = seq
        prev = batch
        if seq in named:
            heads[seq] = head
    for seq, _, _, _p in reverts:
        rv = events[seq]
        took = rv.seqs if rv is not None else None
        backs = [reach.get(x, x) for x in cast(list[int], took) if x in heads] if isinstance(took, list) else []
        reach[seq] = min(backs) if backs else seq
    uses: dict[int, int] = {}
    for m in reach.values():
        h = heads.get(m)
        if h is not None:
            uses[h] = uses.get(h, 0) + 1
    return set(uses), uses


def _audit(store, trust_index: bool = True, folded: dict | None = None) -> dict:
    reader = _Reader(store)
    dice = _Dice()
    try:  # sealed secrets open where the log reveals them (ruling R47)
        view = seal.Opener(lambda: seal.log_openings(store))
        report = _audit_rows(store, reader, dice, trust_index, view, folded)
    finally:
        reader.close()
    report["dice"] = dice.report()
    return report


def _audit_rows(store, reader, dice, trust_index: bool = True, view=None, folded: dict | None = None) -> dict:
    """`view`: the seals the audit opens (the log's reveals, ruling R47), given to every state it folds."""
    findings: list[dict] = []
    notes: list[dict] = []

    def find(seq, rule, what):
        findings.append({"seq": seq, "rule": rule, "what": what})

    current = {etype: cls.VERSION for etype, cls in REGISTRY.items()}  # payloads at it need no upcast
    hook = functools.cache(converter.get_unstructure_hook)  # event class -> its unstructure function
    # An undo changes the past: the state after it is the fold of everything in force. Rather than
    # fold the whole log again at each undo, keep a copy of the state just before the first batch
    # each revert reaches back to, and fold on from it (the rows since read again from the file).
    # (only from an index the integrity check passed: else no copies, every undo folds the whole log)
    checkpoints, uses = _checkpoints(store, current) if trust_index else (set(), {})
    copies: dict[int, CampaignState] = {}
    last_signed = _last_signatures(store)
    unsigned: list[tuple] = []  # play by email: (seq, by) of the commands since the last signature
    rolls: dict = {}  # side -> source -> how many rolls

    st = None
    # the stored snapshot's seq: the state folded to it is kept (a copy) for _snapshot_against_replay
    snap_seq = store.snapshot_seq() if folded is not None else None
    seen = _Seen()  # (seq, batch, type) folded so far: the history undos are decided on
    reach: dict[int, int] = {}  # revert seq -> the first seq it reaches back to (through reverts of reverts)
    reverts: list[tuple] = []
    reverted: set[int] = set()
    undone_kinds: dict = {}  # roll key (_roll_key) -> the seqs of the reverts that took back such a roll, in order
    where: dict[int, tuple] = {}  # seq of a roll -> (firefight, step) recorded, for the re-roll notes
    rerolled: set[int] = set()  # seqs of the rolls made again after an undo (counted once each)
    # ruling R45: a `next` proposed, its leave checked, proven still the rules' for its confirmation (_proposed_leave)
    leave: LeaveCheck | None = None
    batch = None
    try:
        for batch in reader.batches():
            head = batch[0]
            hseq, htype = head[SEQ], head[TYPE]
            if hseq in checkpoints and st is not None:
                copies[hseq] = _checkpoint_copy(st)
            kept, leave = leave, None  # it lasts only across signatures (below)
            proposing = None
            # an event type or version this release does not know: a newer plcg wrote it (exit 2, as status)
            # only an event whose class declares a roll (_rolling) and whose text names "dice" holds one: most
            # rows do not (a redeployment without a roll); the rolls are counted and the re-rolls found from
            # those rows' instances (one its class cannot hold: a finding naming it, Unheld)
            if len(batch) == 1:  # most batches: one row, without the comprehensions' calls
                p = head[PAYLOAD] if current.get(htype) == head[VERSION] else _upcast_row(head)
                payloads = [p]
                rolled = [(head, _event(htype, hseq, p))] if (p is not head[PAYLOAD] or type(head[TEXT]) is not str
                                                              or '"dice"' in head[TEXT]) and _rolling(htype) else []
            else:
                payloads = [r[PAYLOAD] if current.get(r[TYPE]) == r[VERSION] else _upcast_row(r)
                            for r in batch]
                rolled = [(r, _event(r[TYPE], r[SEQ], p)) for r, p in zip(batch, payloads)
                          if (p is not r[PAYLOAD] or type(r[TEXT]) is not str or '"dice"' in r[TEXT])
                          and _rolling(r[TYPE])]
            for _r, ev in rolled:
                dice.add(ev)
            if htype == "campaign_started":
                if dice.first is None and isinstance(payloads[0], dict):  # (one it cannot hold: start() says so)
                    dice.first = _event(htype, hseq, payloads[0], strict=False)
                if st is not None:
                    find(hseq, "1.1", "a second campaign_started")
                    continue
                try:
                    st = start(payloads[0], view)
                except BadInput as e:
                    find(hseq, "card", f"the stored CG Card is invalid: {e}")
                    return _finish(reader, findings, notes)
                st.seq = hseq
                seen.add(hseq, head[BATCH], htype, hseq)
                continue
            if st is None:
                find(hseq, "1.1", "events before campaign_started")
                continue
            for r in batch:
                if r[STEP] != st.step or r[FIREFIGHT] != st.firefight:  # (no tuple built per row)
                    find(r[SEQ], "step order", f"recorded at firefight {r[FIREFIGHT]} step {r[STEP]}, but the "
                                               f"campaign stood at firefight {st.firefight} step {st.step}")
                    break
            cmd = head[COMMAND]
            # play by email's signature (ruling R43)
            signed = _event(htype, hseq, payloads[0]) if htype == "head_signed" else None
            if cmd is None:
                find(hseq, "format", "the batch holds no command: it cannot be checked against the rules")
            else:
                try:
                    if cmd.get("name") in ("undo", "confirm", "reject"):  # reject: ruling R71 (its undo)
                        produced = decide_all(st, cmd, hseq, lambda: (seen, reverted), leave=kept)
                    else:
                        if kept is None and st.pbem is not None and cmd.get("name") == "next":
                            proposing = _proposing(st)
                        produced = decide(st, cmd, hseq, covered=signed is not None
                                          and last_signed.get(signed.side) != hseq, leave=kept or proposing)
                except Refused as e:
                    find(hseq, e.rule, f"{cmd.get('name')} refused by the rules: {e}")
                    produced = None
                except BadInput as e:
                    find(hseq, "input", f"{cmd.get('name')}: bad input: {e}")
                    produced = None
                if produced is not None and not _as_stored(batch, payloads, produced, hook):
                    _compare(find, [(r[SEQ], r[TYPE]) for r in batch], payloads,
                             [(e.TYPE, _norm(unstructure(e))) for e in produced])
                    proposing = None
                elif proposing is not None and (produced is None or len(produced) != 1
                                                or produced[0].TYPE != "fact_proposed"):
                    proposing = None
                if st.pbem is not None:  # (a command not signed: the signature after it vouches for it, _authorship)
                    if signed is None:
                        unsigned.append((hseq, cmd.get("by")))
                    else:
                        _authorship(find, unsigned, hseq, cmd, signed, reader.signed_before)
                if rolled:  # (most commands roll nothing: no call, no import statement run for them)
                    _count_rolls(rolls, [e for _r, e in rolled], cmd)
                for r, p in zip(batch, payloads) if htype == "sealed" else ():  # ruling R47: a sealed secret's
                    if r[TYPE] != "sealed":  # rolls count once the log reveals it
                        continue
                    sealed = _event(r[TYPE], r[SEQ], p)
                    o = seal.opening_of(st, sealed.commitment, sealed.nonce, sealed.box)
                    if o is not None:  # (an opening: cg/seal's dict of the sealed command and its events)
                        inner = [_event(t, r[SEQ], q) for t, q in o.get("events") or ()
                                 if _rolling(t) is not None]
                        _count_rolls(rolls, inner, o["command"])
                        for ev in inner:
                            dice.add(ev)
            # fold the history as recorded
            for r, p in zip(batch, payloads):
                seen.add(r[SEQ], r[BATCH], r[TYPE], hseq,
                         _event(r[TYPE], r[SEQ], p) if r[TYPE] == "dice_committed" else None)
            if htype == "reverted" if len(batch) == 1 else any(r[TYPE] == "reverted" for r in batch):
                for r, p in zip(batch, payloads):
                    if r[TYPE] != "reverted":
                        continue
                    rv = _event(r[TYPE], r[SEQ], p)
                    took = rv.seqs  # (stored as a list; an edited row's other value is left out below)
                    backs = [reach.get(x, x) for x in cast(list[int], took) if x in seen] if isinstance(took, list) else []
                    reach[r[SEQ]] = min(backs) if backs else r[SEQ]
                    reverts.append((r[SEQ], r[BATCH], r[TYPE], p))
                    took = list(_records(store, current, seqs=[x for x in rv.seqs if x in seen]))
                    kinds = {_roll_key(e, where.get(s)) for s, e in  # the rolls it took back: their kinds
                             ((s, _event(t, s, q)) for s, _, t, q in took if _rolling(t) is not None)
                             if _roll(e) is not None}
                    what = ", ".join(f"{s} {t}" for s, _, t, _ in took[:8]) + (" ..." if len(took) > 8 else "")
                    notes.append({"seq": r[SEQ], "what": f"undo ({rv.reason}) took back seq {what}"
                                  + (" — forced across a commencement (2.8)" if rv.force else "")})
                    for k in kinds:  # looked up by key: a roll asks once, not once per undo of the campaign
                        undone_kinds.setdefault(k, []).append(r[SEQ])
                reverted = reverted_seqs(reverts)
                back = min(seen.head_of(reach[r[SEQ]]) for r in batch if r[TYPE] == "reverted")
                for r in batch:
                    if r[TYPE] == "reverted":
                        h = seen.head_of(reach[r[SEQ]])
                        if h in uses:
                            uses[h] -= 1
                upto = batch[-1][SEQ]
                if back in copies:
                    base = copies[back] if uses[back] <= 0 else _checkpoint_copy(copies[back])  # the last use takes it
                    if uses[back] <= 0:
                        del copies[back]
                    st = fold(_records(store, current, since=back - 1, until=upto, seen=seen), base,
                              reverted=reverted)
                else:
                    st = fold(_records(store, current, since=0, until=upto, seen=seen), reverted=reverted,
                              view=view)
            else:
                for r, p in zip(batch, payloads):
                    if r[TYPE] in REGISTRY:
                        evolve(st, r[TYPE], p, r[SEQ], r[BATCH])
                if proposing is not None or kept is not None:  # (a campaign by email's only)
                    leave = _proposed_leave(st, batch, proposing, kept)
                for r, ev in rolled:
                    roll = _roll(ev)
                    if roll is not None:  # only a roll's place is ever looked up (issue 36)
                        at = where[r[SEQ]] = (r[FIREFIGHT], r[STEP])
                        key = _roll_key(ev, at)
                        for useq in undone_kinds.get(key, ()):
                            if r[SEQ] not in rerolled:
                                rerolled.add(r[SEQ])
                                dice.add(ev, again=True)
                            who = _side(ev) or "both"
                            notes.append({"seq": r[SEQ], "what": f"{r[TYPE]} of {who} made again after the undo "
                                                                 f"at seq {useq}: {roll.dice}"})
            if folded is not None and batch[-1][SEQ] == snap_seq:  # the state the stored snapshot should hold: kept for its check (snap_seq is None without folded)
                folded[snap_seq] = _checkpoint_copy(st)
    except (*UNFOLDABLE, UnreadableRow) as e:
        # A row edited against its schema (its hash recomputed or not) gets here: its events do not
        # fold, so nothing after them can be decided again. The chain findings stand as found.
        head = cast(list, batch)[0]  # the batch being folded (None only if the first read failed: as before, a TypeError)
        find(head[SEQ], "format", f"{head[TYPE]} at seq {head[SEQ]} cannot be decided again or folded"
                                  f" ({type(e).__name__}: {e}): a row edited against the event schema, or a"
                                  " plcg bug to report; no command from here on can be decided again")
    if st is not None and st.ended and st.pbem is not None and seal.sealing(st):  # ruling R47: the final audit checks everything (sealing: pbem is set)
        for side in ("axis", "allied"):
            left = [c for c, r in st.pbem.seals.items() if r.side == side]
            if left:
                find(st.seq, "reveal", f"{side} has not revealed {len(left)} sealed secret(s) since the CG ended:"
                                       " they cannot be checked until it does (plcg reveal)")
    report = _finish(reader, findings, notes)
    report["rolls"] = rolls
    if folded is not None and st is not None:
        folded.setdefault(st.seq, st)
    return report


def _proposing(st) -> LeaveCheck | None:
    """Ruling R45: where a `next` given now may be proposed and its leave checked on a state the audit can follow
    to the confirmation (no proposal, no step left provisionally, no two-party dice open), the LeaveCheck that
    decide() fills at the check (_proposed_leave)."""
    pb = st.pbem
    if pb is None or pb.proposal is not None or pb.provisional is not None or pb.requests:
        return None
    return LeaveCheck()


def _proposed_leave(st, batch: list, proposing: LeaveCheck | None, kept: LeaveCheck | None) -> LeaveCheck | None:
    """Ruling R45: the leave of a proposed `next` checked on a state that stays the one its confirmation decides it
    on, after this batch (folded), or None. The proof, row by row: the proposal's batch is its one fact_proposed
    row, byte for byte as the check gave it (`proposing`: the audit found it as stored), folded on a state with no
    proposal, no provisional leave and no two-party dice open (_proposing), so its fold set the proposal and
    nothing else (cg/steps/anywhere.py); then only batches of one head_signed row, whose fold sets only the
    signer's last signed head, `pbem.signed` (no dice are open for it to mark withheld); and every row's fold
    sets the state's `seq` (evolve: `last_batch`). The confirmation decides the leave with the proposal set
    aside (cg/commands/pbem.py `_confirm`), so on the state checked but for `seq`, `last_batch` and
    `pbem.signed`: none of which the leave reads (cg/commands/flow.py `_next`, through the step machine, the
    steps' `owes` and `on_leave` and play by email's pending items, reads them nowhere: only the fold reads
    `seq`, the ledger `last_batch`, and `pbem.signed` is read by `sign`, a shared undo and a new chain of
    answers alone). Anything else between (a command, an undo, a row of another type) ends it."""
    pb = st.pbem
    if proposing is not None and proposing.events is not None:
        if pb.proposal is not None and pb.provisional is None and not pb.requests:
            proposing.proven = True
            return proposing
        return None
    if kept is not None and len(batch) == 1 and batch[0][TYPE] == "head_signed" and not pb.requests:
        return kept
    return None


def _last_signatures(store) -> dict:
    """side -> seq of its last head_signed row. Only these signatures are checked with the key: a
    side's last signature signs the chain head, so it vouches for every row before it, its own
    earlier signatures with them (ruling R43); an earlier signature edited changes that chain."""
    out: dict = {}
    for seq, text in store.payloads_of("head_signed"):  # (before the pass: a row it cannot read is left to it)
        try:
            signed = _event("head_signed", seq, loads(text), strict=False)
        except (TypeError, ValueError):
            continue
        if signed is not None and isinstance(signed.side, str):
            out[signed.side] = seq
    return out


def _count_rolls(rolls: dict, events: list, cmd) -> None:
    """How many rolls each side made from each source (ledger, typed, two-party): the audit's `rolls`."""
    for e in events:
        side = _side(e)
        side = side if isinstance(side, str) else "both"
        for r in _rolls_of(e):
            by = rolls.setdefault(side, {})
            src = _source(r, cmd if isinstance(cmd, dict) else {})
            by[src] = by.get(src, 0) + 1


def _authorship(find, unsigned: list, seq: int, cmd: dict, signed, signed_before: dict) -> None:
    """Play by email (ruling R43): a signature (`signed`: the head_signed event, None for any other command)
    vouches for the commands since the one before it, which must all be its signer's; and it signs the very
    row before it."""
    if signed is None:
        unsigned.append((seq, cmd.get("by")))
        return
    side = signed.side
    for s, by in unsigned:
        if by != side:
            find(s, "pbem", f"a command of {by} under {side}'s signature at seq {seq}: each side signs its own")
    unsigned.clear()
    before = signed_before.get(seq)
    if before is not None and [signed.seq, signed.hash] != list(before):
        find(seq, "pbem", f"{side}'s signature is over row {signed.seq} {str(signed.hash)[:16]},"
                          f" not the row before it ({before[0]} {str(before[1])[:16]})")


def _checkpoint_copy(st):
    """A copy of the state for folding on from after an undo. The units out of play since an earlier
    firefight never change again (cg/snapshot.settled, what the snapshot's cold part holds): the copy
    shares them instead of cloning, so a copy costs the units in play, not every unit ever bought."""
    return st.copy(share="settled")


def _finish(reader, findings, notes) -> dict:
    """The rest of the rows read for the chain; what the read found first, as the one pass did."""
    reader.drain()
    return _report([{"seq": s, "rule": r, "what": w} for s, r, w in reader.findings] + findings, notes, reader.total)


def _as_stored(batch, payloads, produced, hook) -> bool:
    """Whether the command gives exactly the stored events, byte for byte: the usual case, with nothing
    to explain (_compare would find nothing). Payloads upcast from an older version are compared in
    detail; so is a payload not stored as text."""
    if len(produced) != len(batch):
        return False
    for e, r, p in zip(produced, batch, payloads):
        text = r[TEXT]
        if e.TYPE != r[TYPE] or p is not r[PAYLOAD] or type(text) is not str:
            return False
        if (_text(e, hook) if r[TYPE] in _AS_GIVEN else canonical(hook(e.__class__)(e))) != text.encode():
            return False
    return True


# Play by email's events that hold the JSON a command or an opening was given as (plain dicts, lists, strings,
# numbers): the converter makes each of their values again, value by value by its runtime type (~100 us a reveal
# of a dozen openings), and orjson writes what it makes as it writes the values themselves (a tuple or a list an
# array, an enum its value, a dict its keys sorted). So their canonical text is that of their fields as they
# stand; a value orjson cannot write as such (an attrs value, a set, a key not a plain str) raises, and the event
# goes the converter's way. None of them leaves a field out at its default (events/payload.OMITTED_IF_DEFAULT).
_AS_GIVEN = frozenset(("seals_revealed", "fact_proposed", "fact_confirmed", "fact_rejected"))


def _text(e, hook) -> bytes:
    """The canonical text the store keeps for a decided event: its payload as the converter gives it (`hook`:
    the converter's unstructure function of a class), written by events.codec.canonical."""
    if e.TYPE in _AS_GIVEN:
        try:
            return canonical({a.name: getattr(e, a.name) for a in attrs.fields(e.__class__)})
        except TypeError:  # (orjson.JSONEncodeError)
            pass
    return canonical(hook(e.__class__)(e))


_SUBJECT = ("unit", "leader", "item", "purchase", "patrol", "hex", "vehicle")


def _roll_key(e, at) -> tuple:
    """A roll's kind and subject and where it was made: only a roll of the same kind, side and subject,
    made again in the same step of the same firefight, is a re-roll of one taken back by an undo."""
    subject = tuple(None if k is None else _subject(getattr(e, k)) for k in _held(e).subjects)
    return (e.TYPE, _side(e), subject, at)


def _subject(v):
    """A subject field's value in a roll's key: a result (a new unit: a dict as stored, a value or list
    in the instance) is no subject."""
    if v is None or type(v) is str or type(v) is int:  # (nearly every one)
        return v
    return None if isinstance(v, (dict, list, tuple)) or attrs.has(type(v)) else v


class _Rolling:
    """How an event class holds its rolls, by its field declarations: `rolls`, (name, a tuple of them) of each
    field typed Roll, Roll | None or tuple[Roll, ...]; `one`, whether it has one `roll`; `sided`, a `side`;
    `subjects`, its subject fields (_SUBJECT; None where it has none: its roll key holds None there)."""

    __slots__ = ("rolls", "one", "sided", "subjects")

    def __init__(self, cls):
        attrs.resolve_types(cls)
        self.rolls = []
        for a in attrs.fields(cls):
            args = typing.get_args(a.type)
            if a.type is Roll or Roll in args and type(None) in args:  # Roll, Roll | None
                self.rolls.append((a.name, False))
            elif typing.get_origin(a.type) is tuple and args[:1] == (Roll,):  # tuple[Roll, ...]
                self.rolls.append((a.name, True))
        names = attrs.fields_dict(cls)
        self.one = ("roll", False) in self.rolls
        self.sided = "side" in names
        self.subjects = tuple(k if k in names else None for k in _SUBJECT)


def _rolling(etype: str) -> _Rolling | None:
    """How events of `etype` hold their rolls; None where they hold none (or `etype` is no event class). Kept in
    the ledger's caches (cg/caches.py) as each type is first met: resolving a class's annotations costs about a
    millisecond, paid only for the types the log holds (which the fold resolves anyway)."""
    table = current().rolling
    how = table.get(etype, _UNMET)
    if how is _UNMET:
        cls = REGISTRY.get(etype)
        how = _Rolling(cls) if cls is not None and attrs.has(cls) else None
        if how is not None and not how.rolls:
            how = None
        table[etype] = how
    return how


_UNMET = object()  # a type _rolling has not met yet


def _held(e) -> _Rolling:
    """How a rolling event (one _rolling has met) holds its rolls."""
    return cast(_Rolling, current().rolling[e.TYPE])


def _rolls_of(e) -> list:
    """The rolls an event holds, found by its class's field declarations."""
    out = []
    for name, many in _held(e).rolls:
        v = getattr(e, name)
        if many:
            out += [x for x in v if isinstance(x, Roll)]
        elif isinstance(v, Roll):
            out.append(v)
    return out


def _roll(e) -> Roll | None:
    """An event's one roll (its `roll` field), where it has one: the rolls an undo takes back and a re-roll makes
    again (a `rolls` tuple is neither)."""
    v = e.roll if _held(e).one else None
    return v if isinstance(v, Roll) else None


def _side(e):
    """A rolling event's side, None where its class has none."""
    return e.side if _held(e).sided else None


def _source(roll: Roll, cmd: dict | None = None) -> str:
    """Who made a roll's dice, as events.roll says of a stored one (roll_source with a command, else source_of):
    recorded with the roll (ruling R31), else a reveal's (two-party), typed in, or seeded."""
    if roll.source is not None:
        return roll.source
    if cmd is not None and cmd.get("name") == "reveal":
        return "two-party"
    return "typed" if roll.manual else "seeded"


def _report(findings, notes, events: int) -> dict:
    findings.sort(key=lambda f: (f["seq"], f["rule"]))
    return {"findings": findings, "notes": notes, "events": events}


def _defaults_of(cls) -> dict:
    """Fields added to an event class with a default: a payload written before them holds the default."""
    out = {}
    for a in attrs.fields(cls):
        if a.default is not attrs.NOTHING:
            d = a.default.factory() if isinstance(a.default, attrs.Factory) else a.default  # type: ignore[arg-type]  # attrs.Factory is a class; attrs' stub declares it an overloaded function
            out[a.name] = _norm(unstructure(d))
    return out


_DEFAULTS = {etype: _defaults_of(cls) for etype, cls in REGISTRY.items()}  # constants of the event classes


def _defaults(etype: str) -> dict:
    return _DEFAULTS.get(etype, {})


def _compare(find, stored_events, payloads, produced):
    """Explain each difference between the stored events ((seq, type) each, with `payloads`) and the
    ones the rules give (`produced`: (type, payload) each). It reads both as JSON, by key, not as events:
    the bytes as stored are what the audit checks, and an edited row has every field named as it is
    stored (a roll wherever it is stored, a key its class has no field for), whatever its class would
    make of it (issue 33 item 4: tests/test_audit_payload_reads.py holds these reads)."""
    payloads = [{**_defaults(etype), **p} for (_, etype), p in zip(stored_events, payloads)]
    # a field stored only when it differs from its default (events/convert.py: firefight_ended's vasl_logs) is
    # its default where the rules' event leaves it out, as where the recorded one does
    produced = [(etype, {**_defaults(etype), **p}) for etype, p in produced]
    types = [etype for _, etype in stored_events]
    if types != [t for t, _ in produced]:
        find(stored_events[0][0], AUDIT_RULE.get(types[0], "rules"),
             f"the command gives events {[t for t, _ in produced]}, the log holds {types}")
    for (seq, etype), stored, (ptype, want) in zip(stored_events, payloads, produced):
        if ptype != etype or stored == want:
            continue
        rolls = _rolls(stored)
        wrolls = _rolls(want)
        for key, got in rolls.items():
            exp = wrolls.get(key)
            if exp is None or got == exp:
                continue
            table = got.get("table") or AUDIT_RULE.get(etype, "rules")
            dice = got.get("dice", [])
            if len(dice) != len(exp.get("dice", [])) or any(not isinstance(d, int) or d < 1 or d > 6 for d in dice):
                find(seq, "dice", f"dice {dice} out of range or of the wrong count for {table}")
                continue
            if got.get("final") != sum(dice) + sum(d.get("value", 0) for d in got.get("drm", [])):
                find(seq, table, f"final {got.get('final')} does not follow from dice {dice} and the DRM listed")
            if got.get("drm") != exp.get("drm"):
                find(seq, table, "DRM list differs from what the history implies: recorded "
                     f"{_drm_text(got.get('drm'))}, history gives {_drm_text(exp.get('drm'))}")
            if dice != exp.get("dice"):
                if got.get("manual"):
                    find(seq, table, f"dice {dice} differ from the dice the command gave {exp.get('dice')}")
                elif got.get("source") == "ledger":
                    find(seq, table, f"dice {dice} differ from the ledger's dice recorded with the command"
                                     f" {exp.get('dice')}")
                else:
                    find(seq, "seed", f"dice {dice} are not the seeded roller's {exp.get('dice')}")
            elif got.get("final") == exp.get("final") and got.get("drm") == exp.get("drm") and \
                    (got.get("outcome") != exp.get("outcome") or got.get("row") != exp.get("row")):
                find(seq, table, f"result {got.get('outcome')!r} (row {got.get('row')}) does not follow from "
                                   f"final {got.get('final')} on table {table}: it gives {exp.get('outcome')!r}")
            # every other field of the roll (its source, manual, table...): named (issue 25: a typed roll
            # relabelled a ledger one, or the other way round, must agree with the stored command)
            rest = sorted(k for k in set(got) | set(exp) if k not in ("dice", "final", "drm", "outcome", "row")
                          and got.get(k) != exp.get(k))
            if rest:
                find(seq, table, f"{etype}: " + "; ".join(
                    f"{key}.{k} recorded {_short(got.get(k))}, the command gives {_short(exp.get(k))}"
                    for k in rest))
        for key in sorted(set(rolls) ^ set(wrolls)):  # a roll only one of them holds
            find(seq, AUDIT_RULE.get(etype, "rules"), f"{etype}: {key} recorded {_short(rolls.get(key))},"
                                                   f" the rules give {_short(wrolls.get(key))}")
        rest_s = {k: v for k, v in stored.items() if not _is_roll(v)}
        rest_w = {k: v for k, v in want.items() if not _is_roll(v)}
        # every field named, those that follow from a roll too (issue 25); a field left out is None
        keys = sorted(k for k in set(rest_s) | set(rest_w) if rest_s.get(k) != rest_w.get(k))
        if keys:
            detail = "; ".join(f"{k} recorded {_short(rest_s.get(k))}, the rules give {_short(rest_w.get(k))}"
                               for k in keys)
            find(seq, AUDIT_RULE.get(etype, "rules"), f"{etype}: {detail}")


def _short(v) -> str:
    """A recorded value in a finding: its repr, cut to a line's worth."""
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_roll(v) -> bool | list:  # truthy or falsy (an empty list is not a roll); of a stored value (_compare)
    return isinstance(v, dict) and "dice" in v or isinstance(v, list) and v and isinstance(v[0], dict) and "dice" in v[0]


def _rolls(p: dict) -> dict:
    """_compare's rolls of a stored payload, wherever they are stored (not only where its class declares
    one: _rolling), by their place (`roll`, `rolls[1]`)."""
    out = {}
    for k, v in p.items():
        if isinstance(v, dict) and "dice" in v:
            out[k] = v
        elif isinstance(v, list):
            for i, x in enumerate(v):
                if isinstance(x, dict) and "dice" in x:
                    out[f"{k}[{i}]"] = x
    return out


def _drm_text(drm) -> str:
    """A DRM list in _compare's finding, as stored."""
    if not drm:
        return "none"
    return ", ".join(f"{d.get('value'):+d} {d.get('reason')} ({d.get('rule')})" for d in drm)


def compare_copies(mine, other, names: tuple[str, str] = ("this copy", "the other")) -> dict:
    """`plcg audit --against OTHER`: two copies of one campaign (two stores) row by row. A finding
    where they part: a row of the same seq that differs (a fork, or a history rewritten), or a copy
    that lacks rows both sides had signed (a copy cut after the other side acknowledged them: it
    could only have held them). A copy merely behind the other (a bundle not yet received) is a note."""
    findings: list[dict] = []
    notes: list[dict] = []
    a_rows = {r[0]: r[1:] for chunk in mine.read_rows(None, None, ("seq", "type", "payload", "hash")) for r in chunk}
    b_rows = {r[0]: r[1:] for chunk in other.read_rows(None, None, ("seq", "type", "payload", "hash")) for r in chunk}
    for seq in sorted(set(a_rows) & set(b_rows)):
        (ta, _, ha), (tb, _, hb) = a_rows[seq], b_rows[seq]
        if ha != hb:
            findings.append({"seq": seq, "rule": "pbem", "what": f"the copies part at row {seq}: {names[0]} holds"
                             f" {ta} ({ha[:16]}), {names[1]} {tb} ({hb[:16]}): a fork or a rewritten history,"
                             f" {COPIED_AFTER_KILL}"})
            return _report(findings, notes, len(a_rows))
    short, long_, rows = (names[0], names[1], b_rows) if len(a_rows) < len(b_rows) else (names[1], names[0], a_rows)
    end = min(len(a_rows), len(b_rows))
    missing = sorted(s for s in rows if s > end)
    if missing:
        signers: dict[str | None, int] = {}
        for s in missing:
            t, payload, _ = rows[s]
            signed = _event(t, s, loads(payload), strict=False) if t == "head_signed" else None
            if signed is not None and signed.side in ("axis", "allied"):  # a row its class cannot hold signs nothing
                signers.setdefault(signed.side, s)
        where = f"row {missing[0]}"
        if len(signers) == 2:
            findings.append({"seq": missing[0], "rule": "pbem", "what": f"the copies part at {where}: {short} ends at"
                             f" row {end}, but {long_} holds rows {missing[0]}-{missing[-1]}, signed by both sides"
                             f" (seq {', '.join(str(v) for v in sorted(signers.values()))}): {short} was cut after"
                             " they were acknowledged"})
        else:
            notes.append({"seq": missing[0], "what": f"{short} ends at row {end}; {long_} holds rows"
                          f" {missing[0]}-{missing[-1]} not yet received"})
    return _report(findings, notes, len(a_rows))


def audit_tail(state, history: list, rows: list) -> dict:
    """What `plcg receive` asks of a bundle's new rows when the copy it lands on is already held:
    the audit's checks of those rows only, on the copy's own state at its head (`state`, folded
    from the log and its snapshot) with its history ((seq, batch, type, payload) of every row):
    step order, every command decided again and compared with what is stored, who signed what.
    The copy's own rows were checked as they came in; receive on a new file audits it all."""
    findings: list[dict] = []

    def find(seq, rule, what):
        findings.append({"seq": seq, "rule": rule, "what": what})

    hook = functools.cache(converter.get_unstructure_hook)
    current = {etype: cls.VERSION for etype, cls in REGISTRY.items()}
    seen = _Held(history)
    reverted = reverted_seqs(seen)
    st = state
    batches: list[list] = []
    for r in rows:
        seq, batch, etype, version, ff, step, text, _rec, command, _link, _h = r
        p, c = loads(text), None if command is None else loads(command)
        row = (seq, batch, etype, version, ff, step, p, c, text)
        if batches and batches[-1][0][BATCH] == batch:
            batches[-1].append(row)
        else:
            batches.append([row])
    try:
        for batch in batches:
            head = batch[0]
            hseq, cmd = head[SEQ], head[COMMAND]
            payloads = [r[PAYLOAD] if current.get(r[TYPE]) == r[VERSION] else _upcast_row(r)
                        for r in batch]
            for r in batch:
                if (r[FIREFIGHT], r[STEP]) != (st.firefight, st.step):
                    find(r[SEQ], "step order", f"recorded at firefight {r[FIREFIGHT]} step {r[STEP]}, but the "
                                               f"campaign stood at firefight {st.firefight} step {st.step}")
                    return _report(findings, [], len(rows))
            if not isinstance(cmd, dict):
                find(hseq, "format", "the batch holds no command: it cannot be checked against the rules")
                return _report(findings, [], len(rows))
            try:
                produced = decide_all(st, cmd, hseq, lambda: (seen, reverted))
            except Refused as e:
                find(hseq, e.rule, f"{cmd.get('name')} refused by the rules: {e}")
                return _report(findings, [], len(rows))
            except BadInput as e:
                find(hseq, "input", f"{cmd.get('name')}: bad input: {e}")
                return _report(findings, [], len(rows))
            if not _as_stored(batch, payloads, produced, hook):
                _compare(find, [(r[SEQ], r[TYPE]) for r in batch], payloads,
                         [(e.TYPE, _norm(unstructure(e))) for e in produced])
                if not findings:
                    find(hseq, "rules", f"{cmd.get('name')}: the events stored are not the ones the rules give")
                return _report(findings, [], len(rows))
            for r, p in zip(batch, payloads):
                seen.append((r[SEQ], r[BATCH], r[TYPE], p))
            if any(r[TYPE] == "reverted" for r in batch):
                reverted = reverted_seqs(seen)
                st = fold(seen, reverted=reverted, view=state.view)
            else:
                for r, p in zip(batch, payloads):
                    if r[TYPE] in REGISTRY:
                        evolve(st, r[TYPE], p, r[SEQ], r[BATCH])
    except UNFOLDABLE as e:
        find(batch[0][SEQ], "format", f"{batch[0][TYPE]} cannot be decided again or folded ({type(e).__name__}: {e})")
    return _report(findings, [], len(rows))


class Unheld(ValueError):
    """A row its event class cannot hold (a field its schema requires left out): UNFOLDABLE, so the pass
    reports it as a finding naming the row, as any row edited against the schema."""


# the fields each event class requires (no default): a payload without one is a row its class cannot hold
_REQUIRED = {etype: frozenset(a.name for a in attrs.fields(cls) if a.default is attrs.NOTHING)
             for etype, cls in REGISTRY.items() if attrs.has(cls)}


def _event(etype: str, seq, p, strict: bool = True):
    """The event instance of row `seq`, of type `etype`, from `p`, its payload at the current version,
    built as the fold builds it (events/stored.build: no value checked; a field left out that has a
    default takes it). The one place the audit turns a payload into its event. A payload its class
    cannot hold (not a dict, a field the schema requires left out) raises Unheld (`strict`: the pass
    reports it as a finding naming the row, never a crash), or gives None (the reads before the pass,
    and a campaign_started, whose start() says what is wrong with it)."""
    need = _REQUIRED.get(etype)
    if need is not None and isinstance(p, dict) and p.keys() >= need:
        return build(REGISTRY[etype], p)
    if not strict:
        return None
    lacks = [a.name for a in attrs.fields(REGISTRY[etype]) if a.name in need
             and (not isinstance(p, dict) or a.name not in p)] if need else []  # in the class's order
    raise Unheld(f"row {seq} ({etype}) is not an event of its type"
                 + (f": it lacks {', '.join(lacks)}" if lacks else ""))


def _upcast_row(r) -> dict:
    """A stored payload at its event's current version; a type or version this release does not know
    names its seq (events/errors.unknown_row): a newer plcg's row is exit 2, an edited one a finding."""
    try:
        return upcast(r[TYPE], r[VERSION], r[PAYLOAD])
    except UnreadableRow:
        raise
    except BadInput as e:
        raise unknown_row(r[SEQ], r[TYPE], e) from None
