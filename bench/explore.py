"""The explorer at a chosen size (tests/test_explorer.py, issues 23 and 35): its wall and CPU time, and what it played.

    python -m bench.explore                 # PLCG_EXPLORE=big: 15 walks per card (shipped and tests/cards/), 4 by email
    python -m bench.explore --size medium   # 6 and 2
    python -m bench.explore --size ci       # the size CI runs: 2 and 1

It runs pytest on tests/test_explorer.py in a child process (the walks draw fresh seeds each run) and reports
the child's wall time, its CPU time (user + system), the walks and the commands they played, refused and undone,
the cards and rules revisions walked, what the widened moves did (undo --to, forced undos, --at reads, exports,
rules upgrades, heavy ends, bundles late, twice, shuffled and synced, rejects, claims) and every finding: each is
kept in bench/out/ as JSON (card, revision, seed, message, the commands played), known ones (the test's KNOWN)
included.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(size: str) -> dict:
    with tempfile.TemporaryDirectory() as d:
        stats = Path(d) / "stats.json"
        out = ROOT / "bench" / "out"
        env = {**os.environ, "PLCG_EXPLORE": size, "PLCG_EXPLORE_STATS": str(stats), "PLCG_EXPLORE_OUT": str(out)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/test_explorer.py"], cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        played = json.loads(stats.read_text()) if stats.exists() else {}
    kept = None
    if proc.returncode != 0:  # a failing walk prints the commands it played: keep them whole to make a test of
        out = ROOT / "bench" / "out"
        out.mkdir(parents=True, exist_ok=True)
        kept = out / f"explore-failure-{time.strftime('%Y%m%d-%H%M%S')}.txt"
        kept.write_text(proc.stdout + "\n" + proc.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"size": size, "exit": proc.returncode, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), **played,
            "tail": proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else [],
            "failure": None if kept is None else str(kept)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="the explorer (tests/test_explorer.py) at a size, timed")
    ap.add_argument("--size", choices=("ci", "medium", "big"), default="big")
    ap.add_argument("--json", dest="json_out", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    r = run(args.size)
    stopped = sum(r.get("known", {}).values())
    print(f"explorer, size {r['size']}: {r.get('walks', 0)} campaigns played whole and {stopped} stopped at a known "
          f"finding, {r.get('commands', 0)} commands ({r.get('refused', 0)} refused, {r.get('searched', 0)} tried by "
          f"the dead-end search, {r.get('undos', 0)} undos); wall {r['wall_s']} s, CPU {r['cpu_s']} s; "
          f"pytest exit {r['exit']} {' '.join(r['tail'])}")
    print(f"  cards: {len(r.get('cards', []))} ({', '.join(r.get('cards', []))}); walks per rules revision: "
          f"{r.get('revisions', {})}")
    moves = ("undo_to", "forced", "undo_undo", "at_reads", "cli_reads", "exports", "upgrades", "heavy_ends", "late",
             "twice", "shuffled", "synced", "rejected", "claims")
    print("  " + ", ".join(f"{k} {r.get(k, 0)}" for k in moves))
    findings = r.get("findings", [])
    print(f"  findings: {len(findings)} ({sum(1 for f in findings if f.get('known'))} known: {r.get('known', {})})")
    for f in findings:
        print(f"    {'known' if f.get('known') else 'NEW'}: {f['card']} revision {f['revision']} seed {f['seed']} "
              f"({f['kind']}): {f['message'][:300]}")
    if r["failure"]:
        print(f"the failing walks' commands, whole: {r['failure']}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(r, indent=2))
    return r["exit"]


if __name__ == "__main__":
    sys.exit(main())
