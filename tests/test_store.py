"""events/store.py and events/codec.py: each test is named for the promise it backs."""
from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import sqlite3
import tempfile
import time
import traceback
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.errors import BadInput, WriteConflict
from events import store as store_mod
from events.codec import GENESIS, canonical, chain_hash, chain_record, dumps, loads
from events.store import FORMAT, NewEvent, Store
from helpers.sandbox import as_nobody


# ---- helpers ---------------------------------------------------------------------------------

def ev(i: int = 0, type_: str = "Thing", **payload) -> NewEvent:
    return NewEvent(type=type_, version=1, payload={"i": i, **payload}, firefight=1, step="2.1")


@pytest.fixture
def path(tmp_path) -> str:
    return str(tmp_path / "campaign.plcg")


@pytest.fixture
def store(path):
    s = Store.create(path, {"card": "KGP-test", "seed": "s"})
    yield s
    s.close()


def filled(path: str, batches: list[int]) -> None:
    """Close-to-close: a file with one batch per entry, of that many events; snapshot at the head."""
    with Store.create(path, {"card": "c"}) as s:
        seq = 0
        for n, size in enumerate(batches):
            out = s.append(seq, [ev(seq + k, f"T{n}") for k in range(size)], command={"argv": ["cmd", n]},
                           snapshot=lambda q, h: f"state@{q}".encode())
            seq = out[-1].seq


def files(path: str) -> dict[str, bytes]:
    """The bytes of the database and its WAL (not the -shm index, which readers touch)."""
    return {s: Path(path + s).read_bytes() for s in ("", "-wal") if os.path.exists(path + s)}


def raw(path: str, *statements: tuple) -> None:
    """Tamper with the file the way a person with the sqlite3 tool would."""
    c = sqlite3.connect(path)
    for st_ in statements:
        c.execute(*st_)
    c.commit()
    c.close()


def row(path: str, seq: int) -> tuple:
    c = sqlite3.connect(path)
    r = c.execute("SELECT * FROM events WHERE seq = ?", (seq,)).fetchone()
    c.close()
    return r


def verify(path: str) -> list[tuple[int, str]]:
    with Store.open(path) as s:
        return s.verify_chain()


# ---- codec -----------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_canonical_json_is_a_fixed_point_so_hashes_can_be_recomputed_from_stored_text(value):
    assert canonical(loads(canonical(value))) == canonical(value)
    assert dumps(value) == canonical(value).decode()


def test_canonical_json_sorts_keys_without_spaces_in_utf8():
    assert canonical({"b": 1, "a": [1, {"d": None, "c": "é"}]}) == '{"a":[1,{"c":"é","d":null}],"b":1}'.encode()


def test_chain_hash_is_sha256_of_prev_newline_canonical_record():
    import hashlib

    rec = {"z": 1, "a": "x"}
    assert chain_hash(GENESIS, rec) == hashlib.sha256(GENESIS.encode() + b'\n{"a":"x","z":1}').hexdigest()
    assert GENESIS == "0" * 64


# ---- create / open ---------------------------------------------------------------------------

def test_create_refuses_an_existing_file(path):
    Path(path).write_bytes(b"precious")
    with pytest.raises(BadInput, match="already exists"):
        Store.create(path, {})
    assert Path(path).read_bytes() == b"precious"
    filled(path + "2", [1])
    before = files(path + "2")
    with pytest.raises(BadInput):
        Store.create(path + "2", {})
    assert files(path + "2") == before


def test_create_writes_meta_with_format_in_rollback_journal_mode(path):
    with Store.create(path, {"card": "KGP", "redeployment": "A"}) as s:
        assert s.meta == {"card": "KGP", "redeployment": "A", "format": str(FORMAT)}
        assert s.head() == (0, GENESIS)
        assert list(s.read()) == []
        assert s.snapshot() is None
    c = sqlite3.connect(path)
    assert c.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # the file alone is whole
    assert {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")} >= {
        "events", "meta", "snapshot"}
    c.close()
    with Store.open(path) as s:
        assert s.meta["card"] == "KGP" and s.meta["format"] == "1"


def test_open_refuses_a_missing_file_naming_plcg_new(path):
    with pytest.raises(BadInput, match=r"no campaign file at .*plcg new --card"):
        Store.open(path)
    with pytest.raises(BadInput):
        Store.open(path, write=True)
    assert not os.path.exists(path), "opening must not create the file"


def test_open_refuses_a_directory(tmp_path):
    with pytest.raises(BadInput):
        Store.open(str(tmp_path))


@pytest.mark.parametrize("write", [False, True])
def test_open_refuses_a_non_sqlite_file(path, write):
    Path(path).write_bytes(b"this is a campaign, honest\n" * 200)
    with pytest.raises(BadInput, match="not a plcg campaign file"):
        Store.open(path, write=write)


@pytest.mark.parametrize("write", [False, True])
def test_open_refuses_a_sqlite_file_without_the_ledger_tables(path, write):
    raw(path, ("CREATE TABLE events (x)",))
    with pytest.raises(BadInput, match="not a plcg campaign file"):
        Store.open(path, write=write)


def test_open_refuses_a_file_from_a_newer_plcg(path):
    filled(path, [1])
    raw(path, ("UPDATE meta SET value = ? WHERE key = 'format'", (str(FORMAT + 1),)))
    for write in (False, True):
        with pytest.raises(BadInput, match=rf"newer plcg \(format {FORMAT + 1}\); upgrade plcg"):
            Store.open(path, write=write)


def test_open_refuses_a_file_without_a_format(path):
    filled(path, [1])
    raw(path, ("DELETE FROM meta WHERE key = 'format'",))
    with pytest.raises(BadInput, match="not a plcg campaign file"):
        Store.open(path)


# ---- append / read ---------------------------------------------------------------------------

def test_append_read_round_trip(store):
    events = [
        NewEvent("CpReplenished", 2, {"side": "axis", "cp": 7, "roll": {"dice": (3, 4), "drm": []}}, 1, "2.1"),
        NewEvent("Weather", 1, {"text": "Mud, Ground Snow — ç", "f": 0.1}, 1, "2.2"),
    ]
    out = store.append(0, events, command={"argv": ["cp", "axis"]}, recorded="2024-05-01T12:00:00Z")
    back = list(store.read())
    assert back == out
    assert [(s.type, s.version, s.firefight, s.step) for s in back] == [
        ("CpReplenished", 2, 1, "2.1"), ("Weather", 1, 1, "2.2")]
    assert back[0].payload == {"side": "axis", "cp": 7, "roll": {"dice": [3, 4], "drm": []}}  # tuples -> lists
    assert back[1].payload["text"] == "Mud, Ground Snow — ç" and back[1].payload["f"] == 0.1
    assert all(s.recorded == "2024-05-01T12:00:00Z" for s in back)
    assert store.head() == (2, back[-1].hash)
    raw = ("seq", "type", "version", "payload")
    assert [r for c in store.read_rows(columns=raw) for r in c] == [
        (1, "CpReplenished", 2, dumps(back[0].payload)), (2, "Weather", 1, dumps(back[1].payload))]
    assert [r for c in store.read_rows(1, columns=raw) for r in c][0][0] == 2
    assert [r for c in store.read_rows(0, 1, raw, parse=True) for r in c] == [(1, "CpReplenished", 2, back[0].payload)]


def test_read_since_until_bounds_are_exclusive_then_inclusive(store):
    for i in range(10):
        store.append(i, [ev(i)])
    assert [s.seq for s in store.read(since=3, until=6)] == [4, 5, 6]
    assert [s.seq for s in store.read(since=8)] == [9, 10]
    assert [s.seq for s in store.read(until=2)] == [1, 2]
    assert list(store.read(since=10)) == []


def test_the_one_reader_gives_a_range_in_chunks_of_the_columns_asked(store):
    """Store.read_rows (issue 33 item 6): since < seq <= until, in seq order, lists of at most `chunk`
    rows, each value as stored or, with parse, the payload parsed; read() is built on it."""
    for i in range(10):
        store.append(i, [ev(i)])
    chunks = list(store.read_rows(2, 9, ("seq", "type", "payload"), chunk=3))
    assert [[r[0] for r in c] for c in chunks] == [[3, 4, 5], [6, 7, 8], [9]]
    assert all(type(r[2]) is str for c in chunks for r in c)  # as stored
    parsed = [r for c in store.read_rows(2, 9, ("seq", "type", "payload"), chunk=3, parse=True) for r in c]
    assert [r[2] for r in parsed] == [loads(r[2]) for c in chunks for r in c]
    assert [r[0] for c in store.read_rows(until=99, columns=("seq",)) for r in c] == list(range(1, 11))
    assert [s.seq for s in store.read(since=7)] == [8, 9, 10]


def test_the_one_reader_gives_a_chunk_as_its_columns_where_asked(path, store):
    """read_rows(columnar=True) (the report's one pass, issue 36): each chunk as its columns, the same values
    as the rows transposed, parsed or not, and so for a chunk read row by row (an empty command, which the
    joined read cannot tell from none)."""
    for i in range(7):
        store.append(i, [ev(i)], command={"argv": [str(i)]} if i % 2 else None)
    cols = ("seq", "type", "payload", "command")
    for parse in (False, True):
        rows = list(store.read_rows(1, 7, cols, chunk=4, parse=parse))
        by_column = list(store.read_rows(1, 7, cols, chunk=4, parse=parse, columnar=True))
        assert by_column == [[list(c) for c in zip(*chunk)] for chunk in rows]
        assert [c[0] for c in by_column] == [[2, 3, 4, 5], [6, 7]]
    store.close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE events SET command = '' WHERE seq = 3")
    conn.close()
    with Store.open(path) as s:
        rows = list(s.read_rows(1, 7, cols, chunk=4, parse=True))
        by_column = list(s.read_rows(1, 7, cols, chunk=4, parse=True, columnar=True))
        assert by_column[0][3] == ['{"argv":["1"]}', "", '{"argv":["3"]}', None]  # read row by row: '' as stored
        assert by_column == [[list(c) for c in zip(*chunk)] for chunk in rows]


def test_the_one_reader_from_none_reads_a_row_whose_seq_was_edited_below_one(path, store):
    """The chain's check reads the file whatever its seqs hold (since=None): an edited row at seq 0 or
    below is read, and verify_chain reports it, where a read from seq 0 would skip it."""
    for i in range(3):
        store.append(i, [ev(i)])
    store.close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE events SET seq = -5 WHERE seq = 1")
    conn.close()
    with Store.open(path) as s:
        assert [r[0] for c in s.read_rows(None, None, ("seq",)) for r in c] == [-5, 2, 3]
        assert [r[0] for c in s.read_rows(0, None, ("seq",)) for r in c] == [2, 3]
        assert s.verify_chain()


def test_a_reader_sees_appends_once_committed(path, store):
    with Store.open(path) as reader:
        assert reader.head() == (0, GENESIS)
        out = store.append(0, [ev()])
        assert reader.head() == (1, out[0].hash)
        assert list(reader.read()) == out


def test_seq_increases_by_one_without_gaps(store):
    seq = 0
    for size in (1, 3, 2, 5, 1):
        out = store.append(seq, [ev(k) for k in range(size)])
        assert [s.seq for s in out] == list(range(seq + 1, seq + size + 1))
        seq = out[-1].seq
    assert [s.seq for s in store.read()] == list(range(1, 13))
    assert store.verify_chain() == []


def test_batch_is_the_first_seq_and_command_is_on_the_first_row_only(store):
    store.append(0, [ev(0)], command={"argv": ["first"]})
    out = store.append(1, [ev(1), ev(2), ev(3)], command={"argv": ["buy", "axis", "RG G1"], "dice": None})
    assert [(s.seq, s.batch) for s in out] == [(2, 2), (3, 2), (4, 2)]
    assert [s.command for s in out] == [{"argv": ["buy", "axis", "RG G1"], "dice": None}, None, None]
    assert [(s.batch, s.command) for s in store.read()][0] == (1, {"argv": ["first"]})
    assert list(store.read())[1:] == out
    store.append(4, [ev(4)])  # no command at all
    assert list(store.read(since=4))[0].command is None


def test_recorded_defaults_to_utc_iso_seconds(store):
    out = store.append(0, [ev()])
    rec = out[0].recorded
    assert time.strptime(rec, "%Y-%m-%dT%H:%M:%SZ")
    assert abs(time.mktime(time.strptime(rec, "%Y-%m-%dT%H:%M:%SZ")) - time.mktime(time.gmtime())) < 60


def test_an_empty_batch_writes_nothing(path, store):
    before = files(path)
    assert store.append(0, []) == []
    assert store.head() == (0, GENESIS) and files(path) == before


def test_stale_expected_seq_raises_write_conflict_and_writes_nothing(path, store):
    store.append(0, [ev(0), ev(1)], snapshot=lambda q, h: b"s")
    before = files(path)
    head = store.head()
    for stale in (0, 1, 3):
        with pytest.raises(WriteConflict, match=r"another writer appended first \(seq 2\); run the command again"):
            store.append(stale, [ev(9)], command={"argv": ["x"]}, snapshot=lambda q, h: b"never")
    assert files(path) == before
    assert store.head() == head and store.snapshot()[2] == b"s"
    assert not store.conn.in_transaction, "the write lock must be released"
    store.close()
    with Store.open(path) as s:
        assert [e.seq for e in s.read()] == [1, 2] and s.verify_chain() == []


def test_a_failing_snapshot_rolls_the_whole_append_back(path, store):
    store.append(0, [ev(0)], snapshot=lambda q, h: b"old")
    before = files(path)

    def boom(seq, h):
        raise RuntimeError("fold failed")

    with pytest.raises(RuntimeError, match="fold failed"):
        store.append(1, [ev(1), ev(2)], command={"argv": ["y"]}, snapshot=boom)
    assert files(path) == before
    assert store.head()[0] == 1 and store.snapshot()[:1] == (1,) and store.snapshot()[2] == b"old"
    assert not store.conn.in_transaction
    assert store.append(1, [ev(1)])[0].seq == 2  # and the store is still usable


def test_snapshot_is_stored_in_the_same_transaction_at_the_new_head(store):
    seen = []

    def snap(seq, h):
        seen.append((seq, h))
        return b"state:" + str(seq).encode()

    out = store.append(0, [ev(0), ev(1), ev(2)], snapshot=snap)
    assert seen == [(3, out[-1].hash)]
    assert store.snapshot() == (3, out[-1].hash, b"state:3")
    store.append(3, [ev(3)], snapshot=lambda q, h: None)  # None: keep the one there
    assert store.snapshot() == (3, out[-1].hash, b"state:3")
    store.append(4, [ev(4)])
    store.drop_snapshot()
    assert store.snapshot() is None
    assert store.verify_chain() == []


def test_a_payload_that_is_not_json_fails_before_writing(path, store):
    before = files(path)
    with pytest.raises(TypeError):
        store.append(0, [NewEvent("X", 1, {"bad": object()}, 1, "2.1")])
    assert files(path) == before and not store.conn.in_transaction


def test_new_event_checks_its_field_types():
    with pytest.raises(TypeError):
        NewEvent("X", "1", {}, 1, "2.1")
    with pytest.raises(TypeError):
        NewEvent("X", 1, [], 1, "2.1")


def test_a_busy_database_waits_then_raises_write_conflict(path, store, monkeypatch):
    monkeypatch.setattr(store_mod, "BUSY_TIMEOUT", 0.3)
    store.append(0, [ev()])
    with Store.open(path, write=True) as other:
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        t0 = time.monotonic()
        with pytest.raises(WriteConflict, match="another writer"):
            other.append(1, [ev(1)])
        assert time.monotonic() - t0 >= 0.25, "it must wait for the lock before giving up"
        blocker.execute("ROLLBACK")
        blocker.close()
        assert other.append(1, [ev(1)])[0].seq == 2


def test_a_full_disk_is_bad_input_and_writes_nothing(path, store):
    store.append(0, [ev(0)])
    before = files(path)
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages}")  # the file may not grow: SQLITE_FULL
    with pytest.raises(BadInput, match=r"cannot write .*campaign.plcg: database or disk is full"):
        store.append(1, [ev(i, blob="x" * 5000) for i in range(20)], snapshot=lambda q, h: b"z" * 100_000)
    assert files(path) == before and store.head()[0] == 1 and not store.conn.in_transaction


def _writer(path: str, who: int, n: int, start, out) -> None:
    try:
        start.wait()
        conflicts, rng = 0, random.Random(who)
        with Store.open(path, write=True) as s:
            for i in range(n):
                while True:
                    seq, _ = s.head()
                    time.sleep(rng.random() / 1000)  # widen the read-then-write window: the writers race
                    try:
                        s.append(seq, [ev(i, "A", who=who), ev(i, "B", who=who)], command={"who": who, "i": i},
                                 snapshot=lambda q, h: f"{who}@{q}".encode())
                        break
                    except WriteConflict:
                        conflicts += 1
        out.put((who, conflicts, None))
    except BaseException:
        out.put((who, -1, traceback.format_exc()))


def test_two_processes_appending_concurrently_leave_no_gap_no_duplicate_and_an_intact_chain(path):
    Store.create(path, {}).close()
    ctx = multiprocessing.get_context("fork")
    start, out, n = ctx.Event(), ctx.Queue(), 60
    procs = [ctx.Process(target=_writer, args=(path, who, n, start, out)) for who in (1, 2)]
    for p in procs:
        p.start()
    start.set()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert all(err is None for _, _, err in results), results
    with Store.open(path) as s:
        events = list(s.read())
        assert [e.seq for e in events] == list(range(1, 4 * n + 1))  # no gap, no duplicate
        assert s.verify_chain() == []
        # each command's two events stayed together, and each (writer, i) landed exactly once
        pairs = [(a, b) for a, b in zip(events[::2], events[1::2])]
        assert all(a.batch == a.seq and b.batch == a.seq and (a.type, b.type) == ("A", "B")
                   and a.payload == {**b.payload} and a.command == {"who": a.payload["who"], "i": a.payload["i"]}
                   and b.command is None for a, b in pairs)
        assert sorted((a.payload["who"], a.payload["i"]) for a, _ in pairs) == [
            (w, i) for w in (1, 2) for i in range(n)]
        assert s.snapshot()[:2] == (4 * n, events[-1].hash)


# ---- verify_chain ----------------------------------------------------------------------------

def test_verify_chain_passes_an_untouched_file(path):
    filled(path, [1, 3, 2, 1])
    assert verify(path) == []
    with Store.open(path) as s:
        rows = [r for c in s.read_rows(chunk=3) for r in c]
    assert len(rows) == 7 and len(rows[0]) == len(store_mod.COLUMNS)
    assert rows[0][store_mod.COLUMNS.index("prev_hash")] == GENESIS
    assert [r[0] for r in rows] == list(range(1, 8))


def test_verify_chain_catches_a_payload_edited_with_sqlite3(path):
    filled(path, [2, 3, 2])
    raw(path, ("UPDATE events SET payload = ? WHERE seq = 4", ('{"i":999}',)))
    found = verify(path)
    assert [seq for seq, _ in found] == [4] and "row 4 was edited" in found[0][1]


def test_verify_chain_catches_a_type_or_column_edit(path):
    filled(path, [2, 3, 2])
    raw(path, ("UPDATE events SET firefight = 2 WHERE seq = 6",))
    assert [seq for seq, _ in verify(path)] == [6]


def test_verify_chain_catches_a_deleted_row(path):
    filled(path, [2, 3, 2])
    raw(path, ("DELETE FROM events WHERE seq = 4",))
    found = verify(path)
    assert [seq for seq, _ in found] == [4] and "row(s) after 3 deleted" in found[0][1]


def test_verify_chain_catches_deleted_first_rows(path):
    filled(path, [2, 3, 2])
    raw(path, ("DELETE FROM events WHERE seq <= 2",))
    found = verify(path)
    assert found[0][0] == 1 and "row(s) after 0 deleted (seq 1-2 missing)" in found[0][1]


def test_verify_chain_catches_deleted_last_rows_through_the_snapshot(path):
    filled(path, [2, 3, 2])
    raw(path, ("DELETE FROM events WHERE seq >= 6",))
    found = verify(path)
    assert [seq for seq, _ in found] == [6] and "row(s) after 5 deleted" in found[0][1]


def test_verify_chain_catches_two_rows_payload_and_type_swapped(path):
    filled(path, [2, 3, 2])
    r3, r5 = row(path, 3), row(path, 5)
    raw(path, ("UPDATE events SET type = ?, payload = ? WHERE seq = 3", (r5[2], r5[6])),
        ("UPDATE events SET type = ?, payload = ? WHERE seq = 5", (r3[2], r3[6])))
    found = verify(path)
    assert [seq for seq, _ in found] == [3, 5] and all("was edited" in p for _, p in found)


def test_verify_chain_catches_two_whole_rows_swapped_but_their_seq(path):
    filled(path, [1, 1, 1, 1])
    r2, r3 = row(path, 2), row(path, 3)
    cols = ", ".join(f"{c} = ?" for c in store_mod.COLUMNS[1:])
    raw(path, (f"UPDATE events SET {cols} WHERE seq = 2", r3[1:]), (f"UPDATE events SET {cols} WHERE seq = 3", r2[1:]))
    found = {seq for seq, _ in verify(path)}
    assert {2, 3} <= found


def _rehash(path: str, seq: int, **changes) -> None:
    """Edit row seq and recompute its own hash, as a careful forger would."""
    names = store_mod.COLUMNS
    r = dict(zip(names, row(path, seq)))
    r.update(changes)
    record = chain_record(r["seq"], r["batch"], r["type"], r["version"], r["firefight"], r["step"],
                          loads(r["payload"]), r["recorded"], None if r["command"] is None else loads(r["command"]))
    r["hash"] = chain_hash(r["prev_hash"], record)
    raw(path, ("UPDATE events SET payload = ?, hash = ? WHERE seq = ?", (r["payload"], r["hash"], seq)))


def test_verify_chain_catches_a_row_edited_and_rehashed_at_the_next_rows_link(path):
    filled(path, [2, 3, 2])
    _rehash(path, 4, payload='{"i":999}')
    with Store.open(path) as s:
        assert list(s.read(since=3, until=4))[0].payload == {"i": 999}  # the forgery is in place...
    found = verify(path)
    assert [seq for seq, _ in found] == [5]  # ...and the next row no longer links to it
    assert "row 5 does not link to row 4" in found[0][1] and "row 4 was edited and its hash recomputed" in found[0][1]


def test_verify_chain_catches_the_last_row_edited_and_rehashed_through_the_snapshot(path):
    filled(path, [2, 3, 2])
    _rehash(path, 7, payload='{"i":999}')
    found = verify(path)
    assert [seq for seq, _ in found] == [7] and "hash recomputed" in found[0][1]


def test_verify_chain_catches_a_command_moved_within_a_batch(path):
    filled(path, [3])
    raw(path, ("UPDATE events SET batch = 2 WHERE seq = 3",))
    found = verify(path)
    assert 3 in [seq for seq, _ in found]


def test_verify_chain_catches_non_json_and_non_canonical_payloads(path):
    filled(path, [1, 1, 1])
    raw(path, ("UPDATE events SET payload = 'not json' WHERE seq = 1",),
        ("UPDATE events SET payload = '{\"i\": 1}' WHERE seq = 2",))  # same value, other spelling
    assert [seq for seq, _ in verify(path)] == [1, 2]


# ---- read-only -------------------------------------------------------------------------------

def test_read_only_open_refuses_every_write_and_changes_no_byte(path):
    filled(path, [2, 1])
    before = files(path)
    with Store.open(path) as s:
        assert not s.writable
        assert [e.seq for e in s.read()] == [1, 2, 3] and s.verify_chain() == []
        with pytest.raises(sqlite3.OperationalError):
            s.conn.execute("INSERT INTO meta (key, value) VALUES ('x', 'y')")
        with pytest.raises(sqlite3.OperationalError):
            s.conn.execute("DELETE FROM events")
        with pytest.raises(BadInput, match="cannot write"):
            s.append(3, [ev(3)])
        with pytest.raises(BadInput, match="cannot write"):
            s.drop_snapshot()
        assert s.head()[0] == 3 and s.snapshot() is not None
    after = files(path)
    assert after[""] == before[""]
    assert after.get("-wal", b"") == b"", "a reader may leave SQLite's empty -wal beside the file, nothing in it"
    with Store.open(path) as s:
        assert s.verify_chain() == []


def _read_in_read_only_dir(path: str) -> dict:
    out = {}
    with Store.open(path) as s:
        out["seqs"] = [e.seq for e in s.read()]
        out["raw"] = sum(len(c) for c in s.read_rows(columns=("seq", "payload")))
        out["verify"] = s.verify_chain()
        out["head"] = s.head()[0]
        out["meta"] = s.meta["card"]
        try:
            s.append(out["head"], [ev()])
            out["append"] = "written!"
        except BadInput as e:
            out["append"] = str(e)
        try:
            s.conn.execute("DELETE FROM events")
            out["raw_write"] = "written!"
        except sqlite3.Error:
            out["raw_write"] = "refused"
    try:
        Store.open(path, write=True).append(out["head"], [ev()])
        out["write_open"] = "written!"
    except BadInput as e:
        out["write_open"] = str(e)
    out["dir"] = sorted(os.listdir(os.path.dirname(path)))
    return out


@pytest.fixture
def public_tmp():
    """A directory `nobody` can reach (pytest's tmp_path is under a 0700 directory when root)."""
    d = tempfile.mkdtemp(prefix="plcg-ro-")
    os.chmod(d, 0o755)
    yield Path(d)
    for p in Path(d).rglob("*"):
        if p.is_dir():
            os.chmod(p, 0o755)
    shutil.rmtree(d)


def test_read_only_open_works_on_a_0444_file_in_a_0555_directory(public_tmp):
    d = public_tmp / "ro"
    d.mkdir()
    path = str(d / "campaign.plcg")
    filled(path, [2, 1, 3])
    assert not os.path.exists(path + "-wal")  # a clean close checkpoints the WAL away
    before = files(path)
    os.chmod(path, 0o444)
    os.chmod(d, 0o555)
    out = as_nobody(_read_in_read_only_dir, path)
    assert out["seqs"] == [1, 2, 3, 4, 5, 6] and out["raw"] == 6 and out["head"] == 6
    assert out["verify"] == [] and out["meta"] == "c"
    assert out["append"].startswith("cannot write") and out["raw_write"] == "refused"
    assert out["write_open"].startswith(("cannot open", "cannot write"))
    assert out["dir"] == ["campaign.plcg"] and files(path) == before


def test_read_only_directory_with_unmerged_wal_is_refused_not_read_stale(public_tmp):
    src = str(public_tmp / "live.plcg")
    filled(src, [1])
    d = public_tmp / "ro"
    d.mkdir()
    # a file of an earlier release (WAL mode), events still in its WAL: copy mid-flight
    conn = sqlite3.connect(src, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    with Store(conn, src, True, {}) as s:
        s.append(1, [ev(1), ev(2)])
        shutil.copy(src, d / "campaign.plcg")
        shutil.copy(src + "-wal", d / "campaign.plcg-wal")
    assert os.path.getsize(d / "campaign.plcg-wal") > 0
    os.chmod(d / "campaign.plcg", 0o444)
    os.chmod(d / "campaign.plcg-wal", 0o444)
    os.chmod(d, 0o555)

    def attempt(p):
        try:
            with Store.open(p) as s:
                return [e.seq for e in s.read()]  # fine too, if SQLite can read the WAL itself
        except BadInput as e:
            return str(e)

    out = as_nobody(attempt, str(d / "campaign.plcg"))
    assert out == [1, 2, 3] or "write-ahead log" in out, out


def test_an_unreadable_file_is_bad_input(public_tmp):
    path = str(public_tmp / "campaign.plcg")
    filled(path, [1])
    os.chmod(path, 0o000)

    def attempt(p):
        try:
            Store.open(p)
            return "opened!"
        except BadInput as e:
            return str(e)

    assert as_nobody(attempt, path).startswith("cannot open")


def test_create_in_a_missing_directory_is_bad_input(tmp_path):
    with pytest.raises(BadInput, match="cannot write"):
        Store.create(str(tmp_path / "nope" / "campaign.plcg"), {})
