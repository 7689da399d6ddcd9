"""The peer figure: the same events written and read back through the `eventsourcing` library.

Every event of a plcg campaign file (its type and payload, in seq order) is written into
eventsourcing's SQLite persistence as one aggregate per firefight (`Firefight`, one `Recorded`
event per ledger event), then every aggregate is read back through the application's repository
(`app.repository.get(id)`: select, decode, and apply each event), which is what the library does to
rebuild state. Its apply is trivial (a counter and the last payload), so the figure is the
library's own read-back cost, not any rule work.

    python -m bench.peer_eventsourcing CAMPAIGN.plcg [--db PEER.db] [--runs N]

prints one JSON object: events, aggregates, write_seconds, read_seconds (median of the runs),
read_events_per_second, library version. Exit 3 (and {"error": ...}) when eventsourcing is not
installed (pip install 'plcg[bench]').
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

import orjson


def _events(campaign: str):
    """(firefight, type, payload dict) of every event, in seq order."""
    uri = Path(campaign).absolute().as_uri() + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True)
    try:
        for ff, etype, payload in conn.execute("SELECT firefight, type, payload FROM events ORDER BY seq"):
            yield ff, etype, orjson.loads(payload)
    finally:
        conn.close()


try:
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event
except ImportError:  # the row says "not installed"
    Application = None

if Application is not None:
    # At module level, so that the stored topics ("bench.peer_eventsourcing:Firefight") resolve in
    # any later process that reads the same file.

    class Firefight(Aggregate):
        @event("Started")
        def __init__(self, n: int):
            self.n = n
            self.count = 0
            self.last = None

        class Recorded(Aggregate.Event):
            etype: str
            payload: dict

            def apply(self, agg) -> None:
                agg.count += 1
                agg.last = self.payload

        def record(self, etype: str, payload: dict) -> None:
            self.trigger_event(self.Recorded, etype=etype, payload=payload)

    class PeerLedger(Application):
        pass


def _app(db: str):
    return PeerLedger(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": db,
                           "IS_SNAPSHOTTING_ENABLED": "no"})


def write(campaign: str, db: str) -> tuple[dict, float]:
    """Write every event of `campaign` into a new eventsourcing SQLite file; ({firefight: id}, seconds)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
    events = list(_events(campaign))
    app = _app(db)
    ids: dict[int, str] = {}
    t0 = time.perf_counter()
    aggs: dict[int, object] = {}
    for ff, etype, payload in events:
        agg = aggs.get(ff)
        if agg is None:
            agg = aggs[ff] = Firefight(ff)
            ids[ff] = str(agg.id)
        agg.record(etype, payload)
        if len(agg.pending_events) >= 500:  # save in chunks, as a long-running app would
            app.save(agg)
    for agg in aggs.values():
        app.save(agg)
    seconds = time.perf_counter() - t0
    app.close() if hasattr(app, "close") else None
    return ids, seconds


def read(db: str, ids: dict) -> tuple[int, float]:
    """Rebuild every aggregate through the repository; (events applied, seconds)."""
    from uuid import UUID

    app = _app(db)
    t0 = time.perf_counter()
    n = 0
    for agg_id in ids.values():
        agg = app.repository.get(UUID(agg_id))
        n += agg.count
    seconds = time.perf_counter() - t0
    app.close() if hasattr(app, "close") else None
    return n, seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("campaign")
    ap.add_argument("--db", help="the eventsourcing SQLite file (default: next to the campaign, .peer.db)")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args(argv)
    try:
        from importlib.metadata import PackageNotFoundError, version

        if Application is None:
            raise ImportError
        lib = version("eventsourcing")
    except (ImportError, PackageNotFoundError):
        print(json.dumps({"error": "eventsourcing is not installed (pip install 'plcg[bench]')"}))
        return 3
    db = a.db or str(Path(a.campaign).with_suffix(".peer.db"))
    ids_file = Path(db + ".ids.json")
    if os.path.exists(db) and ids_file.exists() and os.path.getmtime(db) >= os.path.getmtime(a.campaign):
        ids = json.loads(ids_file.read_text())
        write_s = None
    else:
        ids, write_s = write(a.campaign, db)
        ids_file.write_text(json.dumps(ids))
    times, n = [], 0
    for _ in range(max(1, a.runs)):
        n, s = read(db, ids)
        times.append(s)
    read_s = statistics.median(times)
    print(json.dumps({"library": f"eventsourcing {lib}", "events": n, "aggregates": len(ids),
                      "write_seconds": write_s, "read_seconds": read_s, "read_runs": times,
                      "read_events_per_second": n / read_s if read_s else None}))
    return 0


if __name__ == "__main__":
    # `python -m bench.peer_eventsourcing`: run the importable module, not __main__, so the topics
    # written into the file name bench.peer_eventsourcing
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench import peer_eventsourcing

    sys.exit(peer_eventsourcing.main())
