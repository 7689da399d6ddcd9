"""The one reader of the log (`Store.read_rows`) never scans the whole table to read a range of it (issue 36).

Counted, not timed: SQLite's own query plan of every statement a read runs. `SELECT min(seq), max(seq)`
in one SELECT scans every row (SQLite's min/max optimisation takes a lone aggregate only): ~15 ms at 100k
events, paid by each of the ~450 reads the HTML report makes of its firefights' rows. A short read of a
long log must cost what its rows cost.
"""
from __future__ import annotations

from events.store import Store


def _plans(store: Store, read) -> list[tuple[str, list[str]]]:
    """(statement, its query plan's details) of every SELECT that `read()` runs on the store's connection."""
    sql: list[str] = []
    conn = store.conn
    conn.set_trace_callback(sql.append)  # each statement as run, its parameters in place
    try:
        read()
    finally:
        conn.set_trace_callback(None)
    return [(s, [row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + s)])
            for s in sql if s.lstrip().upper().startswith("SELECT")]


def test_a_read_of_a_few_rows_searches_them_and_scans_nothing(r1):
    store = Store.open(str(r1))
    try:
        head = store.head()[0]
        assert head > 100, "the fixture is too short to show anything"
        got = _plans(store, lambda: [t for chunk in store.read_rows(head - 10, head - 5, ("seq", "payload"), parse=True)
                                     for t in chunk])
        assert got, "read_rows ran no SELECT"
        for statement, plan in got:
            assert plan and not any(d.split()[:2] == ["SCAN", "events"] for d in plan), (statement, plan)
        rows = [t for chunk in store.read_rows(head - 10, head - 5, ("seq",)) for t in chunk]
        assert [r[0] for r in rows] == list(range(head - 9, head - 4))
    finally:
        store.close()
