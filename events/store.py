"""The campaign file: an append-only, hash-chained event log in SQLite. The only code that writes it.

Tables (shared/docs/architecture.md, "Rooms" and "Speed"):
  events(seq INTEGER PRIMARY KEY, batch, type, version, firefight, step, payload, recorded, command,
         prev_hash, hash)      -- seq is the rowid, so rowid order is seq order
  meta(key TEXT PRIMARY KEY, value TEXT)    -- "format" plus what `create` was given
  snapshot(id = 1, seq, hash, state BLOB)   -- derived data: the folded state at (seq, hash), but for
                                            the settled units, which are in:
  snapshot_cold(id = 1, token, state BLOB)  -- the hot blob names it by token (cg/snapshot.py); optional

Each row's hash = chain_hash(prev_hash, {seq, batch, type, version, firefight, step, payload, recorded,
command}) with payload/command as parsed JSON (events/codec.py). The chain is tamper-evident against
edits made with a SQLite tool, not against someone who recomputes every later hash (there is no key).

Transactions: the connection runs with isolation_level=None (no implicit BEGIN), and `append` takes
the write lock with BEGIN IMMEDIATE *before* reading the head, and manages BEGIN IMMEDIATE / COMMIT /
ROLLBACK itself; sqlite-utils builds the tables in `create`.

Journal (issue 15): the rollback journal (journal_mode=DELETE), not WAL. Once a command has returned,
the .plcg file alone holds it, even while a reader holds the file open (a WAL checkpoint cannot finish
then, and the last commands stay in the -wal file that players do not mail), and nothing is left beside
it. Measured (a folder on the work disk; 150 appends of one event + command + a 2 kB snapshot,
synchronous=FULL, this shared and loaded 2-core box, two interleaved runs, median / p90 ms):
  DELETE 6.5/25, 6.4/32   TRUNCATE 12/32, 6.3/26   PERSIST 20/35, 5.2/20
  WAL 4.8/14, 2.0/8.3 (the old mode: the file alone lacks the last commands)
  WAL + wal_checkpoint(TRUNCATE) after each 24/38, 9.2/44
DELETE is the cheapest mode that leaves the file whole, and leaves no file beside it (TRUNCATE and
PERSIST keep a -journal). In the bench's campaign builder (bench/synth.py, 2,478 commands through one
Ledger, two runs each) a command costs 2.0-2.2 ms against 0.36-0.44 ms under WAL: within the 5 ms
append budget, and far below a CLI process start (~200 ms).
A file of an earlier release (WAL) is switched the first time it is opened where it is writable (`_leave_wal`).

Durability: synchronous=FULL: a committed append survives a power cut.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path

import attrs

from events import osrandom
from events import records
from events.errors import BadInput, UnreadableRow, WriteConflict
from events.outpath import link_problem, remove_file, sweep_temps  # noqa: F401 (new, import: their leftovers)
from events.types import REGISTRY

from .chain import ChainCheck
from .codec import GENESIS, chain_hash, chain_record, dumps, loads
import attrs as _a

FORMAT = 1  # the file format this release writes; a file with a higher one is refused

BUSY_TIMEOUT = 5.0  # seconds a writer waits for another writer's lock before WriteConflict

_TABLES = {"events", "meta", "snapshot"}  # snapshot_cold is optional: files before it simply refold
SnapshotBlob = bytes | tuple[bytes, tuple[str, bytes] | None]  # the hot part, or (hot, (token, cold) or None)
_COLD_TABLE = "CREATE TABLE snapshot_cold (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT, state BLOB)"
# Replay must know what the reverts take back before it folds; this (tiny) index finds them without a
# scan of the log. Files made before it get it at their first append; reading one without it scans.
_REVERTS_INDEX = "CREATE INDEX IF NOT EXISTS events_reverted ON events (seq) WHERE type = 'reverted'"

# ruling R41. Every schema object a plcg release has written, with its SQL as SQLite keeps it (whitespace folded):
# a file holding anything else (a trigger, a view, a table or column changed or added) was changed by
# another tool, and is refused before anything is read or written. The tables are sqlite-utils' (events,
# meta) and the store's own; snapshot_cold and the index came later (a file without them is fine).
_EVENTS_SQL = ('CREATE TABLE "events" ( "seq" INTEGER PRIMARY KEY, "batch" INTEGER NOT NULL, "type" TEXT,'
               ' "version" INTEGER, "firefight" INTEGER, "step" TEXT, "payload" TEXT, "recorded" TEXT,'
               ' "command" TEXT, "prev_hash" TEXT, "hash" TEXT )')
KNOWN_SCHEMA: dict[tuple[str, str, str], set[str | None]] = {
    ("table", "events", "events"): {_EVENTS_SQL},
    ("table", "meta", "meta"): {'CREATE TABLE "meta" ( "key" TEXT PRIMARY KEY, "value" TEXT )'},
    ("index", "sqlite_autoindex_meta_1", "meta"): {None},
    ("table", "snapshot", "snapshot"): {
        "CREATE TABLE snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER, hash TEXT, state BLOB)"},
    ("table", "snapshot_cold", "snapshot_cold"): {_COLD_TABLE},
    ("index", "events_reverted", "events"): {"CREATE INDEX events_reverted ON events (seq) WHERE type = 'reverted'"},
    # SQLite's own statistics (ANALYZE): they steer query plans only
    ("table", "sqlite_stat1", "sqlite_stat1"): {"CREATE TABLE sqlite_stat1(tbl,idx,stat)"},
}


def schema_problem(schema: list[tuple]) -> str | None:
    """What in sqlite_master (type, name, tbl_name, sql rows) no release wrote, in words; None if all is ours."""
    for kind, name, tbl, sql in schema:
        allowed = KNOWN_SCHEMA.get((kind, name, tbl))
        folded = None if sql is None else " ".join(str(sql).split())
        if allowed is None:
            return f"a {kind} {name!r}" + (f" on {tbl!r}" if tbl != name else "")
        if folded not in allowed:
            return f"a changed {kind} {name!r}"
    return None


# Column order of `events` (and of every tuple read_rows yields by default).
COLUMNS = (
    "seq", "batch", "type", "version", "firefight", "step",
    "payload", "recorded", "command", "prev_hash", "hash",
)

_HEAD = "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"
_INSERT = (
    "INSERT INTO events (seq, batch, type, version, firefight, step, payload, recorded, command,"
    " prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_STORED = ("seq", "batch", "type", "version", "firefight", "step", "payload", "recorded", "command", "hash")  # a Stored's

# SQLite result codes (primary code = extended code & 0xFF)
_BUSY, _LOCKED, _READONLY, _CANTOPEN, _NOTADB, _CORRUPT = 5, 6, 8, 14, 26, 11

# The rollback journal, deleted at each commit: once a command has returned, the .plcg file alone
# holds it (players mail that one file), and nothing is left beside it. In WAL mode the last commands
# sat in the -wal file until a checkpoint, which a reader holding the file open prevents.
JOURNAL = "DELETE"


# Where two copies part, this is one way they can (issue 25): a file copied alone while a command was
# being written (a kill, a crash) can hold that command, which the original, opened with its hot
# -journal, rolls back; the next command on the original then writes another row at that seq.
COPIED_AFTER_KILL = ("or one file was copied alone right after a plcg process was killed or crashed (without its"
                     " -journal): the original, opened once with its -journal beside it, is the campaign")


# ---- building a new file under a temporary name (new, import) --------------------------------------

def temp_path(db_path: str, kind: str) -> str:
    """A temporary name beside db_path (same folder: the rename is atomic) for a file being built."""
    d, base = os.path.split(os.path.abspath(db_path))
    return os.path.join(d, f".{base}.{kind}-{os.getpid()}-{osrandom.token_hex(4)}")


def fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def place(tmp: str, db_path: str) -> None:
    """Move the finished file tmp to db_path, never replacing a file that appeared meanwhile."""
    for suffix in ("-wal", "-journal"):
        side = tmp + suffix
        if os.path.exists(side) and os.path.getsize(side) > 0:
            raise BadInput(f"cannot finish {db_path}: {side} was not folded in")
    fsync_path(tmp)
    try:
        os.link(tmp, db_path)  # fails if db_path exists: no clobbering
    except FileExistsError:
        raise BadInput(f"{db_path} exists already (it appeared meanwhile); nothing overwritten") from None
    except OSError:
        if os.path.exists(db_path):
            raise BadInput(f"{db_path} exists already (it appeared meanwhile); nothing overwritten") from None
        os.replace(tmp, db_path)  # a file system without hard links
    else:
        os.unlink(tmp)
    remove_file(tmp)  # sidecars, if any
    try:  # make the new name durable
        dfd = os.open(os.path.dirname(os.path.abspath(db_path)), os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


@records.frozen
class NewEvent:
    """An event to append, with where the campaign stood when it was decided."""

    type: str = attrs.field(validator=attrs.validators.instance_of(str))
    version: int = attrs.field(validator=attrs.validators.instance_of(int))
    payload: dict = attrs.field(validator=attrs.validators.instance_of(dict))
    firefight: int = attrs.field(validator=attrs.validators.instance_of(int))
    step: str = attrs.field(validator=attrs.validators.instance_of(str))


def _chained(batch: int, prev: str, events, texts, command, command_text, recorded) -> tuple[list, list]:
    """The rows of one batch starting at seq `batch` after the hash `prev`, and the events as read()
    will give them back: each row's chain hash covers the one before it."""
    rows, stored = [], []
    for i, (ev, text) in enumerate(zip(events, texts)):
        seq = batch + i
        payload = loads(text)  # as read() will give it back (tuples -> lists)
        cmd = command if i == 0 else None
        h = chain_hash(prev, chain_record(seq, batch, ev.type, ev.version, ev.firefight, ev.step,
                                          payload, recorded, cmd))
        rows.append((seq, batch, ev.type, ev.version, ev.firefight, ev.step, text, recorded,
                     command_text if i == 0 else None, prev, h))
        stored.append(Stored(seq, batch, ev.type, ev.version, ev.firefight, ev.step, payload,
                             recorded, None if cmd is None else loads(command_text), h))
        prev = h
    return rows, stored


class Backward:
    """The log's (seq, batch, type) rows as undo reads them (cg/commands/undo.py): `reversed()` walks
    back from `until`, one row at a time; `[-1]` is the last row; false when the log is empty; iterated,
    every row in seq order (what a rejection reads, ruling R71)."""

    def __init__(self, conn, until: int):
        self._conn, self._until = conn, until

    def __bool__(self) -> bool:
        return self._until > 0

    def __getitem__(self, i: int) -> tuple:
        if i != -1:
            raise IndexError("the log's rows are read backward from the last")
        return next(reversed(self))

    def __reversed__(self):
        return iter(self._conn.execute("SELECT seq, batch, type FROM events WHERE seq <= ? ORDER BY seq DESC",
                                        (self._until,)))

    def __iter__(self):  # in seq order, whole: for a command that reads the history forward (a rejection, R71)
        return iter(self._conn.execute("SELECT seq, batch, type FROM events WHERE seq <= ? ORDER BY seq",
                                       (self._until,)))

    def chained_after(self, since: int) -> list[tuple[int, str]]:
        """(seq, side) after `since` of the two-party rolls committed with a place in the other side's chain
        of answers (ruling R83: decided, for the answerer, from the commitment on; issue 37 attack 1)."""
        rows = self._conn.execute("SELECT seq, payload FROM events WHERE type = 'dice_committed' AND seq > ?"
                                  " AND seq <= ? ORDER BY seq", (since, self._until))
        return [(s, p["side"]) for s, p in ((s, loads(t)) for s, t in rows) if p.get("chain") is not None]


def _utils(conn: sqlite3.Connection):
    """sqlite-utils over `conn` (no plugins: they must not touch the ledger's connection)."""
    import sqlite_utils  # lazy: only `plcg new` (and import) build tables, and tests and tools; every other command skips it (~50 ms)

    return sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)


@records.frozen
class Stored:
    """An event as stored. `command` is set on the first event of a batch only."""

    seq: int
    batch: int
    type: str
    version: int
    firefight: int
    step: str
    payload: dict
    recorded: str
    command: dict | None
    hash: str


_REQUIRED: dict = {}


def _required() -> dict:
    """type -> (current version, the payload keys an event of that version must hold)."""
    if not _REQUIRED:
        for name, cls in REGISTRY.items():
            _REQUIRED[name] = (cls.VERSION, frozenset(f.name for f in _a.fields(cls) if f.default is _a.NOTHING))
    return _REQUIRED


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _primary(e: sqlite3.Error) -> int | None:
    code = getattr(e, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _leave_wal(path: str, uri: str) -> bool:
    """A file of an earlier release is in WAL mode (its header's bytes 18-19 are 2), and even a
    read-only connection to it leaves -wal/-shm files beside it. Where file and folder are writable
    it is switched to the rollback journal once, before the read: a change of the file's format, not
    of its content (the -wal's commands are folded into the file), so no command leaves anything
    beside a campaign. Elsewhere (read-only, or another connection holds it) it is read as it is: True
    is returned when the file is left in WAL mode."""
    try:
        with open(path, "rb") as fh:
            header = fh.read(20)
    except OSError:
        return False
    if len(header) < 20 or header[:16] != b"SQLite format 3\x00" or header[18:20] != b"\x02\x02":
        return False
    if not (os.access(path, os.W_OK) and os.access(os.path.dirname(os.path.abspath(path)), os.W_OK)):
        return True
    try:
        conn = _connect(uri + "?mode=rw")
    except sqlite3.Error:
        return True
    try:
        conn.execute(f"PRAGMA journal_mode={JOURNAL}")
        return False
    except sqlite3.Error:
        return False  # another connection holds it: it stays WAL until a command finds it alone (read as it is)
    finally:
        conn.close()


def _connect(uri: str) -> sqlite3.Connection:
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)


class Store:
    """One open campaign file. Open it read-only unless the command writes."""

    def __init__(self, conn: sqlite3.Connection, path: str, write: bool, meta: dict[str, str]):
        self.conn = conn
        self.path = path
        self.writable = write
        self.meta = meta
        self._indexed = False  # whether this connection has made sure of _REVERTS_INDEX

    # ---- opening ---------------------------------------------------------------------------

    @classmethod
    def create(cls, path: str, meta: dict[str, str]) -> "Store":
        """Make a new campaign file (rollback journal) holding `meta` plus "format"; refuse if PATH exists."""
        if "format" in meta:
            raise ValueError('meta key "format" is the store\'s own')
        for k, v in meta.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError(f"meta must map str to str, got {k!r}: {v!r}")
        try:  # O_EXCL: of two `plcg new` racing for one path, exactly one gets it
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            raise BadInput(f"{path} already exists; plcg new will not overwrite a campaign file") from None
        except OSError as e:
            raise BadInput(f"cannot write {path}: {e.strerror}") from None
        os.close(fd)
        conn = None
        try:
            conn = _connect(Path(path).absolute().as_uri() + "?mode=rw")
            conn.execute(f"PRAGMA journal_mode={JOURNAL}")
            conn.execute("PRAGMA synchronous=FULL")
            db = _utils(conn)
            with db.atomic():
                db.table("events").create(
                    {
                        "seq": int, "batch": int, "type": str, "version": int, "firefight": int,
                        "step": str, "payload": str, "recorded": str, "command": str,
                        "prev_hash": str, "hash": str,
                    },
                    pk="seq",
                    not_null={"batch"},
                )
                db.table("meta").create({"key": str, "value": str}, pk="key")
                db.execute(
                    "CREATE TABLE snapshot (id INTEGER PRIMARY KEY CHECK (id = 1),"
                    " seq INTEGER, hash TEXT, state BLOB)"
                )
                db.execute(_COLD_TABLE)
                db.execute(_REVERTS_INDEX)
                full = {**meta, "format": str(FORMAT)}
                db.table("meta").insert_all({"key": k, "value": v} for k, v in full.items())
            return cls(conn, path, True, full)
        except BaseException as e:
            if conn is not None:
                conn.close()
            for suffix in ("", "-wal", "-shm"):  # ours: the file did not exist a moment ago
                try:
                    os.unlink(path + suffix)
                except OSError:
                    pass
            if isinstance(e, sqlite3.Error):
                raise BadInput(f"cannot write {path}: {e}") from None
            raise

    @classmethod
    def open(cls, path: str, write: bool = False) -> "Store":
        """Open an existing campaign file; read-only (SQLite mode=ro) unless write=True."""
        if not os.path.exists(path):  # a link in a loop or to nothing says so (issue 25)
            raise BadInput(link_problem(path) or f"no campaign file at {path} (plcg new --card ... starts one)")
        if os.path.isdir(path):
            raise BadInput(f"{path} is a directory, not a plcg campaign file")
        uri = Path(path).absolute().as_uri()
        ro = "?mode=ro"
        if not write and _leave_wal(path, uri):
            # a WAL file (first release) that stays WAL here (read-only): with no -wal content to miss,
            # read it as immutable, so nothing is left beside it (a -wal/-shm of mode 0444 would make
            # every later write fail once the file is writable again, issue 25)
            wal = path + "-wal"
            if not (os.path.exists(wal) and os.path.getsize(wal) > 0) and not os.path.exists(path + "-shm"):
                ro = "?mode=ro&immutable=1"
        try:
            conn, meta = cls._connect_checked(uri + ("?mode=rw" if write else ro), path)
        except sqlite3.Error as e:
            if write or not isinstance(e, sqlite3.OperationalError) or _primary(e) not in (_READONLY, _CANTOPEN):
                raise cls._open_error(path, e) from None
            journal = path + "-journal"
            if os.path.exists(journal) and os.path.getsize(journal) > 0:
                # A hot journal: a writer was killed in the middle of its commit, and the file holds
                # part of an uncommitted command. A read-only connection cannot roll it back
                # (SQLITE_READONLY_ROLLBACK) and must never read past it (immutable would): roll it
                # back once with a writing connection (recovery: the file returns to its last commit).
                try:
                    rw = _connect(uri + "?mode=rw")
                    try:
                        rw.execute("SELECT count(*) FROM sqlite_master").fetchone()
                    finally:
                        rw.close()
                    conn, meta = cls._connect_checked(uri + "?mode=ro", path)
                except sqlite3.Error:
                    raise BadInput(f"cannot read {path}: a command was cut off while writing it ({journal}"
                                   " holds its undo) and it cannot be finished here; open it once where the"
                                   " file and its directory are writable") from None
                return cls._ready(conn, path, write, meta)
            # A WAL file in a read-only directory: mode=ro cannot create the -shm file
            # (SQLITE_READONLY_DIRECTORY). With no -wal content to miss, the file alone is the whole
            # ledger: read it as immutable. A -wal with frames in it would be silently ignored
            # that way, so refuse instead.
            wal = path + "-wal"
            if os.path.exists(wal) and os.path.getsize(wal) > 0:
                raise BadInput(
                    f"cannot read {path}: its write-ahead log {wal} holds changes and the directory"
                    " is read-only; open it once where the directory is writable"
                ) from None
            try:
                conn, meta = cls._connect_checked(uri + "?mode=ro&immutable=1", path)
            except sqlite3.Error as e2:
                raise cls._open_error(path, e2) from None
        return cls._ready(conn, path, write, meta)

    @classmethod
    def _ready(cls, conn: sqlite3.Connection, path: str, write: bool, meta: dict[str, str]) -> "Store":
        if write:
            conn.execute("PRAGMA synchronous=FULL")
            try:  # a file of an earlier release (WAL): fold its -wal in and keep the file whole from now on
                if conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                    conn.execute(f"PRAGMA journal_mode={JOURNAL}")
            except sqlite3.Error:
                pass  # another connection holds it: it stays WAL until the next write finds it alone
        else:
            conn.execute("PRAGMA query_only=1")
        return cls(conn, path, write, meta)

    @classmethod
    def _connect_checked(cls, uri: str, path: str) -> tuple[sqlite3.Connection, dict[str, str]]:
        conn = _connect(uri)
        try:
            return conn, cls._check(conn, path)
        except BaseException:
            conn.close()
            raise

    @staticmethod
    def _check(conn: sqlite3.Connection, path: str) -> dict[str, str]:
        """The file's meta, after checking it is a plcg campaign this release can read."""
        try:
            schema = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
        except sqlite3.DatabaseError as e:
            if _primary(e) in (_NOTADB, _CORRUPT):
                raise BadInput(f"{path} is not a plcg campaign file (not SQLite: {e})") from None
            raise
        tables = {r[1] for r in schema if r[0] == "table"}
        if not _TABLES <= tables:
            raise BadInput(f"{path} is not a plcg campaign file (a SQLite file without the ledger tables)")
        foreign = schema_problem(schema)
        if foreign:
            raise BadInput(f"{path} holds {foreign}, which no plcg release writes: refused, nothing written"
                           " (a file changed by another tool; plcg export/import from a good copy)")
        meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
        try:
            fmt = int(meta["format"])
        except (KeyError, ValueError):
            raise BadInput(f"{path} is not a plcg campaign file (no format in its meta table)") from None
        if fmt > FORMAT:
            raise BadInput(f"{path} was written by a newer plcg (format {fmt}); upgrade plcg")
        if fmt < 1:
            raise BadInput(f"{path} is not a plcg campaign file (format {fmt})")
        return meta

    @staticmethod
    def _open_error(path: str, e: sqlite3.Error) -> BadInput:
        if _primary(e) in (_NOTADB, _CORRUPT):
            return BadInput(f"{path} is not a plcg campaign file (not SQLite: {e})")
        return BadInput(f"cannot open {path}: {e}")

    @property
    def db(self):
        """sqlite-utils over the same connection (no plugins: they must not touch the ledger's connection)."""
        return _utils(self.conn)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- writing ---------------------------------------------------------------------------

    def _write_error(self, e: sqlite3.Error) -> Exception:
        if _primary(e) in (_BUSY, _LOCKED) or "locked" in str(e) or "busy" in str(e):
            return WriteConflict(
                f"another writer is holding {self.path} (waited {BUSY_TIMEOUT:g} s); run the command again"
            )
        return BadInput(f"cannot write {self.path}: {e}")

    def _abort(self, e: BaseException):
        """A write transaction that failed: rolled back; a database error as the write error it is
        (exit 4 for a lost race), anything else as it was."""
        self._rollback()
        if isinstance(e, sqlite3.Error) and not isinstance(e, sqlite3.IntegrityError):
            raise self._write_error(e) from None
        raise e

    def _rollback(self) -> None:
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the error already ended the transaction

    def _commit_rows(self) -> None:
        """Commit a transaction that appended rows (the reverts index made first where a file made
        before it lacks it: a no-op once there)."""
        if not self._indexed:
            self.conn.execute(_REVERTS_INDEX)
            self._indexed = True
        self.conn.execute("COMMIT")

    def _begin(self) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")  # the write lock, waiting up to BUSY_TIMEOUT
        except sqlite3.Error as e:
            self._rollback()
            raise self._write_error(e) from None

    def head(self) -> tuple[int, str]:
        """(last seq, its hash); (0, GENESIS) when there are no events."""
        row = self.conn.execute(_HEAD).fetchone()
        return (row[0], row[1]) if row else (0, GENESIS)

    def append(
        self,
        expected_seq: int,
        events: list[NewEvent],
        command: dict | None = None,
        snapshot: Callable[[int, str], SnapshotBlob | None] | None = None,
        recorded: str | None = None,
        snapshot_before: bool = False,
    ) -> list[Stored]:
        """Append `events` as one batch after seq `expected_seq`, all or none.

        WriteConflict if the head is no longer `expected_seq` (or another writer holds the lock past
        the busy timeout); BadInput if the file cannot be written. `snapshot(last_seq, last_hash)`
        runs inside the transaction; its blob (unless None) replaces the stored snapshot, and if it
        raises, nothing is written. `snapshot_before`: the blob is the state before these events,
        stored at the head they follow (`snapshot(expected_seq, its hash)`), so that an undo of them
        folds on from it. An empty `events` list writes nothing and returns [].
        """
        if not events:
            return []
        recorded = _now() if recorded is None else recorded
        # serialise before taking the lock: a payload that is not JSON fails here, holding nothing
        texts = [dumps(ev.payload) for ev in events]
        command_text = None if command is None else dumps(command)
        self._begin()
        try:
            row = self.conn.execute(_HEAD).fetchone()
            head_seq, prev = (row[0], row[1]) if row else (0, GENESIS)
            if head_seq != expected_seq:
                raise WriteConflict(f"another writer appended first (seq {head_seq}); run the command again")
            rows, stored = _chained(expected_seq + 1, prev, events, texts, command, command_text, recorded)
            self.conn.executemany(_INSERT, rows)
            if snapshot is not None and not (snapshot_before and head_seq == 0):
                at = (head_seq, prev) if snapshot_before else (stored[-1].seq, stored[-1].hash)
                blob = snapshot(*at)
                if blob is not None:
                    self._put_snapshot(*at, blob)
            self._commit_rows()
        except BaseException as e:
            self._abort(e)
        return stored

    def append_batches(self, batches: Iterable[tuple[list[NewEvent], dict | None, str]],
                       check: Callable[[list[Stored]], None] | None = None) -> int:
        """Append every batch `(events, command, recorded)` after the empty log in ONE transaction (plcg
        import: a file not yet in place, so one commit instead of one per command); `check(stored)` sees
        each batch as stored and may raise, which writes nothing. The number of events."""
        self._begin()
        try:
            row = self.conn.execute(_HEAD).fetchone()
            if row is not None:
                raise WriteConflict(f"{self.path} is not empty: a bulk append starts a new log")
            seq, prev, count = 1, GENESIS, 0
            for events, command, recorded in batches:
                texts = [dumps(ev.payload) for ev in events]
                rows, stored = _chained(seq, prev, events, texts, command,
                                        None if command is None else dumps(command), recorded)
                self.conn.executemany(_INSERT, rows)
                if check is not None:
                    check(stored)
                seq, prev, count = seq + len(rows), stored[-1].hash, count + len(rows)
            self._commit_rows()
        except BaseException as e:
            self._abort(e)
        return count

    def _still_at(self, head: tuple[int, str]) -> None:
        """Inside a write transaction: WriteConflict (exit 4) unless the file's head is still `head`."""
        row = self.conn.execute(_HEAD).fetchone()
        now = (row[0], row[1]) if row else (0, GENESIS)
        if now != tuple(head):
            raise WriteConflict(f"another writer appended first (seq {now[0]}); run the command again")

    def append_rows(self, head: tuple[int, str], rows: list[tuple]) -> None:
        """Append rows exactly as another copy stored them (a received bundle, events/bundle.py),
        all or none, if this file's head is still `head`: the caller has checked their chain, their
        signature and the rules. The stored snapshot stays: it is older than the new rows, which the
        next command folds onto it."""
        if not rows:
            return
        self._begin()
        try:
            self._still_at(head)
            self.conn.executemany(_INSERT, rows)
            self._commit_rows()
        except BaseException as e:
            self._abort(e)

    def rejoin_rows(self, head: tuple[int, str], fork: int, rows: list[tuple]) -> None:
        """Ruling R113 alone (two copies that parted, joined): the rows after `fork` are replaced by `rows`
        (the other side's rows as he sent them, then this player's unsent commands decided again on them,
        linked to the row at `fork`), all or none, if this file's head is still `head`; the stored snapshot
        goes (it may be of a row replaced). The one place where rows leave the log: only rows of this copy's
        own player that no bundle ever carried (the caller has checked that none is signed)."""
        self._begin()
        try:
            self._still_at(head)
            self.conn.execute("DELETE FROM events WHERE seq > ?", (fork,))
            self.conn.execute("DELETE FROM snapshot")
            self.conn.executemany(_INSERT, rows)
            self._commit_rows()
        except BaseException as e:
            self._abort(e)

    def put_snapshot(self, seq: int, hash: str, blob: SnapshotBlob) -> bool:
        """Store a snapshot built at (seq, hash) if the log still ends there; False if it moved on."""
        self._begin()
        try:
            head = self.conn.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
            if head is None or tuple(head) != (seq, hash):
                self.conn.execute("ROLLBACK")
                return False
            self._put_snapshot(seq, hash, blob)
            self.conn.execute("COMMIT")
            return True
        except sqlite3.Error as e:
            self._rollback()
            raise self._write_error(e) from None

    def _put_snapshot(self, seq: int, hash: str, blob: SnapshotBlob) -> None:
        """Inside a write transaction: `blob` is the hot part, or (hot, (token, cold) or None)."""
        cold = None
        if isinstance(blob, tuple):
            blob, cold = blob
        if cold is not None:
            self.conn.execute(_COLD_TABLE.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
            self.conn.execute("INSERT OR REPLACE INTO snapshot_cold (id, token, state) VALUES (1, ?, ?)", cold)
        self.conn.execute("INSERT OR REPLACE INTO snapshot (id, seq, hash, state) VALUES (1, ?, ?, ?)",
                          (seq, hash, blob))

    def cold_token(self) -> str | None:
        """The token of the stored cold snapshot part (settled units), or None (none; an older file)."""
        try:
            row = self.conn.execute("SELECT token FROM snapshot_cold WHERE id = 1").fetchone()
        except sqlite3.OperationalError:  # no such table: a file written before the split
            return None
        return None if row is None else row[0]

    def cold_snapshot(self, token: str) -> bytes | None:
        """The stored cold snapshot part if its token is `token`, else None."""
        try:
            row = self.conn.execute("SELECT state FROM snapshot_cold WHERE id = 1 AND token = ?",
                                    (token,)).fetchone()
        except sqlite3.OperationalError:
            return None
        return None if row is None else bytes(row[0])

    def drop_snapshot(self) -> None:
        """Delete the stored snapshot (derived data: only speed is lost)."""
        self._begin()
        try:
            self.conn.execute("DELETE FROM snapshot")
            self.conn.execute("COMMIT")
        except sqlite3.Error as e:
            self._rollback()
            raise self._write_error(e) from None

    # ---- reading ---------------------------------------------------------------------------

    def _rows(self, sql: str, params: tuple = ()) -> Iterator[tuple]:
        cur = self.conn.execute(sql, params)
        try:
            for row in cur:  # not `yield from`: closing this generator must not close the cursor through it
                yield row
        except sqlite3.DatabaseError as e:
            raise self._unreadable(0, None) or BadInput(f"cannot read {self.path}: {e}") from None
        finally:
            try:
                cur.close()
            except sqlite3.ProgrammingError:  # the connection closed first: a reader that stopped on an error
                pass

    CHUNK = 4096  # rows per chunk of read_rows: large enough to amortise, small enough to copy cheaply

    def read_rows(self, since: int | None = 0, until: int | None = None, columns: tuple = COLUMNS,
                  chunk: int = CHUNK, parse: bool = False, columnar: bool = False) -> Iterator[list]:
        """The one reader of the log (issue 33 item 6): `columns` of the rows with since < seq <= until
        (until None: up to the head as this call finds it, the rows up to it never change, append-only;
        since None: from the first row, whatever its seq, as the chain's check reads an edited file), in
        seq order, a list of up to `chunk` rows at a time, each read whole (its query done) before it is
        handed out, so a reader that writes its output between chunks holds no lock while it does and a
        slow one (`export | less`) never keeps the writers out (issue 25). Each value exactly as stored
        (_joined_chunks); with `parse`, the payload column parsed, the chunk's payloads in one call, and
        a row whose payload is not a JSON object an UnreadableRow naming its seq. With `columnar`, each chunk
        is a list of columns (a list of values each, in `columns`' order) instead of rows: what a reader that
        takes a column at a time saves (a tuple a row, made twice where `parse` puts the payload in it)."""
        try:
            # two subqueries: each min/max is one step down the rowid's b-tree, where `min(seq), max(seq)`
            # in one SELECT scans every row (~15 ms at 100k events, paid by each call: issue 36)
            lo, hi = self.conn.execute("SELECT (SELECT min(seq) FROM events), (SELECT max(seq) FROM events)").fetchone()
        except sqlite3.DatabaseError as e:
            raise BadInput(f"cannot read {self.path}: {e}") from None
        if hi is None:
            return
        if since is None:
            since = lo - 1
        if until is not None:
            hi = min(hi, until)
        if not parse:
            yield from self._joined_chunks(columns, since, hi, chunk, columnar)
            return
        at = columns.index("payload")
        if columnar:
            for cols in self._joined_chunks(columns, since, hi, chunk, True):
                texts = cols[at]
                try:
                    payloads = loads("[" + ",".join(texts) + "]")
                except (TypeError, ValueError):
                    payloads = None
                if not isinstance(payloads, list) or len(payloads) != len(texts):  # an edited payload: row by row
                    payloads = [self._payload(r, at, columns) for r in zip(*cols)]
                cols[at] = payloads
                yield cols
            return
        for rows in self._joined_chunks(columns, since, hi, chunk):
            try:
                payloads = loads("[" + ",".join([r[at] for r in rows]) + "]")
            except (TypeError, ValueError):
                payloads = None
            if not isinstance(payloads, list) or len(payloads) != len(rows):  # an edited payload: row by row
                payloads = [self._payload(r, at, columns) for r in rows]
            yield [(*r[:at], p, *r[at + 1:]) for r, p in zip(rows, payloads)]

    def read(self, since: int = 0, until: int | None = None) -> Iterator[Stored]:
        """Events with since < seq <= until (no upper bound when until is None), in seq order, as
        `Stored` (read_rows, each row checked against the form plcg writes)."""
        for rows in self.read_rows(since, until, _STORED):
            yield from self._stored(rows)

    @staticmethod
    def _stored(rows) -> Iterator[Stored]:
        required = _required()
        for seq, batch, type_, version, ff, step, payload, recorded, command, h in rows:
            try:
                p = loads(payload)
                c = None if command is None else loads(command)
            except (TypeError, ValueError):
                raise UnreadableRow(seq, "its payload or command is not JSON") from None
            need = required.get(type_) if type(type_) is str else None
            if type(type_) is not str or type(p) is not dict or type(version) is not int or type(batch) is not int \
                    or type(ff) is not int or type(step) is not str or not (c is None or type(c) is dict):
                raise UnreadableRow(seq, f"its columns do not hold a {type_!r} event as plcg writes it")
            if need is not None and version == need[0] and not need[1] <= p.keys():
                raise UnreadableRow(seq, f"its {type_} payload lacks {', '.join(sorted(need[1] - p.keys()))}")
            yield Stored(seq, batch, type_, version, ff, step, p, recorded, c, h)

    @staticmethod
    def _payload(row: tuple, at: int, columns: tuple) -> dict:
        """A row's payload read alone (a chunk that did not parse whole): one that is not a JSON object
        is an UnreadableRow naming its seq."""
        seq = row[columns.index("seq")] if "seq" in columns else "?"
        try:
            p = loads(row[at])
        except (TypeError, ValueError):
            raise UnreadableRow(seq, f"the payload of row {seq} is not JSON") from None
        if type(p) is not dict:
            raise UnreadableRow(seq, f"the payload of row {seq} is not a JSON object")
        return p

    FOLD_CHUNK = 1024  # rows per query of fold_chunks: large enough to amortise, small enough to copy cheaply

    def fold_chunks(self, current: dict[str, int], since: int = 0,
                    until: int | None = None) -> tuple[Iterator[tuple], int, int]:
        """What folding the log needs, as cheaply as SQLite gives it to Python: (chunks of (seqs,
        types, payload dicts, {seq: stored version} of the chunk's rows whose version is not
        `current`'s for their type) for since < seq <= until in seq order, the version every other
        row is stored at, the last seq the chunks reach: what else the fold reads (the reverts) must
        stop there too, or a revert appended meanwhile would take back rows without being folded).

        Python 3.11's sqlite3 drops and retakes the GIL around every column of every row and parses
        each payload in its own call; a chunk of rows instead comes back as one row of aggregates,
        its payloads joined into one JSON array that orjson parses in one call, its types as one
        string, and how many of its rows are stored at another version (almost always none; those
        are then asked for by seq). A chunk whose rows are not exactly its seq range (a log with a
        row deleted) or whose joined text does not parse back into exactly one payload per row (an
        edited payload) is read row by row instead, and a payload that is not JSON is bad input.
        A type `current` does not know is left out of the version count unless its version is odd:
        cg/evolve.fold_stored refuses it when it meets it.
        """
        try:
            if until is None:
                (hi,) = self.conn.execute("SELECT max(seq) FROM events").fetchone()
            else:
                (hi,) = self.conn.execute("SELECT max(seq) FROM events WHERE seq <= ?", (until,)).fetchone()
        except sqlite3.DatabaseError as e:
            raise BadInput(f"cannot read {self.path}: {e}") from None
        if hi is None or hi <= since:
            return iter(()), 0, since
        versions = list(current.values())
        common = max(versions, key=versions.count) if versions else 0  # the version most types are at
        return self._chunks(since, hi, current, common), common, hi

    def _chunks(self, since: int, hi: int, current: dict[str, int], common: int) -> Iterator[tuple]:
        others = [t for t, v in current.items() if v != common]
        odd = "version IS NOT ?" + (f" OR type IN ({', '.join('?' * len(others))})" if others else "")
        # A rowid range is scanned in rowid order, so each aggregate joins its rows in seq order.
        joined = ("SELECT count(*), '[' || group_concat(payload, ',') || ']', group_concat(type, ','),"
                  f" sum({odd}) FROM events WHERE seq > ? AND seq <= ?")
        which = f"SELECT seq, type, version FROM events WHERE seq > ? AND seq <= ? AND ({odd})"
        step = self.FOLD_CHUNK
        try:
            for lo in range(since, hi, step):
                top = min(lo + step, hi)
                n, text, types, n_odd = self.conn.execute(joined, (common, *others, lo, top)).fetchone()
                if n == 0:
                    continue
                stale = {}
                if n_odd:
                    stale = {seq: v for seq, t, v in self.conn.execute(which, (lo, top, common, *others))
                             if t not in current or v != current[t]}
                if n == top - lo and text is not None and types is not None:
                    types = types.split(",")
                    try:
                        payloads = loads(text)
                    except ValueError:
                        payloads = None
                    if len(types) == n and isinstance(payloads, list) and len(payloads) == n:
                        yield range(lo + 1, top + 1), types, payloads, stale
                        continue
                yield (*self._chunk_by_row(lo, top), stale)
        except sqlite3.DatabaseError as e:
            raise self._unreadable(since, hi) or BadInput(f"cannot read {self.path}: {e}") from None

    def _unreadable(self, lo: int, hi: int | None) -> UnreadableRow | None:
        """After a read failed in SQLite (bytes that are not UTF-8 text): the first row of lo < seq <= hi that
        cannot be read, as an UnreadableRow naming its seq (only on this error path: row by row)."""
        try:
            seqs = [s for (s,) in self.conn.execute("SELECT seq FROM events WHERE seq > ? AND seq <= ?"
                                                    " ORDER BY seq", (lo, 2**62 if hi is None else hi))]
        except sqlite3.DatabaseError:
            return None
        for seq in seqs:
            try:
                t, p, c = self.conn.execute("SELECT type, payload, command FROM events WHERE seq = ?",
                                            (seq,)).fetchone()
            except sqlite3.DatabaseError as e:
                return UnreadableRow(seq, f"SQLite cannot read it ({e})")
            if type(t) is not str or type(p) is not str or not (c is None or type(c) is str):
                return UnreadableRow(seq, "a column holds bytes or a number where plcg writes text")
        return None

    def _chunk_by_row(self, lo: int, top: int) -> tuple[list, list, list]:
        seqs, types, payloads = [], [], []
        for seq, type_, text in self.conn.execute(
                "SELECT seq, type, payload FROM events WHERE seq > ? AND seq <= ? ORDER BY seq", (lo, top)):
            try:
                payloads.append(loads(text))
            except (TypeError, ValueError):
                raise UnreadableRow(seq, f"the payload of row {seq} is not JSON") from None
            seqs.append(seq)
            types.append(type_)
        return seqs, types, payloads

    def batch_of(self, seq: int) -> int:
        row = self.conn.execute("SELECT batch FROM events WHERE seq = ?", (seq,)).fetchone()
        return 0 if row is None else row[0]

    def versions(self) -> set[tuple[str, int]]:
        """The (type, version) pairs the log holds: whether anything needs upcasting, in one query."""
        return set(self.conn.execute("SELECT DISTINCT type, version FROM events"))

    def backward(self, until: int) -> "Backward":
        """(seq, batch, type) of the rows up to `until`, read newest first and only as far as asked,
        payloads unread (what undo walks back: an undo costs what it takes back, not the log's length)."""
        return Backward(self.conn, until)

    def reverts(self, until: int | None = None) -> list[tuple]:
        """(seq, batch, "reverted", payload) of every revert, to learn what is undone before folding."""
        sql = "SELECT seq, batch, type, payload FROM events WHERE type = 'reverted'"
        params: tuple = ()
        if until is not None:
            sql += " AND seq <= ?"
            params = (until,)
        return [(s, b, t, loads(p)) for s, b, t, p in self.conn.execute(sql + " ORDER BY seq", params)]

    def payloads_of(self, type_: str) -> Iterator[tuple[int, str]]:
        """(seq, payload text as stored) of every row of one event type, in seq order (an indexed query)."""
        return iter(self.conn.execute("SELECT seq, payload FROM events WHERE type = ? ORDER BY seq", (type_,)))

    def rows_of(self, seqs) -> Iterator[tuple]:
        """(seq, batch, type, version, payload text) as stored of `seqs` (any order; seqs not in the file
        left out): a lookup by seq, for the audit's undos (a range of rows is read_rows')."""
        cols = "SELECT seq, batch, type, version, payload FROM events WHERE "
        for i in range(0, len(seqs), 500):
            part = list(seqs[i:i + 500])
            yield from self.conn.execute(cols + f"seq IN ({', '.join('?' * len(part))})", part)

    def snapshot_seq(self) -> int | None:
        """The seq the stored snapshot was built at, or None (its blob unread)."""
        row = self.conn.execute("SELECT seq FROM snapshot WHERE id = 1").fetchone()
        return row[0] if row else None

    def integrity_check(self, most: int = 20) -> list[str]:
        """SQLite's own check of the file (PRAGMA integrity_check): ["ok"], or up to `most` problems."""
        return [r[0] for r in self.conn.execute(f"PRAGMA integrity_check({int(most)})")]

    def bulk(self):
        """Write a file not yet in place (an import under its temporary name): no fsyncs, the journal in
        memory, until `durable()`: a crash loses nothing the rename has not published."""
        self.conn.execute("PRAGMA synchronous=OFF")
        self.conn.execute("PRAGMA journal_mode=MEMORY")

    def durable(self):
        """Back to the journal and fsyncs every campaign file is written with."""
        self.conn.execute("PRAGMA journal_mode=DELETE")
        self.conn.execute("PRAGMA synchronous=FULL")

    def hash_at(self, seq: int) -> str | None:
        row = self.conn.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else row[0]

    def recorded_at(self, seq: int) -> str | None:
        """When the row at `seq` was recorded (the report's overview dates its first and last row)."""
        row = self.conn.execute("SELECT recorded FROM events WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else row[0]

    _INTEGER = frozenset(("seq", "batch", "version", "firefight"))

    def _joined_chunks(self, columns: tuple, since: int, until: int, step: int,
                       columnar: bool = False) -> Iterator[list]:
        """The rows with since < rowid (= seq) <= until, `columns` of each exactly as stored, a list
        of up to `step` rows at a time. As fold_chunks does, a chunk of rows comes back as one row of
        aggregates (Python 3.11's sqlite3 pays for every column of every row it hands over): the
        integers joined by commas, the texts by the unit separator (U+001F, which JSON text cannot
        hold raw). A chunk holding a value of another kind (an edited row: a NULL, a REAL, a BLOB, a
        text holding the separator, an empty command) is read row by row. `columnar`: each chunk as its
        columns (read_rows)."""
        ok, parts = [], []
        for c in columns:
            if c in self._INTEGER:
                ok.append(f"typeof({c}) = 'integer'")
                parts.append(f"group_concat({c}, ',')")
            elif c == "command":
                ok.append("(command IS NULL OR (typeof(command) = 'text' AND command != ''))")
                parts.append("group_concat(ifnull(command, ''), char(31))")
            else:
                ok.append(f"typeof({c}) = 'text'")
                parts.append(f"group_concat({c}, char(31))")
        where = " FROM events WHERE rowid > ? AND rowid <= ?"
        joined = f"SELECT count(*), sum({' AND '.join(ok)}), {', '.join(parts)}" + where
        by_row = f"SELECT {', '.join(columns)}" + where + " ORDER BY rowid"
        try:
            for lo in range(since, until, step):
                top = min(lo + step, until)
                n, good, *values = self.conn.execute(joined, (lo, top)).fetchone()
                if n == 0:
                    continue
                if good == n:
                    cols: list[list] = []
                    for c, v in zip(columns, values):
                        if c in self._INTEGER:
                            cols.append(list(map(int, v.split(","))))
                        else:
                            v = v.split("\x1f")
                            cols.append([x or None for x in v] if c == "command" else v)
                    if all(len(v) == n for v in cols):
                        yield cols if columnar else list(zip(*cols))
                        continue
                rows = list(self._rows(by_row, (lo, top)))
                yield [[r[i] for r in rows] for i in range(len(columns))] if columnar else rows
        except sqlite3.DatabaseError as e:  # text SQLite cannot decode: name the row (issue 15)
            raise self._unreadable(since, until) or BadInput(f"cannot read {self.path}: {e}") from None

    def snapshot(self) -> tuple[int, str, bytes] | None:
        """(seq, hash, blob) of the stored snapshot, or None."""
        row = self.conn.execute("SELECT seq, hash, state FROM snapshot WHERE id = 1").fetchone()
        return None if row is None else (row[0], row[1], bytes(row[2]))

    def verify_chain(self) -> list[tuple[int, str]]:
        """Recompute the chain from the stored columns; every (seq, problem) found, in seq order.

        Finds: a row edited (its hash no longer matches its contents), a row edited and re-hashed
        (reported at the NEXT row, whose link breaks; or via the snapshot when it was the last),
        rows deleted (a seq gap; trailing rows only if the snapshot was built past the end), rows
        out of order, and batch/command inconsistencies. The snapshot is only evidence here.
        """
        # the checks, row by row: the audit runs them in its own pass over the rows
        check = ChainCheck.of(self)
        for rows in self.read_rows(since=None):
            for row in rows:
                check.row(row)
        return check.finish()
