"""Campaign files for the reliability tests, made through the real command handlers.

`choices(state)` says what the demo's players (cg/app/demo.py SCRIPT) would record next, from the state
alone, so a process killed in the middle of a campaign can be restarted and carry on where the log
stands. `drive` plays with it until a condition holds. Every command goes through `Ledger.run`.
"""
from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import orjson  # noqa: E402

from cg.app.demo import SCRIPT, _choice  # noqa: E402
from events.errors import BadInput, Refused  # noqa: E402
from cg.state import SIDES  # noqa: E402
from cg.steps import pending  # noqa: E402

SEED = "plcg-reliability"
SPOTS = {"axis": ["L4", "M5", "M4", "L5", "J5"], "allied": ["D3", "C3", "E8", "F6", "G7"]}  # inside the Allied MLR (2.32)


def key(cmd: dict) -> str:
    """A command as the log keeps it (canonical JSON), for comparing."""
    return orjson.dumps(cmd, option=orjson.OPT_SORT_KEYS).decode()


def choices(st) -> list[dict]:
    """The commands the players would give now, the most wanted first; `next` comes last."""
    if st.ended:
        return []
    out: list[dict] = []
    sc = SCRIPT.get(st.firefight, {})
    if st.step == "2.3":
        bought = {(p.side, p.rg) for p in st.purchases.values() if p.firefight == st.firefight}
        for side, n in sc.get("patrols", []):
            if st.sides[side].patrols == 0:
                out.append({"name": "patrols", "side": side, "count": n})
        for side in sc.get("attack", []):
            if not st.sides[side].attack:
                out.append({"name": "attack", "side": side})
        for side, rg, mode in sc.get("buy", []):
            if (side, rg) not in bought:
                out.append({"name": "buy", "side": side, "rg": rg, "mode": mode})
    elif st.step == "2.6" and sc.get("setup"):
        for side in SIDES:
            units = [u for u in st.units.values() if u.side == side and u.kind in ("squad", "leader")][:5]
            for u, hx in zip(units, SPOTS[side]):
                if u.hex is None:
                    out.append({"name": "setup", "side": side, "unit": u.id, "hex": hx})
    for o in pending(st):
        cmd = dict(o["args"]) if o["runnable"] else _choice(st, o)
        if cmd:
            out.append(cmd)
    out.append({"name": "next"})
    return out


def step_once(led, tried: set) -> tuple[dict, list] | None:
    """Run the first wanted command the rules accept; (command, stored events), or None if stuck.

    `tried` holds (head seq, command) pairs refused already, so a refused purchase is not retried
    until the log moves on."""
    st = led.state()
    for cmd in choices(st):
        k = (st.seq, key(cmd))
        if k in tried:
            continue
        try:
            return cmd, led.run(cmd)
        except (Refused, BadInput):
            tried.add(k)
    return None


def drive(led, stop, limit: int = 5000, on_run=None) -> int:
    """Play until stop(state) holds (or the CG ends); the number of commands run."""
    tried: set = set()
    n = 0
    while True:
        st = led.state()
        if stop(st) or st.ended:
            return n
        got = step_once(led, tried)
        if got is None:
            raise RuntimeError(f"the test player is stuck at firefight {st.firefight} step {st.step}")
        if on_run is not None:
            on_run(*got)
        n += 1
        if n >= limit:
            raise RuntimeError("the test player ran too long")


def make(path: str, stop, seed: str = SEED) -> None:
    """A closed campaign file of the sample card, played until stop(state)."""
    from cg.app.ledger import Ledger

    led = Ledger.create(path, "sample", seed, None)
    try:
        drive(led, stop)
    finally:
        led.close()


def at(firefight: int, step: str):
    """A stop condition: the campaign stands at `step` of `firefight`."""
    return lambda st: st.firefight == firefight and st.step == step


def files(path: str) -> dict[str, bytes]:
    """The bytes of a campaign file and of its WAL when it holds anything (not the -shm index, which
    readers touch; a reader may leave SQLite's empty -wal beside the file, with nothing in it)."""
    out = {s: open(path + s, "rb").read() for s in ("", "-wal") if os.path.exists(path + s)}
    if out.get("-wal") == b"":
        del out["-wal"]
    return out


# ---- templates: each built once per test process, then copied ------------------------------------

TEMPLATES = {
    "2.2": at(1, "2.2"),  # a new campaign
    "2.3": at(1, "2.3"),  # the Initial Firefight's purchases
    "2.6": at(1, "2.6"),  # setup: units bought, each `setup` one event
    "2.9": at(1, "2.9"),  # the first firefight's result is owed
    "3.44": at(1, "3.44"),  # the first RePh, rolls owed
    "ff3": at(3, "2.3"),  # after an Idle firefight, purchases with Attack Options
    "ended": lambda st: False,  # the whole sample CG
}
_BUILT: dict[str, str] = {}
_DIR: list[str] = []


def template(name: str) -> str:
    """The path of a closed campaign file at TEMPLATES[name]; never write to it, copy it."""
    import atexit
    import shutil
    import tempfile

    if name not in _BUILT:
        if not _DIR:
            _DIR.append(tempfile.mkdtemp(prefix="plcg-templates-"))
            atexit.register(shutil.rmtree, _DIR[0], True)
        path = os.path.join(_DIR[0], f"{name}.plcg")
        make(path, TEMPLATES[name])
        _BUILT[name] = path
    return _BUILT[name]


def copy_template(name: str, dest: str) -> str:
    import shutil

    shutil.copyfile(template(name), dest)
    return dest


def forge_snapshot(path: str, st) -> None:
    """A forger's stored snapshot: `st` (a state changed by the test) dumped with its digest recomputed and
    written over the file's snapshot row, below plcg (the audit must find it: issue 25)."""
    import sqlite3

    from cg import snapshot
    from cg.app.ledger import Ledger

    led = Ledger(path)
    try:
        hot, _cold = snapshot.dump_split(st, led.store.cold_token())
    finally:
        led.close()
    con = sqlite3.connect(path)
    with con:
        con.execute("UPDATE snapshot SET state = ?", (hot,))
    con.close()
