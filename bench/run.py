"""The benchmarks of the performance issue, measured as ratios within one run.

    python -m bench.run                # issue 36's table (bench/targets.py): 100 firefights, ~100k events
    python -m bench.run --quick        # ... on the ~10k-event files: a few minutes once they are cached
    python -m bench.run --write-doc    # ... and the table written into docs/performance.md
    python -m bench.run --in-process   # the earlier rounds' figures, below
    python -m bench.run --in-process --profile  # also write cProfile reports to bench/out/profile-*.txt

The earlier rounds' figures (--in-process; each measured in fresh child processes, median of --runs):
  raw limit   SELECT of every payload + orjson.loads of each: the floor any replay pays
  replay      Ledger(path).state(use_snapshot=False) + roster, OOB (both sides), purchases (both
              sides), map: limit 2x raw
  audit       cg.app.audit.run_audit(Ledger(path)): limit 3x raw
  append      median of ~200 cheap commands (`setup` at 2.6) on a copy of the big file, through
              Ledger.run: limit 5 ms. Measured twice: one Ledger for all the commands (it goes on
              from the state its last command left), and a new Ledger (open + load the snapshot +
              decide + append + close) per command, as one CLI call does
  status      `plcg status` as a whole process on the ~10k-event file, against
              `python -c "import attrs, cattrs, transitions, sqlite_utils"`: limit 1.3x
  memory      peak RSS of the replay child: limit 150 MB
  peer        the same events written to and read back through `eventsourcing` (one aggregate per
              firefight); our replay's events/s against its read-back events/s: at least 5x
  derived     the state loaded through the stored snapshot has the same digest as the one folded from
              the log alone (snapshots are derived data)

The campaign files come from bench/synth.py and are cached in bench/out/.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from cg.state import Done  # noqa: E402

FULL = {"firefights": 100, "units_per_side": 255}
QUICK = {"firefights": 11, "units_per_side": 255}  # ~10k events: also the `status` file of a full run
FIVE_K = {"firefights": 6, "units_per_side": 255}  # ~5k events: the whole-process `status` and `setup` figures
SEED = "plcg-bench"

APPEND_LIMIT_MS = 5.0
RSS_LIMIT_MB = 150.0
LIMITS = {"replay": 2.0, "audit": 15.0, "status": 1.3, "peer": 5.0, "audit_signed": 1.2}  # the in-process figures


# ---- the child processes ---------------------------------------------------------------------------

def _maxrss_mb() -> float:
    """Peak RSS of this process. VmHWM of its own memory map: ru_maxrss would also count the RSS the
    parent had when it forked this child (Linux keeps that across exec), e.g. a bench that has just
    built the 100k campaign in-process."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def child_raw(path: str) -> dict:
    import sqlite3

    import orjson

    t0 = time.perf_counter()
    conn = sqlite3.connect(Path(path).absolute().as_uri() + "?mode=ro", uri=True)
    n = size = 0
    for (payload,) in conn.execute("SELECT payload FROM events"):
        orjson.loads(payload)
        n += 1
        size += len(payload)
    conn.close()
    return {"seconds": time.perf_counter() - t0, "events": n, "bytes": size, "rss_mb": _maxrss_mb()}


def _replay_imports():
    """Everything the timed work imports lazily, imported before the clock starts."""
    import importlib

    import cli  # noqa: F401
    import cg.evolve  # noqa: F401
    from projections import maps, oob, purchases, roster  # noqa: F401

    for name in ("cg.card", "cg.snapshot", "cg.steps", "cg.tables", "cg.bulk", "events.store", "events.versions",
                 "events.convert", "cg.control", "cg.hexgrid", "projections.digest"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass

    return cli.Ledger, roster.roster_rows, oob.oob_rows, purchases.purchase_rows, maps.map_json


def replay(path: str) -> tuple[object, dict]:
    """The replay figure's work: the state from the log alone, then every projection."""
    Ledger, roster_rows, oob_rows, purchase_rows, map_json = _replay_imports()
    led = Ledger(path)
    try:
        st = led.state(use_snapshot=False)
    finally:
        led.close()
    out = {"roster": roster_rows(st), "map": map_json(st)}
    for side in ("axis", "allied"):
        out[f"oob_{side}"] = oob_rows(st, side)
        out[f"purchases_{side}"] = purchase_rows(st, side)
    return st, out


def child_replay(path: str) -> dict:
    _replay_imports()
    rss0 = _maxrss_mb()
    t0 = time.perf_counter()
    st, out = replay(path)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "events": st.seq, "units": len(st.units), "rss_mb": _maxrss_mb(),
            "rss_before_mb": rss0, "rows": {k: len(v) if isinstance(v, list) else 1 for k, v in out.items()}}


def child_audit(path: str) -> dict:
    try:
        from cg.app.audit import run_audit
    except ImportError as e:
        return {"error": f"cg.app.audit.run_audit is not there ({e})"}
    from cg.app.ledger import Ledger

    _replay_imports()
    t0 = time.perf_counter()
    led = Ledger(path)
    try:
        report = run_audit(led)
    finally:
        led.close()
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "findings": len(report.get("findings", [])), "notes": len(report.get("notes", [])),
            "first_findings": report.get("findings", [])[:3], "rss_mb": _maxrss_mb()}


def _setup_commands(path: str, n: int, seed: str = "append") -> list[dict]:
    """`n` setup commands (2.6) of live units into hexes of their side's CTHC, alternating the sides
    that may still set up."""
    import random

    from cg.app.ledger import Ledger

    led = Ledger(path)
    try:
        st = led.state()
    finally:
        led.close()
    if st.step != "2.6":
        raise SystemExit(f"{path} is at step {st.step}, not 2.6: the append bench needs setup commands")
    rnd = random.Random(seed)
    mc = st.map_control()
    spots = {s: [h for h, hc in mc.hexes.items() if hc.cthc == s and hc.isolated != s] for s in ("axis", "allied")}
    units = {s: [u for u in st.units.values() if u.side == s and u.status in ("available", "on_map")]
             for s in ("axis", "allied")}
    # 2.6 (rules revision 2): the side that sets up first sets up no more once the other has begun
    sides = [s for s in ("axis", "allied") if not (s == st.ff.setup_first and
                                                  Done("setup", 'allied' if s == 'axis' else 'axis') in st.reph.done)]
    cmds = []
    for i in range(n):
        side = sides[i % len(sides)]
        u = rnd.choice(units[side])
        cmds.append({"name": "setup", "side": side, "unit": u.id, "hex": rnd.choice(spots[side])})
    return cmds


def child_append(path: str, n: int = 200, mode: str = "same", warmup: int = 10) -> dict:
    """Median ms per Ledger.run of `n` setup commands on `path` (a copy: it is written)."""
    from cg.app.ledger import Ledger

    _replay_imports()
    cmds = _setup_commands(path, n + warmup)
    times = []
    if mode == "same":
        led = Ledger(path, write=True)
        try:
            for i, cmd in enumerate(cmds):
                t0 = time.perf_counter()
                led.run(cmd)
                if i >= warmup:
                    times.append(time.perf_counter() - t0)
        finally:
            led.close()
    else:  # a new Ledger per command: what one `plcg setup ...` does once Python and the imports are up
        for i, cmd in enumerate(cmds):
            t0 = time.perf_counter()
            led = Ledger(path, write=True)
            try:
                led.run(cmd)
            finally:
                led.close()
            if i >= warmup:
                times.append(time.perf_counter() - t0)
    times.sort()
    return {"median_ms": statistics.median(times) * 1e3, "p90_ms": times[int(len(times) * 0.9)] * 1e3,
            "max_ms": times[-1] * 1e3, "n": len(times), "rss_mb": _maxrss_mb()}


def child_derived(path: str) -> dict:
    """Digest of the state through the stored snapshot vs folded from the log alone."""
    from cg.app.ledger import Ledger
    from projections.digest import digest

    led = Ledger(path)
    try:
        via_snapshot = digest(led.state())["digest"]
        from_log = digest(led.state(use_snapshot=False))["digest"]
        snap = led.store.snapshot()
    finally:
        led.close()
    return {"same": via_snapshot == from_log, "snapshot_seq": snap[0] if snap else None,
            "snapshot_bytes": len(snap[2]) if snap else 0, "digest": from_log}


def child_audit_parts(path: str) -> dict:
    """Where one audit's time goes (an extra, instrumented run; the timed figure is child_audit's):
    the single pass over the rows with the hash chain, the commands decided again, the state copies
    kept for undos, and the rest (folding, comparing, the notes). Wrappers round the audit module's
    own names; a name that is no longer there is reported, not guessed."""
    import cg.app.audit as audit
    from cg.state import CampaignState
    from cg.app.ledger import Ledger

    _replay_imports()
    clock = time.perf_counter
    spent = {"read": 0.0, "decide": 0.0, "copy": 0.0}
    calls = {"read": 0, "decide": 0, "copy": 0}

    def timed(fn, part):
        def wrapper(*args, **kwargs):
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[part] += clock() - t0
                calls[part] += 1
        return wrapper

    try:  # the read: each row as _Reader hands it over, and the rest read for the chain at the end
        originals = (audit._Reader._next, audit._Reader.drain, audit.decide, audit.decide_all, CampaignState.copy)
    except AttributeError as e:
        return {"error": f"the audit's parts are not where the bench looks ({e})"}
    audit._Reader._next = timed(originals[0], "read")
    audit._Reader.drain = timed(originals[1], "read")
    audit.decide = timed(originals[2], "decide")
    audit.decide_all = timed(originals[3], "decide")
    CampaignState.copy = timed(originals[4], "copy")
    t0 = clock()
    for _ in range(100_000):  # what the two clock reads of a wrapper cost: taken off each call
        clock()
        clock()
    tick = (clock() - t0) / 100_000
    try:
        led = Ledger(path)
        t0 = clock()
        try:
            audit.run_audit(led)
        finally:
            total = clock() - t0
            led.close()
    finally:
        (audit._Reader._next, audit._Reader.drain, audit.decide, audit.decide_all,
         CampaignState.copy) = originals
    for part in spent:
        spent[part] = max(0.0, spent[part] - calls[part] * tick)
    decide = spent["decide"]
    commands = [calls["decide"]]
    return {"seconds": total, "read": spent["read"], "decide": decide, "copy": spent["copy"],
            "rest": max(0.0, total - spent["read"] - spent["decide"] - spent["copy"]), "commands": commands[0]}


CHILDREN = {"raw": child_raw, "replay": child_replay, "audit": child_audit, "audit_parts": child_audit_parts,
            "append": child_append, "derived": child_derived}


def _child_main(argv: list[str]) -> int:
    kind, path, *rest = argv
    kwargs = {}
    for item in rest:
        k, v = item.split("=", 1)
        kwargs[k] = int(v) if v.isdigit() else v
    prof = os.environ.get("PLCG_BENCH_PROFILE")
    if prof:
        import cProfile
        import pstats

        _replay_imports()
        pr = cProfile.Profile()
        pr.enable()
        result = CHILDREN[kind](path, **kwargs)
        pr.disable()
        _write_profile(pstats.Stats(pr), prof)
    else:
        result = CHILDREN[kind](path, **kwargs)
    print(json.dumps(result))
    return 0


def _write_profile(stats, out: str) -> None:
    import io

    buf = io.StringIO()
    stats.stream = buf
    stats.sort_stats("cumulative").print_stats(40)
    stats.sort_stats("tottime").print_stats(30)
    Path(out).write_text(buf.getvalue())


def run_child(kind: str, path: str, profile: str | None = None, **kwargs) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if profile:
        env["PLCG_BENCH_PROFILE"] = profile
    args = [sys.executable, "-m", "bench.run", "--child", kind, str(path)] + [f"{k}={v}" for k, v in kwargs.items()]
    p = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


# ---- whole processes: status ----------------------------------------------------------------------

STATUS_CODE = "import sys, cli; sys.argv[0] = 'plcg'; cli.main()"
IMPORT_BASELINE = "import attrs, cattrs, transitions, sqlite_utils"
# A whole process reports its own peak RSS (VmHWM) into $PLCG_BENCH_RSS at exit: wait4's ru_maxrss
# would also count the RSS the bench itself had when it forked the child (Linux keeps that across exec).
_HWM = ("import os, atexit\n_f = os.environ.get('PLCG_BENCH_RSS')\n"
        "if _f: atexit.register(lambda: open(_f, 'w').write(next(l for l in open('/proc/self/status')"
        " if l.startswith('VmHWM')).split()[1]))\n")
WHOLE_CODE = _HWM + STATUS_CODE
RAW_CODE = _HWM + ("import sqlite3, sys, orjson; c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)\n"
            "for (p,) in c.execute('SELECT payload FROM events'): orjson.loads(p)")

# Whole processes of every command (issue 18): each a fresh `python -c "import cli; cli.main()"`, its
# wall time and its peak RSS (from wait4), on the ~10k and the ~100k file.
WHOLE = [("audit", ["audit"]), ("export jsonl", ["export", "--format", "jsonl"]),
         ("export md", ["export", "--format", "md"]), ("export html", ["export", "--format", "html"]),
         ("log", ["log"]), ("log --json", ["log", "--json"]), ("replay", ["replay"]),
         ("roster --at", ["roster", "--at", "{at}"])]
LINEAR_LIMIT = 1.2  # cost per event at ~100k within 1.2x of it at ~10k
WHOLE_RSS_LIMIT_MB = 100.0
WHOLE_LIMITS = {"export html / replay": 3.0, "log --json / raw": 2.0, "replay / raw": 2.0,
                "audit / raw": 15.0, "status / python -c pass": 3.0, "setup / python -c pass": 3.0,
                "import / audit": 2.0, "undo flat": 1.2}


def _env_whole() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def compile_sources() -> str:
    """The .pyc files of the sources, so that a whole process does not compile them again (this
    machine may set PYTHONDONTWRITEBYTECODE, and an editable install then compiles each module on
    every start); a normal install compiles them at install time. Says which."""
    import compileall

    ok = all(compileall.compile_file(str(ROOT / "cli.py"), quiet=1) for _ in [0]) and all(
        compileall.compile_dir(str(ROOT / d), quiet=1) for d in ("cg", "events", "projections"))
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE")
    return (f"sources compiled with compileall{'' if ok else ' (some failed)'}"
            f"; PYTHONDONTWRITEBYTECODE={'set' if flag else 'unset'}")


def time_whole(args: list[str], cwd=None) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB, or 0 where the process does not report it) of one fresh
    process; raises if it fails."""
    env = _env_whole()
    fd, rss_file = tempfile.mkstemp(prefix="plcg-rss-")
    os.close(fd)
    env["PLCG_BENCH_RSS"] = rss_file
    try:
        t0 = time.perf_counter()
        p = subprocess.run(args, cwd=cwd or ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.decode().strip()[-300:]}")
        text = Path(rss_file).read_text().strip()
        return dt, int(text) / 1024.0 if text else 0.0  # kB
    finally:
        os.unlink(rss_file)


def _plcg(path, argv) -> list[str]:
    return [sys.executable, "-c", WHOLE_CODE, "--db", str(path), *argv]


def whole_figures(big: Path, small: Path, status_file: Path, work: Path, runs: int, say) -> dict:
    """Every command as a whole process on the ~10k and ~100k files (medians, peak RSS the max), the
    raw scan and bare `python -c pass` beside them; `status` and a write command on the ~5k file."""
    from bench import synth

    out: dict = {"note": compile_sources(), "runs": runs}
    events = {}
    for label, path in (("small", small), ("big", big)):
        events[label] = int(_events_of(str(path)).replace(",", ""))
    out["events"] = events

    def med(args, n=runs):
        ts, rss = [], []
        for _ in range(n):
            t, r = time_whole(args)
            ts.append(t)
            rss.append(r)
        return {"seconds": statistics.median(ts), "rss_mb": max(rss), "runs": ts}

    py = [sys.executable, "-c", "pass"]
    out["python -c pass"] = med(py, max(runs, 5))
    out["import cli"] = med([sys.executable, "-c", "import cli"], max(runs, 5))
    for label, path in (("small", small), ("big", big)):
        say(f"  whole processes on the {label} file...")
        figs = {"raw": med([sys.executable, "-c", RAW_CODE, str(path)])}
        for name, argv in WHOLE:
            argv = [a.replace("{at}", str(events[label] - 1)) for a in argv]
            figs[name] = med(_plcg(path, argv))
        figs.update(_writes_whole(path, work, label, runs))
        out[label] = figs
    say("  status and setup on the ~5k file...")
    st = {"python -c pass": med(py, max(runs, 5)), "status": med(_plcg(status_file, ["status"]), max(runs, 5))}
    copy = work / "whole-setup.plcg"
    synth.copy_campaign(status_file, copy)
    cmds = _setup_commands(str(copy), max(runs, 5), seed="whole")
    ts, rss = [], []
    for c in cmds:
        t, r = time_whole(_plcg(copy, ["setup", c["side"], c["unit"], c["hex"]]))
        ts.append(t)
        rss.append(r)
    st["setup"] = {"seconds": statistics.median(ts), "rss_mb": max(rss), "runs": ts}
    st["events"] = int(_events_of(str(status_file)).replace(",", ""))
    out["status_file"] = st
    return out


def _writes_whole(path: Path, work: Path, label: str, runs: int) -> dict:
    """`plcg import` of the file's export (a new file each run) and `plcg undo` of the command just given
    (on a fresh copy each run, a `setup` given untimed first: the player takes back what he just typed;
    the file's own last command is the row `replay` just snapshotted, which an undo can only fold the log
    for), as whole processes (issue 28: import <= 2x the audit; undo like any write)."""
    from bench import synth

    jsonl = work / f"whole-{label}.jsonl"
    subprocess.run(_plcg(path, ["export", "--format", "jsonl", "-o", str(jsonl)]), cwd=ROOT, env=_env_whole(),
                   check=True, stdout=subprocess.DEVNULL)
    given = _setup_commands(str(path), 1, seed="undo")[0]

    def typed(db):
        synth.copy_campaign(path, db)
        subprocess.run(_plcg(db, ["setup", given["side"], given["unit"], given["hex"]]), cwd=ROOT, env=_env_whole(),
                       check=True, stdout=subprocess.DEVNULL)

    out = {}
    for name, prepare, argv in (
            ("import", lambda db: os.path.exists(db) and os.unlink(db), ["import", str(jsonl)]),
            ("undo", typed, ["undo", "--reason", "bench"])):
        ts, rss = [], []
        for _ in range(runs):
            db = work / f"whole-{name}-{label}.plcg"
            prepare(str(db))
            t, r = time_whole(_plcg(db, argv))
            ts.append(t)
            rss.append(r)
        out[name] = {"seconds": statistics.median(ts), "rss_mb": max(rss), "runs": ts}
    return out


def whole_table(w: dict) -> str:
    from tabulate import tabulate

    rows = []
    small, big, ev = w["small"], w["big"], w["events"]
    start = w["import cli"]["seconds"]
    for name, _ in [("raw", None)] + WHOLE + [("import", None), ("undo", None)]:
        if name not in small or name not in big:  # figures of a run before the writes were timed
            continue
        a, b = small[name], big[name]
        per_a = a["seconds"] / ev["small"] * 1e6
        per_b = b["seconds"] / ev["big"] * 1e6
        # the start-up (python + `import cli`) taken off: what grows with the log
        net_a = max(a["seconds"] - start, 1e-9) / ev["small"] * 1e6
        net_b = max(b["seconds"] - start, 1e-9) / ev["big"] * 1e6
        ratio = net_b / net_a
        linear = None if name == "raw" else ratio <= LINEAR_LIMIT
        mem_ok = None if name == "raw" else b["rss_mb"] <= WHOLE_RSS_LIMIT_MB
        rows.append([name, _fmt_s(a["seconds"]), _fmt_s(b["seconds"]), f"{per_a:.1f} / {net_a:.1f}",
                     f"{per_b:.1f} / {net_b:.1f}", "" if name == "raw" else f"{ratio:.2f}x", _verdict(linear),
                     f"{b['rss_mb']:.0f} MB", _verdict(mem_ok)])
    head = ["command (whole process)", f"{ev['small']:,} ev", f"{ev['big']:,} ev", "us/ev small (all / net)",
            "us/ev big (all / net)", "big/small net", "<= 1.2x", "peak RSS big", "<= 100 MB"]
    text = tabulate(rows, headers=head)
    ratios = []

    def ratio(name, num, den, limit_key):
        r = num / den
        lim = WHOLE_LIMITS[limit_key]
        ratios.append([name, _fmt_s(num), _fmt_s(den), f"{r:.2f}x", f"<= {lim:g}x", _verdict(r <= lim)])

    ratio("export --format html / plcg replay (100k)", big["export html"]["seconds"], big["replay"]["seconds"],
          "export html / replay")
    ratio("log --json / raw scan (100k)", big["log --json"]["seconds"], big["raw"]["seconds"], "log --json / raw")
    ratio("plcg replay / raw scan (100k)", big["replay"]["seconds"], big["raw"]["seconds"], "replay / raw")
    ratio("plcg audit / raw scan (100k)", big["audit"]["seconds"], big["raw"]["seconds"], "audit / raw")
    if "import" in big:
        ratio("plcg import / plcg audit (100k)", big["import"]["seconds"], big["audit"]["seconds"], "import / audit")
        ratio("plcg undo at 100k / at 10k (flat)", big["undo"]["seconds"], small["undo"]["seconds"], "undo flat")
    s = w["status_file"]
    ratio(f"plcg status / python -c pass ({s['events']:,} ev)", s["status"]["seconds"], s["python -c pass"]["seconds"],
          "status / python -c pass")
    ratio(f"plcg setup / python -c pass ({s['events']:,} ev)", s["setup"]["seconds"], s["python -c pass"]["seconds"],
          "setup / python -c pass")
    text += "\n\n" + tabulate(ratios, headers=["whole-process ratio", "measured", "against", "ratio", "target", ""])
    text += (f"\n\nwhole processes: medians of {w['runs']} fresh processes (status, setup and the baselines: at "
             f"least 5); {w['note']}; bare `python -c pass` {_fmt_s(w['python -c pass']['seconds'])}, "
             f"`python -c 'import cli'` {_fmt_s(start)} (the start-up taken off for `net`); raw scan = "
             f"SELECT payload + orjson.loads of each, as a whole process")
    return text


def instruction_figures(small: Path, status_file: Path, work: Path, say) -> dict:
    """Instructions (valgrind --tool=callgrind) of whole processes on the small files: what wall time
    cannot give on a loaded machine. The ratios of the whole-process table, counted instead of timed."""
    from bench import synth

    if not shutil.which("valgrind"):
        return {"error": "valgrind is not installed"}

    def count(args) -> int:
        out = work / "callgrind.out"
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *args], cwd=ROOT,
                           env=_env_whole(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for line in p.stderr.splitlines():
            if "Collected" in line:
                return int(line.split(":")[-1].strip().replace(",", ""))
        raise RuntimeError(f"callgrind gave no count for {' '.join(args)}: {p.stderr[-300:]}")

    out = {"note": compile_sources()}
    say("  instructions: python -c pass, raw scan, commands...")
    out["python -c pass"] = count([sys.executable, "-c", "pass"])
    out["raw"] = count([sys.executable, "-c", RAW_CODE, str(small)])
    for name, argv in (("replay", ["replay"]), ("log --json", ["log", "--json"]), ("audit", ["audit"]),
                       ("export html", ["export", "--format", "html"])):
        out[name] = count(_plcg(small, argv))
    out["status"] = count(_plcg(status_file, ["status"]))
    copy = work / "instr-setup.plcg"
    synth.copy_campaign(status_file, copy)
    c = _setup_commands(str(copy), 1, seed="instructions")[0]
    out["setup"] = count(_plcg(copy, ["setup", c["side"], c["unit"], c["hex"]]))
    out["events"] = int(_events_of(str(small)).replace(",", ""))
    out["status_events"] = int(_events_of(str(status_file)).replace(",", ""))
    return out


def instruction_table(i: dict) -> str:
    from tabulate import tabulate

    if "error" in i:
        return f"instructions: {i['error']}"
    rows = []

    def ratio(name, num, den, key):
        r = i[num] / i[den]
        lim = WHOLE_LIMITS[key]
        rows.append([name, f"{i[num] / 1e6:,.0f} M", f"{i[den] / 1e6:,.0f} M", f"{r:.2f}x", f"<= {lim:g}x",
                     _verdict(r <= lim)])

    ev, sev = f"{i['events']:,} ev", f"{i['status_events']:,} ev"
    ratio(f"export --format html / plcg replay ({ev})", "export html", "replay", "export html / replay")
    ratio(f"log --json / raw scan ({ev})", "log --json", "raw", "log --json / raw")
    ratio(f"plcg replay / raw scan ({ev})", "replay", "raw", "replay / raw")
    ratio(f"plcg audit / raw scan ({ev})", "audit", "raw", "audit / raw")
    ratio(f"plcg status / python -c pass ({sev})", "status", "python -c pass", "status / python -c pass")
    ratio(f"plcg setup / python -c pass ({sev})", "setup", "python -c pass", "setup / python -c pass")
    return (tabulate(rows, headers=["whole process, instructions (callgrind)", "counted", "against", "ratio",
                                    "target", ""])
            + f"\n{i['note']}; one process each; instructions, not time: no noise, but a cache miss or a system"
              " call counts as one")


def _verdict(ok) -> str:
    return "" if ok is None else ("ok" if ok else "OVER")


def _time_process(args: list[str]) -> float:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    t0 = time.perf_counter()
    p = subprocess.run(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.decode().strip()[-300:]}")
    return dt


def status_figures(path: str, runs: int = 10) -> dict:
    """Interleaved runs of `plcg status` and the import baseline; medians."""
    status_args = [sys.executable, "-c", STATUS_CODE, "--db", str(path), "status"]
    base_args = [sys.executable, "-c", IMPORT_BASELINE]
    _time_process(status_args)  # warm the page cache and the .pyc files
    _time_process(base_args)
    st, base = [], []
    for _ in range(runs):
        base.append(_time_process(base_args))
        st.append(_time_process(status_args))
    return {"status": statistics.median(st), "baseline": statistics.median(base), "status_runs": st,
            "baseline_runs": base}


def profile_status(path: str, out: Path) -> None:
    code = ("import cProfile, pstats, sys; sys.argv = ['plcg', '--db', %r, 'status'];"
            "pr = cProfile.Profile(); pr.enable()\n"
            "try:\n    import cli; cli.main()\nexcept SystemExit:\n    pass\n"
            "pr.disable(); import bench.run as b; b._write_profile(pstats.Stats(pr), %r)") % (str(path), str(out))
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    imp = subprocess.run([sys.executable, "-X", "importtime", "-c", STATUS_CODE, "--db", str(path), "status"],
                         cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rows = []
    for line in imp.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    rows.sort(reverse=True)
    with open(out, "a") as f:
        f.write("\n\n-X importtime: cumulative us, top 40\n")
        for us, name in rows[:40]:
            f.write(f"{us:>10} {name}\n")


# ---- the table ------------------------------------------------------------------------------------

def trust_checks(path: str, runs: int = 200) -> dict:
    """The cost of the checks a store that trusts nothing adds to every command (issue 15), on their
    own: the schema compared with the ones plcg wrote (every open), the hot snapshot's digest (every
    load from the snapshot), the cold part's digest (when settled units are needed)."""
    import hashlib

    from cg import snapshot
    from events.store import Store

    store = Store.open(str(path))
    try:
        t = time.perf_counter()
        for _ in range(runs):
            Store._check(store.conn, str(path))
        schema = (time.perf_counter() - t) / runs
        snap = store.snapshot()
        hot = snap[2] if snap else b""
        t = time.perf_counter()
        for _ in range(runs):
            snapshot.unseal(hot)
        hot_s = (time.perf_counter() - t) / runs
        token = store.cold_token()
        cold = store.cold_snapshot(token) if token else b""
        t = time.perf_counter()
        for _ in range(max(1, runs // 10)):
            hashlib.sha256(cold or b"").hexdigest()
        cold_s = (time.perf_counter() - t) / max(1, runs // 10)
    finally:
        store.close()
    return {"schema_ms": schema * 1e3, "hot_digest_ms": hot_s * 1e3, "hot_kb": len(hot) / 1024,
            "cold_digest_ms": cold_s * 1e3, "cold_kb": len(cold or b"") / 1024}


def _fmt_s(s: float | None) -> str:
    return "n/a" if s is None else f"{s * 1e3:.0f} ms" if s < 10 else f"{s:.1f} s"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        return _child_main(argv[1:])
    ap = argparse.ArgumentParser(description="plcg benchmarks (the performance issue's targets)")
    ap.add_argument("--quick", action="store_true", help="the ~10k-event campaign only (under a minute)")
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per timed figure (median)")
    ap.add_argument("--status-runs", type=int, default=10)
    ap.add_argument("--appends", type=int, default=200)
    ap.add_argument("--fresh", action="store_true", help="rebuild the synthetic campaigns")
    ap.add_argument("--no-peer", action="store_true", help="skip the eventsourcing peer figure")
    ap.add_argument("--no-signed", action="store_true", help="skip the signed (play by email) audit figure")
    ap.add_argument("--profile", action="store_true", help="write cProfile reports to bench/out/profile-*.txt")
    ap.add_argument("--json", dest="json_out", help="also write every figure to this JSON file")
    ap.add_argument("--no-whole", action="store_true", help="skip the whole-process figures of every command")
    ap.add_argument("--instructions", action="store_true",
                    help="also count the instructions of the whole-process ratios on the small files (valgrind)")
    ap.add_argument("--in-process", action="store_true",
                    help="the earlier rounds' figures (in-process replay and audit, appends, peer, whole processes)"
                         " instead of issue 36's table")
    ap.add_argument("--write-doc", action="store_true",
                    help="also put issue 36's table in docs/performance.md (between its markers)")
    ap.add_argument("--no-slider", action="store_true", help="skip the web page's history reads (bench/slider.py)")
    ap.add_argument("--table-from", metavar="JSON",
                    help="print (and with --write-doc write) issue 36's table from a run's --json, measuring nothing")
    a = ap.parse_args(argv)
    if a.table_from:
        return targets_table(json.loads(Path(a.table_from).read_text()), a.write_doc)
    if not a.in_process:
        return targets_main(a)

    from bench import synth

    def say(msg):
        print(msg, file=sys.stderr, flush=True)

    t_start = time.perf_counter()
    small, built = synth.ensure(QUICK["firefights"], QUICK["units_per_side"], SEED, a.fresh, echo=None)
    if built:
        say(f"built {small.name}: {built['events']} events in {built['seconds']:.0f} s")
    five, built = synth.ensure(FIVE_K["firefights"], FIVE_K["units_per_side"], SEED, a.fresh, echo=None)
    if built:
        say(f"built {five.name}: {built['events']} events in {built['seconds']:.0f} s")
    if a.quick:
        big = small
    else:
        say("the 100-firefight campaign (cached after the first build, which takes a few minutes)...")
        big, built = synth.ensure(FULL["firefights"], FULL["units_per_side"], SEED, a.fresh,
                                  echo=lambda m: say("  " + m) if m.split()[1].rstrip(":").endswith("0") else None)
        if built:
            say(f"built {big.name}: {built['events']} events, {built['commands']} commands in {built['seconds']:.0f} s")

    # A snapshot written by other fold code (an older checkout) is ignored until something rebuilds it,
    # as the first command after an upgrade does: rebuild it now, so `status` is timed as players see it.
    for path in {big, small, five}:
        subprocess.run([sys.executable, str(ROOT / "cli.py"), "--db", str(path), "replay"], check=True,
                       stdout=subprocess.DEVNULL)

    work = Path(tempfile.mkdtemp(prefix="plcg-bench-"))
    figs: dict = {"file": str(big), "status_file": str(small)}
    try:
        say("raw limit, replay, audit...")
        raw, rep, aud = [], [], []
        run_child("raw", big)  # untimed: the page cache warm for the first timed read too
        for _ in range(a.runs):  # interleaved, so background load hits them alike
            raw.append(run_child("raw", big))
            rep.append(run_child("replay", big))
        for r in raw + rep:
            if "error" in r:
                raise SystemExit(f"bench child failed: {r['error']}")
        figs["raw"] = sorted(raw, key=lambda r: r["seconds"])[len(raw) // 2]
        figs["replay"] = sorted(rep, key=lambda r: r["seconds"])[len(rep) // 2]
        figs["replay"]["rss_mb"] = max(r["rss_mb"] for r in rep)
        figs["raw_runs"] = [r["seconds"] for r in raw]
        figs["replay_runs"] = [r["seconds"] for r in rep]
        first = run_child("audit", big)
        aud = [first]
        if "error" not in first and first["seconds"] < 60:
            aud += [run_child("audit", big) for _ in range(a.runs - 1)]
        ok = [r for r in aud if "error" not in r]
        figs["audit"] = sorted(ok, key=lambda r: r["seconds"])[len(ok) // 2] if ok else first
        figs["audit_runs"] = [r["seconds"] for r in ok]
        if ok:
            figs["audit_parts"] = run_child("audit_parts", big)

        if ok and not a.no_signed:
            # issue 16: the same players by email, each side's part of a step under its own signature
            # (at every change of side, ruling R43), audited interleaved with the unsigned file
            say("signed campaign (play by email; cached after the first build)...")
            size = QUICK if a.quick else FULL
            signed, built = synth.ensure(size["firefights"], size["units_per_side"], SEED, a.fresh, signed=True)
            if built:
                say(f"built {signed.name}: {built['events']} events, {built['signatures']} signatures"
                    f" in {built['seconds']:.0f} s")
            sig, plain = [], []
            for _ in range(a.runs):  # interleaved with audits of the unsigned file: the same load on both
                sig.append(run_child("audit", signed))
                plain.append(run_child("audit", big))
            sig_ok = [r for r in sig if "error" not in r]
            plain_ok = [r for r in plain if "error" not in r]  # only the runs interleaved with the signed ones
            if sig_ok:
                figs["audit_signed"] = sorted(sig_ok, key=lambda r: r["seconds"])[len(sig_ok) // 2]
                figs["audit_plain"] = sorted(plain_ok, key=lambda r: r["seconds"])[len(plain_ok) // 2]
                figs["audit_signed"]["file"] = str(signed)
            else:
                figs["audit_signed"] = sig[0]

        say("append...")
        for mode in ("same", "new"):
            copy = work / f"append-{mode}.plcg"
            synth.copy_campaign(big, copy)
            figs[f"append_{mode}"] = run_child("append", copy, n=a.appends, mode=mode)

        say("status...")
        figs["status"] = status_figures(small, a.status_runs)
        if not a.quick:
            figs["status_big"] = status_figures(big, max(3, a.status_runs // 2))
        figs["derived"] = run_child("derived", big)

        if not a.no_peer:
            say("peer: eventsourcing...")
            env = dict(os.environ)
            env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
            p = subprocess.run([sys.executable, "-m", "bench.peer_eventsourcing", str(big), "--db",
                                str(big.with_suffix(".peer.db")), "--runs", str(max(1, min(a.runs, 3)))],
                               cwd=ROOT, env=env, capture_output=True, text=True)
            try:
                figs["peer"] = json.loads(p.stdout.strip().splitlines()[-1])
            except (IndexError, ValueError):
                figs["peer"] = {"error": (p.stderr.strip().splitlines() or ["failed"])[-1]}

        if not a.no_whole:
            say("whole processes of every command...")
            figs["whole"] = whole_figures(big, small, five, work, max(1, min(a.runs, 3)), say)
        if a.instructions:
            say("instructions (callgrind; a few minutes)...")
            figs["instructions"] = instruction_figures(small, five, work, say)

        if a.profile:
            say("profiles...")
            OUT.mkdir(parents=True, exist_ok=True)
            run_child("replay", big, profile=str(OUT / "profile-replay.txt"))
            if "error" not in figs["audit"]:
                run_child("audit", big, profile=str(OUT / "profile-audit.txt"))
            for mode in ("same", "new"):
                copy = work / f"prof-{mode}.plcg"
                synth.copy_campaign(big, copy)
                run_child("append", copy, profile=str(OUT / f"profile-append-{mode}.txt"), n=a.appends, mode=mode)
            profile_status(small, OUT / "profile-status.txt")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    figs["trust_checks"] = trust_checks(big)
    figs["seconds"] = time.perf_counter() - t_start
    print(table(figs, a.quick))
    tc = figs["trust_checks"]
    print(f"trust checks (issue 15), each on its own: schema {tc['schema_ms']:.3f} ms per open; snapshot digest"
          f" {tc['hot_digest_ms']:.3f} ms per load ({tc['hot_kb']:.0f} kB hot part), cold part"
          f" {tc['cold_digest_ms']:.3f} ms when settled units are loaded ({tc['cold_kb']:.0f} kB)")
    if "whole" in figs:
        print()
        print(whole_table(figs["whole"]))
    if "instructions" in figs:
        print()
        print(instruction_table(figs["instructions"]))
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(figs, indent=2, default=str))
    return 0


def targets_main(a) -> int:
    """Issue 36's table (bench/targets.py): every target against its floor, as whole processes."""
    from bench import synth, targets

    def say(msg):
        print(msg, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    runs = a.runs if a.runs != 5 or not a.quick else 3
    load_before = targets.load()
    files = {"small": synth.ensure(**_size(FIVE_K if a.quick else QUICK), seed=SEED, fresh=a.fresh)[0],
             "five": synth.ensure(**_size(FIVE_K), seed=SEED, fresh=a.fresh)[0],
             "full": not a.quick}
    size = QUICK if a.quick else FULL
    say(f"the {size['firefights']}-firefight campaign (cached after its first build)...")
    files["big"] = synth.ensure(**_size(size), seed=SEED, fresh=a.fresh)[0]
    if not a.no_signed:
        say("its signed twin (play by email; cached after its first build)...")
        files["signed"] = synth.ensure(**_size(size), seed=SEED, fresh=a.fresh, signed=True)[0]
    work = Path(tempfile.mkdtemp(prefix="plcg-bench-"))
    try:
        sample = work / "sample-2.3.plcg"  # `buy` needs 2.3: a new campaign of the sample card, two commands on
        for argv in (["new", "--card", "sample", "--seed", "bench"], ["weather"], ["next"]):
            subprocess.run(targets.plcg(sample, *argv), cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        files["sample_23"] = sample
        # a snapshot written by other fold code is ignored until something rebuilds it: rebuilt now, at the head,
        # as a player's file has it
        for key in ("big", "small", "five", "signed"):
            if files.get(key):
                subprocess.run(targets.plcg(files[key], "replay"), cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        compiled = targets.compile_tree()
        m = targets.measure(files, runs, say, slider=not a.no_slider)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    m["how"] = (f"`python -m bench.run{' --quick' if a.quick else ''}` on {_cpu()}; {load_before} at its start,"
                f" {targets.load()} at its end; {time.perf_counter() - t0:.0f} s; sources {compiled}")
    m["when"] = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(m, indent=2, default=str))
    return targets_table(m, a.write_doc)


def targets_table(m: dict, write_doc: bool) -> int:
    """Print issue 36's table of a measurement (bench/targets.measure), and with write_doc put it in the doc."""
    from tabulate import tabulate

    from bench import targets

    table = targets.rows(m)
    print(tabulate(table, headers=targets.HEAD))
    print()
    print(targets.note(m, m["how"]))
    if write_doc:
        targets.write_doc(targets.markdown(table, f"Measured {m['when']}: {targets.note(m, m['how'])}"))
        print(f"wrote the table into {targets.DOC.relative_to(ROOT)}", file=sys.stderr)
    return 0


def _size(size: dict) -> dict:
    return {"firefights": size["firefights"], "units_per_side": size["units_per_side"]}


def _count(path: str, etype: str | None = None) -> int:
    import sqlite3

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        sql = "SELECT count(*) FROM events" + (" WHERE type = ?" if etype else "")
        return con.execute(sql, (etype,) if etype else ()).fetchone()[0]
    finally:
        con.close()


def _game_commands(path: str) -> int:
    """The commands of the game in a campaign file: every recorded command but play by email's own
    (signatures, confirmations, answers, reveals), which add nothing to the game."""
    import sqlite3

    from cg.pbem import OWN

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        sql = (f"SELECT count(*) FROM events WHERE command IS NOT NULL AND json_extract(command, '$.name')"
               f" NOT IN ({', '.join('?' * len(OWN))})")
        return con.execute(sql, OWN).fetchone()[0]
    finally:
        con.close()


def table(f: dict, quick: bool) -> str:
    from tabulate import tabulate

    rows = []

    def row(name, value, limit, ratio, target, ok):
        verdict = "" if ok is None else ("ok" if ok else "OVER")
        rows.append([name, value, limit, "" if ratio is None else f"{ratio:.2f}x", target, verdict])

    raw = f["raw"]["seconds"]
    n = f["raw"]["events"]
    row(f"raw limit: SELECT + orjson.loads ({n:,} rows, {f['raw']['bytes'] / n:.0f} B avg)", _fmt_s(raw), "", None,
        "baseline", None)
    rp = f["replay"]["seconds"]
    row("replay: state from the log + every projection", _fmt_s(rp), _fmt_s(raw), rp / raw, "<= 2x raw",
        rp / raw <= LIMITS["replay"])
    if f.get("raw_runs") and f.get("replay_runs"):  # noise only adds time: the fastest runs, for comparison
        lo_raw, lo_rp = min(f["raw_runs"]), min(f["replay_runs"])
        row("replay, fastest run against the fastest raw run", _fmt_s(lo_rp), _fmt_s(lo_raw), lo_rp / lo_raw,
            "info", None)
    au = f["audit"]
    if "error" in au:
        row("audit: chain + every re-derivation", "n/a", _fmt_s(raw), None, f"<= {LIMITS['audit']:g}x raw", None)
        rows[-1][1] = f"n/a ({au['error'][:60]})"
    else:
        s = au["seconds"]
        row(f"audit: chain + every re-derivation ({au['findings']} findings)", _fmt_s(s), _fmt_s(raw), s / raw,
            f"<= {LIMITS['audit']:g}x raw", s / raw <= LIMITS["audit"])
        if f.get("raw_runs") and f.get("audit_runs"):
            lo_raw, lo_au = min(f["raw_runs"]), min(f["audit_runs"])
            row("audit, fastest run against the fastest raw run", _fmt_s(lo_au), _fmt_s(lo_raw), lo_au / lo_raw,
                "info", None)
        parts = f.get("audit_parts")
        if parts and "error" not in parts:  # one more, instrumented run: what the audit spends its time on
            n = parts["commands"]
            for key, what in (("read", "audit part: one pass over the rows, hash chain included"),
                              ("decide", f"audit part: deciding the {n:,} commands again "
                                         f"({parts['decide'] / max(n, 1) * 1e6:.1f} us each)"),
                              ("copy", "audit part: state copies kept for the undos"),
                              ("rest", "audit part: folding, comparing, notes")):
                row(what, _fmt_s(parts[key]), _fmt_s(raw), parts[key] / raw, "info", None)
        elif parts:
            row("audit parts", f"n/a ({parts['error'][:60]})", "", None, "info", None)
    sg = f.get("audit_signed")
    if sg is not None and "error" in sg:
        row("audit, signed campaign (play by email)", f"error: {sg['error'][:60]}", "", None, "<= 1.2x", None)
    elif sg is not None:
        plain, n_plain, n_sig = f["audit_plain"]["seconds"], _count(f["file"]), _count(sg["file"])
        sigs = _count(sg["file"], "head_signed")
        row(f"audit, signed campaign ({n_sig:,} events, a signature per {n_sig / max(sigs, 1):.0f};"
            f" {sg['findings']} findings) against the unsigned one ({n_plain:,})", _fmt_s(sg["seconds"]),
            _fmt_s(plain), sg["seconds"] / plain, "<= 1.2x", sg["seconds"] / plain <= LIMITS["audit_signed"])
        row("audit, signed campaign: time per event against the unsigned one's", "", "",
            (sg["seconds"] / n_sig) / (plain / n_plain), "info", None)
        # the seeded dice follow the row numbers, which the signatures shift: the two games part early
        # and are not the same size; per command of the game, what play by email adds to each
        c_plain, c_sig = _game_commands(f["file"]), _game_commands(sg["file"])
        row(f"audit, signed campaign: time per command of the game ({c_sig:,}; unsigned {c_plain:,})", "", "",
            (sg["seconds"] / c_sig) / (plain / c_plain), "info", None)
    for mode, what in (("same", "one Ledger"), ("new", "new Ledger each")):
        ap = f[f"append_{mode}"]
        if "error" in ap:
            row(f"append ({what})", f"error: {ap['error'][:60]}", "5 ms", None, "<= 5 ms", None)
            continue
        row(f"append: Ledger.run median, {what} (p90 {ap['p90_ms']:.1f} ms)", f"{ap['median_ms']:.2f} ms",
            f"{APPEND_LIMIT_MS:g} ms", ap["median_ms"] / APPEND_LIMIT_MS, "<= 5 ms", ap["median_ms"] <= APPEND_LIMIT_MS)
    stt = f["status"]
    row(f"plcg status, whole process ({_events_of(f['status_file'])} events)", _fmt_s(stt["status"]),
        _fmt_s(stt["baseline"]) + " (imports)", stt["status"] / stt["baseline"], "<= 1.3x",
        stt["status"] / stt["baseline"] <= LIMITS["status"])
    if "status_big" in f:
        sb = f["status_big"]
        row(f"plcg status, whole process ({_events_of(f['file'])} events; flat?)", _fmt_s(sb["status"]),
            _fmt_s(sb["baseline"]) + " (imports)", sb["status"] / sb["baseline"], "info", None)
    rss = f["replay"]["rss_mb"]
    row("peak RSS of the replay process", f"{rss:.0f} MB", f"{RSS_LIMIT_MB:g} MB", rss / RSS_LIMIT_MB, "<= 150 MB",
        rss <= RSS_LIMIT_MB)
    peer = f.get("peer")
    ours = f["replay"]["events"] / rp
    if peer is None:
        row("peer: eventsourcing read-back", "skipped (--no-peer)", "", None, ">= 5x", None)
    elif "error" in peer:
        row("peer: eventsourcing read-back", "not installed" if "not installed" in peer["error"] else
            f"error: {peer['error'][:60]}", "", None, ">= 5x", None)
    else:
        theirs = peer["read_events_per_second"]
        row(f"peer: {peer['library']} read-back, {peer['aggregates']} aggregates",
            f"{theirs:,.0f} ev/s", "", None, "", None)
        row("our replay against the peer", f"{ours:,.0f} ev/s", f"{theirs:,.0f} ev/s", ours / theirs, ">= 5x",
            ours / theirs >= LIMITS["peer"])
    d = f["derived"]
    if "error" in d:
        row("derived data: snapshot state == log state", f"error: {d['error'][:60]}", "", None, "same", None)
    else:
        row(f"derived data: digest via snapshot (seq {d['snapshot_seq']}) == from log", "same" if d["same"] else
            "DIFFERENT", "", None, "same", d["same"])
    head = ["figure", "measured", "limit / baseline", "ratio", "target", ""]
    title = (f"plcg bench ({'quick' if quick else 'full'}): {Path(f['file']).name}, {_cpu()}, "
             f"python {sys.version.split()[0]}, {f['seconds']:.0f} s")
    return title + "\n" + tabulate(rows, headers=head)


def _events_of(path: str) -> str:
    import sqlite3

    conn = sqlite3.connect(Path(path).absolute().as_uri() + "?mode=ro", uri=True)
    try:
        return f"{conn.execute('SELECT max(seq) FROM events').fetchone()[0]:,}"
    finally:
        conn.close()


def _cpu() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return f"{os.cpu_count()} x {line.split(':', 1)[1].strip()}"
    except OSError:
        pass
    return f"{os.cpu_count()} cpus"


if __name__ == "__main__":
    sys.exit(main())
