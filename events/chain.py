"""The hash chain verified row by row: Store.verify_chain walks the file with it, and the audit
feeds it the rows of its own single pass over the log.

A row's hash covers its record with payload and command as parsed JSON (events/codec.py). The
store keeps both as canonical JSON, so the record's canonical bytes are the stored texts spliced
into the record: hashing those needs no re-serialisation of the record. A spliced hash proves the
texts as stored; it proves the record only if the texts are canonical, so that is checked too. A row
not proven that way is checked the original way, from the parsed JSON, so every problem is found
and described exactly as the original way does.
"""
from __future__ import annotations

import hashlib

import orjson

from .codec import GENESIS, chain_hash, chain_record, dumps, loads

_sha256 = hashlib.sha256
_dumps = orjson.dumps
_SORT = orjson.OPT_SORT_KEYS

# What chain_hash hashes: the previous hash, a newline and canonical(chain_record(...)), its keys in
# sorted order (tests/test_chain.py checks this against chain_hash; were chain_record to change, every
# row would merely go the original way).
_HASHED = ('%s\n{"batch":%d,"command":%s,"firefight":%d,"payload":%s,"recorded":%s,"seq":%d,"step":%s,'
           '"type":%s,"version":%d}')
_QUOTED: dict[str, str] = {}  # the JSON strings of step, type and recorded texts met lately


def _quoted(text) -> str | None:
    if type(text) is not str:
        return None
    if len(_QUOTED) > 4096:
        _QUOTED.clear()
    q = _QUOTED[text] = _dumps(text).decode()
    return q


def hashed_bytes(link, seq, batch, type_, version, firefight, step, payload, recorded, command) -> bytes | None:
    """What chain_hash(link, chain_record(...)) hashes, from the stored texts of payload and command
    taken as canonical; None when a column is not of a kind the splice handles (a BLOB, a REAL, a
    NULL where text belongs): the caller checks the original way then."""
    if not (type(seq) is int and type(batch) is int and type(version) is int and type(firefight) is int
            and type(link) is str and type(payload) is str and (command is None or type(command) is str)):
        return None
    get = _QUOTED.get  # (only text is ever a key: a hit is text)
    r = get(recorded) or _quoted(recorded)
    s = get(step) or _quoted(step)
    t = get(type_) or _quoted(type_)
    if r is None or s is None or t is None:
        return None
    return (_HASHED % (link, batch, "null" if command is None else command, firefight, payload, r, seq, s, t,
                       version)).encode()


def _canonical(payload: str, command: str | None, parsed: tuple | None) -> bool:
    """Whether the texts are canonical JSON. `parsed`: what they parse to, if the caller knows."""
    try:
        p, c = parsed if parsed is not None else (loads(payload), None if command is None else loads(command))
    except (TypeError, ValueError):  # not JSON: the original way says so
        return False
    return _dumps(p, option=_SORT) == payload.encode() and \
        (command is None or _dumps(c, option=_SORT) == command.encode())


class ChainCheck:
    """Feed it every row in rowid order (`row`), then take the (seq, problem) list (`finish`); what
    it finds is listed at Store.verify_chain."""

    __slots__ = ("_at_snap", "_flagged", "_prev_batch", "_prev_hash", "_prev_seq", "_snap_hash", "_snap_seq",
                 "problems")

    def __init__(self, snapshot: tuple | None):
        """snapshot: the stored snapshot's (seq, hash), or None."""
        ok = snapshot is not None and isinstance(snapshot[0], int)
        self._snap_seq, self._snap_hash = snapshot if ok and snapshot is not None else (None, None)  # ok: it is set
        self._at_snap = None  # the stored hash of row snap_seq
        self._prev_seq, self._prev_hash, self._prev_batch = 0, GENESIS, None
        self._flagged: set[int] = set()
        self.problems: list[tuple[int, str]] = []

    @classmethod
    def of(cls, store) -> ChainCheck:
        """A check of `store`'s rows, with its snapshot's (seq, hash) as evidence of deleted tail rows."""
        return cls(store.conn.execute("SELECT seq, hash FROM snapshot WHERE id = 1").fetchone())

    def row(self, row: tuple, parsed: tuple | None = None) -> None:
        """One row, its columns as in events.store.COLUMNS. `parsed`: its (payload, command) as the
        caller already parsed them."""
        seq, batch, type_, version, ff, step, payload, recorded, command, link, h = row
        problems = self.problems
        bad = len(problems)
        prev_seq = self._prev_seq
        gap = False
        if not isinstance(seq, int) or seq <= prev_seq:
            problems.append((seq, f"row {seq} is out of order (after row {prev_seq})"))
            gap = True
        elif seq != prev_seq + 1:
            missing = f"{prev_seq + 1}" if seq == prev_seq + 2 else f"{prev_seq + 1}-{seq - 1}"
            problems.append((prev_seq + 1, f"row(s) after {prev_seq} deleted (seq {missing} missing)"))
            gap = True
        elif link != self._prev_hash:
            if prev_seq == 0:
                problems.append((seq, f"row {seq} does not start the chain (its link was edited)"))
            else:
                problems.append((seq, f"row {seq} does not link to row {prev_seq}: row {prev_seq} was"
                                      f" edited and its hash recomputed, or row {seq}'s link was edited"))
        # The fast way: the texts as stored hash to h, and are canonical. (A forger could hash
        # non-canonical texts as they stand: the record as parsed would then hash differently, which
        # the original way reports.) Anything else is checked the original way.
        data = hashed_bytes(link, seq, batch, type_, version, ff, step, payload, recorded, command)
        if data is None or _sha256(data).hexdigest() != h or not _canonical(payload, command, parsed):
            self._check_parsed(seq, batch, type_, version, ff, step, payload, recorded, command, link, h)
        if batch != seq and not gap and batch != self._prev_batch:
            problems.append((seq, f"row {seq} claims batch {batch}, which does not continue row"
                                  f" {prev_seq}'s (batch {self._prev_batch})"))
        elif command is not None and batch != seq:
            problems.append((seq, f"row {seq} carries a command but is not the first of its batch"))
        if len(problems) > bad:
            self._flagged.add(seq)
        if seq == self._snap_seq:
            self._at_snap = h
        if isinstance(seq, int) and seq > prev_seq:
            self._prev_seq = seq
        self._prev_hash, self._prev_batch = h, batch

    def _check_parsed(self, seq, batch, type_, version, ff, step, payload, recorded, command, link, h) -> None:
        """The original way: hash the record as parsed; then the texts must be canonical."""
        try:
            p = loads(payload)
            c = None if command is None else loads(command)
        except (TypeError, ValueError):
            self.problems.append((seq, f"row {seq} was edited: its payload or command is not JSON"))
            return
        record = chain_record(seq, batch, type_, version, ff, step, p, recorded, c)
        if not isinstance(link, str) or chain_hash(link, record) != h:
            self.problems.append((seq, f"row {seq} was edited: its hash does not match its contents"))
        elif dumps(p) != payload or (command is not None and dumps(c) != command):
            self.problems.append((seq, f"row {seq} was edited: its JSON is not in canonical form"))

    def finish(self) -> list[tuple[int, str]]:
        """Every (seq, problem) found, in row order, then what the snapshot shows of the tail."""
        snap_seq, prev_seq = self._snap_seq, self._prev_seq
        if snap_seq is not None:
            if snap_seq > prev_seq:
                self.problems.append((prev_seq + 1, f"row(s) after {prev_seq} deleted (the snapshot was"
                                                    f" built at seq {snap_seq})"))
            elif self._at_snap is not None and self._at_snap != self._snap_hash and \
                    not self._flagged & {snap_seq, snap_seq + 1}:
                self.problems.append((snap_seq, f"row {snap_seq} was edited and its hash recomputed (the"
                                                f" snapshot built at it records a different hash)"))
        return self.problems
