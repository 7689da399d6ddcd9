"""`plcg demo`: the shipped sample CG played through the real command handlers with the seeded
roller: six firefights, the second of them Idle, a Dual Attack, patrols, redeployment, promotions,
ELR and clearance — everything recorded as a player would record it."""
from __future__ import annotations

from cg import counters, tables
from cg.rules import counter_table, rules_for
from cg.app.ledger import Ledger
from cg.rules import enters_only, nearest_friendly_hex
from events.errors import BadInput, PlcgError
from cg.sequence import StepId
from cg.specs import Item
from cg.steps import pending
from cg.state import SIDES, other
from cg.units import Kind
from events.store import Store
import sqlite3
import os

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

SPOTS = {"axis": ["L4", "M5", "M4", "L5", "J5"], "allied": ["D3", "C3", "E8", "F6", "G7"]}  # inside each MLR (2.32)
PATROL_HEX = {"allied": "H6", "axis": "F6"}
NIGHT = "Half Moon, NVR 2, no clouds (E1.1)"

# the second shipped card (cg/cards/bridgehead.toml): boards 24 and 23*, an OB given, a night firefight,
# RGs that arrive later (I2 from firefight 2, A1 from 3) and per-RePh limits
BRIDGEHEAD = {
    1: {"buy": [("allied", "I1", "entry"), ("allied", "I1", "entry"), ("axis", "I1", "on-map"),
                ("axis", "F1", "entry")],
        "patrols": [("allied", 1)], "fortify": [("axis", "foxhole", "23P6", {"capacity": 2})],
        "setup": True, "spots": {"axis": ["23K4", "23P6", "23Q5", "23K5", "23P7"],
                                 "allied": ["24E4", "24H5", "24E5", "24H6", "24F5"]},
        "end": dict(turn=7, cvp={"axis": 9, "allied": 13}, control=["allied=24P5"], terrain=["24N3=flame"],
                    wounded=True)},
    2: {"buy": [("allied", "I2", "entry"), ("axis", "I2", "entry")], "attack": ["axis"],
        "end": dict(turn=5, cvp={"axis": 12, "allied": 8}, control=["axis=24P5"], terrain=[])},
    3: {"buy": [("axis", "A1", "entry"), ("allied", "A1", "entry"), ("allied", "I1", "entry")],
        "attack": ["allied"],
        "end": dict(turn=6, cvp={"axis": 15, "allied": 11}, control=["allied=24P5", "allied=23K4"], terrain=[])},
    "night": "Full Moon, NVR 3, no clouds (E1.1)",
    "patrol_hex": {"allied": "24P5", "axis": "24H5"},
}
SCRIPTS: dict[str, dict] = {"sample": SCRIPT, "bridgehead": BRIDGEHEAD}


def _script(st) -> dict:
    """The demo's script for the campaign's card (the sample's for any other)."""
    return SCRIPTS.get(st.card_ref, SCRIPT)


DEMO_MARK = {"demo": "plcg demo"}  # recorded in the demo's `new` command: the demo made this file


def is_demo(path: str) -> bool:
    """Whether `path` is a campaign file `plcg demo` made: its first row is a campaign_started whose
    recorded command carries the demo's mark (never a campaign a player started, whatever its card)."""

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
    if not is_demo(path):
        raise ValueError(f"{path} is not a demo file")
    for p in (path + "-wal", path + "-shm", path):
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


def play(path: str, echo=print, seed: str = "plcg-demo", around=None, describe=None, card: str = "sample") -> int:
    """Play a shipped CG (the sample, or one of SCRIPTS) into `path`. `describe(type, payload)` words each recorded event for `echo`
    (the CLI passes the log's summary: the rules hold no wording). `around(ledger, cmd, run)`, if
    given, wraps every command (tests use it to undo and redo each one)."""
    summary = describe or (lambda etype, _payload: etype)
    if card not in SCRIPTS:
        raise BadInput(f"the demo plays {' or '.join(SCRIPTS)}, not {card!r}")
    led = Ledger.create(path, card, seed, None, mark=DEMO_MARK)
    count = 0

    def run(cmd: dict) -> None:
        nonlocal count
        stored = around(led, cmd, led.run) if around else led.run(cmd)
        for s in stored:
            if s.type != "step_left":
                echo(f"[{s.seq:>3}] {summary(s.type, s.payload)}")
        count += 1

    done_steps: set = set()
    headed: set = set()  # the firefights whose header is printed (2.1, then 2.2 of the same firefight: once)
    try:
        while True:
            st = led.state()
            if st.ended:
                break
            key = (st.firefight, st.step)
            if key not in done_steps:
                done_steps.add(key)
                if st.step in (StepId.WEATHER, StepId.CP) and st.firefight not in headed:
                    headed.add(st.firefight)
                    echo(f"--- firefight {st.firefight} ({st.ff.date}, {st.ff.time}) ---")
                _step_actions(st, run)
                continue
            st = led.state()
            owed = pending(st)
            acted = False
            for o in owed:
                if o.runnable:
                    run(o.spec.command(o.args))
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
    sc = _script(st).get(st.firefight, {})
    if st.step == StepId.PURCHASE:
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
    elif st.step == StepId.SETUP and sc.get("setup"):
        spots = sc.get("spots", SPOTS)
        first = st.ff.setup_first or SIDES[0]
        for side in (first, other(first)):  # 2.41: the side that sets up first (ruling R51)
            units = [u for u in st.units.values() if u.side == side and u.kind in (Kind.SQUAD, Kind.LEADER)
                     and u.hex is None and not enters_only(st, u)][:5]  # ruling R50
            placed: dict = {}  # 2.37: a leader sets up with a MMC of its RG
            for u, hx in zip(units, spots[side]):
                if u.kind == Kind.LEADER:
                    if u.purchase not in placed:
                        continue  # no squad of its RG placed: it stays in its MLR
                    hx = placed[u.purchase]
                run({"name": "setup", "side": side, "unit": u.id, "hex": hx})
                if u.kind == Kind.SQUAD:
                    placed.setdefault(u.purchase, hx)


def _cp_now(st, side, run) -> int:
    return st.sides[side].cp  # the ledger refuses (exit 3) anything the CP left cannot pay for


# A19.13 replacements the counter table lacks (ruling R34 asks for them): the demo's players know these
DEMO_REPLACED = {"7-4-7": "6-6-7"}


def _may_go(st, u, target: str) -> bool:
    """2.72 (rules revision 2): a patrol's units come from the friendly MLR within 10 hexes of the mission hex."""
    return rules_for(st).may_patrol_from(st, u, target)


def _may_lead(st, u) -> bool:
    """2.72: a Corporal, Sergeant or Lieutenant leads a patrol (rules revision 2, counter table)."""
    return rules_for(st).patrol_leader_refusal(st, u.side, u) is None


def _missing_counter(st, u) -> str | None:
    """The counter a Replaced result would ask for (`redeploy --counter`), where the table lacks it."""
    if u.kind not in (Kind.SQUAD, Kind.HALF_SQUAD):
        return None
    nat, over = counter_table(st, u.side)
    if counters.replacement(nat, u.name, over) is None and u.name in DEMO_REPLACED:
        return DEMO_REPLACED[u.name]
    return None


def _choice(st, o: Item) -> dict | None:
    """The player's part of a non-runnable pending item, as the demo's players decide it."""
    name, a = o.spec.name, o.args
    if name == "night":
        return {"name": "night", "text": _script(st).get("night", NIGHT)}
    if name == "option":
        return {"name": "option", "option": "A"}
    if name == "end":
        e = _script(st)[st.firefight]["end"]
        cmd = {"name": "end", "turn": e["turn"], "cvp_lost": e["cvp"], "control": e["control"],
               "terrain": e["terrain"]}
        lost = []  # the demo's casualties: each side's last squad in play, the losing side's two
        for side in SIDES:
            squads = [u for u in st.side_units(side) if u.kind == Kind.SQUAD]
            heavy = e["cvp"][side] >= 12
            lost += [f"{side}:{u.id}" for u in squads[-(2 if heavy else 1):]] if squads else []
        cmd["lost"] = lost
        if e.get("wounded"):
            leaders = [u for u in st.units.values() if u.side == "allied" and u.kind == Kind.LEADER]
            if leaders:
                cmd["wounded"] = [f"allied:{leaders[0].id}"]
        return cmd
    if name == "patrol":
        side = a.side
        target = _script(st).get("patrol_hex", PATROL_HEX)[side]
        squads = [u for u in st.side_units(side) if u.kind == Kind.SQUAD and _may_go(st, u, target)]
        leaders = [u for u in st.side_units(side) if u.kind == Kind.LEADER and not u.wounded and _may_lead(st, u)
                   and _may_go(st, u, target)]
        if not squads or not leaders:
            return {"name": "patrol", "side": side, "give_up": "no leader free to lead it"}
        return {"name": "patrol", "side": side, "type": "recon", "units": [squads[0].id], "leader": leaders[0].id,
                "hex": target}
    if name == "redeploy":
        side, unit = a.side, a.unit
        u = st.unit(unit, side)
        to = nearest_friendly_hex(st, u)
        cmd = {"name": "redeploy", "side": side, "unit": unit, "to": to}
        counter = _missing_counter(st, u)
        if counter:
            cmd["counter"] = counter
        return cmd if to else None
    if name == "encircled":
        return {"name": "encircled", "side": a.side, "unit": a.unit, "morale": 7}
    return None
