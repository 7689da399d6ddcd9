"""Reliability: crashes, concurrent writers, read-only files (the issue's items 1, 2 and 7).

Each test is named for the promise it backs (README, "The ledger's promises").
"""
from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers.campaigns import ROOT, copy_template, files, key
from helpers.sandbox import as_nobody

import cli
from events.errors import WriteConflict
from cg.app.ledger import Ledger
from events import store as store_mod
from cg.app.audit import run_audit
from projections.digest import digest

CHILD = str(Path(__file__).parent / "helpers" / "crash_child.py")


def invoke(args: list[str]):
    return CliRunner().invoke(cli.main, args, catch_exceptions=True)


def check_file(db: str) -> list:
    """What must hold of a campaign file at any moment: it opens, seq runs 1..N with no gap, the audit
    (hash chain, every batch decided again) is clean, and the stored snapshot agrees with the log.
    Returns the rows."""
    led = Ledger(db)
    try:
        rows = list(led.store.read())
        assert [r.seq for r in rows] == list(range(1, len(rows) + 1)), "seq has a gap or a duplicate"
        report = run_audit(led)
        assert report["findings"] == [], report["findings"]
        assert digest(led.state())["digest"] == digest(led.state(use_snapshot=False))["digest"]
    finally:
        led.close()
    Ledger(db, write=True).close()  # and it opens for writing
    return rows


# ---- 1. crash safety ----------------------------------------------------------------------------------

def test_crash_safety_sigkill_at_random_moments_loses_no_returned_command_and_leaves_none_half_written(tmp_path):
    """A child plays the campaign and is killed with SIGKILL 5-80 ms after it is ready, at least 50
    times. After each kill: the file opens, audit is clean, every command the child saw return is in
    the log whole (its whole batch, no more, no less), and nothing committed before has changed."""
    rng = random.Random(20250607)
    db = str(tmp_path / "crash.plcg")
    copy_template("2.9", db)
    known: dict[int, str] = {}  # seq -> hash of every event seen committed so far
    kills = lives = landed_total = progressed = campaigns = 0
    batch_sizes: set[int] = set()
    while kills < 50:
        # bounded by count, not by the clock (a loaded machine is slow, not wrong): a child that is
        # ready runs 5-80 ms at most before its kill, so nearly every life ends in one
        assert lives < 500, f"{kills} kills in {lives} lives: the children end before they can be killed"
        child = subprocess.Popen([sys.executable, CHILD, db, f"life-{lives}"], cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready = child.stdout.readline()
        if ready != "READY\n":
            child.kill()
            raise AssertionError(f"the child did not start: {ready!r} {child.communicate()[1]}")
        time.sleep(rng.uniform(0.005, 0.080))
        try:
            os.kill(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        # through the same buffered reader as READY: readline may already hold the lines after it
        # (a child that prints ENDED at once), which communicate(), reading the raw pipe, would miss
        out, err = child.stdout.read(), child.stderr.read()
        child.wait(timeout=60)
        lives += 1
        lines = out.splitlines()
        if child.returncode == -signal.SIGKILL:
            kills += 1
        else:
            assert child.returncode == 0 and lines and lines[-1] in ("ENDED", "STUCK"), (child.returncode, err)
        assert "Traceback" not in err, err
        landed = []
        for line in lines:
            if line.startswith("OK "):
                _, first, last, cmd = line.split(" ", 3)
                landed.append((int(first), int(last), cmd))
        rows = check_file(db)
        for seq, h in known.items():
            assert rows[seq - 1].hash == h, f"life {lives}: committed seq {seq} changed"
        for first, last, cmd in landed:
            batch = rows[first - 1:last]
            assert len(batch) == last - first + 1, f"life {lives}: {cmd} at {first}-{last} is not in the log"
            assert all(r.batch == first for r in batch) and key(batch[0].command) == cmd
            assert last == len(rows) or rows[last].batch != first, f"{cmd}: its batch grew"
            batch_sizes.add(last - first + 1)
        known = {r.seq: r.hash for r in rows}
        landed_total += len(landed)
        progressed += bool(landed)
        if lines and lines[-1] in ("ENDED", "STUCK"):  # start another campaign
            campaigns += 1
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.unlink(db + suffix)
            copy_template("2.9", db)
            known = {}
    print(f"{kills} kills in {lives} lives, {landed_total} commands returned, {campaigns} campaigns ended,"
          f" batch sizes {sorted(batch_sizes)}")
    # the kills must have landed while commands were being written, on batches of several sizes
    assert progressed >= 10 and landed_total >= 30, (progressed, landed_total)
    assert max(batch_sizes) >= 2, batch_sizes


# ---- 2. concurrent writers ------------------------------------------------------------------------------

def _writer(path: str, who: int, unit: str, hexes: list[str], start, race, out) -> None:
    try:
        import cg.commands

        rng = random.Random(who)
        real = cg.commands.decide
        first = [True]

        def slow_decide(*a, **k):  # widen the read-then-append window: the writers really race
            time.sleep(rng.random() / 500)
            decided = real(*a, **k)
            if first[0]:  # the first command of each writer is decided on the same head before any appends:
                first[0] = False  # so they race however loaded the machine (it used to be luck: it failed under load)
                race.wait(timeout=60)
            return decided

        cg.commands.decide = slow_decide
        led = Ledger(path, write=True)
        landed, conflicts = [], 0
        start.wait(timeout=30)
        for hx in hexes:
            cmd = {"name": "setup", "side": "axis", "unit": unit, "hex": hx}
            while True:
                try:
                    stored = led.run(cmd)
                except WriteConflict:
                    conflicts += 1  # exit 4: retried as a player would
                    continue
                landed.append((stored[0].seq, len(stored), hx))
                break
        led.close()
        out.put((who, landed, conflicts, None))
    except BaseException:
        out.put((who, [], 0, traceback.format_exc()))


def test_concurrent_writers_each_command_lands_whole_or_conflicts_with_nothing_written(tmp_path):
    """4 processes x 50 commands on one campaign at once, through Ledger.run (what every step command
    runs): each command lands once, whole; every WriteConflict (exit 4) wrote nothing; seq has no gap
    and no duplicate; the hash chain and the audit are clean."""
    db = copy_template("2.6", str(tmp_path / "race.plcg"))
    led = Ledger(db)
    st = led.state()
    head = led.store.head()[0]
    led.close()
    units = [u.id for u in st.units.values() if u.side == "axis" and u.kind == "squad"][:4]
    assert len(units) == 4
    grid = st.grid()
    mc = st.map_control()  # rules revision 2: setup inside the friendly MLR (2.32)
    mlr = [f"{c}{r}" for c in "ABCDEFGHIJKLMNOP" for r in range(1, 11)
           if grid.valid(f"{c}{r}") and mc.situation(f"{c}{r}", "axis") == "friendly_mlr"]
    hexes = (mlr * 2)[:50]  # the Axis sets up first (ruling R51); its MLR holds 46 hexes: a few come twice
    assert len(hexes) == 50
    ctx = multiprocessing.get_context("fork")
    start, race, out = ctx.Barrier(4), ctx.Barrier(4), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(db, w, units[w], hexes, start, race, out)) for w in range(4)]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert all(err is None for *_, err in results), [err for *_, err in results if err]
    rows = check_file(db)
    assert len(rows) == head + 200
    with store_mod.Store.open(db) as s:
        assert s.verify_chain() == []
    by_seq = {r.seq: r for r in rows}
    conflicts = 0
    for who, landed, c, _ in results:
        conflicts += c
        assert len(landed) == 50
        for seq, n, hx in landed:
            assert n == 1 and by_seq[seq].payload["unit"] == units[who] and by_seq[seq].payload["hex"] == hx
    placed = sorted((r.payload["unit"], r.payload["hex"]) for r in rows if r.type == "unit_set_up")
    assert placed == sorted((units[w], hx) for w in range(4) for hx in hexes), "a command landed twice or not at all"
    assert conflicts >= 1, ("the writers never raced: the test proves nothing", [r[2] for r in results])


def test_a_write_conflict_exits_4_with_one_line_and_nothing_written(tmp_path, monkeypatch):
    """Another writer appends between this command's read and its append: exit 4, one line, the other
    writer's event is the only new one."""
    from cg.app import writer

    db = copy_template("2.6", str(tmp_path / "c.plcg"))
    led = Ledger(db)
    st, head = led.state(), led.store.head()[0]
    led.close()
    unit = next(u.id for u in st.units.values() if u.side == "axis" and u.kind == "squad")
    real = writer.decide_all  # what Ledger.run asks (cg/app/writer.py: decide, undo and play by email's confirm)
    raced = []

    def decide_after_another_writer(state, cmd, base_seq, history):
        if not raced:
            raced.append(1)
            other = Ledger(db, write=True)
            other.run({"name": "setup", "side": "axis", "unit": unit, "hex": "L4"})
            other.close()
        return real(state, cmd, base_seq, history)

    monkeypatch.setattr(writer, "decide_all", decide_after_another_writer)
    r = invoke(["--db", db, "setup", "axis", unit, "M4"])
    assert r.exit_code == 4, (r.exit_code, r.output, r.exception)
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("plcg: ")
    assert "again" in r.stderr
    rows = check_file(db)
    assert len(rows) == head + 1 and rows[-1].payload["hex"] == "L4"


def test_a_writer_holding_the_lock_makes_the_real_command_exit_4_after_waiting(tmp_path):
    """Through the real entry point (a process): the lock is held past the busy timeout -> exit 4."""
    import sqlite3

    db = copy_template("2.6", str(tmp_path / "c.plcg"))
    before = files(db)
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        code = ("import sys; sys.argv = ['plcg'] + sys.argv[1:]; import events.store as s; "
                "s.BUSY_TIMEOUT = 0.3; import cli; cli.main()")
        r = subprocess.run([sys.executable, "-c", code, "--db", db, "next"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert r.returncode == 4, r
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert files(db)[""] == before[""]
    check_file(db)


def test_concurrent_plcg_processes_exit_0_or_4_and_the_log_holds_exactly_the_zeros(tmp_path):
    """Eight real `plcg setup` processes at once: each exits 0 (its event is in the log) or 4 (nothing)."""
    db = copy_template("2.6", str(tmp_path / "c.plcg"))
    led = Ledger(db)
    st, head = led.state(), led.store.head()[0]
    led.close()
    units = [u.id for u in st.units.values() if u.side == "axis" and u.kind == "squad"][:4]
    jobs = [(u, hx) for u in units for hx in ("L5", "M5")]
    procs = [subprocess.Popen([sys.executable, "cli.py", "--db", db, "setup", "axis", u, hx], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for u, hx in jobs]
    results = [(job, p.wait(timeout=60), p.stderr.read()) for job, p in zip(jobs, procs)]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert all(code in (0, 4) for _, code, _ in results), results
    assert all(len(err.strip().splitlines()) == 1 for _, code, err in results if code == 4)
    rows = check_file(db)
    placed = sorted((r.payload["unit"], r.payload["hex"]) for r in rows[head:])
    assert placed == sorted(job for job, code, _ in results if code == 0)


# ---- 7. write safety ------------------------------------------------------------------------------

READ_COMMANDS = [
    ["status"], ["status", "--json"], ["log"], ["log", "--json"], ["roster"], ["roster", "--json"],
    ["audit"], ["audit", "--json"],
    ["export", "--format", "jsonl"], ["export", "--format", "md"], ["export", "--format", "html"],
    ["purchases", "axis"], ["oob", "allied"], ["map"],
]
ids = [" ".join(c) for c in READ_COMMANDS]
# replay rebuilds the snapshot where it can (issue 6); on a read-only copy it still answers
READ_ONLY_OK = READ_COMMANDS + [["replay"], ["replay", "--json"]]


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> str:
    """A campaign well into the CG, with a stored snapshot older than the head (a stale snapshot is
    where a careless read would refresh it)."""
    return copy_template("ff3", str(tmp_path_factory.mktemp("played") / "c.plcg"))


@pytest.mark.parametrize("args", READ_COMMANDS, ids=ids)
def test_read_commands_never_open_the_campaign_for_writing_and_change_no_byte(played, tmp_path, args,
                                                                            monkeypatch):
    db = str(tmp_path / "c.plcg")
    shutil.copyfile(played, db)
    before, mtime = files(db), os.stat(db).st_mtime_ns
    opened = []
    real_open = store_mod.Store.open.__func__

    def spy(cls, path, write=False):
        opened.append(write)
        return real_open(cls, path, write=write)

    monkeypatch.setattr(store_mod.Store, "open", classmethod(spy))
    r = invoke(["--db", db, *args])
    assert r.exit_code == 0, (r.exit_code, r.stderr, r.exception)
    assert opened and not any(opened), f"{args[0]} opened the campaign file for writing"
    assert files(db) == before and os.stat(db).st_mtime_ns == mtime


def _run_cli(args):
    r = invoke(args)
    return r.exit_code, r.stdout, r.stderr, repr(r.exception) if r.exit_code not in (0, 1, 2, 3, 4) else None


@pytest.fixture
def read_only_copy(played):
    """A 0444 copy of the campaign in a 0555 directory that `nobody` can reach."""
    d = Path(tempfile.mkdtemp(prefix="plcg-ro-"))
    os.chmod(d, 0o755)
    ro = d / "ro"
    ro.mkdir()
    path = ro / "c.plcg"
    shutil.copyfile(played, path)
    os.chmod(path, 0o444)
    os.chmod(ro, 0o555)
    yield str(path)
    os.chmod(ro, 0o755)
    shutil.rmtree(d)


@pytest.mark.parametrize("args", READ_ONLY_OK, ids=[" ".join(c) for c in READ_ONLY_OK])
def test_read_commands_work_on_a_read_only_copy(played, read_only_copy, args, tmp_path):
    mine = str(tmp_path / "mine.plcg")
    shutil.copyfile(played, mine)  # replay may refresh the snapshot of a writable file
    expected = _run_cli(["--db", mine, *args])  # also imports everything the command needs
    assert expected[0] == 0, expected
    before = files(read_only_copy)
    got = as_nobody(_run_cli, ["--db", read_only_copy, *args])
    assert got[0] == 0, got
    if args[0] not in ("log",):  # `log` prints when each event was recorded: the same file, same text
        assert got[1] == expected[1]
    assert files(read_only_copy) == before
    assert sorted(os.listdir(os.path.dirname(read_only_copy))) == ["c.plcg"]


def test_a_step_command_on_a_read_only_copy_exits_2_and_changes_nothing(read_only_copy, played):
    _run_cli(["--db", played, "status"])
    before = files(read_only_copy)
    code, out, err, exc = as_nobody(_run_cli, ["--db", read_only_copy, "next"])
    assert code == 2 and out == "" and err.startswith("plcg: ") and len(err.strip().splitlines()) == 1, (code, err)
    assert files(read_only_copy) == before


# ---- nothing lost in the projections -------------------------------------------------------------------

def test_both_sides_buying_the_same_rg_id_lose_no_purchase_and_no_unit(tmp_path):
    """The sample card gives both sides an RG `I1`: each side's purchase and units must stay its own."""
    db = copy_template("2.3", str(tmp_path / "c.plcg"))
    led = Ledger(db, write=True)
    a = led.run({"name": "buy", "side": "axis", "rg": "I1", "mode": "entry"})[0].payload
    b = led.run({"name": "buy", "side": "allied", "rg": "I1", "mode": "entry"})[0].payload
    st = led.state(use_snapshot=False)
    led.close()
    for side, p in (("axis", a), ("allied", b)):
        mine = [x for x in st.purchases.values() if x.side == side and x.rg == "I1"]
        assert len(mine) == 1, f"{side}'s I1 purchase is lost"
        for u in p["units"]:
            assert any(x.side == side and x.name == u["name"] and x.purchase == mine[0].id
                       for x in st.units.values())
        assert len([x for x in st.units.values() if x.side == side]) == len(p["units"]), f"{side} lost units"


def test_replay_rebuilds_a_deleted_or_stale_snapshot_and_the_answers_stay_the_same(played, tmp_path):
    """Issue 6: snapshots are derived data; `plcg replay` rebuilds them, and no answer changes."""
    import cli
    from projections.digest import digest

    db = str(tmp_path / "r.plcg")
    shutil.copyfile(played, db)
    led = cli.Ledger(db, write=True)
    want = digest(led.state(use_snapshot=False))["digest"]
    led.store.drop_snapshot()
    led.close()
    r = invoke(["--db", db, "replay", "--json"])
    assert r.exit_code == 0 and want in r.stdout
    led = cli.Ledger(db)
    try:
        snap = led.store.snapshot()
        assert snap is not None and snap[0] == led.store.head()[0]
        assert digest(led.state())["digest"] == want
    finally:
        led.close()
