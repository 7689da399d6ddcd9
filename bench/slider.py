"""The web page's slider (issue 34 item 7): a move answered, fully rendered, at random seqs.

    python -m bench.slider            # the ~10k-event campaign (bench/run.py's quick file)
    python -m bench.slider --full     # the 100-firefight campaign (~100k events)
    python -m bench.slider --json out.json

The page's app (`plcg serve` builds it: cli.py's catalogue, its in-process run, status --json), served by
uvicorn on a loopback port in a thread of this process, is asked over HTTP (httpx): `GET /api/state?at=SEQ` (the JSON of every part) and
`GET /?at=SEQ` (the whole page, rendered) at `--moves` random seqs after the first move (which lays
down the checkpoints: its figure is printed apart). The CLI's `roster --at SEQ --json`, a fresh process
each time, at the same seqs, is the yardstick: the page's p90 as a ratio of the CLI's p90 (a slider
move should cost less than a command), with the absolute figures for the record (the issue's targets:
150 ms p90 at 10k events, 300 ms at 100k). Timing only: no test asserts any of it.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import synth  # noqa: E402
from bench.run import FULL, QUICK, SEED, _plcg, _time_process  # noqa: E402


def p90(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]


def figures(path: Path, moves: int = 30, cli_runs: int = 10, seed: int = 34) -> dict:
    import threading

    import httpx
    import uvicorn

    import cli
    from projections.web import server
    from cg.app.ledger import Ledger
    from projections.web.app import Site

    led = Ledger(str(path))
    head = led.store.head()[0]
    led.close()
    site = Site(str(path), catalogue=cli.command_catalogue(), run=cli.in_process(str(path), None),
                status_of=cli.status_dict)
    sock = server.bind("127.0.0.1", 0)  # the page as `plcg serve` serves it: uvicorn on a loopback port
    srv = uvicorn.Server(uvicorn.Config(site.app(), log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.01)
    client = httpx.Client(base_url=f"http://127.0.0.1:{sock.getsockname()[1]}", timeout=60)
    rnd = random.Random(seed)
    seqs = [rnd.randint(1, head) for _ in range(moves)]

    cpu: dict = {}

    def get(url: str) -> float:
        c0, t0 = time.process_time(), time.perf_counter()
        r = client.get(url)
        dt = time.perf_counter() - t0
        cpu.setdefault(url.split("?")[0], []).append(time.process_time() - c0)
        if r.status_code != 200:
            raise RuntimeError(f"{url}: {r.status_code} {r.text[:200]}")
        return dt

    t0 = time.perf_counter()
    site.history.warm()  # what `plcg serve` does in the background as it starts
    warm = time.perf_counter() - t0
    first = get(f"/api/state?token={site.token}&at={seqs[0]}")
    api = [get(f"/api/state?token={site.token}&at={s}") for s in seqs[1:]]
    page = [get(f"/?token={site.token}&at={s}") for s in seqs[1:]]
    srv.should_exit = True
    thread.join(10)
    roster = [_time_process(_plcg(path, ["roster", "--at", str(s), "--json"])) for s in seqs[1:cli_runs + 1]]
    out = {"file": str(path), "events": head, "moves": moves - 1, "warm_s": warm, "first_move_s": first,
           "api_state_p90_s": p90(api), "page_p90_s": p90(page), "cli_roster_at_p90_s": p90(roster),
           "folded_rows": site.history.folded,
           # the process's CPU time (the server's and the client's threads): what a loaded machine's wall
           # clock adds to it is the other work's
           "api_state_cpu_p90_s": p90(cpu["/api/state"][1:]), "page_cpu_p90_s": p90(cpu["/"])}
    out["api_state_ratio"] = out["api_state_p90_s"] / out["cli_roster_at_p90_s"]
    out["page_ratio"] = out["page_p90_s"] / out["cli_roster_at_p90_s"]
    return out


def table(f: dict) -> str:
    ms = lambda s: f"{s * 1000:8.1f} ms"  # noqa: E731
    return "\n".join([
        f"slider moves on {Path(f['file']).name} ({f['events']:,} events), {f['moves']} random seqs",
        f"  laying the checkpoints (at start)   {ms(f['warm_s'])}",
        f"  first move                          {ms(f['first_move_s'])}",
        f"  GET /api/state?at= p90              {ms(f['api_state_p90_s'])}   {f['api_state_ratio']:.2f} x roster --at",
        f"  GET /?at= (the page) p90            {ms(f['page_p90_s'])}   {f['page_ratio']:.2f} x roster --at",
        f"  plcg roster --at --json p90         {ms(f['cli_roster_at_p90_s'])}   (a fresh process each)",
        f"  CPU time p90: /api/state {ms(f['api_state_cpu_p90_s']).strip()}, the page {ms(f['page_cpu_p90_s']).strip()}"
        " (server and client: the wall clock's excess is other work on the machine)",
        f"  rows folded by the app in all       {f['folded_rows']:>11,}",
    ])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the 100-firefight campaign (built once, cached)")
    ap.add_argument("--moves", type=int, default=31)
    ap.add_argument("--cli-runs", type=int, default=10)
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args(argv)
    size = FULL if a.full else QUICK
    path, _built = synth.ensure(size["firefights"], size["units_per_side"], SEED, False, echo=None)
    f = figures(Path(path), a.moves, a.cli_runs)
    print(table(f))
    if a.json:
        Path(a.json).write_text(json.dumps(f, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
