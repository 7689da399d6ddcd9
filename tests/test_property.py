"""Property test (the issue's item 4): random command sequences, valid and invalid, against a campaign.

A hypothesis state machine starts from a campaign at one of several points of the sample CG and
gives it commands drawn from what `status` says is owed, the players' choices, purchases, patrols,
Attack Options, firefight results with random CVP, undos, and garbage (unknown sides, units, RGs,
hexes, dice out of range or of the wrong count). After every step:
  - a command that is refused (exit 2 or 3) changed nothing: same head, same snapshot, same state;
    garbage is always refused as bad input (exit 2), whatever the step;
  - the state loaded the fast way (stored snapshot + tail) equals the state replayed from the log;
  - an undo of the last command brings the state back to what it was before that command;
  - every few steps, and at the end, the audit is clean;
  - at the end, export to JSON Lines then import gives a campaign with the same replay digest.
"""
from __future__ import annotations

import os
import shutil
import tempfile

import orjson
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from helpers.campaigns import copy_template

from cg.app.demo import _choice
from events.errors import BadInput, PlcgError
from cg.steps import pending
from cg.app.ledger import Ledger
from cg.app.audit import run_audit
from projections.digest import canonical_state, digest

SIDES = st.sampled_from(["axis", "allied"])
RG_IDS = ["I1", "I2", "I3", "I4", "HW1", "A1", "G1", "O1", "F1", "V1", "ZZ9", ""]
DR_COMMANDS = {"cp", "elr", "leader", "oba", "patrol-return", "encircled", "redeploy"}  # two dice
DR1_COMMANDS = {"promote", "leaders", "disease", "evacuate", "shock", "repair", "recall", "clear"}  # one die
BAD_DR = ["7,1", "0,3", "-1,4", "3", "1,2,3", "x,y", "", "3;4", "6,7"]
BAD_DR1 = ["7", "0", "-2", "3,4", "x", "", "1.5"]
AUDIT_EVERY = 4


def die() -> st.SearchStrategy[int]:
    return st.integers(1, 6)


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="plcg-prop-")
        self.led = None
        self.steps = 0
        self.last = None  # (state before the last successful command, that command) for the undo check

    # ---- helpers ----
    def state(self):
        return self.led.state()

    def apply(self, cmd: dict, garbage: bool = False):
        """Run cmd; check a refused command changed nothing. The stored events, or None if refused."""
        head = self.led.store.head()
        snap = self.led.store.snapshot()
        before = self.led.state(use_snapshot=False)
        try:
            stored = self.led.run(cmd)
        except PlcgError as e:
            event(f"{cmd.get('name')}: exit {e.exit_code}")
            assert e.exit_code in (2, 3), f"{cmd}: exit {e.exit_code}: {e}"
            if garbage:
                assert isinstance(e, BadInput), f"{cmd}: bad input refused as a rule (exit 3): {e}"
            assert self.led.store.head() == head, f"{cmd} was refused but wrote"
            assert self.led.store.snapshot() == snap, f"{cmd} was refused but changed the snapshot"
            assert canonical_state(self.led.state(use_snapshot=False)) == canonical_state(before)
            return None
        event(f"{cmd.get('name')}: done")
        assert not garbage, f"{cmd} is bad input but was accepted: {[s.type for s in stored]}"
        assert [s.seq for s in stored] == list(range(head[0] + 1, head[0] + 1 + len(stored)))
        assert self.led.store.head()[0] == stored[-1].seq
        self.last = (before, cmd)
        return stored

    # ---- start ----
    @initialize(name=st.sampled_from(["2.2", "2.3", "2.9", "3.44", "ff3"]))
    def start(self, name):
        path = copy_template(name, os.path.join(self.dir, "c.plcg"))
        self.led = Ledger(path, write=True)

    # ---- what status owes, and the players' choices ----
    @rule(data=st.data(), manual=st.booleans())
    def owed_command(self, data, manual):
        s = self.state()
        runnable = [dict(p["args"]) for p in pending(s) if p["runnable"]]
        cmd = data.draw(st.sampled_from(runnable)) if runnable else {"name": "next"}
        if manual and cmd["name"] in DR_COMMANDS:
            cmd["dice"] = f"{data.draw(die())},{data.draw(die())}"
        elif manual and cmd["name"] in DR1_COMMANDS:
            cmd["dice"] = str(data.draw(die()))
        self.apply(cmd)

    @rule(data=st.data())
    def players_choice(self, data):
        s = self.state()
        chosen = [c for c in (_choice(s, p) for p in pending(s) if not p["runnable"]) if c]
        self.apply(data.draw(st.sampled_from(chosen)) if chosen else {"name": "next"})

    @rule()
    def next_step(self):
        self.apply({"name": "next"})

    @rule(side=SIDES, rg=st.sampled_from(RG_IDS), mode=st.sampled_from(["entry", "on-map", "reserve"]))
    def buy(self, side, rg, mode):
        self.apply({"name": "buy", "side": side, "rg": rg, "mode": mode})

    @rule(side=SIDES, n=st.integers(-1, 4))
    def patrols(self, side, n):
        self.apply({"name": "patrols", "side": side, "count": n})

    @rule(side=SIDES)
    def attack(self, side):
        self.apply({"name": "attack", "side": side})

    @rule(turn=st.integers(0, 9), axis=st.integers(-1, 30), allied=st.integers(-1, 30),
          winner=st.none() | SIDES)
    def end(self, turn, axis, allied, winner):
        cmd = {"name": "end", "turn": turn, "cvp_lost": {"axis": axis, "allied": allied}}
        if winner:
            cmd["winner"] = winner
        self.apply(cmd)

    @rule(reason=st.sampled_from(["misread the die", "", "  "]), to=st.none() | st.integers(-1, 300),
          force=st.booleans())
    def undo(self, reason, to, force):
        cmd = {"name": "undo", "reason": reason}
        if to is not None:
            cmd["to"] = to
        if force:
            cmd["force"] = True
        last = self.last
        stored = self.apply(cmd)
        if stored and to is None and last is not None and last[1]["name"] != "undo":
            back = orjson.loads(canonical_state(self.led.state(use_snapshot=False)))
            want = orjson.loads(canonical_state(last[0]))
            for k in ("seq", "last_batch", "commencements"):  # where the log stands, not the campaign
                back.pop(k, None)
                want.pop(k, None)
            assert back == want, f"undo of {last[1]} did not bring the state back"

    # ---- garbage: always bad input, whatever the step ----
    @rule(data=st.data())
    def garbage(self, data):
        s = self.state()
        units = sorted(s.units) or ["I1-1.1"]
        kind = data.draw(st.sampled_from(["side", "unit", "rg", "hex", "dr", "dr1", "count", "command"]))
        if kind == "side":
            cmd = {"name": data.draw(st.sampled_from(["cp", "elr", "promote", "attack", "patrols", "buy"])),
                   "side": data.draw(st.sampled_from(["russians", "", "AXISx", "both", "1"])), "rg": "I1",
                   "count": 1}
        elif kind == "unit":
            cmd = {"name": "setup", "side": data.draw(SIDES), "unit": "NOPE-9.9", "hex": "C4"}
        elif kind == "rg":
            cmd = {"name": "buy", "side": data.draw(SIDES), "rg": data.draw(st.sampled_from(["ZZ9", "", "i1x"]))}
        elif kind == "hex":
            unit = s.units[data.draw(st.sampled_from(units))] if s.units else None
            cmd = {"name": "setup", "side": unit.side if unit else "axis", "unit": unit.id if unit else "I1-1.1",
                   "hex": data.draw(st.sampled_from(["Z99", "C0", "4C", "", "C-1", "Q1"]))}
            if unit is None:
                cmd["unit"] = "NOPE-9.9"
        elif kind == "dr":
            cmd = {"name": data.draw(st.sampled_from(["cp", "elr"])), "side": data.draw(SIDES),
                   "dice": data.draw(st.sampled_from(BAD_DR))}
        elif kind == "dr1":
            cmd = {"name": data.draw(st.sampled_from(["promote", "leaders"])), "side": data.draw(SIDES),
                   "dice": data.draw(st.sampled_from(BAD_DR1))}
        elif kind == "count":
            cmd = {"name": "patrols", "side": data.draw(SIDES),
                   "count": data.draw(st.sampled_from(["lots", "", "1.5"]))}
        else:
            cmd = {"name": data.draw(st.sampled_from(["fly", "", "NEXT"]))}
        self.apply(cmd, garbage=True)

    # ---- after every step ----
    @invariant()
    def snapshot_path_equals_replay(self):
        if self.led is None:
            return
        self.steps += 1
        assert digest(self.led.state()) == digest(self.led.state(use_snapshot=False))

    @invariant()
    def audit_is_clean(self):
        if self.led is None or self.steps % AUDIT_EVERY:
            return
        report = run_audit(self.led)
        assert report["findings"] == [], report["findings"]

    def teardown(self):
        try:
            if self.led is not None:
                assert run_audit(self.led)["findings"] == []
                self.export_import_same_digest()
        finally:
            if self.led is not None:
                self.led.close()
            shutil.rmtree(self.dir, ignore_errors=True)

    def export_import_same_digest(self):
        from projections.aar import export
        from projections.transfer import import_jsonl

        log = os.path.join(self.dir, "log.jsonl")
        with open(log, "w", encoding="utf-8") as fh:
            fh.write(export(self.led, "jsonl"))
        copy = os.path.join(self.dir, "imported.plcg")
        import_jsonl(log, copy)
        other = Ledger(copy)
        try:
            assert digest(other.state(use_snapshot=False)) == digest(self.led.state(use_snapshot=False))
            assert digest(other.state()) == digest(self.led.state())
        finally:
            other.close()


LedgerMachine.TestCase.settings = settings(
    max_examples=int(os.environ.get("PLCG_PROPERTY_EXAMPLES", "20")), stateful_step_count=25, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
test_random_commands_keep_the_ledger_consistent = LedgerMachine.TestCase
