"""The raw log as JSON Lines, and a new campaign file made from it (`plcg export --format jsonl`,
`plcg import FILE`; shared/docs/cli-contract.md).

Export: one canonical JSON object per event (sorted keys, no spaces), in seq order, with every
column the hash covers plus the hash itself.

Import rebuilds the campaign batch by batch through `Store.append`, so every hash is computed
again from the line's contents and the chain before it, and compared with the line's hash: the
first line whose hash differs was altered (or a line before it was, and its hash recomputed).
The new file is written under a temporary name in the target's directory and renamed into place
only after the chain matched and the audit found nothing: a failed import leaves no file behind.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator

import orjson

from cg.app.ledger import VERSION, Ledger
from events.codec import MAX_DEPTH, dumps, too_deep
from events.errors import BadInput
from events.text import typed_text as _typed_text
from events.store import NewEvent, Store, link_problem, place, remove_file, sweep_temps, temp_path

KEYS = ("seq", "batch", "type", "version", "firefight", "step", "payload", "recorded", "command", "hash")
_TYPES = {"seq": int, "batch": int, "type": str, "version": int, "firefight": int, "step": str,
          "payload": dict, "recorded": str, "command": (dict, type(None)), "hash": str}


# ---- export ----------------------------------------------------------------------------------------

def export_lines(store) -> Iterator[str]:
    """Each stored event as one canonical JSON line (no newline), in seq order; read a chunk at a time,
    no lock held while the lines are written (Store.read reads with read_rows)."""
    for r in store.read():
        yield dumps({"seq": r.seq, "batch": r.batch, "type": r.type, "version": r.version,
                     "firefight": r.firefight, "step": r.step, "payload": r.payload, "recorded": r.recorded,
                     "command": r.command, "hash": r.hash})


# ---- import ----------------------------------------------------------------------------------------

def _name(file: str) -> str:
    return file  # as the player gave it


MAX_LINE = 8 * 2**20  # bytes of one line: the first (the whole CG Card) is the longest, far below
MAX_FILE = 2**30  # bytes of a log: a CG of a hundred thousand events exports to well under this
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # the command line refuses these in what a player types


def _lines(file: str, fh) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line, read a bounded line at a time: a huge line is refused
    without being read whole (memory stays small on any input)."""
    name = _name(file)
    n = 0
    while True:
        parts, size = [], 0
        while True:  # a megabyte at a time: readline(limit) alone would grow its buffer to twice the limit
            piece = fh.readline(2**20)
            if not piece:
                break
            parts.append(piece)
            size += len(piece)
            if piece.endswith(b"\n"):
                break
            if size > MAX_LINE:
                raise BadInput(f"{name} line {n + 1}: longer than {MAX_LINE // 2**20} MB: not a plcg log")
        if not parts:
            return
        n += 1
        raw = parts[0] if len(parts) == 1 else b"".join(parts)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput(f"{name} line {n}: not UTF-8 text") from None
        if n == 1 and text.startswith("\ufeff"):  # a byte order mark some editors add: not part of the log
            text = text[1:]
        yield n, text.rstrip("\n")


def parse_lines(file: str, lines) -> Iterator[tuple[int, dict]]:
    """(line number, event dict) for every line, checked for form and order; BadInput naming the line.
    `lines`: the text, or (line number, text) pairs (_lines)."""
    name = _name(file)
    if isinstance(lines, str):
        lines = enumerate(lines.split("\n"), 1)
    seen: dict[int, int] = {}  # seq -> line
    prev_seq, prev_batch = 0, None
    blank = None  # the first blank line: only trailing blank lines are allowed
    for n, line in lines:
        if line.endswith("\r"):
            line = line[:-1]
        if not line.strip():
            blank = blank or n
            continue
        if blank is not None:
            raise BadInput(f"{name} line {blank}: empty line (one JSON object per line, no gaps)")
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            what = "truncated" if line.lstrip().startswith("{") and not line.rstrip().endswith("}") else "not JSON"
            raise BadInput(f"{name} line {n}: {what} ({str(e).split(':')[0]})") from None
        if not isinstance(obj, dict):
            raise BadInput(f"{name} line {n}: not a JSON object")
        if too_deep(obj):  # hostile nesting: bad input, never a RecursionError (issue 25)
            raise BadInput(f"{name} line {n}: nested deeper than {MAX_DEPTH} levels: not a plcg log")
        missing = [k for k in KEYS if k not in obj]
        if missing:
            raise BadInput(f"{name} line {n}: missing {', '.join(missing)}")
        extra = sorted(set(obj) - set(KEYS))
        if extra:
            raise BadInput(f"{name} line {n}: unknown key(s) {', '.join(extra)}")
        for k, t in _TYPES.items():
            v = obj[k]
            if not isinstance(v, t) or (t is int and isinstance(v, bool)):
                raise BadInput(f"{name} line {n}: {k} has the wrong type ({type(v).__name__})")
        if _typed_text(obj["command"]) or _typed_text(obj["step"]) or _typed_text(obj["type"]):
            raise BadInput(f"{name} line {n}: text with control characters (newlines, tabs), which the"
                           " command line refuses")
        seq = obj["seq"]
        if seq in seen:
            raise BadInput(f"{name} line {n}: seq {seq} again (line {seen[seq]} holds it)")
        if seq < prev_seq:
            raise BadInput(f"{name} line {n}: seq {seq} after seq {prev_seq} (out of order)")
        if seq != prev_seq + 1:
            gap = f"{prev_seq + 1}" if seq == prev_seq + 2 else f"{prev_seq + 1}-{seq - 1}"
            raise BadInput(f"{name} line {n}: seq {seq} after seq {prev_seq} (seq {gap} missing)")
        batch = obj["batch"]
        if batch != seq and batch != prev_batch:
            raise BadInput(f"{name} line {n} (seq {seq}): batch {batch} does not continue the batch before it")
        if batch != seq and obj["command"] is not None:
            raise BadInput(f"{name} line {n} (seq {seq}): a command on a line that does not start its batch")
        if n == 1 and obj["type"] != "campaign_started":
            raise BadInput(f"{name} line 1: the log starts with {obj['type']!r}, not campaign_started")
        seen[seq] = n
        prev_seq, prev_batch = seq, batch
        yield n, obj
    if prev_seq == 0:
        raise BadInput(f"{name} is empty: no events to import")


def _batches(rows: list[tuple[int, dict]]) -> Iterator[list[tuple[int, dict]]]:
    cur: list[tuple[int, dict]] = []
    for n, obj in rows:
        if cur and obj["batch"] != cur[0][1]["batch"]:
            yield cur
            cur = []
        cur.append((n, obj))
    if cur:
        yield cur


def _audit(tmp: str) -> list[dict]:
    """The audit's findings on the new file (cg/app/audit.py)."""
    # lazy: only `plcg import` audits; `plcg export --format jsonl` uses this module without the audit,
    # which imports every command handler, the event classes and cattrs (~50 ms)
    from cg.app.audit import run_audit  # lazy: cg.app.audit (~70 ms) only where a log is audited

    led = Ledger(tmp)
    try:
        return list(run_audit(led)["findings"])
    finally:
        led.close()


def import_jsonl(file: str, db_path: str) -> int:
    """Make the campaign file `db_path` from the JSON Lines log `file`; the number of events.

    BadInput (nothing written) if db_path exists, the file cannot be read, a line is malformed,
    out of order, repeated or missing, a recomputed hash differs from the line's, or the audit of
    the rebuilt campaign has a finding.
    """
    if os.path.exists(db_path):
        raise BadInput(f"{db_path} exists already: plcg import never overwrites a campaign (use --db)")
    if link_problem(db_path):  # a link in a loop or to nothing: say so (issue 25)
        raise BadInput(f"{link_problem(db_path)}; plcg import makes a campaign at a new name")
    try:
        fh = open(file, "rb")
    except FileNotFoundError:
        raise BadInput(f"no such file: {file}") from None
    except IsADirectoryError:
        raise BadInput(f"{file} is a directory, not a JSON Lines log") from None
    except OSError as e:
        raise BadInput(f"cannot read {file}: {e.strerror}") from None
    with fh:
        return _import(file, fh, db_path)


def _import(file: str, fh, db_path: str) -> int:
    try:
        size = os.fstat(fh.fileno()).st_size
    except OSError:
        size = 0
    if size > MAX_FILE:
        raise BadInput(f"{_name(file)}: {size // 2**20} MB, more than a plcg log can be ({MAX_FILE // 2**20} MB)")
    rows = parse_lines(file, _lines(file, fh))
    directory = os.path.dirname(os.path.abspath(db_path))
    if not os.path.isdir(directory):
        raise BadInput(f"cannot write {db_path}: no directory {directory}")
    sweep_temps(db_path)
    tmp = temp_path(db_path, "import")
    meta = {"product": "plcg", "product_version": VERSION, "imported_from": os.path.basename(file)}
    store = Store.create(tmp, meta)
    try:
        # The file is not in place until the rename below: a crash loses nothing, so skip the fsyncs
        # and keep the journal in memory, and write the whole log in one transaction
        store.bulk()
        current: list[tuple[int, dict]] = []  # the batch being written: (line, object)

        def batches():
            for batch in _batches(rows):
                first = batch[0][1]
                current[:] = batch
                yield ([NewEvent(type=o["type"], version=o["version"], payload=o["payload"],
                                 firefight=o["firefight"], step=o["step"]) for _, o in batch],
                       first["command"], first["recorded"])

        def check(stored):
            for (n, o), s in zip(current, stored):
                if s.hash != o["hash"]:
                    raise BadInput(f"{_name(file)} line {n} (seq {o['seq']}): hash does not match — the log"
                                   " was altered")

        count = store.append_batches(batches(), check)
        store.durable()
        store.close()
        store = None
        findings = _audit(tmp)
        if findings:
            f = findings[0]
            more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
            raise BadInput(f"{_name(file)}: audit finding at seq {f.get('seq')} [{f.get('rule')}]: "
                           f"{f.get('what')}{more}; nothing imported")
        place(tmp, db_path)
        return count
    finally:
        if store is not None:
            store.close()
        remove_file(tmp)


