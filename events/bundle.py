"""A bundle: the rows of the log after a seq, as one player sends them to the other (play by email).

JSON Lines, UTF-8, gzip-compressed by default (issue 26: a bundle travels by mail; `read` takes the
plain form too, and inflates at most MAX_BYTES). The first line is the header
    {"plcg_bundle": 1, "campaign": HASH OF ROW 1, "since": SEQ, "rows": N, "head": [SEQ, HASH]}
(with `"note": {"text": TEXT, "sig": HEX}` where the sender wrote a line for the other player, `sync --send
--note`: signed by the bundle's author over the head, checked by the reader; no row of the log holds it)
and each further line one row of the log, its columns as stored (events.store.COLUMNS; payload and
command as their canonical JSON text, so every hash can be recomputed byte for byte). The last row is
its author's `head_signed` event (cg/pbem.py): the signature over the chain head before it.

`read` checks the form alone: a header, as many rows as it says (else truncated), seqs one after
another, every row's hash recomputed from its contents and linked to the row before it (else tampered).
Whether the bundle continues a copy, whose signature it carries and whether it keeps the rules is
for the receiving ledger (cg/app/receiving.py, receive).
"""
from __future__ import annotations

import os
import zlib

import attrs
import orjson

from events.codec import MAX_DEPTH, chain_hash, chain_record, dumps, loads, too_deep
from events.errors import BadInput
from events.store import COLUMNS
from events import outpath
import stat

FORMAT = 1
GZIP_MAGIC = b"\x1f\x8b"
MAX_BYTES = 256 * 1024 * 1024  # a compressed bundle is inflated to at most this: a zip bomb is refused


@attrs.frozen
class Bundle:
    campaign: str  # the hash of row 1: which campaign the rows belong to
    since: int
    head: tuple  # (seq, hash) of the last row
    rows: tuple  # rows as tuples in COLUMNS order
    note: dict | None = None  # {"text", "sig"}: the sender's line for the other player, as the header holds it


NOTE_MAX = 500  # characters of a note (sync --send --note): one line for the other player


def encode(rows: list[tuple], since: int, campaign: str, compress: bool = True,
           note: dict | None = None) -> tuple[bytes, Bundle]:
    """The bundle's bytes for rows (COLUMNS order) after `since` (gzip unless `compress` is false),
    and the bundle. `note`: {"text", "sig"}, carried in the header."""
    if not rows:
        raise BadInput(f"no rows after seq {since}: nothing to bundle")
    head = (rows[-1][0], rows[-1][-1])
    header = {"plcg_bundle": FORMAT, "campaign": campaign, "since": since, "rows": len(rows), "head": list(head)}
    if note is not None:
        header["note"] = note
    lines = [orjson.dumps(header)] + [orjson.dumps(dict(zip(COLUMNS, r))) for r in rows]
    data = b"\n".join(lines) + b"\n"
    if compress:  # gzip with no name and no time in its header: the same rows make the same bytes
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        data = z.compress(data) + z.flush()
    return data, Bundle(campaign, since, head, tuple(rows), note)


def write(path: str, rows: list[tuple], since: int, campaign: str, protected: dict | None = None,
          compress: bool = True, note: dict | None = None) -> Bundle:
    """Write rows (COLUMNS order) after `since` to `path` as the contract's output paths are written
    (events/outpath.py: never through a link, onto a FIFO, a device, the campaign or a key);
    BadInput if it cannot be written."""
    data, b = encode(rows, since, campaign, compress, note)
    outpath.write(path, [data], protected=protected)
    return b


MAX_BUNDLE = 2**28  # bytes: a whole CG since seq 1 bundles to far less (bench: a few MB)
MAX_LINE = 8 * 2**20  # bytes of one row: the first (the whole CG Card) is the longest, far below
READ_STEP = 2**16  # bytes read from the file at a time


@attrs.frozen
class Header:
    """A bundle's first line: which campaign, the seqs it holds, its head (events/bundle.peek)."""
    campaign: str
    since: int
    rows: int
    head: tuple  # (seq, hash) its header names
    note: dict | None = None  # {"text": str, "sig": str} where well-formed (NOTE_MAX characters), else None


def _open(path: str):
    """The bundle at `path` open for reading, as `import` reads a log: a regular file only (a device, a
    FIFO or a directory is refused before a byte is read, O_NONBLOCK: a FIFO does not hang the open),
    of no more than MAX_BUNDLE bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise BadInput(f"cannot read bundle {path}: {e.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BadInput(f"{path} is not a regular file: a bundle is a file `plcg bundle` wrote")
        if info.st_size > MAX_BUNDLE:
            raise BadInput(f"{path}: {info.st_size // 2**20} MB, more than a plcg bundle can be"
                           f" ({MAX_BUNDLE // 2**20} MB)")
        return os.fdopen(os.dup(fd), "rb")
    except OSError as e:
        raise BadInput(f"cannot read bundle {path}: {e.strerror}") from None
    finally:
        os.close(fd)


def _pieces(path: str, f):
    """The bundle's text a piece at a time: read READ_STEP bytes at a time, and inflated INFLATE_STEP
    at a time where it is gzip (issue 26), so that nothing holds more than a step of it."""
    size = 0

    def more() -> bytes:
        nonlocal size
        got = f.read(READ_STEP)
        size += len(got)
        if size > MAX_BUNDLE:  # a file that grows while read stops at the bound
            raise BadInput(f"{path}: more than a plcg bundle can be ({MAX_BUNDLE // 2**20} MB)")
        return got

    raw = more()
    if raw[:2] != GZIP_MAGIC:
        while raw:
            yield raw
            raw = more()
        return
    z = zlib.decompressobj(31)
    try:
        while not z.eof:
            if not raw:
                raw = more()
            out = z.decompress(raw, INFLATE_STEP)
            raw = z.unconsumed_tail
            if out:
                yield out
            elif not raw and not (raw := more()):
                raise BadInput(f"{path}: the compressed bundle is cut short or followed by other bytes")
    except zlib.error:
        raise BadInput(f"{path}: the compressed bundle is damaged") from None
    if z.unused_data or more():
        raise BadInput(f"{path}: the compressed bundle is cut short or followed by other bytes")


def _lines(path: str, limit: int = MAX_BYTES):
    """The bundle's lines (without their newline), streamed from the file: no line longer than
    MAX_LINE, no more than `limit` bytes of text in all (a compressed bundle inflated, a zip bomb
    refused as it inflates: issue 37 F5)."""
    with _open(path) as f:
        total, held = 0, 0
        part: list = []
        for piece in _pieces(path, f):
            total += len(piece)
            if total > limit:
                raise BadInput(f"{path}: the bundle inflates to more than {limit // 2**20} MB; refused")
            *whole, rest = piece.split(b"\n")
            for w in whole:
                if held + len(w) > MAX_LINE:
                    raise BadInput(f"{path}: a line longer than {MAX_LINE // 2**20} MB: not a plcg bundle")
                yield b"".join(part) + w if part else w
                part, held = [], 0
            if rest:
                part.append(rest)
                held += len(rest)
                if held > MAX_LINE:
                    raise BadInput(f"{path}: a line longer than {MAX_LINE // 2**20} MB: not a plcg bundle")
        if part:
            yield b"".join(part)


def _header(path: str, first: bytes | None) -> Header:
    try:
        header = orjson.loads(first) if first is not None else None
    except orjson.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("plcg_bundle") != FORMAT:
        raise BadInput(f"{path} is not a plcg bundle (no bundle header on its first line)")
    n, since, head, campaign = header.get("rows"), header.get("since"), header.get("head"), header.get("campaign")
    if not (isinstance(n, int) and n > 0 and isinstance(since, int) and since >= 0 and isinstance(campaign, str)
            and isinstance(head, list) and len(head) == 2):
        raise BadInput(f"{path}: the bundle header is not well-formed")
    note = header.get("note")
    if not (isinstance(note, dict) and isinstance(note.get("text"), str) and isinstance(note.get("sig"), str)
            and len(note["text"]) <= NOTE_MAX and len(note["sig"]) <= 256):
        note = None  # no note, or one no sender of this format wrote: the rows are what counts
    return Header(campaign, since, n, tuple(head), note)


def peek(path: str, limit: int = MAX_BYTES) -> Header:
    """The bundle's header alone, its rows unread: what `sync` sorts a folder by before it reads a bundle
    whole, one at a time (issue 37: a folder's junk costs a look, never the memory of all of it)."""
    lines = _lines(path, limit)
    try:
        return _header(path, next(lines, None))
    finally:
        lines.close()


def read(path: str, limit: int = MAX_BYTES) -> Bundle:
    """The bundle in `path`, checked for form and hashes; BadInput (exit 2) with the reason. Streamed
    twice, nothing held but the rows: first the header and the count of rows, then each row checked."""
    lines = _lines(path, limit)
    first = next(lines, None)
    count = sum(1 for x in lines if x.strip())  # the whole file within its bounds before anything else
    header = _header(path, first)
    n, since, head, campaign = header.rows, header.since, list(header.head), header.campaign
    if count != n:
        raise BadInput(f"{path} is truncated or padded: its header announces {n} rows, it holds {count}")
    body = (x for x in _lines(path, limit) if x.strip())
    next(body)  # the header, read above
    rows = []
    prev_seq, prev_hash = since, None
    for i, line in enumerate(body):
        try:
            d = orjson.loads(line)
            row = tuple(d[c] for c in COLUMNS)
        except (orjson.JSONDecodeError, KeyError, TypeError):
            raise BadInput(f"{path}: row {i + 1} of the bundle is not a row of the log") from None
        seq, batch, type_, version, ff, step, payload, recorded, command, link, h = row
        if not (type(seq) is int and type(batch) is int and type(version) is int and type(ff) is int
                and all(isinstance(x, str) for x in (type_, step, payload, recorded, link, h))
                and (command is None or isinstance(command, str))):
            raise BadInput(f"{path}: row {seq} of the bundle is not well-formed")
        if seq != prev_seq + 1:
            raise BadInput(f"{path}: the bundle skips from seq {prev_seq} to {seq}")
        if prev_hash is not None and link != prev_hash:
            raise BadInput(f"{path} was tampered with: row {seq} does not link to row {prev_seq}")
        try:
            p = loads(payload)
            c = None if command is None else loads(command)
        except (TypeError, ValueError):
            raise BadInput(f"{path} was tampered with: row {seq}'s payload or command is not JSON") from None
        if type(p) is not dict or not (c is None or type(c) is dict) or too_deep(p) or too_deep(c):
            raise BadInput(f"{path}: row {seq}'s payload or command is not a JSON object as plcg writes it"
                           f" (an object nested at most {MAX_DEPTH} deep)")
        if chain_hash(link, chain_record(seq, batch, type_, version, ff, step, p, recorded, c)) != h \
                or dumps(p) != payload or (command is not None and dumps(c) != command):
            raise BadInput(f"{path} was tampered with: row {seq}'s hash does not match its contents")
        rows.append(row)
        prev_seq, prev_hash = seq, h
    if [rows[-1][0], rows[-1][-1]] != head:
        raise BadInput(f"{path}: the bundle does not end at the head its header names")
    return Bundle(campaign, since, (rows[-1][0], rows[-1][-1]), tuple(rows), header.note)


INFLATE_STEP = 2**20  # bytes of text inflated at a time
