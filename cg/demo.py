"""`plcg demo`: the shipped sample CG played through the real command handlers with the seeded
roller: six firefights, the second of them Idle, a Dual Attack, patrols, redeployment, promotions,
ELR and clearance — everything recorded as a player would record it."""
from __future__ import annotations

from cg import tables
from cg.steps import pending
from cg.state import SIDES

# per firefight: purchases (side, rg, mode), attack options, patrols, fortifications
SCRIPT = {
    1: {"buy": [("axis", "I1", "on-map"), ("axis", "HW1", "on-map"), ("axis", "F1", "entry"),
                ("allied", "I1", "entry"), ("allied", "I2", "entry"), ("allied", "O1", "entry")],
        "patrols": [("allied", 1)], "fortify": [("axis", "foxhole", "L5", {"capacity": 2}),
                                                ("axis", "sangar", "K4", {})],
        "setup": True,
        "end": dict(turn=6, cvp={"axis": 14, "allied": 9}, control=["allied=H6", "allied=I5"],
                    terrain=["I5=rubble", "H6=flame"], wounded=True)},
    2: {"buy": [("axis", "I3", "entry"), ("allied", "I3", "entry")]},  # nobody attacks: Idle
    3: {"buy": [("axis", "A1", "entry"), ("axis", "I1", "reserve"), ("allied", "G1", "entry")],
        "attack": ["axis"], "patrols": [("axis", 1)],
        "end": dict(turn=5, cvp={"axis": 11, "allied": 21}, control=["axis=I5"], terrain=["I5=rubble"])},
    4: {"buy": [("allied", "A1", "entry"), ("allied", "I1", "entry"), ("axis", "O1", "entry")],
        "attack": ["axis", "allied"],
        "end": dict(turn=7, cvp={"axis": 23, "allied": 17}, control=["allied=I5", "allied=L6"], terrain=[])},
    5: {"buy": [("allied", "V1", "entry"), ("axis", "I4", "entry")], "attack": ["allied"],
        "end": dict(turn=4, cvp={"axis": 6, "allied": 12}, control=[], terrain=["M4=rubble"])},
    6: {"buy": [("axis", "I1", "entry"), ("allied", "I1", "entry")], "attack": ["axis"],
        "end": dict(turn=6, cvp={"axis": 19, "allied": 15}, control=["axis=H6"], terrain=[])},
}

DEMO_MARK = {"demo": "plcg demo"}  # recorded in the demo's `new` command: the demo made this file


def is_demo(path: str) -> bool:
    """Whether `path` is a campaign file `plcg demo` made: its first row is a campaign_started whose
    recorded command carries the demo's mark (never a campaign a player started, whatever its card)."""
    import sqlite3

    from events.errors import PlcgError
    from events.store import Store

    try:
        store = Store.open(path)
    except (PlcgError, sqlite3.Error):  # not a campaign file at all, or unreadable: not the demo's
        return False
    try:
        first = next(iter(store.read(0, 1)), None)
    except (PlcgError, sqlite3.Error, ValueError):
        return False
    finally:
        store.close()
    return (first is not None and first.type == "campaign_started" and isinstance(first.command, dict)
            and first.command.get("name") == "new"
            and all(first.command.get(k) == v for k, v in DEMO_MARK.items()))


def replace(path: str) -> None:
    """Remove a demo file (and its SQLite -wal/-shm) so the demo can be played into it again."""
    import os

    if not is_demo(path):
        raise ValueError(f"{path} is not a demo file")
    for p in (path + "-wal", path + "-shm", path):
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


def play(path: str, echo=print, seed: str = "plcg-demo", around=None, describe=None) -> int:
    """Play the sample CG into `path`. `describe(type, payload)` words each recorded event for `echo`
    (the CLI passes the log's summary: the rules hold no wording). `around(ledger, cmd, run)`, if
    given, wraps every command (tests use it to undo and redo each one)."""
    from cg.ledger import Ledger

    summary = describe or (lambda etype, _payload: etype)
    led = Ledger.create(path, "sample", seed, None, mark=DEMO_MARK)
    count = 0

    def run(cmd: dict) -> None:
        nonlocal count
        stored = around(led, cmd, led.run) if around else led.run(cmd)
        for s in stored:
            if s.type != "step_left":
                echo(f"[{s.seq:>3}] {summary(s.type, s.payload)}")
        count += 1

    done_steps: set = set()
    try:
        while True:
            st = led.state()
            if st.ended:
                break
            key = (st.firefight, st.step)
            if key not in done_steps:
                done_steps.add(key)
                if st.step in ("2.2", "2.1"):
                    echo(f"--- firefight {st.firefight} ({st.ff.date}, {st.ff.time}) ---")
                _step_actions(st, run)
                continue
            st = led.state()
            owed = pending(st)
            acted = False
            for o in owed:
                if o["runnable"]:
                    run(dict(o["args"]))
                    acted = True
                    break
                cmd = _choice(st, o)
                if cmd:
                    run(cmd)
                    acted = True
                    break
            if not acted:
                run({"name": "next"})
    finally:
        led.close()
    return count


def _step_actions(st, run) -> None:
    sc = SCRIPT.get(st.firefight, {})
    if st.step == "2.3":
        for side, n in sc.get("patrols", []):
            run({"name": "patrols", "side": side, "count": n})
        for side in sc.get("attack", []):
            run({"name": "attack", "side": side})
        for side, rg_id, mode in sc.get("buy", []):
            rg = st.card.sides[side].rg_by_id(rg_id)
            cost, _ = tables.setup_cost(rg.kind, rg.id, mode, rg.cost)
            if cost <= _cp_now(st, side, run):
                run({"name": "buy", "side": side, "rg": rg_id, "mode": mode})
        for side, kind, hx, extra in sc.get("fortify", []):
            run({"name": "fortify", "side": side, "kind": kind, "hex": hx, **extra})
    elif st.step == "2.6" and sc.get("setup"):
        spots = {"axis": ["L4", "M5", "M4", "L5", "J5"], "allied": ["D3", "C3", "E8", "H6", "G6"]}
        for side in SIDES:
            units = [u for u in st.units.values() if u.side == side and u.kind in ("squad", "leader")][:5]
            for u, hx in zip(units, spots[side]):
                run({"name": "setup", "side": side, "unit": u.id, "hex": hx})


def _cp_now(st, side, run) -> int:
    return st.sides[side].cp  # the ledger refuses (exit 3) anything the CP left cannot pay for


def _choice(st, o: dict) -> dict | None:
    """The player's part of a non-runnable pending item, as the demo's players decide it."""
    c = o["command"]
    if c.startswith("plcg night"):
        return {"name": "night", "text": "Half Moon, NVR 2, no clouds (E1.1)"}
    if c.startswith("plcg option"):
        return {"name": "option", "option": "A"}
    if c.startswith("plcg end"):
        e = SCRIPT[st.firefight]["end"]
        cmd = {"name": "end", "turn": e["turn"], "cvp_lost": e["cvp"], "control": e["control"],
               "terrain": e["terrain"]}
        lost = []  # the demo's casualties: each side's last squad in play, the losing side's two
        for side in SIDES:
            squads = [u for u in st.side_units(side) if u.kind == "squad"]
            heavy = e["cvp"][side] >= 12
            lost += [f"{side}:{u.id}" for u in squads[-(2 if heavy else 1):]] if squads else []
        cmd["lost"] = lost
        if e.get("wounded"):
            leaders = [u for u in st.units.values() if u.side == "allied" and u.kind == "leader"]
            if leaders:
                cmd["wounded"] = [f"allied:{leaders[0].id}"]
        return cmd
    if c.startswith("plcg patrol "):
        side = c.split()[2]
        squads = [u for u in st.side_units(side) if u.kind == "squad"]
        leaders = [u for u in st.side_units(side) if u.kind == "leader" and not u.wounded]
        if not squads or not leaders:
            return {"name": "patrol", "side": side, "give_up": "no leader free to lead it"}
        target = "H6" if side == "allied" else "F6"
        return {"name": "patrol", "side": side, "type": "recon", "units": [squads[0].id], "leader": leaders[0].id,
                "hex": target}
    if c.startswith("plcg redeploy"):
        from cg.rules import nearest_friendly_hex

        side, unit = c.split()[2], c.split()[3]
        to = nearest_friendly_hex(st, st.units[unit])
        return {"name": "redeploy", "side": side, "unit": unit, "to": to} if to else None
    if c.startswith("plcg encircled"):
        return {"name": "encircled", "side": c.split()[2], "unit": c.split()[3], "morale": 7}
    return None
