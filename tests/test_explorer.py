"""The explorer (issues 23, 35): whole campaigns on every shipped card and on the test cards of tests/cards/,
under every rules revision, played off the tested paths.

A hypothesis-driven random walk: hypothesis draws a seed, the walk draws every choice from it. At each
state it does what the step owes (`pending`, the choices a non-runnable item asks for made at random:
firefight results with immobilized vehicles, eliminated, wounded and reduced units, units left anywhere
on the map, control given either way, and sometimes a heavy end: every unit listed somewhere, every
Strategic hex given, several terrain items, or every Strategic hex to one side), what the step accepts
(`options`: purchases in any mode, setups, redeployments, positions, hardening, generated leaders, repairs,
clearance, RePh casualties), commands of the wrong step, undos (of the last command, of an undo, `--to` a
seq, forced across 2.8), `rules-upgrade` in a campaign of an earlier revision, an export and import
(`export --format jsonl`, `import`: the walk goes on in the imported copy), the read commands through
the command line, and, rarely, a concession; then `next`. The ledger rolls its own OS dice (no --seed),
drawn from the walk's seed so that a walk can be played again.

The cards: the shipped ones and tests/cards/*.toml (three boards; an OB given with setup areas; Russian with
Commissars; PTO with Disease & Starvation; Isolated pockets). The revisions: a card's walks take 1, 2 and 3
in turn (ruling R32), and a walk under 1 or 2 gives `rules-upgrade` at a random moment half the time.

Checked after every command:
  - a refused command (exit 2 or 3) changed no byte of the log and rolled no die: none of the ledger's,
    seeded or typed (ruling R49; under revisions 1 and 2 the three commands R49 names may still roll);
  - an accepted one recorded every die it rolled (its `ledger_dice`);
  - the state the next command decides on (the Ledger's kept state), the state of a freshly opened copy
    (a new Ledger on the file, from its snapshot) and the state replayed from the whole log are equal;
  - an undo brings back the state of before the command it undid (an undo of an undo: of before that
    undo); `undo --to SEQ` (with --force across a firefight's 2.8) brings back the state recorded at SEQ;
  - `roster`, `oob` and `map --at SEQ --json` (through the command line) show the state recorded at SEQ,
    and the same reads of the head show the live state;
  - an imported copy of an export holds the same state;
  - what `end` and the RePh decided shows in `oob` (units lost, wounded, positioned, redeployed, wrecked);
  - the audit is clean (every AUDIT_EVERY commands and at the end);
  - liveness: every owed item can be done, `next` leaves a step that owes nothing, the CG reaches its end.
    Before a walk reports a dead end it tries every hex, unit and option value of what is owed.
The same by email (two copies, keys, sealed secrets, two-party dice, every command through the command
line): every bundle one copy makes is received by the other, sometimes late, twice, after a later one
(shuffled) or through `sync --folder`; proposals are sometimes rejected (`reject`) and `claim` is tried;
both copies audit clean and agree (`audit --against`).

Size: PLCG_EXPLORE=ci (the default), medium or big (`python -m bench.explore --size big`). A failure prints
the card, the rules revision and the commands the walk played (the ledger's dice written in as `dice`):
with `Replay(directory, card, revision)` they are a plain regression test. PLCG_EXPLORE_OUT=DIR (bench.explore
sets bench/out/) keeps each finding there as JSON: card, revision, seed, message and commands.

KNOWN lists the findings of today's code that other work fixes (issue 35 D1-D3: dead ends under revisions 1
and 2). A walk that meets one stops there, counted and kept, and does not fail: the lead removes an entry once
its fix is merged, and the walks then fail on it.
"""
from __future__ import annotations

import os
import random
import re
import shutil
import tempfile
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as hst

import cg.dice
from cg.rules import rules_for
from cg.card_schema import shipped_cards
from cg.commands import base as commands_base
from cg.evolve import reverted_seqs
from cg.app.ledger import Ledger
from cg.options import options, purchase_options
from cg.rules import REPAIRABLE, nearest_cthc, nearest_friendly_hex
from cg.state import SIDES, other
from cg.steps import pending
from events.errors import PlcgError
from cg.app.audit import run_audit
from projections.digest import canonical_state
from projections.maps import map_json
from projections.oob import oob_rows
from projections.roster import roster_rows
from cg.state import Done

SIZES = {  # walks per card: single copy, by email
    "ci": {"walks": 2, "pbem_walks": 1},
    "medium": {"walks": 6, "pbem_walks": 2},
    "big": {"walks": 15, "pbem_walks": 4},
}
SIZE = SIZES[os.environ.get("PLCG_EXPLORE", "ci")]
# commands the dead-end search tries for the first owed item (None: every hex, unit and option value) and for
# each other one (a step is left only once every owed item is done: one that nothing does is the dead end). CI
# caps both: a three-board map has over a thousand hexes; the nearest to the unit are tried first
EXHAUST = {"ci": 200}.get(os.environ.get("PLCG_EXPLORE", "ci"))
EXHAUST_OTHERS = 40 if os.environ.get("PLCG_EXPLORE", "ci") == "ci" else 100
TEST_CARDS = sorted(str(p.relative_to(Path.cwd())) if p.is_relative_to(Path.cwd()) else str(p)
                    for p in (Path(__file__).resolve().parent / "cards").glob("*.toml"))
CARDS = [name for name, _c, _d in shipped_cards()] + TEST_CARDS
# by email at the CI size: the shipped cards and two test cards (Disease by email, Commissars sealed); all at the
# larger sizes (a walk by email costs three to five of one copy)
PBEM_CARDS = CARDS if os.environ.get("PLCG_EXPLORE", "ci") != "ci" else \
    CARDS[:len(CARDS) - len(TEST_CARDS)] + [c for c in TEST_CARDS if Path(c).stem in ("pto_disease", "russian_commissars")]
REVISIONS = (3, 2, 1)  # a card's walks take them in turn (ruling R32)
AUDIT_EVERY = 40
PHASES = (Phase.explicit, Phase.generate)  # no shrinking: a seed shrunk is another walk, and a failure prints its own
LIMIT = 4000  # commands a walk may play before the CG must have ended (liveness)
STATS = {"walks": 0, "commands": 0, "refused": 0, "searched": 0, "undos": 0, "undo_to": 0, "forced": 0, "undo_undo": 0,
         "at_reads": 0, "cli_reads": 0, "exports": 0, "upgrades": 0, "heavy_ends": 0, "late": 0, "twice": 0,
         "shuffled": 0, "synced": 0, "rejected": 0, "claims": 0, "cards": [], "revisions": {}, "findings": [],
         "known": {}}  # what the runs played (bench/ reports it)
ROLLS = [0]  # every roll decided (the ledger's, seeded, typed, two-party): a refusal adds none (R49)
OLD_ROLLERS = ("leader", "redeploy", "patrol", "patrol-return")  # R49: judged after their roll before revision 3

# Findings of today's code that other work fixes (issue 35): (name, revisions, what the walk's failure says).
# A walk under one of those revisions that fails so stops there and is counted; the lead removes an entry once
# its fix is merged.
KNOWN: list = [
    # empty: issue 35's D1-D3, and this explorer's F1 (ruling R116), F2 (ruling R117) and F3 are fixed; a walk
    # that meets one of them again fails
]


def known_finding(rev: int, message: str) -> str | None:
    for name, revs, pattern in KNOWN:
        if rev in revs and pattern.search(message):
            return name
    return None


def keep_finding(record: dict) -> None:
    """PLCG_EXPLORE_OUT=DIR: a finding's card, revision, seed, message and commands, one JSON file each."""
    STATS["findings"].append({k: record[k] for k in ("card", "revision", "seed", "kind", "known", "message")})
    out = os.environ.get("PLCG_EXPLORE_OUT")
    if out:
        os.makedirs(out, exist_ok=True)
        name = f"finding-{time.strftime('%Y%m%d-%H%M%S')}-{Path(record['card']).stem}-r{record['revision']}-" \
               f"{record['seed'] % 10**8}.json"
        Path(out, name).write_bytes(orjson.dumps(record, option=orjson.OPT_INDENT_2))


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


def _json(x):
    """A projection as its `--json` output reads back."""
    return orjson.loads(orjson.dumps(x))


class Walk:
    """One campaign played by a random player. `act(cmd)` gives a command; the choices come from `rng`."""

    MARKS = 24  # states recorded at seqs, kept for `--at` reads and `undo --to` (a sample: memory stays small)

    def __init__(self, directory: str, card: str, rng: random.Random, rev: int = 3):
        self.rng = rng
        self.card = card
        self.rev = rev
        self.directory = directory
        self.played: list[dict] = []  # every command given, accepted or not, as the ledger kept it
        self.path = os.path.join(directory, f"{Path(card).stem}.plcg")
        # mostly no --seed: the ledger's OS dice; sometimes --seed (the seeded roller); an earlier revision asked
        # for as `new --rules-revision N` does
        self.seed = f"explore-{rng.getrandbits(32)}" if rng.random() < 0.25 else None
        self.led = Ledger.create(self.path, card, self.seed, None, rules_revision=None if rev == 3 else rev)
        self.conventions = self.led.state().conventions  # the ledger's conventions the campaign records (issue 38)
        self.undo_state = None  # (state before the last accepted command, that command)
        self.undos = 0
        self.count = 0
        self.marks: dict[int, object] = {}  # seq -> the state replayed at that seq (never changed after)
        self.undo_ok: set[int] = set()  # marks `undo --to` must bring back (no later revert took back one before)
        self.upgrade_at = rng.randint(5, 150) if rev < 3 and rng.random() < 0.5 else None
        self.exports = 0
        self.reverted_before: set[int] = set()

    # ---- giving a command ----
    def state(self):
        return self.led.state()

    def act(self, cmd: dict, must: bool = False, light: bool = False):
        """Run cmd; the stored events, or None where it was refused (checked to have changed nothing).
        light: a refusal is checked on the log's head, not on every byte of the file (the dead-end search)."""
        led, dice = self.led, cg.dice.os_dice
        head = led.store.head()
        raw = None if light else Path(self.path).read_bytes()
        before = led.state()
        asked, rolls = dice.asked, ROLLS[0]
        self.count += 1
        STATS["commands"] += 1
        try:
            stored = led.run(dict(cmd))
        except PlcgError as e:
            STATS["searched" if light else "refused"] += 1
            self.played.append({**cmd, "_refused": e.exit_code, "_err": str(e)[:300]})
            assert e.exit_code in (2, 3), f"{cmd}: exit {e.exit_code}: {e}"
            assert led.store.head() == head, f"{cmd} was refused ({e}) but wrote"
            assert light or Path(self.path).read_bytes() == raw, f"{cmd} was refused ({e}) but wrote"
            old = not rules_for(before).legality_judged_before_roll() and cmd["name"] in OLD_ROLLERS
            assert old or dice.asked == asked, f"{cmd} was refused ({e}) after rolling {dice.asked - asked} dice (R49)"
            assert old or ROLLS[0] == rolls, f"{cmd} was refused ({e}) after deciding {ROLLS[0] - rolls} rolls (R49)"
            assert not must, f"liveness: {cmd} is what the step owes, and it was refused: {e}"
            return None
        first = stored[0] if stored else None
        recorded = (first.command or {}).get("ledger_dice") if first is not None else None
        self.played.append({**cmd, **({"dice": recorded} if recorded else {})})
        n = sum(len(x) for x in recorded) if recorded else 0
        assert dice.asked - asked == n, f"{cmd} rolled {dice.asked - asked} dice and recorded {n}"
        self._after(cmd, before, stored)
        return stored

    def _reverted(self) -> set[int]:
        return reverted_seqs(self.led.store.reverts())

    def _after(self, cmd: dict, before, stored) -> None:
        led = self.led
        live = led.state(use_snapshot=False)  # the whole log replayed
        replayed = canonical_state(live)
        kept = led._kept[2] if led._kept is not None else None  # what the next command decides on
        if kept is not None:
            assert canonical_state(kept.copy()) == replayed, \
                f"after {cmd}: the state the next command decides on differs from the log replayed"
        fresh = Ledger(self.path)
        try:
            assert canonical_state(fresh.state()) == replayed, \
                f"after {cmd}: a freshly opened copy differs from the log replayed"
        finally:
            fresh.close()
        if cmd["name"] == "undo":
            if cmd.get("to") is not None:
                mark = self.marks[cmd["to"]]
                assert _canon(live) == _canon(mark), \
                    f"undo --to {cmd['to']}{' --force' if cmd.get('force') else ''}: not the state recorded at that seq"
            elif self.undo_state is not None:
                assert _canon(live) == _canon(self.undo_state[0]), \
                    f"the undo of {self.undo_state[1]} did not bring back the state of before it"
        if stored:
            self.undo_state = (before, cmd)  # an undo too: the next undo takes it back (an undo of an undo)
        if any(e.type == "reverted" for e in stored):
            now = self._reverted()
            changed, self.reverted_before = now ^ self.reverted_before, now
            if changed:  # a mark after what changed force may no longer be brought back by `undo --to`
                self.undo_ok = {s for s in self.undo_ok if s < min(changed)}
        self._mark(live)
        self._visible(cmd, live, stored)
        if self.count % AUDIT_EVERY == 0:
            self.audit()

    def _mark(self, st) -> None:
        seq = self.led.store.head()[0]
        if len(self.marks) >= self.MARKS:
            drop = self.rng.choice(sorted(self.marks))
            del self.marks[drop]
            self.undo_ok.discard(drop)
        self.marks[seq] = st
        self.undo_ok.add(seq)

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
        reasons = {}
        for i, item in enumerate(owed):  # before a dead end is reported: every hex, unit and option value
            cap = EXHAUST if i == 0 else EXHAUST_OTHERS
            for n, cmd in enumerate(self.every(st, item)):
                if cap is not None and n >= cap:
                    break
                tried.append(cmd)
                if self.act(cmd, light=True) is not None:
                    return
                reasons.setdefault(self.played[-1].get("_err"), cmd)
        raise AssertionError(f"liveness: at {st.firefight} {st.step} nothing owed could be done; refused for: "
                             f"{list(reasons)[:6]}; tried {len(tried)} commands (every hex, unit and option value); "
                             f"owed: {owed}")

    def every(self, st, item: dict):
        """Every command that could do `item`: each hex of the map, each unit, each option value, each counter."""
        c = item["command"]
        if item["runnable"]:
            cmd = dict(item["args"])
            yield cmd
            if cmd["name"] == "leader":
                yield {**cmd, "commissar": not cmd.get("commissar")}
            return
        if c.startswith("plcg option"):
            yield from ({"name": "option", "option": o} for o in "AB")
        elif c.startswith("plcg night"):
            yield {"name": "night", "text": "Half Moon, NVR 2"}
        elif c.startswith("plcg end"):
            yield {"name": "end", "turn": 1, "cvp_lost": {"axis": 0, "allied": 0}}
        elif c.startswith("plcg patrol "):
            yield {"name": "patrol", "side": c.split()[2], "give_up": "not sent (explorer)"}
        elif c.startswith("plcg redeploy"):
            side, unit = c.split()[2], c.split()[3]
            u = st.unit(unit, side)
            counter = _missing_counter(st, u)
            # a counter the table lacks is typed (--counter), asked before the roll (R49) or, under a revision
            # that judges it after the roll, by the refusal the roll's result gives ("give it with --counter")
            after = not rules_for(st).legality_judged_before_roll()
            counters = [counter] if counter else [None, u.name] if after or _counters_needed(st, u) else [None]
            grid = st.grid()
            for h in sorted(hexes(st), key=lambda h: grid.distance(h, u.hex) if u.hex else 0):
                for counter in counters:
                    yield {"name": "redeploy", "side": side, "unit": unit, "to": h,
                           **({"counter": counter} if counter else {})}
        elif c.startswith("plcg disease") or c.startswith("plcg casualties"):
            side = c.split()[2]
            for u in sorted(st.side_units(side), key=lambda u: u.id):
                if u.status not in ("on_map", "available"):
                    continue
                for counter in (None, _missing_counter(st, u) or u.name):
                    v = f"{u.id}={counter}" if counter else u.id
                    yield ({"name": "disease", "side": side, "replaced": v} if c.startswith("plcg disease")
                           else {"name": "casualties", "side": side, "reduced": [v]})

    def resolve(self, st, item: dict, attempt: int) -> dict:
        rng = self.rng
        c = item["command"]
        if item["runnable"]:
            cmd = dict(item["args"])
            if cmd["name"] == "leader" and st.card.sides[cmd["side"]].nationality.lower() == "russian":
                cmd["commissar"] = rng.random() < 0.5
            if attempt < 4 and rng.random() < 0.15:  # typed dice (R31), of the right count or not (exit 2)
                cmd["dice"] = ",".join(str(rng.randint(1, 6)) for _ in range(rng.choice((1, 2, 2, 3))))
            return cmd
        if c.startswith("plcg night"):
            return {"name": "night", "text": "Half Moon, NVR 2"}
        if c.startswith("plcg option"):
            return {"name": "option", "option": rng.choice("AB")}
        if c.startswith("plcg end"):
            if attempt < 8 and rng.random() < 0.3:
                return self.heavy_end(st)
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
            after = not rules_for(st).legality_judged_before_roll()  # asked after the roll: typed once refused
            if counter or (after and attempt >= 2) or any(to is None for _w, to in _counters_needed(st, u)):  # R49
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

    def heavy_end(self, st) -> dict:
        """A heavy `end`: every unit in play listed somewhere, every Strategic hex's control given (or every one to
        one side: the other is left no Strategic hex), several terrain items."""
        rng = self.rng
        STATS["heavy_ends"] += 1
        spec = st.card.firefight(st.firefight)
        cmd = {"name": "end", "turn": rng.randint(1, spec.turns if spec is not None and spec.turns else 8),
               "cvp_lost": {s: rng.randint(0, 30) for s in SIDES}}
        strategic = sorted(st.strategic())
        one = rng.choice(SIDES) if rng.random() < 0.3 else None
        cmd["control"] = [f"{one or rng.choice(SIDES)}={h}" for h in strategic]
        every = hexes(st)
        got = {k: [] for k in ("lost", "wounded", "position", "repair", "reduced", "encircled", "shocked",
                               "recalled", "hero", "captured", "exited", "replaced", "terrain")}
        for side in SIDES:
            for u in in_play(st, side):
                if u.status not in ("on_map", "available"):
                    continue
                r, su = rng.random(), f"{side}:{u.id}"
                if u.kind == "sw":
                    if rng.random() < 0.3:
                        got["repair"].append(f"{su}=malfunction")
                    continue
                if r < 0.1:
                    got["lost"].append(su)
                elif r < 0.25 and u.kind == "leader":
                    got[rng.choice(("wounded", "hero"))].append(su)
                elif r < 0.35 and u.kind in ("squad", "hs"):
                    got[rng.choice(("reduced", "encircled"))].append(su)
                else:
                    got["position"].append(f"{su}={rng.choice(every)}")
                    if u.kind == "vehicle" and rng.random() < 0.4:
                        got["repair"].append(f"{su}=immobilized")
        free = [h for h in every if h not in st.card.map.water and h not in strategic]
        for h in rng.sample(free, min(len(free), rng.randint(2, 5))):
            got["terrain"].append(f"{h}={rng.choice(('rubble', 'foxhole', 'wire', 'trench'))}")
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
        if self.upgrade_at is not None and self.count >= self.upgrade_at:
            self.upgrade_at = None
            if self.act({"name": "rules-upgrade"}) is not None:
                STATS["upgrades"] += 1
            return
        roll = rng.random()
        if roll < 0.05 and self.undos < 6 and self.count > 3:
            self.undos += 1
            STATS["undos"] += 1
            force = rng.random() < 0.3  # across 2.8 too: recorded as forced where it crosses (R-undo)
            if self.act({"name": "undo", "reason": "explorer: taken back", **({"force": True} if force else {})}) \
                    is not None and rng.random() < 0.3:
                STATS["undo_undo"] += 1  # an undo of the undo: the state of before the undo
                self.act({"name": "undo", "reason": "explorer: the undo taken back", "force": True})
            return
        if roll < 0.065 and self.undos < 6 and self.undo_ok:
            self.undo_to()
            return
        if roll < 0.08 and self.marks:
            self.at_reads()
            return
        if roll < 0.095:
            self.cli_reads()
            return
        if roll < 0.099 and self.exports < 2:
            self.export_import()
            return
        if roll < 0.14:
            self.act(dict(rng.choice(WRONG_STEP)))
            return
        if roll < 0.143:  # rarely: a side concedes, the CG ends (ruling R16)
            self.act({"name": "concede", "side": rng.choice(SIDES)})
            return
        cmd = self.optional_command(st)
        if cmd is not None:
            self.act(cmd)

    def undo_to(self) -> None:
        """`undo --to SEQ` to a recorded seq; across a firefight's 2.8 refused without --force, then forced."""
        seq = self.rng.choice(sorted(self.undo_ok))
        if seq >= self.led.store.head()[0]:
            return
        self.undos += 1
        STATS["undos"] += 1
        cmd = {"name": "undo", "to": seq, "reason": "explorer: back to a seq"}
        if self.act(cmd) is not None:
            STATS["undo_to"] += 1
            return
        if self.played[-1].get("_refused") == 3 and self.act({**cmd, "force": True}) is not None:
            STATS["forced"] += 1

    def at_reads(self) -> None:
        """`roster`, `oob` and `map --at SEQ --json` through the command line show the state recorded at SEQ."""
        from conftest import cli_run

        seq = self.rng.choice(sorted(self.marks))
        st = self.marks[seq]
        STATS["at_reads"] += 1
        assert canonical_state(self.led.state(at=seq)) == canonical_state(st), f"state(at={seq}) differs"
        r = cli_run(self.path, "roster", "--at", seq, "--json")
        assert r.code == 0 and orjson.loads(r.out)["rows"] == _json(roster_rows(st)), f"roster --at {seq}: {r.err}"
        side = self.rng.choice(SIDES)
        r = cli_run(self.path, "oob", side, "--at", seq, "--json")
        assert r.code == 0 and orjson.loads(r.out) == _json(oob_rows(st, side)), f"oob {side} --at {seq}: {r.err}"
        if self.rng.random() < 0.3:  # the map's JSON is long on a three-board map
            r = cli_run(self.path, "map", "--at", seq, "--json")
            assert r.code == 0 and orjson.loads(r.out) == _json(map_json(st)), f"map --at {seq}: {r.err}"

    def cli_reads(self) -> None:
        """The read commands through the command line: they run, and show the live state."""
        from conftest import cli_run

        STATS["cli_reads"] += 1
        st = self.led.state(use_snapshot=False)
        rng = self.rng
        side = rng.choice(SIDES)
        r = cli_run(self.path, "roster", "--json")
        assert r.code == 0 and orjson.loads(r.out)["rows"] == _json(roster_rows(st)), f"roster: {r.err}"
        r = cli_run(self.path, "oob", side, "--json")
        assert r.code == 0 and orjson.loads(r.out) == _json(oob_rows(st, side)), f"oob {side}: {r.err}"
        for args in rng.sample([("status", "--json"), ("status",), ("purchases", side, "--json"), ("map", "--json"),
                                ("log",), ("dice-stats",), ("head",), ("roster",), ("oob", side)], 3):
            r = cli_run(self.path, *args)
            assert r.code == 0, f"plcg {' '.join(args)}: exit {r.code}: {r.err}"

    def export_import(self) -> None:
        """`export --format jsonl` and `import` into a new file: the walk goes on in the imported copy."""
        from conftest import cli_run

        self.exports += 1
        STATS["exports"] += 1
        jsonl = os.path.join(self.directory, f"export-{self.exports}.jsonl")
        new = os.path.join(self.directory, f"imported-{self.exports}-{Path(self.card).stem}.plcg")
        r = cli_run(self.path, "export", "--format", "jsonl", "-o", jsonl)
        assert r.code == 0, f"export: {r.err}"
        r = cli_run(new, "import", jsonl)
        assert r.code == 0, f"import: {r.err}"
        want = canonical_state(self.led.state(use_snapshot=False))
        self.led.close()
        self.path, self.led = new, Ledger(new, write=True)
        self.played.append({"name": "_import", "_cli": True})
        assert canonical_state(self.led.state()) == want, "the imported copy differs from the exported campaign"
        assert canonical_state(self.led.state(use_snapshot=False)) == want, "the imported log replays otherwise"

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

    return needed(st, u) if rules_for(st).legality_judged_before_roll() else []


def _missing_counter(st, u):
    from cg.app.demo import _missing_counter as missing

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


@pytest.fixture(autouse=True)
def _count_rolls(monkeypatch):
    """Every roll a command decides (the ledger's, seeded, typed, two-party; not a proposal's or a commitment's
    probe, which decides nothing) is counted in ROLLS."""
    decide_roll = commands_base.Ctx.dice

    def counted(ctx, given, count):
        if ctx.two_party not in ("probe", "check"):
            ROLLS[0] += 1
        return decide_roll(ctx, given, count)

    monkeypatch.setattr(commands_base.Ctx, "dice", counted)


def _walk(card: str, seed: int, install=None, say=note, kind=None, rev: int = 3) -> Walk | None:
    """One walk of `kind` (Walk: single copy, its OS dice from the seed through `install`; PbemWalk: two copies)
    on `card` under rules revision `rev`; on a failure `say` gets the card, the revision and the commands it
    played, one JSON line each. A failure KNOWN under `rev` is kept and counted, and the walk stops there (None)."""
    kind = kind or Walk
    rng = random.Random(seed)
    if install is not None:
        install(random.Random(rng.getrandbits(64)))
    d = tempfile.mkdtemp(prefix="plcg-explore-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    walk = None
    if card not in STATS["cards"]:
        STATS["cards"].append(card)
    STATS["revisions"][str(rev)] = STATS["revisions"].get(str(rev), 0) + 1
    try:
        walk = kind(d, card, rng, rev)
        walk.play()
        STATS["walks"] += 1
    except BaseException as e:
        if walk is None:
            raise
        message = str(e).splitlines()[0][:2000] if str(e) else type(e).__name__
        known = known_finding(rev, message) if isinstance(e, Exception) else None
        keep_finding({"card": card, "revision": rev, "seed": seed, "kind": kind.__name__, "known": known,
                      "campaign_seed": getattr(walk, "seed", None), "conventions": getattr(walk, "conventions", None),
                      "message": message, "commands": walk.played})
        if known is not None:
            STATS["known"][known] = STATS["known"].get(known, 0) + 1
            return None
        say(f"card {card} ({kind.__name__}), rules revision {rev}, seed {seed}: the commands played "
            f"({len(walk.played)}); Replay(directory, {card!r}, {rev}, {getattr(walk, 'seed', None)!r}) plays "
            "them again:")
        for c in walk.played:
            say(orjson.dumps(c).decode())
        raise
    finally:
        if isinstance(walk, Walk) and not isinstance(walk, PbemWalk):
            walk.led.close()
        shutil.rmtree(d, ignore_errors=True)
    return walk


def _card_id(card: str) -> str:
    return Path(card).stem


@pytest.mark.parametrize("card", CARDS, ids=_card_id)
def test_the_explorer_plays_whole_campaigns_on_every_card_and_revision(card, fake_os_dice):
    turn = iter(range(10**6))  # the card's walks take the revisions in turn, from one that depends on the card

    @settings(max_examples=SIZE["walks"], deadline=None, database=None, phases=PHASES,
              suppress_health_check=list(HealthCheck))
    @given(seed=hst.integers(0, 2**63))
    def walk(seed):
        rev = REVISIONS[(CARDS.index(card) + next(turn)) % len(REVISIONS)]
        _walk(card, seed, fake_os_dice, rev=rev)

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

    def __init__(self, directory: str, card: str, rng: random.Random, rev: int = 3):
        from helpers.pbem import Game

        self.rng, self.card, self.rev = rng, card, rev  # by email: the current revision (two-party dice, R83)
        self.played, self.count, self.undos, self.undo_state = [], 0, 0, None
        self.g = Game(Path(directory), card=card)  # two-party dice, secrets sealed
        self.folder = {s: Path(directory) / f"to-{s}" for s in SIDES}  # sync --folder: what each copy is sent
        for f in self.folder.values():
            f.mkdir()
        self.sent: dict[str, list[str]] = {s: [] for s in SIDES}  # every bundle each side made
        if self.MEDIUM:
            self.g.send = self.deliver  # every bundle passed by the medium below (late, twice, shuffled, synced)
        self.ff = 1
        self.rejects = 0

    MEDIUM = True  # False: every bundle received once, in order (the medium of issue 23's explorer)
    P = {"late": 0.06, "shuffled": 0.08, "synced": 0.15, "twice": 0.06, "reject_provisional": 0.06, "reject": 0.1,
         "claim": 0.03}  # how often the medium and the players do each

    # ---- the medium ----
    def deliver(self, side: str) -> str:
        """`side` bundles what the other copy lacks and the other copy takes it in: by `receive`, or by `sync
        --folder`; sometimes an older bundle of the side first (late: already held, nothing written), the same
        bundle twice, or a bundle that starts after the other copy's head first (shuffled: refused, nothing
        written), then the whole one."""
        from conftest import cli_run

        g, rng, to = self.g, self.rng, other(side)
        db = g.db[to]
        since = g.head(to) if Path(db).exists() else 0
        if not Path(db).exists():  # the allied copy is made from the first bundle
            path = g.bundle(side, since)
            r = cli_run(db, "receive", path)
            assert r.code == 0, r.err
            self.sent[side].append(path)
            g.holder = to
            return path
        if self.sent[side] and rng.random() < self.P["late"]:  # late: a bundle the other copy already holds
            STATS["late"] += 1
            self._held(to, rng.choice(self.sent[side]), "a late bundle")
        ahead = g.head(side) - since
        if ahead >= 2 and rng.random() < self.P["shuffled"]:  # shuffled: the later part first
            STATS["shuffled"] += 1
            part = g.bundle(side, since + rng.randint(1, ahead - 1))
            raw = Path(db).read_bytes()
            r = cli_run(db, "receive", part)
            assert r.code in (0, 2, 3, 4) and (r.code != 0 or "already held" in r.out), \
                f"a bundle past the head: exit {r.code}: {r.out} {r.err}"
            assert r.code == 0 or Path(db).read_bytes() == raw, f"a refused bundle ({r.err.strip()}) wrote"
            self.sent[side].append(part)
        path = g.bundle(side, since)
        if rng.random() < self.P["synced"]:  # sync --folder: every bundle ever sent to that copy lies there, in any order
            STATS["synced"] += 1
            held = sorted(self.folder[to].iterdir())  # the folder keeps two bundles taken in already, as a
            for p in rng.sample(held, max(0, len(held) - 2)):  # shared drive would: sync reads every one each time
                p.unlink()
            for p in [path] + rng.sample(self.sent[side], min(2, len(self.sent[side]))):  # and some older ones
                target = self.folder[to] / Path(p).name
                if not target.exists():
                    shutil.copy(p, target)
            r = g.cli(to, "sync", "--folder", str(self.folder[to]))
            assert r.code == 0, f"sync --folder: exit {r.code}: {r.err}"
        else:
            r = cli_run(db, "receive", path)
            assert r.code == 0, r.err
        if rng.random() < self.P["twice"]:  # twice
            STATS["twice"] += 1
            self._held(to, path, "the same bundle again")
        self.sent[side].append(path)
        g.holder = to
        return path

    def _held(self, to: str, path: str, what: str) -> None:
        from conftest import cli_run

        db = self.g.db[to]
        raw = Path(db).read_bytes()
        r = cli_run(db, "receive", path)
        assert r.code == 0, f"{what}: exit {r.code}: {r.err}"
        assert Path(db).read_bytes() == raw, f"{what} ({r.out.strip()}) wrote"

    def state(self):
        return self.g.state()

    def act(self, cmd: dict, must: bool = False, light: bool = False):
        g = self.g
        side = cmd.get("side") if cmd.get("side") in SIDES else g.holder
        if g.holder != side:
            g.send(g.holder)
        if cmd["name"] == "reveal" and not self._owes_reveal(side):
            return True  # `sync --folder` revealed it for the player as it took the bundle in
        before = Path(g.db[side]).read_bytes()
        rolls = ROLLS[0]
        self.count += 1
        STATS["commands"] += 1
        r = g.cli(side, *to_args(cmd))
        self.played.append({**cmd, "_by": side, **({"_refused": r.code, "_err": r.err.strip()[:300]} if r.code else {})})
        if r.code != 0:
            STATS["refused"] += 1
            assert r.code in (2, 3), f"{cmd}: exit {r.code}: {r.err}"
            assert Path(g.db[side]).read_bytes() == before, f"{cmd} was refused ({r.err.strip()}) but wrote"
            assert ROLLS[0] == rolls, f"{cmd} was refused ({r.err.strip()}) after deciding {ROLLS[0] - rolls} rolls (R49)"
            assert not must, f"liveness: {cmd} is what the step owes, and it was refused: {r.err}"
            return None
        self.settle(side)
        if self.rejects < 3 and self.rng.random() < self.P["reject_provisional"]:
            self.reject_provisional(side)
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
                if self.rejects < 3 and self.rng.random() < self.P["reject"] and \
                        self._reject(other_side, prop.command):
                    side = g.holder = other_side
                    continue
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

    def _owes_reveal(self, side: str) -> bool:
        """What `side`'s own copy says it owes to reveal (two-party dice answered, sealed secrets due)."""
        from cg import pbem, seal

        st = self.g.state(side)
        return bool(pbem.open_requests(st, side=side, answered=True) or seal.owed(st, side))

    def _reject(self, side: str, what) -> bool:
        """`side` rejects the other side's proposal or provisional step (rulings R45, R71, R73): accepted, or
        refused with nothing written (dice rolled since the leave)."""
        raw = Path(self.g.db[side]).read_bytes()
        rolls = ROLLS[0]
        r = self.g.cli(side, "reject", "--reason", "explorer: rejected")
        self.played.append({"name": "reject", "_by": side, "_cli": True, **({"_refused": r.code} if r.code else {})})
        if r.code != 0:
            assert r.code in (2, 3), f"reject of {what}: exit {r.code}: {r.err}"
            assert Path(self.g.db[side]).read_bytes() == raw, f"a refused reject ({r.err.strip()}) wrote"
            assert ROLLS[0] == rolls, f"a refused reject ({r.err.strip()}) decided rolls"
            return False
        self.rejects += 1
        STATS["rejected"] += 1
        self.g.holder = side
        return True

    def reject_provisional(self, side: str) -> None:
        """The other side rejects a step `side` just left provisionally, or a fact it gave so (R71, R73)."""
        from cg.app.ledger import pbem_provisional

        g = self.g
        if g.holder != side:
            return
        g.send(side)
        prov = pbem_provisional(g.state(other(side)))
        if prov is not None and prov.side == side and self._reject(other(side), prov.command):
            self.settle(other(side))

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
        if rng.random() < self.P["claim"]:  # claim: the two-party dice the other side withheld (ruling R67), else refused
            self.claim(rng.choice(SIDES))
            return
        cmd = self.optional_command(st)
        if cmd is not None:
            self.act(cmd)

    def claim(self, side: str) -> None:
        g = self.g
        if g.holder != side:
            g.send(g.holder)
        raw = Path(g.db[side]).read_bytes()
        rolls = ROLLS[0]
        STATS["claims"] += 1
        r = g.cli(side, "claim")
        self.played.append({"name": "claim", "_by": side, "_cli": True, **({"_refused": r.code} if r.code else {})})
        if r.code != 0:
            assert r.code in (2, 3), f"claim: exit {r.code}: {r.err}"
            assert Path(g.db[side]).read_bytes() == raw, f"a refused claim ({r.err.strip()}) wrote"
            assert ROLLS[0] == rolls, f"a refused claim ({r.err.strip()}) decided rolls"
            return
        self.settle(side)

    BUDGETS = (0, 0, 1, 2)

    def finish(self) -> None:
        from cg import seal

        for side in SIDES:  # the CG's end: each side reveals what it sealed (ruling R47)
            self.g.send(self.g.holder)
            if seal.owed(self.g.state(side), side):
                self.act({"name": "reveal", "side": side}, must=True)
        self.agree()


# ---- by email: two copies ------------------------------------------------------------------------------

@pytest.mark.parametrize("card", PBEM_CARDS, ids=_card_id)
def test_the_explorer_plays_whole_campaigns_by_email_on_every_card(card):
    @settings(max_examples=SIZE["pbem_walks"], deadline=None, database=None, phases=PHASES,
              suppress_health_check=list(HealthCheck))
    @given(seed=hst.integers(0, 2**63))
    def walk(seed):
        _walk(card, seed, kind=PbemWalk)

    walk()


class Replay:
    """A walk's commands played again on a new campaign of the card, the ledger's dice given back in order
    as each command recorded them (a failure's list as a plain regression test)."""

    def __init__(self, directory: str, card: str, revision: int = 3, seed: str | None = None,
                 conventions: int | None = None):
        """card: a shipped card's name or a card file; revision: the rules revision the walk was played under;
        seed: its `--seed`, where it had one; conventions: the ledger's conventions its campaign recorded (None:
        the walks kept in tests/fixtures, recorded before issue 38's)."""
        self.queue: list[int] = []
        self.path = os.path.join(directory, f"replay-{Path(card).stem}.plcg")
        if os.path.exists(self.path):
            os.unlink(self.path)
        self.led = Ledger.create(self.path, card, seed, None, rules_revision=None if revision == 3 else revision,
                                 conventions=conventions)

    refused = False  # the command being played again was refused in the walk

    def os_dice(self, count: int) -> tuple[int, ...]:
        if self.refused and len(self.queue) < count:  # under revisions 1-2 the commands R49 names roll, then refuse
            return (1,) * count
        assert len(self.queue) >= count, "the command rolls more dice than it recorded"
        out, self.queue = tuple(self.queue[:count]), self.queue[count:]
        return out

    def run(self, cmd: dict):
        """The command's stored events; None where it was refused as in the walk (a refusal leaves the
        Ledger to load its next state from the snapshot, as it did in the walk)."""
        cmd = dict(cmd)
        if cmd.get("_cli"):  # an export and import, a reject or claim by email: not a command of this copy
            return None
        refused = self.refused = bool(cmd.pop("_refused", None))
        cmd.pop("_err", None)
        ledger_dice = cmd.pop("dice", None) if not isinstance(cmd.get("dice"), str) else None  # a str: typed
        self.queue = [v for roll in ledger_dice or () for v in roll]
        saved, cg.dice.os_dice = cg.dice.os_dice, self.os_dice
        try:
            return self.led.run(cmd)
        except PlcgError:
            if refused:
                return None
            raise
        finally:
            cg.dice.os_dice = saved


def replay_kept(finding: str, directory: str) -> Replay:
    """A finding kept in bench/out/ (PLCG_EXPLORE_OUT) played again: its card (a shipped name or a card file),
    its rules revision and its campaign seed, every command as the walk gave it, the ledger's dice given back."""
    d = orjson.loads(Path(finding).read_bytes())
    r = Replay(directory, d["card"], d["revision"], d.get("campaign_seed"), d.get("conventions"))
    for cmd in d["commands"]:
        r.run(cmd)
    return r


def shrink(card: str, commands: list[dict], fails, directory: str, revision: int = 3) -> list[dict]:
    """The shortest list (chunks taken out while `fails(replay, commands)` still holds) of a failing walk."""
    def still(cmds):
        r = Replay(directory, card, revision)
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


# ---- the test cards ------------------------------------------------------------------------------------

def test_the_test_cards_pass_card_check_and_have_their_shapes(tmp_path):
    """tests/cards/: each passes `plcg card check`, and each has the shape it is there for: three boards, an
    OB given with a printed setup area, Russian Commissars, PTO with Disease & Starvation in its FSR, and an
    Isolated pocket on the map from the start."""
    from conftest import cli_run

    from cg.card_schema import load_card

    names = {Path(c).stem: c for c in TEST_CARDS}
    assert sorted(names) == ["isolated_pockets", "pto_disease", "russian_commissars", "three_boards_ob"]
    for card in TEST_CARDS:
        r = cli_run(tmp_path / "unused.plcg", "card", "check", card)
        assert r.code == 0, f"{card}: {r.out} {r.err}"
    three = load_card(names["three_boards_ob"])
    assert [len(row) for row in three.map.boards] == [3]
    assert any(ob.area and ob.setup == "on-map" for side in SIDES for ob in three.sides[side].ob)
    russian = load_card(names["russian_commissars"])
    assert russian.sides["allied"].nationality == "russian"
    assert any(rg.commissar for rg in russian.sides["allied"].rg)
    pto = load_card(names["pto_disease"])
    assert pto.campaign.theater == "pto" and pto.campaign.disease
    assert all(any("Disease & Starvation" in f for f in ff.fsr) for ff in pto.firefights)
    led = Ledger.create(str(tmp_path / "pockets.plcg"), names["isolated_pockets"], "pockets", None)
    try:
        mc = led.state().map_control()
        assert "allied" in {hc.isolated for hc in mc.hexes.values()}, "no Isolated pocket at the start"
    finally:
        led.close()


def test_a_kept_walk_replays_with_its_card_file_and_rules_revision(tmp_path, monkeypatch, fake_os_dice):
    """A walk's kept commands (what bench/out/ holds for a finding) play again on a campaign of the same card file
    under the same rules revision, to the same state: `replay_kept` reads the card and the revision from the
    record, an older revision's log replays only under that revision."""
    card = next(c for c in TEST_CARDS if Path(c).stem == "pto_disease")
    fake_os_dice(random.Random(7))
    walk = Walk(str(tmp_path), card, random.Random(11), rev=2)
    try:
        for _ in range(60):  # the start of a campaign as the walk plays it: what is owed, and what is accepted
            st = walk.state()
            walk.optional(st) if walk.rng.random() < 0.3 else walk.progress(st)
        assert walk.led.state().rules_revision == 2
        want = canonical_state(walk.led.state(use_snapshot=False))
        monkeypatch.setenv("PLCG_EXPLORE_OUT", str(tmp_path / "out"))
        keep_finding({"card": card, "revision": 2, "seed": 11, "kind": "Walk", "known": None,
                      "campaign_seed": walk.seed, "conventions": walk.conventions,
                      "message": "kept for the test", "commands": walk.played})
    finally:
        walk.led.close()
        STATS["findings"].pop()
    kept = next((tmp_path / "out").iterdir())
    r = replay_kept(str(kept), str(tmp_path))
    try:
        st = r.led.state(use_snapshot=False)
        assert st.rules_revision == 2 and st.card.campaign.name == "Explorer test: PTO, Disease & Starvation"
        assert canonical_state(st) == want
    finally:
        r.led.close()
