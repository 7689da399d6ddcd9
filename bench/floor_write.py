"""Floor: a write. Take the lock, read the head and the snapshot (checked as floor_status does), chain-hash
the given rows, insert them, commit with fsync (the journal and synchronous=FULL every campaign file is
written with); nothing else: no command is decided.

    python bench/floor_write.py FILE ROWS.json

ROWS.json: the rows one command wrote, [{"type", "version", "firefight", "step", "payload", "command"}]
(the bench takes them from a `plcg` command run on another copy of the same file), so the rows this
floor writes pass `plcg audit`. What a write command (`setup`, `next`, `undo`, `buy`) is measured
against beside `python -c pass` (issue 36). Exit 1 on a damaged snapshot (tests/test_bench_floors.py)."""
import hashlib
import json
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from events.codec import GENESIS, chain_hash, chain_record, dumps  # noqa: E402

SEAL = b"plcg-snap-sha256:"  # cg/snapshot.py
INSERT = ("INSERT INTO events (seq, batch, type, version, firefight, step, payload, recorded, command,"
          " prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def rows_after(path: str, seq: int) -> list[dict]:
    """The rows after `seq` of a campaign file, as ROWS.json gives them (what a command just wrote)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [{"type": t, "version": v, "firefight": f, "step": s, "payload": json.loads(p),
                 "command": None if c is None else json.loads(c)}
                for t, v, f, s, p, c in con.execute("SELECT type, version, firefight, step, payload, command"
                                                    " FROM events WHERE seq > ? ORDER BY seq", (seq,))]
    finally:
        con.close()


def main(path: str, rows_file: str) -> int:
    given = json.loads(Path(rows_file).read_text())
    con = sqlite3.connect(path, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=DELETE")
        con.execute("PRAGMA synchronous=FULL")
        con.execute("BEGIN IMMEDIATE")  # the write lock
        head = con.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        seq, prev = head if head else (0, GENESIS)
        snap = con.execute("SELECT seq, hash, state FROM snapshot WHERE id = 1").fetchone()
        if snap is not None:
            at = con.execute("SELECT hash FROM events WHERE seq = ?", (snap[0],)).fetchone()
            blob, n = snap[2], len(SEAL)
            if at is None or at[0] != snap[1] or hashlib.sha256(blob[n + 33:]).hexdigest()[:32].encode() != blob[n:n + 32]:
                con.execute("ROLLBACK")
                print("the snapshot is damaged", file=sys.stderr)
                return 1
        recorded = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        batch, out = seq + 1, []
        for i, r in enumerate(given):
            s, command = seq + 1 + i, r["command"] if i == 0 else None
            h = chain_hash(prev, chain_record(s, batch, r["type"], r["version"], r["firefight"], r["step"],
                                              r["payload"], recorded, command))
            out.append((s, batch, r["type"], r["version"], r["firefight"], r["step"], dumps(r["payload"]), recorded,
                        None if command is None else dumps(command), prev, h))
            prev = h
        con.executemany(INSERT, out)
        con.execute("COMMIT")
    finally:
        con.close()
    print(f"appended {len(given)} row(s) after seq {seq}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
