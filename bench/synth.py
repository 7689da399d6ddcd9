"""A synthetic but rule-valid campaign for the benchmarks, written through the real command handlers.

`build(path, firefights=100, units_per_side=230, seed="plcg-bench")` writes a CG Card with
`firefights` firefights and big RG tables, starts a campaign from it (`cli.Ledger.create`) and plays
it with `Ledger.run({...})`: every event comes out of `cg.commands.decide`, exactly as the CLI would
record it. Per firefight each side replenishes CP (2.12 DR), buys patrols, the Attack Option and RGs
(leader DRs, OBA DRs, FP spent on fortifications), the firefight type is determined (2.41), every
unit in the friendly MLR redeploys (2.5, Option B) and sets up (2.6, one `unit_set_up` per counter),
patrols go out and return (2.7), the firefight ends with losses, control changes and terrain (2.9),
and the RePh runs its rolls (3.1 1TC/Shock, 3.2 redeployment, 3.3 evacuation, 3.44-3.47, 3.52
clearance); now and then a command is undone and made again. About 1,000 events per firefight.
Each side does all it owes or wants in a step before the other side does (Player.turn), as players
who send each other their moves do; `--signed` plays it by email (signed_ledger_class).

The last firefight is played up to step 2.6 with its units set up, and left there: the campaign
then still takes cheap commands (`setup`), which the append benchmark needs.

`ensure(...)` caches the file under bench/out/, keyed by the parameters and by this file's and the
event schema's source, so reruns reuse it.

    python -m bench.synth [--firefights N] [--units N] [--seed S] [--fresh] [--signed] [-o FILE]
"""
from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from cg.state import Done, loss_cvp  # noqa: E402

SIDES = ("axis", "allied")

# ---- the card ------------------------------------------------------------------------------------

COLUMNS, ROWS = "A-R", 10
ALLIED_HELD = ["B2", "C3", "D3", "C6", "D8", "E8"]  # the west: the Americans' farms and chapel
AXIS_HELD = ["N3", "O4", "M8", "P6", "Q2", "O9"]  # the east: the German village
CONTESTED = ["H5", "I6", "J3"]  # the bridge, the mill, the crossroads inn: nobody holds them at start
BUILDINGS = ["C3", "D3", "E8", "I6", "J3", "N3", "O4", "M8", "Q2"]
STONE = ["C3", "I6", "N3"]


def _rgs(side: str) -> list[dict]:
    # ruling R18: a half-squad of firepower 3 or more says so ("3-4-7 HS"), or it is taken for a squad
    squad, hs, crew = ("4-6-7", "2-4-7", "2-2-8") if side == "axis" else ("6-6-7", "3-4-7 HS", "2-2-7")
    elite = "5-4-8" if side == "axis" else "7-4-7"
    afv = "StuG IIIG" if side == "axis" else "M4A1"
    return [
        {"id": "I1", "name": "Rifle Company", "kind": "infantry", "quality": "first_line", "leader_drs": 4,
         "platoons": 3, "cost": 12, "max": 400, "units": [f"12x {squad}", f"3x {hs}", "3x LMG", "1x MMG"]},
        {"id": "I2", "name": "Rifle Platoon", "kind": "infantry", "quality": "first_line", "leader_drs": 1,
         "cost": 4, "max": 800, "units": [f"3x {squad}", "1x LMG"]},
        {"id": "I3", "name": "Assault Platoon", "kind": "infantry", "quality": "elite", "leader_drs": 1,
         "cost": 6, "max": 400, "units": [f"3x {elite}", "1x LMG", "1x FT"]},
        {"id": "I4", "name": "Replacement Platoon", "kind": "infantry", "quality": "second_line", "leader_drs": 1,
         "cost": 3, "max": 400, "units": [f"4x {squad}"]},
        {"id": "HW1", "name": "MG Section", "kind": "heavy_weapons", "leader_drs": 0, "cost": 3, "max": 400,
         "units": [f"2x {hs}", "2x HMG", "1x MMG"]},
        {"id": "G1", "name": "Anti-Tank Gun", "kind": "gun", "leader_drs": 0, "cost": 4, "max": 300,
         "units": ["1x 75L AT Gun", f"1x {crew} crew"]},
        {"id": "A1", "name": "Assault Gun Platoon", "kind": "afv", "leader_drs": 1, "armor_leader": True,
         "cost": 8, "max": 200, "units": [f"3x {afv}"]},
        {"id": "V1", "name": "Halftrack", "kind": "vehicle", "leader_drs": 0, "cost": 2, "max": 300,
         "units": ["1x halftrack"]},
        {"id": "O1", "name": "105mm Battery", "kind": "oba", "leader_drs": 0, "cost": 5, "max": 200,
         "strength": "105mm", "units": ["1x 105mm OBA", "1x Radio"]},
        {"id": "F1", "name": "Field Works", "kind": "fortification_points", "leader_drs": 0, "cost": 2,
         "max": 300, "fp": 8, "units": []},
    ]


def card_dict(firefights: int = 100, seed: str = "plcg-bench") -> dict:
    """A CG Card (cg-card.md) for a long, big campaign: `firefights` firefights, big RG tables."""
    import datetime

    day = datetime.date(1944, 7, 1)
    ffs = []
    for i in range(firefights):
        time_ = "night" if i % 3 == 1 else "day"
        ffs.append({"date": day.isoformat(), "time": time_})
        if i % 3 == 2:
            day += datetime.timedelta(days=1)
    side = lambda nat, elr, san, cp, control: {  # noqa: E731
        "nationality": nat, "elr": elr, "san": san, "cp_drm": 0, "leader_drm": 0, "oba_drm": 0,
        "historical_drm": 0, "promotion_drm": 0, "initial_cp": cp, "attack_cost": 3, "patrol_cost": 1,
        "control": control,
    }
    axis = side("german", 4, 3, 160, AXIS_HELD)
    allied = side("american", 4, 2, 170, ALLIED_HELD)
    axis["rg"], allied["rg"] = _rgs("axis"), _rgs("allied")
    return {
        "campaign": {"name": f"Benchmark: the Long Bocage ({firefights} firefights)", "intensity": "high",
                     "reserves": True, "patrols_per_reph": 2, "max_infantry_platoons": 30,
                     "initial_attacker": "allied", "initial_weather": "overcast", "disease": False},
        "firefights": ffs,
        "map": {"columns": COLUMNS, "rows": ROWS,
                "strategic": sorted(set(ALLIED_HELD + AXIS_HELD + CONTESTED)),
                "buildings": BUILDINGS, "stone": STONE, "water": ["H3", "H4", "H7", "I8", "I9"],
                "tvp": {"I6": 3, "H5": 2, "J3": 1, "E8": 1, "N3": 1},
                "friendly_edge": {"axis": "east", "allied": "west"}},
        "sides": {"axis": axis, "allied": allied},
        # ruling R34: the counter table has no ELR Replacement for the American 7-4-7 (cg/counters.py)
        "counters": {"american": {"7-4-7": {"replaced": "6-6-7"}}},
        "extra": {"note": "generated by bench/synth.py for the benchmarks; not a playable scenario"},
    }


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def _toml_key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else _toml_value(k)


def to_toml(d: dict) -> str:
    """Enough TOML for a card: scalars, arrays, inline tables, tables and arrays of tables."""
    out: list[str] = []

    def table(prefix: str, tbl: dict):
        inline = ("tvp", "friendly_edge")
        subs = {k: v for k, v in tbl.items() if isinstance(v, dict) and k not in inline}
        arrays = {k: v for k, v in tbl.items()
                  if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)}
        for k, v in tbl.items():
            if k not in subs and k not in arrays:
                out.append(f"{_toml_key(k)} = {_toml_value(v)}")
        for k, v in subs.items():
            name = f"{prefix}.{k}" if prefix else k
            out.append(f"\n[{name}]")
            table(name, v)
        for k, items in arrays.items():
            name = f"{prefix}.{k}" if prefix else k
            for item in items:
                out.append(f"\n[[{name}]]")
                table(name, item)

    table("", d)
    return "\n".join(out).lstrip() + "\n"


# ---- playing it -----------------------------------------------------------------------------------

def warm_ledger_class():
    """`cli.Ledger` whose connection commits with synchronous=NORMAL (WAL: no fsync per commit).

    Every command goes through `Ledger.run` unchanged (a Ledger keeps the state its own last command
    left while the file's head is still there, so building the file does not reload the snapshot per
    command). The pragma changes no byte of the log, only how long building it takes.
    """
    from cg.app.ledger import Ledger

    class WarmLedger(Ledger):
        def __init__(self, path: str, write: bool = False):
            super().__init__(path, write)
            if write:  # building a bench file: a power cut may lose the last commits, never corrupt it
                self.store.conn.execute("PRAGMA synchronous=NORMAL")

    return WarmLedger


def bench_keys(seed: str) -> dict:
    """Fixed Ed25519 keys per side for a signed bench campaign (derived from the seed: reproducible)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return {side: Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"{seed}:{side}".encode()).digest())
            for side in SIDES}


def signed_ledger_class(base, keys: dict):
    """A Ledger that plays both players of a campaign played by email (cg/pbem.py): each command with
    its side's key (a command without a side: the side that holds the campaign), a signature whenever
    the other side is about to act (ruling R43: a signature vouches only for its signer's commands),
    every proposal (ruling R45) signed and confirmed at once by the other side, as two players
    exchanging bundles would record it. `holder` is the side writing the next bundle: the Player
    (Player.turn) lets it do all it owes or wants in a step before the other side acts, as a player
    does before he sends his bundle, so a bundle is one side's part of a step (of several, where
    the other side has nothing to do), not one command."""
    other = {"axis": "allied", "allied": "axis"}

    class SignedLedger(base):
        holder = "axis"
        unsigned = 0
        signatures = 0

        def opener(self):
            """One process plays both players: each side's sealed secrets (ruling R47) open here, as
            each in his own copy reads his own."""
            if self._opener is None:
                self._opener = _BothKeys(self, keys)
            return self._opener

        def reveal_owed(self):
            """Each side reveals what the rules reveal where it stands (2.4, 2.6, 3.44, the CG's end)."""
            from cg import seal

            for _ in range(2):
                st = getattr(self, "state_after", None) or self.state(lazy=True)
                side = next((s for s in keys if seal.owed(st, s)), None)
                if side is None:
                    return
                if side != self.holder:
                    self._sign()
                    self.holder = side
                self.unsigned += len(self.reveal(keys[side]))

        def run(self, cmd: dict, key=None):
            if key is not None:
                return super().run(cmd, key)
            self.reveal_owed()
            side = str(cmd.get("side") or "").lower()
            side = side if side in keys else self.holder
            if side != self.holder:
                self._sign()
                self.holder = side
            stored = self._run(cmd)
            if any(s.type == "fact_proposed" for s in stored):
                self._sign()
                self.holder = other[side]
                stored = stored + self._run({"name": "confirm"})
            return stored

        def _run(self, cmd):
            stored = super().run(cmd, keys[self.holder])
            self.unsigned += len(stored)
            return stored

        def _sign(self):
            if not self.unsigned:
                return
            from cg import pbem

            seq, h = self.store.head()
            super().run({"name": "sign", "seq": seq, "hash": h, "sig": pbem.sign_head(keys[self.holder], seq, h)},
                        keys[self.holder])
            self.unsigned = 0
            self.signatures += 1

    return SignedLedger


def _both_keys_class():
    from cg import seal

    class BothKeys(seal.Opener):
        """A view that opens both sides' seals: the log's reveals, else either key's box."""

        def __init__(self, led, keys: dict):
            super().__init__(lambda: seal.log_openings(led.store), None)
            self._keys = list(keys.values())

        def __call__(self, commitment, nonce, box):
            got = super().__call__(commitment, nonce, box)
            if got is None and box:
                for k in self._keys:
                    got = seal.open_box(k, nonce, box)
                    if got is not None and seal.commitment_of(got) == commitment:
                        break
                    got = None
                self._cache[commitment] = got
            return got

        def can_open(self, commitment, side, keys):
            return True

    return BothKeys


def _BothKeys(led, keys):
    return _both_keys_class()(led, keys)


class Player:
    """Both sides' players: what they buy, where they set up, what they report at 2.9."""

    def __init__(self, led, rnd: random.Random, units_per_side: int, firefights: int):
        self.led = led
        self.rnd = rnd
        self.target = units_per_side
        self.firefights = firefights
        self.commands = 0
        self.undos = 0
        self.refused = 0
        self.st = led.state()
        self.t_run = 0.0
        self.last_side = SIDES[0]

    def run(self, cmd: dict):
        t = time.perf_counter()
        stored = self.led.run(cmd)
        self.t_run += time.perf_counter() - t
        self.commands += 1
        self.st = self.led.state_after
        if cmd.get("side") in SIDES:
            self.last_side = cmd["side"]
        return stored

    # -- whose turn: a player does all he has to do in a step before the other does his --
    def turn(self) -> tuple[str, str]:
        """The sides in the order they act now: the side that holds the campaign first (by email: the
        one writing the next bundle, SignedLedger.holder; else the side that acted last), so that
        each player does everything he owes or wants in a step in one go, as a player who sends his
        moves by email does, and the other side follows."""
        first = getattr(self.led, "holder", None) or self.last_side
        return (first, "allied" if first == "axis" else "axis")

    def owed(self, side: str) -> None:
        """What the rules make `side` roll now (its leader and OBA DRs after its purchases)."""
        from cg.steps import pending

        while True:
            o = next((o for o in pending(self.st) if o["runnable"] and o["args"].get("side") == side), None)
            if o is None:
                return
            self.run(dict(o["args"]))

    def attempt(self, cmd: dict, count: bool = True) -> bool:
        """An optional action the rules may refuse (nothing is written then): True if recorded."""
        from events.errors import Refused

        try:
            self.run(cmd)
        except Refused:
            self.refused += count
            return False
        return True

    # -- helpers --
    def alive(self, side: str) -> list:
        return [u for u in self.st.units.values() if u.side == side and u.status in ("available", "on_map")]

    def deep_hexes(self, side: str) -> list[str]:
        mc = self.st.map_control()
        return [h for h, hc in mc.hexes.items() if hc.cthc == side and hc.isolated != side] or \
            [h for h, hc in mc.hexes.items() if mc.situation(h, side) == "friendly_mlr"]

    # -- 2.3 --
    def purchases(self):
        st = self.st
        attackers: list = []
        if not st.initial:
            r = self.rnd.random()
            attackers = [] if r < 0.05 else ["axis", "allied"] if r < 0.15 else [self.rnd.choice(SIDES)]
            if not attackers and st.firefight == self.firefights:  # the last one is left at 2.6: not Idle
                attackers = [self.rnd.choice(SIDES)]
        for side in self.turn():  # each side's purchases, fortifications and DRs in one go
            if st.card.campaign.patrols_per_reph and not st.initial:
                n = self.rnd.randint(1, st.card.campaign.patrols_per_reph)
                if self.st.sides[side].cp >= n + 14:
                    self.run({"name": "patrols", "side": side, "count": n})
            if side in attackers and self.st.sides[side].cp >= 3 + (0 if st.firefight == self.firefights else 12):
                self.run({"name": "attack", "side": side})
            self.buy(side)
            self.fortify(side)
            self.owed(side)

    def fortify(self, side: str):
        """Spend the Fortification Points."""
        for _ in range(4):
            fp = self.st.sides[side].fp
            spots = [h for h in self.deep_hexes(side)  # B24.5: no fortification in rubble
                     if not any(i.key == "rubble" for i in self.st.ground.terrain.get(h, []))]
            hx = self.rnd.choice(spots) if spots else None
            if fp >= 4 and self.rnd.random() < 0.1:  # HIP for a squad (2.38: setup --hip needs it bought)
                squads = [u for u in self.alive(side) if u.kind == "squad"]
                if squads:
                    self.attempt({"name": "fortify", "side": side, "kind": "hip",
                                  "unit": self.rnd.choice(squads).id})
            elif fp >= 4 and hx:
                kind = self.rnd.choice(["foxhole", "sangar", "trip_flares", "ap_mine", "dummy"])
                extra = {"capacity": 2} if kind == "foxhole" else {"factors": 1} if kind == "ap_mine" else {}
                self.run({"name": "fortify", "side": side, "kind": kind, "hex": hx, **extra})

    def buy(self, side: str):
        from cg import tables

        spec = self.st.card.sides[side]
        weights = {"I1": 3, "I2": 5, "I3": 2, "I4": 2, "HW1": 3, "G1": 1, "A1": 1, "V1": 1, "O1": 1, "F1": 1}
        for _ in range(40):
            alive = len(self.alive(side))
            if alive >= self.target:
                break
            cp = self.st.sides[side].cp
            rg_id = self.rnd.choices(list(weights), list(weights.values()))[0]
            rg = spec.rg_by_id(rg_id)
            mode = self.rnd.choice(["entry", "entry", "on-map"]) if rg.kind not in ("oba", "air",
                                                                                 "fortification_points") else "entry"
            cost, _ = tables.setup_cost(rg.kind, rg.id, mode, rg.cost)
            platoons = self.st.sides[side].platoons + rg.platoons
            if cost > cp or platoons > self.st.card.campaign.max_infantry_platoons:
                if cp < 4:
                    break
                continue
            self.run({"name": "buy", "side": side, "rg": rg_id, "mode": mode})

    # -- 2.5 / 2.6 --
    def redeploy_all(self):
        from cg.rules import situation_of

        for side in self.turn():
            spots = self.deep_hexes(side)
            for u in self.alive(side):
                if not u.redeployed and situation_of(self.st, u) == "friendly_mlr":
                    self.run({"name": "redeploy", "side": side, "unit": u.id, "to": self.rnd.choice(spots)})

    def setup_all(self):
        first = self.st.ff.setup_first  # 2.6: the side that sets up first (2.41) sets up before the other
        for side in sorted(SIDES, key=lambda s: s != first):
            spots = self.deep_hexes(side)
            hidden = {f.unit for f in self.st.ground.fortifications  # HIP bought for them at 2.3 (2.38)
                      if f.side == side and f.kind == "hip" and f.firefight == self.st.firefight}
            for u in self.alive(side):
                hip = u.id in hidden
                cmd = {"name": "setup", "side": side, "unit": u.id, "hex": self.rnd.choice(spots)}
                if hip:
                    cmd["hip"] = True
                self.run(cmd)
                if self.rnd.random() < 0.002:  # a misplaced counter: undone and set up again
                    self.run({"name": "undo", "reason": "set up in the wrong hex"})
                    self.undos += 1
                    self.run({**cmd, "hex": self.rnd.choice(spots)})

    # -- 2.7 --
    def patrol(self, side: str) -> dict:
        from cg import counters
        from cg.commands.base import counter_table

        st = self.st
        mc = st.map_control()
        targets = [h for h in CONTESTED + (AXIS_HELD if side == "allied" else ALLIED_HELD)
                   if (mc.distance_to_mlr(h, side) or 99) <= 10]
        if not targets:
            return {"name": "patrol", "side": side, "give_up": "no mission hex in reach"}
        hx = self.rnd.choice(targets)
        g = st.grid()
        # 2.72: units of the friendly MLR within 10 hexes of the mission hex, led by a Corporal,
        # Sergeant or Lieutenant
        near = [u for u in self.alive(side)
                if not u.hex or (mc.situation(u.hex, side) == "friendly_mlr" and g.distance(u.hex, hx) <= 10)]
        nat, over = counter_table(st, side)
        squads = [u for u in near if u.kind == "squad"]
        leaders = [u for u in near if u.kind == "leader" and not u.wounded
                   and counters.may_lead_patrol(nat, u.name, over) is not False]
        if not squads or not leaders:
            return {"name": "patrol", "side": side, "give_up": "no leader free to lead it"}
        return {"name": "patrol", "side": side, "type": self.rnd.choice(["recon", "ambush", "raid"]),
                "units": [u.id for u in self.rnd.sample(squads, min(len(squads), self.rnd.randint(1, 2)))],
                "leader": self.rnd.choice(leaders).id, "hex": hx}

    # -- 2.9 --
    def end(self) -> dict:
        st, rnd = self.st, self.rnd
        cvp = {s: rnd.randint(4, 30) for s in SIDES}
        control = []
        for hx in CONTESTED:
            if rnd.random() < 0.3:
                control.append(f"{rnd.choice(SIDES)}={hx}")
        lost, wounded, encircled, shocked, recalled, repair = [], [], [], [], [], []
        for side in SIDES:
            alive = self.alive(side)
            n = max(0, len(alive) - self.target + rnd.randint(18, 30))
            for u in rnd.sample(alive, min(n, len(alive))):
                lost.append(f"{side}:{u.id}")
            gone = set(lost)
            rest = [u for u in alive if f"{side}:{u.id}" not in gone]
            leaders = [u for u in rest if u.kind == "leader" and not u.wounded]
            if leaders and rnd.random() < 0.5:
                wounded.append(f"{side}:{rnd.choice(leaders).id}")
            squads = [u for u in rest if u.kind == "squad" and not u.encircled]
            if squads and rnd.random() < 0.3:
                encircled.append(f"{side}:{rnd.choice(squads).id}")
            afvs = [u for u in rest if u.kind == "vehicle"]
            if afvs and rnd.random() < 0.3:
                v = rnd.choice(afvs)
                (shocked if rnd.random() < 0.5 else recalled).append(f"{side}:{v.id}")
            sws = [u for u in rest if u.kind == "sw"]
            if sws and rnd.random() < 0.5:
                repair.append(f"{side}:{rnd.choice(sws).id}=malfunction")
        oba_used = [f"{p.side}:{p.id}" for p in st.purchases.values()
                    if p.kind == "oba" and p.firefight == st.firefight and rnd.random() < 0.7][:2]
        terrain = []
        if rnd.random() < 0.4:
            terrain.append(f"{rnd.choice(BUILDINGS)}=rubble")
        for side in SIDES:  # at least the CVP of the units listed lost (A26.2, ruling R39: `end` refuses fewer)
            cvp[side] = max(cvp[side], sum(loss_cvp(st.unit(x.split(":", 1)[1], side), "eliminated")
                                           for x in lost if x.startswith(f"{side}:")))
        return {"name": "end", "turn": rnd.randint(4, 8), "cvp_lost": cvp, "control": control, "lost": lost,
                "terrain": terrain, "wounded": wounded, "encircled": encircled, "shocked": shocked,
                "recalled": recalled, "repair": repair, "oba_used": oba_used}

    # -- 3.x --
    def reph_extras(self, step: str):
        st = self.st
        if step == "3.45":
            for side in self.turn():
                if Done("leaders", side) not in st.reph.done:
                    self.run({"name": "leaders", "side": side})
                if self.st.reph.may_generate[side] > 0:
                    self.run({"name": "leader", "side": side, "generated": True})
        elif step == "3.52":
            mc = st.map_control()
            from cg.commands import CLEAR_ITEMS

            tries = []
            for hx, items in sorted(st.ground.terrain.items()):
                for item in sorted({i.key for i in items}):
                    item = "mines" if item in ("ap_mine", "at_mine") else item
                    if item not in CLEAR_ITEMS or self.rnd.random() < 0.5:
                        continue
                    hc = mc.hexes[hx]
                    for side in SIDES:
                        if hc.cthc == side or side in hc.mlr:
                            tries.append({"name": "clear", "side": side, "hex": hx, "item": item})
                            break
            order = self.turn()
            for cmd in sorted(tries, key=lambda c: order.index(c["side"])):  # each side's in one go
                self.attempt(cmd)

    def choice(self, o: dict) -> dict | None:
        c = o["command"]
        st = self.st
        if c.startswith("plcg night"):
            return {"name": "night", "text": "Half Moon, NVR 2, no clouds (E1.1)"}
        if c.startswith("plcg option"):
            return {"name": "option", "option": "B"}
        if c.startswith("plcg end"):
            return self.end()
        if c.startswith("plcg patrol "):
            return self.patrol(c.split()[2])
        if c.startswith("plcg redeploy"):
            from cg.rules import nearest_friendly_hex

            side, unit = c.split()[2], c.split()[3]
            to = nearest_friendly_hex(st, st.unit(unit, side))
            return {"name": "redeploy", "side": side, "unit": unit, "to": to} if to else None
        if c.startswith("plcg encircled"):
            return {"name": "encircled", "side": c.split()[2], "unit": c.split()[3], "morale": 7}
        return None


def _side_of(o: dict) -> str | None:
    """The side an owed item (cg.steps.pending) is for, if any."""
    if o["runnable"]:
        return o["args"].get("side")
    return next((w for w in o["command"].split() if w in SIDES), None)


def play(led, firefights: int, units_per_side: int, seed: str, echo=None) -> Player:
    from cg.steps import pending

    p = Player(led, random.Random(f"play:{seed}"), units_per_side, firefights)
    done: set = set()
    last_ff = 0
    while True:
        st = p.st
        if st.ended:
            break
        if st.firefight != last_ff:
            last_ff = st.firefight
            if echo:
                echo(f"firefight {st.firefight}: seq {st.seq}, {p.commands} commands, "
                     f"{sum(1 for u in st.units.values() if u.status in ('available', 'on_map'))} units")
        key = (st.firefight, st.step)
        if key not in done:
            done.add(key)
            if st.step == "2.3":
                p.purchases()
            elif st.step == "2.5":
                p.redeploy_all()
            elif st.step == "2.6":
                p.setup_all()
                if st.firefight == firefights:
                    break  # leave the last firefight at 2.6: it still takes cheap commands
            elif st.step in ("3.45", "3.52"):
                p.reph_extras(st.step)
            continue
        acted = False
        owed = pending(p.st)
        first = p.turn()[0]  # what the side holding the campaign owes first: each side's in one go,
        for o in [o for o in owed if _side_of(o) == first] + [o for o in owed if _side_of(o) != first]:
            cmd = dict(o["args"]) if o["runnable"] else p.choice(o)
            if cmd:
                if o is owed[0]:
                    p.run(cmd)
                elif not p.attempt(cmd, count=False):  # where the rules leave the order free (not 3.2)
                    continue
                acted = True
                break
        if not acted:
            p.run({"name": "next"})
    return p


def build(path: str, firefights: int = 100, units_per_side: int = 255, seed: str = "plcg-bench",
          echo=None, warm: bool = True, signed: bool = False) -> dict:
    """Write the synthetic campaign to `path` (must not exist); its figures. `signed`: played by
    email, keys and signatures (signed_ledger_class)."""
    import tempfile

    from cg.app.ledger import Ledger

    t0 = time.perf_counter()
    path = os.path.abspath(path)
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:  # the card's name is recorded: the same on every run
        Path(tmp, "bench-card.toml").write_text(to_toml(card_dict(firefights, seed)), encoding="utf-8")
        os.chdir(tmp)
        try:
            pb = None
            if signed:
                from cg import pbem

                keys = bench_keys(seed)
                pb = pbem.settings(pbem.public_line(keys["axis"]), pbem.public_line(keys["allied"]), "any")
            # the synthetic players play revision 2's rules (ruling R32): revision 3's 2.37, 2.72 and Option A
            # limits would refuse their random setups and patrols; the bench measures the machinery
            led = Ledger.create(path, "bench-card.toml", f"synth:{seed}", "B", pbem=pb, rules_revision=2)
        finally:
            os.chdir(here)
    if warm or signed:
        led.close()
        cls = warm_ledger_class() if warm else Ledger
        led = (signed_ledger_class(cls, keys) if signed else cls)(path, write=True)
    try:
        p = play(led, firefights, units_per_side, seed, echo)
        if signed:
            led.reveal_owed()  # the CG's end: what is still sealed (ruling R47)
            led._sign()
        seq = led.store.head()[0]
    finally:
        led.close()
    return {"events": seq, "signatures": getattr(led, "signatures", 0), "commands": p.commands, "undos": p.undos, "refused": p.refused, "seconds": time.perf_counter() - t0,
            "run_seconds": p.t_run, "firefight": p.st.firefight, "step": p.st.step}


GENERATOR = 6  # 6: the signed players seal secrets (R47); bump when the campaign the players play changes (the cache key holds it)


def _source_key() -> str:
    """The generator's version and the event schema (classes and versions): a cached file older than
    either is rebuilt, so the audit does not report what a schema change made of an old file."""
    h = hashlib.sha256(str(GENERATOR).encode())
    for rel in ("events/versions.py", "events/types.py"):
        try:
            h.update((ROOT / rel).read_bytes())
        except OSError:
            pass
    return h.hexdigest()[:10]


def cache_path(firefights: int, units_per_side: int, seed: str, signed: bool = False) -> Path:
    tag = hashlib.sha256(f"{firefights}:{units_per_side}:{seed}".encode()).hexdigest()[:8]
    return OUT / f"synth-ff{firefights}-u{units_per_side}-{tag}{'-signed' if signed else ''}-{_source_key()}.plcg"


def ensure(firefights: int = 100, units_per_side: int = 255, seed: str = "plcg-bench", fresh: bool = False,
           echo=None, signed: bool = False) -> tuple[Path, dict | None]:
    """The cached campaign file for these parameters, built first if missing; (path, build figures or None)."""
    path = cache_path(firefights, units_per_side, seed, signed)
    if path.exists() and not fresh:
        return path, None
    OUT.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".building")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        if p.exists():
            p.unlink()
    figures = build(str(tmp), firefights, units_per_side, seed, echo, signed=signed)
    os.replace(tmp, path)
    for suffix in ("-wal", "-shm"):
        if Path(f"{tmp}{suffix}").exists():
            os.unlink(f"{tmp}{suffix}")
    return path, figures


def copy_campaign(src: Path | str, dst: Path | str) -> None:
    """A copy of a campaign file (with its WAL, if any) that can be written without touching the cache."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(f"{dst}{suffix}"):
            os.unlink(f"{dst}{suffix}")
    shutil.copyfile(src, dst)
    if os.path.exists(f"{src}-wal"):
        shutil.copyfile(f"{src}-wal", f"{dst}-wal")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--firefights", type=int, default=100)
    ap.add_argument("--units", type=int, default=255, help="alive units per side the players keep")
    ap.add_argument("--seed", default="plcg-bench")
    ap.add_argument("--fresh", action="store_true", help="rebuild even if cached")
    ap.add_argument("-o", "--output", help="write here instead of the cache (must not exist)")
    ap.add_argument("--signed", action="store_true", help="played by email: keys and signed heads (issue 16)")
    ap.add_argument("--cold", action="store_true",
                    help="with -o: build through the stock Ledger (synchronous=FULL: an fsync per commit)")
    a = ap.parse_args(argv)
    echo = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    if a.output:
        figures = build(a.output, a.firefights, a.units, a.seed, echo, warm=not a.cold, signed=a.signed)
        path = a.output
    else:
        path, figures = ensure(a.firefights, a.units, a.seed, a.fresh, echo, signed=a.signed)
    print(path)
    if figures:
        print(", ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
