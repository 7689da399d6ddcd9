"""Floor: `status`. Read and check the snapshot's hot part (the hash of its row, its digest), parse it and
the tail after it, print a line; nothing else.

    python bench/floor_status.py FILE    # one line; exit 1 if the snapshot is missing or damaged

What `plcg status` is measured against beside `python -c pass` (issue 36). Exit 1 on a damaged file
(tests/test_bench_floors.py)."""
import hashlib
import sqlite3
import sys

import orjson

SEAL = b"plcg-snap-sha256:"  # cg/snapshot.py: _SEAL + 32 hex digits of sha256(body) + ":" + body


def main(path: str) -> int:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        snap = con.execute("SELECT seq, hash, state FROM snapshot WHERE id = 1").fetchone()
        if snap is None:
            print("no snapshot", file=sys.stderr)
            return 1
        seq, h, blob = snap
        at = con.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()
        n = len(SEAL)
        body = blob[n + 33:]
        if at is None or at[0] != h or not blob.startswith(SEAL) or \
                hashlib.sha256(body).hexdigest()[:32].encode() != blob[n:n + 32]:
            print("the snapshot is damaged", file=sys.stderr)
            return 1
        state = orjson.loads(body)["state"]
        tail = con.execute("SELECT seq, firefight, step, payload FROM events WHERE seq > ? ORDER BY seq",
                           (seq,)).fetchall()
        for row in tail:
            orjson.loads(row[3])
    finally:
        con.close()
    last = tail[-1] if tail else (seq, None, None)
    print(f"seq {last[0]}, {len(tail)} after the snapshot; seed {state.get('seed')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
