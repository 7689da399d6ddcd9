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
import secrets
from collections.abc import Iterator

import orjson

from cg.ledger import VERSION, Ledger
from events.codec import dumps
from events.errors import BadInput
from events.store import NewEvent, Store

KEYS = ("seq", "batch", "type", "version", "firefight", "step", "payload", "recorded", "command", "hash")
_TYPES = {"seq": int, "batch": int, "type": str, "version": int, "firefight": int, "step": str,
          "payload": dict, "recorded": str, "command": (dict, type(None)), "hash": str}


# ---- export ----------------------------------------------------------------------------------------

def export_lines(store) -> Iterator[str]:
    """Each stored event as one canonical JSON line (no newline), in seq order."""
    for r in store.read():
        yield dumps({"seq": r.seq, "batch": r.batch, "type": r.type, "version": r.version,
                     "firefight": r.firefight, "step": r.step, "payload": r.payload, "recorded": r.recorded,
                     "command": r.command, "hash": r.hash})


def export_jsonl(ledger) -> str:
    return "".join(line + "\n" for line in export_lines(ledger.store))


# ---- import ----------------------------------------------------------------------------------------

def _name(file: str) -> str:
    return file  # as the player gave it


def parse_lines(file: str, text: str) -> list[tuple[int, dict]]:
    """(line number, event dict) for every line, checked for form and order; BadInput naming the line."""
    name = _name(file)
    lines = text.split("\n")
    while lines and lines[-1].strip() == "":  # the newline after the last event, or a few
        lines.pop()
    if not lines:
        raise BadInput(f"{name} is empty: no events to import")
    out: list[tuple[int, dict]] = []
    seen: dict[int, int] = {}  # seq -> line
    prev_seq, prev_batch = 0, None
    for n, line in enumerate(lines, 1):
        if line.endswith("\r"):
            line = line[:-1]
        if not line.strip():
            raise BadInput(f"{name} line {n}: empty line (one JSON object per line, no gaps)")
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            what = "truncated" if line.lstrip().startswith("{") and not line.rstrip().endswith("}") else "not JSON"
            raise BadInput(f"{name} line {n}: {what} ({str(e).split(':')[0]})") from None
        if not isinstance(obj, dict):
            raise BadInput(f"{name} line {n}: not a JSON object")
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
        out.append((n, obj))
    return out


def _batches(rows: list[tuple[int, dict]]) -> Iterator[list[tuple[int, dict]]]:
    cur: list[tuple[int, dict]] = []
    for n, obj in rows:
        if cur and obj["batch"] != cur[0][1]["batch"]:
            yield cur
            cur = []
        cur.append((n, obj))
    if cur:
        yield cur


def _remove(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(path + suffix)
        except OSError:
            pass


def _audit(tmp: str) -> list[dict]:
    """The audit's findings on the new file (projections/audit.py)."""
    # lazy: only `plcg import` audits; `plcg export --format jsonl` uses this module without the audit,
    # which imports every command handler, the event classes and cattrs (~50 ms)
    from projections.audit import run_audit

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
    try:
        with open(file, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise BadInput(f"no such file: {file}") from None
    except IsADirectoryError:
        raise BadInput(f"{file} is a directory, not a JSON Lines log") from None
    except OSError as e:
        raise BadInput(f"cannot read {file}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise BadInput(f"{_name(file)} line {line}: not UTF-8 text") from None
    if text.startswith("\ufeff"):  # a byte order mark some editors add: not part of the log
        text = text[1:]
    rows = parse_lines(file, text)

    directory = os.path.dirname(os.path.abspath(db_path))
    if not os.path.isdir(directory):
        raise BadInput(f"cannot write {db_path}: no directory {directory}")
    tmp = os.path.join(directory, f".{os.path.basename(db_path)}.import-{os.getpid()}-{secrets.token_hex(4)}")
    meta = {"product": "plcg", "product_version": VERSION, "imported_from": os.path.basename(file)}
    store = Store.create(tmp, meta)
    done = False
    try:
        # The file is not in place until the rename below: a crash loses nothing, so skip the fsyncs.
        store.conn.execute("PRAGMA synchronous=OFF")
        head = 0
        for batch in _batches(rows):
            first = batch[0][1]
            events = [NewEvent(type=o["type"], version=o["version"], payload=o["payload"],
                               firefight=o["firefight"], step=o["step"]) for _, o in batch]
            stored = store.append(head, events, command=first["command"], recorded=first["recorded"])
            for (n, o), s in zip(batch, stored):
                if s.hash != o["hash"]:
                    raise BadInput(f"{_name(file)} line {n} (seq {o['seq']}): hash does not match — the log"
                                   " was altered")
            head = stored[-1].seq
        store.conn.execute("PRAGMA synchronous=FULL")
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.close()
        store = None
        findings = _audit(tmp)
        if findings:
            f = findings[0]
            more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
            raise BadInput(f"{_name(file)}: audit finding at seq {f.get('seq')} [{f.get('rule')}]: "
                           f"{f.get('what')}{more}; nothing imported")
        _sync(tmp)
        _place(tmp, db_path)
        done = True
        return len(rows)
    finally:
        if store is not None:
            store.close()
        if not done:
            _remove(tmp)
        else:
            _remove_sidecars(tmp)


def _sync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_sidecars(path: str) -> None:
    for suffix in ("-wal", "-shm", "-journal"):
        try:
            os.unlink(path + suffix)
        except OSError:
            pass


def _place(tmp: str, db_path: str) -> None:
    """Move the finished file to db_path without ever replacing a file that appeared meanwhile."""
    wal = tmp + "-wal"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:  # checkpointed above: cannot happen
        raise BadInput(f"cannot finish {db_path}: its write-ahead log was not folded in")
    try:
        os.link(tmp, db_path)  # fails if db_path exists: no clobbering
    except FileExistsError:
        raise BadInput(f"{db_path} appeared while importing; nothing overwritten") from None
    except OSError:
        if os.path.exists(db_path):
            raise BadInput(f"{db_path} appeared while importing; nothing overwritten") from None
        os.replace(tmp, db_path)  # a file system without hard links
        return
    os.unlink(tmp)
    try:  # make the new name durable
        dfd = os.open(os.path.dirname(os.path.abspath(db_path)), os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
