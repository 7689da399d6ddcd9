"""`plcg` on a disk that is full: every SQLite connection may not grow the file by a single page.

usage: plcg_disk_full.py --db PATH COMMAND ...   (as plcg; SQLite answers SQLITE_FULL on a new page)

A stand-in for a full disk that works where a small tmpfs cannot be mounted (no root in CI).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import events.store as store  # noqa: E402

_real = store._connect


def _full(uri: str):
    conn = _real(uri)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {max(pages, 1)}")
    return conn


store._connect = _full

if __name__ == "__main__":
    import cli

    sys.argv[0] = "plcg"
    cli.main()
