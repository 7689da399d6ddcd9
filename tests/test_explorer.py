"""The explorer (issue 23): whole campaigns on every shipped card, played off the tested paths.

A hypothesis-driven random walk: hypothesis draws a seed, the walk draws every choice from it. At each
state it does what the step owes (`pending`, the choices a non-runnable item asks for made at random:
firefight results with immobilized vehicles, eliminated, wounded and reduced units, units left anywhere
on the map, control given either way), what the step accepts (`options`: purchases in any mode, setups,
redeployments, positions, hardening, generated leaders, repairs, clearance, RePh casualties), commands of
the wrong step, undos and, rarely, a concession; then `next`. The ledger rolls its own OS dice (no
--seed), drawn from the walk's seed so that a walk can be played again.

Checked after every command:
  - a refused command (exit 2 or 3) changed no byte of the log and rolled no die (ruling R49);
  - an accepted one recorded every die it rolled (its `ledger_dice`);
  - the state replayed from the log equals the live one; an undo brings back the state of before the
    command it undid;
  - what `end` and the RePh decided shows in `oob` (units lost, wounded, positioned, redeployed, wrecked);
  - the audit is clean (every AUDIT_EVERY commands and at the end);
  - liveness: every owed item can be done, `next` leaves a step that owes nothing, the CG reaches its end.
The same by email (two copies, keys, sealed secrets, two-party dice, every command through the command
line): every bundle one copy makes is received by the other, both copies audit clean and agree
(`audit --against`).

Size: PLCG_EXPLORE=ci (the default: one walk per card, single copy and by email) or PLCG_EXPLORE=big
(more walks, `python -m bench.run --explore`). A failure prints the commands the walk played (the
ledger's dice written in as `dice`): with `replay_commands` it is a plain regression test.
"""
from __future__ import annotations

import os
import random
import shutil
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as hst

import cg.dice
from cg import revision
from cg.card_schema import shipped_cards
from cg.ledger import Ledger
from cg.options import options, purchase_options
from cg.rules import REPAIRABLE, nearest_cthc, nearest_friendly_hex
from cg.state import SIDES, other
from cg.steps import pending
from events.errors import PlcgError
from projections.audit import run_audit
from projections.digest import canonical_state
from projections.oob import oob_rows
from projections.roster import roster_rows
from cg.state import Done

SIZES = {  # walks per card: single copy, by email
    "ci": {"walks": 3, "pbem_walks": 1},
    "big": {"walks": 20, "pbem_walks": 5},
}
SIZE = SIZES[os.environ.get("PLCG_EXPLORE", "ci")]
CARDS = [name for name, _c, _d in shipped_cards()]
AUDIT_EVERY = 40
LIMIT = 4000  # commands a walk may play before the CG must have ended (liveness)
STATS = {"walks": 0, "commands": 0, "refused": 0, "undos": 0}  # what the runs played (bench/ reports it)

REPAIR_KINDS = ("malfunction", "immobilized", "disabled", "low_ammo")
WRONG_STEP = [  # commands that belong to another step than most: refused there, with nothing written
    {"name": "elr", "side": "axis"}, {"name": "cp", "side": "allied"}, {"name": "determine"},
    {"name": "promote", "side": "axis"}, {"name": "weather"}, {"name": "leaders", "side": "allied"},
    {"name": "moves-first"}, {"name": "option", "option": "B"},
]


class Dice:
    """The ledger's OS dice (ruling R31) drawn from the walk's seed; counts what was asked."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.asked = 0

    def __call__(self, count: int) -> tuple[int, ...]:
        self.asked += count
        return tuple(self.rng.randint(1, 6) for _ in range(count))


def _canon(st) -> dict:
    d = orjson.loads(canonical_state(st))
    for k in ("seq", "last_batch", "commencements"):  # where the log stands, not the campaign
        d.pop(k, None)
    return d


def hexes(st) -> list[str]:
    return sorted(st.map_control().hexes, key=st.grid().index)


def in_play(st, side: str) -> list:
    return [u for u in st.side_units(side)]


class Walk:
    """One campaign played by a random player. `act(cmd)` gives a command; the choices come from `rng`."""

    def __init__(self, directory: str, card: str, rng: random.Random):
        self.rng = rng
        self.card = card
        self.played: list[dict] = []  # every command given, accepted or not, as the ledger kept it
        self.path = os.path.join(directory, f"{card}.plcg")
        self.led = Ledger.create(self.path, card, None, None)  # no --seed: the ledger's OS dice
        self.undo_state = None  # (state before the last accepted command, that command)
        self.undos = 0
        self.count = 0

    # ---- giving a command ----
    def state(self):
        return self.led.state()

    def act(self, cmd: dict, must: bool = False):
        """Run cmd; the stored events, or None where it was refused (checked to have changed nothing)."""
        led, dice = self.led, cg.dice.os_dice
        head = led.store.head()
        raw = Path(self.path).read_bytes()
        before = led.state()
        asked = dice.asked
        self.count += 1
        STATS["commands"] += 1
        try:
            stored = led.run(dict(cmd))
        except PlcgError as e:
            STATS["refused"] += 1
            self.played.append({**cmd, "_refused": e.exit_code})
            assert e.exit_code in (2, 3), f"{cmd}: exit {e.exit_code}: {e}"
            assert led.store.head() == head and Path(self.path).read_bytes() == raw, f"{cmd} was refused ({e}) but wrote"
            assert dice.asked == asked, f"{cmd} was refused ({e}) after rolling {dice.asked - asked} dice (R49)"
            assert not must, f"liveness: {cmd} is what the step owes, and it was refused: {e}"
            return None
        first = stored[0] if stored else None
        recorded = (first.command or {}).get("ledger_dice") if first is not None else None
        self.played.append({**cmd, **({"dice": recorded} if recorded else {})})
        n = sum(len(x) for x in recorded) if recorded else 0
        assert dice.asked - asked == n, f"{cmd} rolled {dice.asked - asked} dice and recorded {n}"
        self._after(cmd, before, stored)
        return stored

    def _after(self, cmd: dict, before, stored) -> None:
        led = self.led
        live = led.state()
        assert canonical_state(led.state(use_snapshot=False)) == canonical_state(live), \
            f"after {cmd}: the state replayed from the log differs from the live one"
        if cmd["name"] == "undo":
            if self.undo_state is not None and "to" not in cmd:
                assert _canon(live) == _canon(self.undo_state[0]), \
                    f"the undo of {self.undo_state[1]} did not bring back the state of before it"
            self.undo_state = None
        else:
            self.undo_state = (before, cmd)
        self._visible(cmd, live, stored)
        if self.count % AUDIT_EVERY == 0:
            self.audit()

    def _visible(self, cmd: dict, st, stored) -> None:
        """What `end` and the RePh decided is what `oob` shows."""
        rows = {(side, r["unit"]): r for side in SIDES for r in oob_rows(st, side)}
        for e in stored:
            p = e.payload
            if e.type == "firefight_ended":
                roster = {(r["firefight"], r["side"]): r for r in roster_rows(st)}
                for side in SIDES:  # the roster's row of the firefight: its CVP lost (ruling R39: patrols' too)
                    r = roster[(st.firefight, side)]
                    assert r["cvp_lost"] >= p["cvp_lost"][side] and r["winner"] == st.ff.winner, \
                        f"end {p['cvp_lost']}, winner {st.ff.winner}: the roster shows {r}"
                for su in p.get("lost", ()):
                    r = rows.get((su["side"], su["unit"]))
                    assert r is None or r["status"] != "on_map", f"end --lost {su}: oob shows {r}"
                for su in p.get("wounded", ()):
                    r = rows[(su["side"], su["unit"])]
                    assert "wounded" in r["flags"] or r["status"] == "eliminated", f"end --wounded {su}: {r}"
            elif e.type == "unit_positioned":
                r = rows[(p["side"], p["unit"])]
                assert r["hex"] == p["hex"] or r["status"] != "on_map", f"position {p}: oob shows {r}"
            elif e.type == "redeployed":
                r = rows[(p["side"], p["unit"])]
                if p["result"].startswith("redeploys") and r["status"] in ("on_map", "available"):
                    assert r["hex"] == p["to"], f"redeployed {p}: oob shows {r}"
                if p["result"] in ("eliminated", "eliminated_cs_na"):
                    assert r["status"] == "eliminated", f"redeployed {p}: oob shows {r}"
            elif e.type == "units_stranded":
                for su in p["units"]:
                    assert rows[(su["side"], su["unit"])]["status"] == "eliminated", f"wrecked {su}"

    def audit(self) -> None:
        report = run_audit(self.led)
        assert report["findings"] == [], f"audit findings: {report['findings'][:3]}"

    # ---- choosing ----
    def play(self) -> None:
        acted: dict = {}
        while True:
            st = self.state()
            if st.ended:
                break
            assert self.count < LIMIT, f"liveness: the CG did not end in {LIMIT} commands ({st.firefight} {st.step})"
            key = (st.firefight, st.step)
            budget = acted.setdefault(key, self.rng.choice(self.BUDGETS))
            if budget > 0 and (self.rng.random() < 0.5 or not pending(st)):  # before, between or after what is owed
                acted[key] = budget - 1
                self.optional(st)
                continue
            self.progress(st)
        self.finish()

    BUDGETS = (0, 1, 2, 3, 5)  # the optional commands tried at a step, drawn when the walk first stands there

    def finish(self) -> None:
        self.audit()
        self.led.close()

    def progress(self, st) -> None:
        owed = pending(st)
        if not owed:
            self.act({"name": "next"}, must=True)
            return
        first = owed[0] if self.rng.random() < 0.7 else self.rng.choice(owed)
        tried = []
        for item in [first] + [o for o in owed if o is not first]:  # what is owed in some order can be done
            for attempt in range(12):  # a choice the rules refuse is made again
                cmd = self.resolve(st, item, attempt)
                tried.append(cmd)
                if self.act(cmd) is not None:
                    return
        raise AssertionError(f"liveness: at {st.firefight} {st.step} nothing owed could be done: {owed}; tried {tried[-3:]}")

    def resolve(self, st, item: dict, attempt: int) -> dict:
        rng = self.rng
        c = item["command"]
        if item["runnable"]:
            cmd = dict(item["args"])
            if cmd["name"] == "leader" and st.card.sides[cmd["side"]].nationality.lower() == "russian":
                cmd["commissar"] = rng.random() < 0.5
            return cmd
        if c.startswith("plcg night"):
            return {"name": "night", "text": "Half Moon, NVR 2"}
        if c.startswith("plcg option"):
            return {"name": "option", "option": rng.choice("AB")}
        if c.startswith("plcg end"):
            return self.random_end(st) if attempt < 8 else {"name": "end", "turn": 5,
                                                            "cvp_lost": {"axis": 0, "allied": 0}}
        if c.startswith("plcg patrol "):
            side = c.split()[2]
            if attempt < 3 and rng.random() < 0.5:
                return self.random_patrol(st, side)
            return {"name": "patrol", "side": side, "give_up": "not sent (explorer)"}
        if c.startswith("plcg redeploy"):
            side, unit = c.split()[2], c.split()[3]
            u = st.unit(unit, side)
            near = sorted(nearest_cthc(st, u) or ())
            to = rng.choice(near) if near and attempt < 6 else nearest_friendly_hex(st, u)
            cmd = {"name": "redeploy", "side": side, "unit": unit, "to": to}
            counter = _missing_counter(st, u)
            if counter or any(to is None for _w, to in _counters_needed(st, u)):  # asked before the roll (R49)
                cmd["counter"] = counter or u.name
            return cmd
        if c.startswith("plcg disease") and "--replaced" in c:  # 3.41 (rules revision 3): Isolated units first
            side = c.split()[2]
            cands = [u for u in st.side_units(side) if u.kind in ("squad", "hs") and u.status in ("on_map", "available")
                     and Done("disease-replaced", side, u.id) not in st.reph.done]
            cands.sort(key=lambda u: (not u.isolated, u.id))
            u = cands[(attempt // 2) % len(cands)]  # each unit, Isolated first, as it is and with a counter
            # a counter the table lacks is typed (ruling R34), as the refusal asks: the explorer types its own
            counter = _missing_counter(st, u) or (u.name if attempt % 2 else None)
            return {"name": "disease", "side": side, "replaced": f"{u.id}={counter}" if counter else u.id}
        if c.startswith("plcg casualties") and "--reduced" in c:  # 3.52 dagger: the MMC in the rules' order
            side = c.split()[2]
            cands = sorted((u for u in st.side_units(side) if u.kind in ("squad", "hs", "crew")
                            and u.status in ("on_map", "available")), key=lambda u: u.id)
            u = cands[attempt % len(cands)]
            counter = _missing_counter(st, u)
            return {"name": "casualties", "side": side, "reduced": [f"{u.id}={counter}" if counter else u.id]}
        raise AssertionError(f"the explorer does not know how to do: {c} ({item['what']})")

    def random_end(self, st) -> dict:
        rng = self.rng
        cmd = {"name": "end", "turn": rng.randint(1, 8),
               "cvp_lost": {s: rng.randint(0, 20) for s in SIDES}}
        if rng.random() < 0.2:
            cmd["winner"] = rng.choice(SIDES)
        strategic = sorted(st.card.map.strategic) if hasattr(st.card.map, "strategic") else []
        if strategic and rng.random() < 0.5:
            cmd["control"] = [f"{rng.choice(SIDES)}={h}" for h in rng.sample(strategic, min(2, len(strategic)))]
        every = hexes(st)
        got = {k: [] for k in ("lost", "wounded", "position", "repair", "reduced", "encircled", "shocked",
                               "recalled", "hero", "captured", "exited", "replaced", "oba_used", "terrain")}
        for side in SIDES:
            units = [u for u in in_play(st, side) if u.status in ("on_map", "available")]
            rng.shuffle(units)
            for u in units[:rng.randint(0, 5)]:
                r, su = rng.random(), f"{side}:{u.id}"
                if r < 0.2:
                    got[rng.choice(("lost", "lost", "captured", "exited"))].append(su)
                elif r < 0.35 and u.kind == "leader":
                    got[rng.choice(("wounded", "hero"))].append(su)
                elif r < 0.5 and u.kind in ("squad", "hs"):
                    got[rng.choice(("reduced", "replaced", "encircled"))].append(su)
                elif r < 0.55 and u.kind == "vehicle":
                    got[rng.choice(("shocked", "recalled"))].append(su)
                elif u.kind != "sw":
                    got["position"].append(f"{su}={rng.choice(every)}")  # anywhere: Uncontrolled, enemy MLR
                    if u.kind == "vehicle" and rng.random() < 0.6:
                        got["repair"].append(f"{su}=immobilized")
                if u.kind in ("sw", "gun") and rng.random() < 0.3:
                    got["repair"].append(f"{su}=malfunction")
            obas = [p.id for p in st.purchases.values() if p.side == side and p.kind == "oba"
                    and p.firefight == st.firefight]
            if obas and rng.random() < 0.5:
                got["oba_used"].append(f"{side}:{rng.choice(obas)}")
        if rng.random() < 0.2:
            got["terrain"].append(f"{rng.choice(every)}={rng.choice(('rubble', 'foxhole', 'wire'))}")
        cmd.update((k, v) for k, v in got.items() if v)
        return cmd

    def random_patrol(self, st, side: str) -> dict:
        rng = self.rng
        squads = [u for u in in_play(st, side) if u.kind in ("squad", "hs")]
        leaders = [u for u in in_play(st, side) if u.kind == "leader" and not u.wounded]
        if not squads or not leaders:
            return {"name": "patrol", "side": side, "give_up": "no one to send (explorer)"}
        return {"name": "patrol", "side": side, "type": rng.choice(("recon", "ambush", "raid")),
                "units": [rng.choice(squads).id], "leader": rng.choice(leaders).id, "hex": rng.choice(hexes(st))}

    def optional(self, st) -> None:
        """One thing the step accepts (or a command it refuses): what a player may try here."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.05 and self.undos < 6 and self.count > 3:
            self.undos += 1
            STATS["undos"] += 1
            self.act({"name": "undo", "reason": "explorer: taken back"})
            return
        if roll < 0.1:
            self.act(dict(rng.choice(WRONG_STEP)))
            return
        if roll < 0.103:  # rarely: a side concedes, the CG ends (ruling R16)
            self.act({"name": "concede", "side": rng.choice(SIDES)})
            return
        cmd = self.optional_command(st)
        if cmd is not None:
            self.act(cmd)

    def optional_command(self, st) -> dict | None:
        rng = self.rng
        side = rng.choice(SIDES)
        s = st.step
        units = in_play(st, side)
        if s == "2.3":
            buys = purchase_options(st)
            r = rng.random()
            if buys and r < 0.7:
                o = rng.choice(buys)
                return {"name": "buy", "side": o["side"], "rg": o["rg"], "mode": rng.choice(sorted(o["cost"]))}
            if r < 0.85:
                return {"name": "patrols", "side": side, "count": 1}
            return {"name": "attack", "side": side}
        if s == "2.6" and units:
            u = rng.choice(units)
            mine = [h for h in hexes(st) if st.map_control().situation(h, side) == "friendly_mlr"]
            return {"name": "setup", "side": side, "unit": u.id, "hex": rng.choice(mine or hexes(st)),
                    "hip": rng.random() < 0.1}
        if s in ("2.5", "3.2") and units:
            u = rng.choice(units)
            if s == "3.2" and st.option is None:
                return {"name": "option", "option": rng.choice("AB")}
            return {"name": "redeploy", "side": side, "unit": u.id, "to": rng.choice(hexes(st))}
        if s == "2.9" and units:
            u = rng.choice(units)
            return {"name": "position", "side": side, "unit": u.id, "hex": rng.choice(hexes(st))}
        if s in ("3.1", "3.3"):
            lost = [rng.choice(units).id] if units and rng.random() < 0.5 else []
            return {"name": "casualties", "side": side, "cvp": rng.randint(0, 3), "lost": lost}
        if s in ("3.43", "3.44", "3.45") and units:
            if s == "3.45" and rng.random() < 0.5:
                cmd = {"name": "leader", "side": side, "generated": True}
                placed = [u for u in units if u.hex and u.kind in ("squad", "hs", "crew")]
                if placed and rng.random() < 0.5:
                    cmd["hex"] = rng.choice(placed).hex
                return cmd
            return {"name": "harden", "side": side, "unit": rng.choice(units).id}
        if s == "3.46":
            items = [u for u in units if u.kind in REPAIRABLE]
            if items:
                return {"name": "repair", "side": side, "item": rng.choice(items).id, "kind": rng.choice(REPAIR_KINDS)}
        if s == "3.52":
            clears = [o["command"].split() for o in options(st) if o["command"].startswith("plcg clear")]
            if clears:
                c = rng.choice(clears)
                return {"name": "clear", "side": c[2], "hex": c[3], "item": c[4]}
        return None


def _counters_needed(st, u):
    from cg.commands.deployment import _counters_needed as needed

    return needed(st, u) if revision.of(st).judged_before_roll else []


def _missing_counter(st, u):
    from cg.demo import _missing_counter as missing

    return missing(st, u)


# ---- single copy ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module", autouse=True)
def _report():
    """PLCG_EXPLORE_STATS=FILE: what the walks played, written at the end (python -m bench.explore reads it)."""
    yield
    out = os.environ.get("PLCG_EXPLORE_STATS")
    if out:
        Path(out).write_bytes(orjson.dumps(STATS))


@pytest.fixture
def fake_os_dice(monkeypatch):
    holder = {}

    def install(rng):
        holder["dice"] = Dice(rng)
        monkeypatch.setattr(cg.dice, "os_dice", holder["dice"])
        return holder["dice"]

    return install


def _walk(card: str, seed: int, install=None, say=note, kind=None) -> Walk:
    """One walk of `kind` (Walk: single copy, its OS dice from the seed through `install`; PbemWalk: two copies)
    on `card`; on a failure `say` gets the commands it played, one JSON line each."""
    kind = kind or Walk
    rng = random.Random(seed)
    if install is not None:
        install(random.Random(rng.getrandbits(64)))
    d = tempfile.mkdtemp(prefix="plcg-explore-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    walk = None
    try:
        walk = kind(d, card, rng)
        walk.play()
        STATS["walks"] += 1
    except BaseException:
        if walk is not None:
            say(f"card {card} ({kind.__name__}), seed {seed}: the commands played ({len(walk.played)}):")
            for c in walk.played:
                say(orjson.dumps(c).decode())
        raise
    finally:
        if isinstance(walk, Walk) and not isinstance(walk, PbemWalk):
            walk.led.close()
        shutil.rmtree(d, ignore_errors=True)
    return walk


@pytest.mark.parametrize("card", CARDS)
def test_the_explorer_plays_whole_campaigns_on_every_shipped_card(card, fake_os_dice):
    @settings(max_examples=SIZE["walks"], deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(seed=hst.integers(0, 2**63))
    def walk(seed):
        w = _walk(card, seed, fake_os_dice)
        assert w.state is not None

    walk()


# ---- two copies, by email ------------------------------------------------------------------------------

def to_args(cmd: dict) -> list[str]:
    """The command line of a command the walk chose."""
    c = dict(cmd)
    name = c.pop("name")
    side = c.pop("side", None)
    args = [name] + ([side] if side else [])
    if name == "buy":
        return args + [c["rg"], "--mode", c["mode"]]
    if name == "patrols":
        return args + [str(c["count"])]
    if name in ("setup", "position"):
        return args + [c["unit"], c["hex"]] + (["--hip"] if c.get("hip") else [])
    if name == "redeploy":
        return args + [c["unit"], "--to", c["to"]] + (["--counter", c["counter"]] if c.get("counter") else [])
    if name == "option":
        return args + [c["option"]]
    if name == "night":
        return args + [c["text"]]
    if name == "leader":
        return args + ([c["rg"]] if c.get("rg") else []) + (["--generated"] if c.get("generated") else []) + \
            (["--hex", c["hex"]] if c.get("hex") else []) + (["--commissar"] if c.get("commissar") else [])
    if name == "harden":
        return args + [c["unit"]]
    if name == "casualties":
        if c.get("reduced"):  # 3.52 dagger: the Casualty Reduction a clearance owes
            return args + [x for u in c["reduced"] for x in ("--reduced", u)]
        return args + ["--cvp", str(c["cvp"])] + [x for u in c.get("lost", ()) for x in ("--lost", u)]
    if name == "disease" and c.get("replaced"):  # 3.41: a squad the dr's result ELR Replaces
        return args + ["--replaced", c["replaced"]]
    if name == "repair":
        return args + [c["item"], "--kind", c["kind"]]
    if name == "clear":
        return args + [c["hex"], c["item"]]
    if name == "patrol":
        if c.get("give_up"):
            return args + ["--give-up", c["give_up"]]
        return args + ["--type", c["type"], "--units", ",".join(c["units"]), "--leader", c["leader"], "--hex", c["hex"]]
    if name == "undo":
        return ["undo", "--reason", c["reason"]]
    if name in ("reveal", "confirm"):
        return [name]
    if name == "end":
        out = args + ["--turn", str(c["turn"])] + [x for s in SIDES for x in ("--cvp-lost", f"{s}={c['cvp_lost'][s]}")]
        if c.get("winner"):
            out += ["--winner", c["winner"]]
        for key in ("control", "lost", "wounded", "position", "repair", "reduced", "encircled", "shocked",
                    "recalled", "hero", "captured", "exited", "replaced", "oba_used", "terrain"):
            out += [x for v in c.get(key, ()) for x in (f"--{key.replace('_', '-')}", v)]
        return out
    return args + [str(v) for k, v in c.items() if v not in (None, False)]  # next, attack, concede, weather ...


class PbemWalk(Walk):
    """The walk through two copies (tests/helpers/pbem.Game): each command given in the acting side's copy
    with its key, the bundles passed by hand, two-party dice answered and revealed, shared facts confirmed."""

    def __init__(self, directory: str, card: str, rng: random.Random):
        from helpers.pbem import Game

        self.rng, self.card = rng, card
        self.played, self.count, self.undos, self.undo_state = [], 0, 0, None
        self.g = Game(Path(directory), card=card)  # two-party dice, secrets sealed
        self.ff = 1

    def state(self):
        return self.g.state()

    def act(self, cmd: dict, must: bool = False):
        from conftest import cli_run

        g = self.g
        side = cmd.get("side") if cmd.get("side") in SIDES else g.holder
        if g.holder != side:
            g.send(g.holder)
        before = Path(g.db[side]).read_bytes()
        self.count += 1
        STATS["commands"] += 1
        r = g.cli(side, *to_args(cmd))
        self.played.append({**cmd, "_by": side, **({"_refused": r.code} if r.code else {})})
        if r.code != 0:
            STATS["refused"] += 1
            assert r.code in (2, 3), f"{cmd}: exit {r.code}: {r.err}"
            assert Path(g.db[side]).read_bytes() == before, f"{cmd} was refused ({r.err.strip()}) but wrote"
            assert not must, f"liveness: {cmd} is what the step owes, and it was refused: {r.err}"
            return None
        self.settle(side)
        st = self.state()
        if st.firefight != self.ff and not st.ended:  # the CG's end: once both sides revealed (play)
            self.ff = st.firefight
            self.agree()
        return True

    def settle(self, side: str) -> None:
        """What the command left open is closed: a proposal confirmed by the side that did not make it (an undo
        of a confirmed fact opens its proposal again: the other side may confirm it again), two-party dice
        answered by the other copy and revealed by the roller."""
        g = self.g
        for _ in range(20):
            st = g.state(side)
            prop = getattr(st.pbem, "proposal", None)
            if prop:
                g.send(side)
                other_side = other(prop.side)
                r = g.cli(other_side, "confirm")
                assert r.code == 0, f"liveness: {other_side} cannot confirm {prop.command}: {r.err}"
                side = g.holder = other_side
                continue
            if not st.pbem or not st.pbem.requests:
                return
            g.send(side)  # the other copy receives the commitment ...
            g.send(other(side))  # ... and its bundle answers it (and reveals what its side owed, R67)
            for s in (side, other(side)):  # whoever holds an answered commitment reveals it
                mine = [c for c, r in g.state(s).pbem.requests.items() if r.side == s and r.answer is not None]
                if mine:
                    r = g.cli(s, "reveal")
                    assert r.code == 0, f"liveness: {s} cannot reveal its answered dice: {r.err}"
                    side = g.holder = s
        raise AssertionError("liveness: proposals and two-party dice kept opening")

    def agree(self) -> None:
        """Both copies hold the same history (every bundle received), audit clean and agree."""
        from conftest import cli_run

        g = self.g
        g.send(g.holder)
        for side in SIDES:
            r = g.cli(side, "audit")
            assert r.code == 0, f"{side}'s copy: {r.out[-500:]}"
        r = cli_run(g.db["axis"], "audit", "--against", g.db["allied"])
        assert r.code == 0, r.out[-500:] + r.err

    def audit(self) -> None:
        self.agree()

    def progress(self, st) -> None:
        owed = pending(st)
        if not owed:  # the other player may owe what only his copy knows (his sealed purchases, R47)
            self.g.send(self.g.holder)
            st = self.state()
            owed = pending(st)
        if not owed:
            self.act({"name": "next"}, must=True)
            return
        super().progress(st)

    def resolve(self, st, item: dict, attempt: int) -> dict:
        c = item["command"]
        if c.startswith("plcg reveal"):
            return {"name": "reveal", "side": item["what"].split()[0]}
        if c.startswith("plcg confirm"):
            return {"name": "confirm", "side": item["what"].split()[0]}
        return super().resolve(st, item, attempt)

    def optional(self, st) -> None:
        rng = self.rng
        if rng.random() < 0.04 and self.undos < 3 and self.count > 3:  # an undo: of what the other copy holds
            self.undos += 1  # too, a shared fact the other side confirms (ruling R45)
            STATS["undos"] += 1
            self.act({"name": "undo", "side": rng.choice(SIDES), "reason": "explorer: taken back"})
            return
        cmd = self.optional_command(st)
        if cmd is not None:
            self.act(cmd)

    BUDGETS = (0, 0, 1, 2)

    def finish(self) -> None:
        from cg import seal

        for side in SIDES:  # the CG's end: each side reveals what it sealed (ruling R47)
            self.g.send(self.g.holder)
            if seal.owed(self.g.state(side), side):
                self.act({"name": "reveal", "side": side}, must=True)
        self.agree()


# ---- by email: two copies ------------------------------------------------------------------------------

@pytest.mark.parametrize("card", CARDS)
def test_the_explorer_plays_whole_campaigns_by_email_on_every_shipped_card(card):
    @settings(max_examples=SIZE["pbem_walks"], deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(seed=hst.integers(0, 2**63))
    def walk(seed):
        _walk(card, seed, kind=PbemWalk)

    walk()


class Replay:
    """A walk's commands played again on a new campaign of the card, the ledger's dice given back in order
    as each command recorded them (a failure's list as a plain regression test)."""

    def __init__(self, directory: str, card: str):
        self.queue: list[int] = []
        self.path = os.path.join(directory, f"replay-{card}.plcg")
        if os.path.exists(self.path):
            os.unlink(self.path)
        # the walks kept were recorded before issue 38's conventions (leaders numbered across the side)
        self.led = Ledger.create(self.path, card, None, None, conventions=None)

    def os_dice(self, count: int) -> tuple[int, ...]:
        assert len(self.queue) >= count, "the command rolls more dice than it recorded"
        out, self.queue = tuple(self.queue[:count]), self.queue[count:]
        return out

    def run(self, cmd: dict):
        """The command's stored events; None where it was refused as in the walk (a refusal leaves the
        Ledger to load its next state from the snapshot, as it did in the walk)."""
        cmd = dict(cmd)
        refused = cmd.pop("_refused", None)
        self.queue = [v for roll in cmd.pop("dice", None) or () for v in roll]
        saved, cg.dice.os_dice = cg.dice.os_dice, self.os_dice
        try:
            return self.led.run(cmd)
        except PlcgError:
            if refused:
                return None
            raise
        finally:
            cg.dice.os_dice = saved


def shrink(card: str, commands: list[dict], fails, directory: str) -> list[dict]:
    """The shortest list (chunks taken out while `fails(replay, commands)` still holds) of a failing walk."""
    def still(cmds):
        r = Replay(directory, card)
        try:
            return fails(r, cmds)
        finally:
            r.led.close()

    cmds = list(commands)
    n = 2
    while len(cmds) >= 2:
        size = max(1, len(cmds) // n)
        for i in range(0, len(cmds), size):
            trial = cmds[:i] + cmds[i + size:]
            if still(trial):
                cmds, n = trial, max(n - 1, 2)
                break
        else:
            if size == 1:
                break
            n = min(len(cmds), n * 2)
    return cmds
