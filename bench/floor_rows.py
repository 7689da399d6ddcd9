"""Floor: the row scan. Every column of every row read, payload and command parsed; nothing else.

    python bench/floor_rows.py FILE      # prints the rows read; exit 1 where a row does not parse

What `audit`, `replay` and `log --json` are measured against (issue 36): no command can read the log
with less. Exit 1 on a damaged file (tests/test_bench_floors.py)."""
import sqlite3
import sys

import orjson

SQL = ("SELECT seq, batch, type, version, firefight, step, payload, recorded, command, prev_hash, hash"
       " FROM events ORDER BY seq")


def scan(path: str, sql: str, parsed: tuple) -> int:
    """Every row `sql` gives, the columns at `parsed` parsed as JSON (None left); exit code."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    n = 0
    try:
        for row in con.execute(sql):
            n += 1
            try:
                for i in parsed:
                    if row[i] is not None:
                        orjson.loads(row[i])
            except (TypeError, orjson.JSONDecodeError):
                print(f"row {n}: a JSON column that does not parse", file=sys.stderr)
                return 1
    finally:
        con.close()
    print(f"{n} rows")
    return 0


if __name__ == "__main__":
    sys.exit(scan(sys.argv[1], SQL, (6, 8)))
