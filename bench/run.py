"""The benchmarks of the performance issue, measured as ratios within one run.

    python -m bench.run            # 100 firefights, ~100k events (+ a ~10k-event file for `status`)
    python -m bench.run --quick    # ~10k events, under a minute once the file is cached
    python -m bench.run --profile  # also write cProfile reports to bench/out/profile-*.txt

Figures (each measured in fresh child processes, median of --runs):
  raw limit   SELECT of every payload + orjson.loads of each: the floor any replay pays
  replay      Ledger(path).state(use_snapshot=False) + roster, OOB (both sides), purchases (both
              sides), map: limit 2x raw
  audit       projections.audit.run_audit(Ledger(path)): limit 3x raw
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

FULL = {"firefights": 100, "units_per_side": 255}
QUICK = {"firefights": 11, "units_per_side": 255}  # ~10k events: also the `status` file of a full run
SEED = "plcg-bench"

APPEND_LIMIT_MS = 5.0
RSS_LIMIT_MB = 150.0
LIMITS = {"replay": 2.0, "audit": 3.0, "status": 1.3, "peer": 5.0, "audit_signed": 1.2}


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
        from projections.audit import run_audit
    except ImportError as e:
        return {"error": f"projections.audit.run_audit is not there ({e})"}
    from cg.ledger import Ledger

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
    """`n` setup commands (2.6) of live units into hexes of their side's CTHC, alternating sides."""
    import random

    from cg.ledger import Ledger

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
    cmds = []
    for i in range(n):
        side = ("axis", "allied")[i % 2]
        u = rnd.choice(units[side])
        cmds.append({"name": "setup", "side": side, "unit": u.id, "hex": rnd.choice(spots[side])})
    return cmds


def child_append(path: str, n: int = 200, mode: str = "same", warmup: int = 10) -> dict:
    """Median ms per Ledger.run of `n` setup commands on `path` (a copy: it is written)."""
    from cg.ledger import Ledger

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
    from cg.ledger import Ledger
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
    import projections.audit as audit
    from cg.state import CampaignState
    from cg.ledger import Ledger

    _replay_imports()
    clock = time.perf_counter
    spent = {"read": 0.0, "decide": 0.0, "copy": 0.0}
    commands = [0]

    def timed(fn, part, count=False):
        def wrapper(*args, **kwargs):
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[part] += clock() - t0
                if count:
                    commands[0] += 1
        return wrapper

    try:
        originals = (audit._read, audit.decide, audit.decide_all, CampaignState.copy)
    except AttributeError as e:
        return {"error": f"the audit's parts are not where the bench looks ({e})"}
    audit._read = timed(originals[0], "read")
    audit.decide = timed(originals[1], "decide", count=True)
    audit.decide_all = timed(originals[2], "decide", count=True)  # undos and confirms
    CampaignState.copy = timed(originals[3], "copy")
    t0 = clock()
    for _ in range(100_000):  # what the two clock reads of a wrapper cost: taken off each decide
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
        audit._read, audit.decide, audit.decide_all, CampaignState.copy = originals
    decide = max(0.0, spent["decide"] - commands[0] * tick)
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
    a = ap.parse_args(argv)

    from bench import synth

    def say(msg):
        print(msg, file=sys.stderr, flush=True)

    t_start = time.perf_counter()
    small, built = synth.ensure(QUICK["firefights"], QUICK["units_per_side"], SEED, a.fresh, echo=None)
    if built:
        say(f"built {small.name}: {built['events']} events in {built['seconds']:.0f} s")
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
    for path in {big, small}:
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
            # issue 16: the same players by email, each side's commands under its own signature (at
            # every change of side and at least every 50 events), audited against the figure above
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
            plain_ok = [r for r in plain + ok if "error" not in r]
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
    figs["seconds"] = time.perf_counter() - t_start
    print(table(figs, a.quick))
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(figs, indent=2, default=str))
    return 0


def _count(path: str, etype: str | None = None) -> int:
    import sqlite3

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        sql = "SELECT count(*) FROM events" + (" WHERE type = ?" if etype else "")
        return con.execute(sql, (etype,) if etype else ()).fetchone()[0]
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
        row("audit: chain + every re-derivation", "n/a", _fmt_s(raw), None, "<= 3x raw", None)
        rows[-1][1] = f"n/a ({au['error'][:60]})"
    else:
        s = au["seconds"]
        row(f"audit: chain + every re-derivation ({au['findings']} findings)", _fmt_s(s), _fmt_s(raw), s / raw,
            "<= 3x raw", s / raw <= LIMITS["audit"])
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
