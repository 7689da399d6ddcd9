"""Floor: the hash chain. Every row's hash recomputed from its link and its stored texts (events/chain.py's
splice: the texts taken as canonical JSON) and compared; each link compared with the row before.

    python bench/floor_chain.py FILE     # exit 1 at the first row that does not chain

The least any check of the chain does; the audit also checks that the texts are canonical, and much
more. Exit 1 on a damaged file (tests/test_bench_floors.py)."""
import hashlib
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from events.chain import hashed_bytes  # noqa: E402
from events.codec import GENESIS  # noqa: E402

SQL = ("SELECT seq, batch, type, version, firefight, step, payload, recorded, command, prev_hash, hash"
       " FROM events ORDER BY seq")


def main(path: str) -> int:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    prev_seq, prev = 0, GENESIS
    sha = hashlib.sha256
    try:
        for seq, batch, type_, version, ff, step, payload, recorded, command, link, h in con.execute(SQL):
            data = hashed_bytes(link, seq, batch, type_, version, ff, step, payload, recorded, command)
            if seq != prev_seq + 1 or link != prev or data is None or sha(data).hexdigest() != h:
                print(f"row {seq} does not chain", file=sys.stderr)
                return 1
            prev_seq, prev = seq, h
    finally:
        con.close()
    print(f"{prev_seq} rows chained")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
