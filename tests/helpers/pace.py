"""Two players who play by email at the pace of a letter (issue 26): keys, sealed secrets, two-party
dice, a folder of bundles, one `plcg sync` to read and one `plcg sync --send` to answer a turn, and
each player doing all he may before he sends. `Letters.play(until)` alternates the turns and counts
the bundles sent; everything goes through the real command line (cli_run).
"""
from __future__ import annotations

import os
from pathlib import Path

from conftest import cli_run

from cg.app.ledger import Ledger
from cg.app.keys import load_private
from cg.pbem import AHEAD
from cg.steps import pending
from projections.medium import owner
from cg.state import Done

OTHER = {"axis": "allied", "allied": "axis"}


class Letters:
    def __init__(self, tmp: Path, card: str = "sample", plan: dict | None = None, extra: tuple = ()):
        self.extra = extra
        self.tmp = Path(tmp)
        self.key = {s: str(self.tmp / f"{s}.key") for s in OTHER}
        pub = {s: cli_run(self.tmp / "k.plcg", "keys", "new", "-o", self.key[s]).out.strip() for s in OTHER}
        self.db = {s: str(self.tmp / f"{s}.plcg") for s in OTHER}
        self.box = self.tmp / "box"
        self.box.mkdir()
        r = cli_run(self.db["axis"], "new", "--card", card, "--axis-key", pub["axis"], "--allied-key", pub["allied"],
                    "--dice-policy", "two-party", *self.extra)
        assert r.code == 0, r.err
        self.plan = plan or {}  # (firefight, step, side) -> [commands]
        self.done: set = set()
        self.sent: list[tuple[str, int, str, int]] = []  # (side, firefight, step, bytes) per bundle
        self.turn = "axis"
        self.outputs: list[str] = []

    def cli(self, side: str, *args):
        return cli_run(self.db[side], "--key", self.key[side], *args)

    def state(self, side: str):
        led = Ledger(self.db[side], key=load_private(self.key[side]))
        try:
            return led.state()
        finally:
            led.close()

    def send(self, side: str) -> None:
        before = set(os.listdir(self.box))
        r = self.cli(side, "sync", "--folder", self.box, "--send")
        assert r.code == 0, r.err
        self.outputs.append(r.out)
        new = set(os.listdir(self.box)) - before
        st = self.state(side)
        for name in new:
            self.sent.append((side, st.firefight, st.step, os.path.getsize(self.box / name)))

    def take(self, side: str) -> None:
        r = self.cli(side, "sync", "--folder", self.box)
        assert r.code == 0, r.err
        self.outputs.append(r.out)

    def act(self, side: str, stop_at: tuple) -> None:
        """Everything `side` may do now, in his own copy: his planned commands, what he owes, `next`."""
        for _ in range(80):
            st = self.state(side)
            if st.ended or (st.firefight, st.step) == stop_at and (st.step != "2.9" or Done("end") not in st.reph.done):
                return
            prop = st.pbem.proposal
            if prop is not None and prop.side == side and "provisional" not in prop.command:
                return  # his proposal awaits the other's answer (a step left provisionally does not wait)
            planned = self.plan.get((st.firefight, st.step, side), [])
            todo = [(i, c(st, side) if callable(c) else c) for i, c in enumerate(planned)
                    if (st.firefight, st.step, side, i) not in self.done]  # a callable: made from the copy
            todo = [(i, c) for i, c in todo if c]  # (None: not yet)
            if todo:
                i, c = todo[0]
                self.done.add((st.firefight, st.step, side, i))
                self._ok(side, *c)
                continue
            # an answer to the other side's dice is no move of his: his next command (ruling R84) or send carries it
            owed = [i for i in pending(st) if i["command"] != "plcg sync --send" or owner(i) != side]
            mine = [i for i in owed if owner(i) in (side, None) and self._how(side, i) is not None]
            # ruling R71: to a proposal to leave the step, his own part of it first (his `next` confirms it);
            # a proposed end or determination is answered first
            later = prop is not None and prop.command.get("name") == "next"
            mine.sort(key=lambda i: (i["command"] == "plcg confirm") == later)
            if mine:
                r, again = None, False
                for item in mine:  # the first he may give now (a confirm waits for his replacements, 3.41)
                    how = self._how(side, item)
                    if how in (["confirm"], ["next"]) and self._ahead(side):  # before a leave (or his proposal, if
                        again = True  # his own roll still waits: R84) his later rolls (ruling R121); then look again
                        break
                    for args in how if isinstance(how[0], list) else [how]:  # candidates: the first the rules take
                        r = self.cli(side, *args)
                        if r.code == 0:
                            break
                    if r.code == 0:
                        break
                if again:
                    continue
                if r.code != 0:  # it waits for the other side first (e.g. his reveal before 2.41)
                    assert r.code == 3, r.err
                    if self._ahead(side):
                        continue  # what his rolls decided may owe him more (ruling R121: the step's rolls first)
                    return
                self.outputs.append(r.out)
                continue
            if owed:  # the other side owes something, or dice wait for an answer: done here, then send
                if self._ahead(side):  # his later rolls first: they travel with his proposal
                    continue  # (committing one decides the step's rolls made ahead of it: they may owe him more)
                if all(owner(i) == OTHER[side] for i in owed):
                    r = self.cli(side, "next")  # ruling R71: his part of the step is done (a proposal)
                    if r.code == 0:
                        self.outputs.append(r.out)
                return
            if self._ahead(side):  # his later rolls, before he leaves the step (ruling R121: they hold no step)
                continue
            r = self.cli(side, "next")
            if r.code != 0:
                return
            self.outputs.append(r.out)

    def _ahead(self, side: str) -> bool:
        """Ruling R121: where he stops, his later RePh rolls committed ahead of their steps (each tried once).
        Whether he committed one (the first command at a step decides the rolls made ahead of it, R121)."""
        st = self.state(side)
        made = False
        for name, (_, since) in AHEAD.items():
            if st.step in since and (st.firefight, "ahead", side, name) not in self.done:
                self.done.add((st.firefight, "ahead", side, name))
                r = self.cli(side, name, side)
                assert r.code in (0, 3), r.err  # refused: not his to make now (e.g. a proposal of his awaits)
                if r.code == 0:
                    self.outputs.append(r.out)
                    made = True
        return made

    def _how(self, side: str, item: dict):
        c = item["command"].split()
        if item.get("runnable") and c[1] not in ("bundle",):
            return c[1:]
        if c[1] == "end":
            return ["end", "--turn", "5", "--cvp-lost", "axis=0", "--cvp-lost", "allied=0"]
        if c[1] == "night":
            return ["night", "Full Moon, NVR 3"]
        if c[1] == "option":
            return ["option", "A"]
        if c[1] == "patrol" and c[2] == side:
            if any(r.side == side and r.command.get("name") == "patrol" for r in self.state(side).pbem.requests.values()):
                return None  # his patrol is under way (its roll committed)
            return ["patrol", side, "--give-up", "not sent (test plan)"]
        if c[1] == "disease" and "--replaced" in c and c[2] == side:  # 3.41: the first unit that may take it
            return [["disease", side, "--replaced", u] for u in _mmc(self.state(side), side)] or None
        if c[1] == "reveal" and item["what"].startswith(side):
            return ["reveal"]
        if c[1] == "confirm" and item["what"].startswith(side):
            return ["confirm"]
        if c[1] == "setup" and c[2] == side:  # ruling R110: the other side has set up; his `next` says he has too
            return ["next"]
        return None

    def _ok(self, side: str, *args) -> None:
        r = self.cli(side, *args)
        assert r.code == 0, (side, args, r.err)
        self.outputs.append(r.out)

    def play(self, until: tuple, stop_at: tuple = ("", "")) -> int:
        """Alternate turns (take in, act, send) until both copies stand at `until` (firefight, step);
        a player's actions stop at `stop_at` (the firefight is played there). The bundles sent."""
        n = len(self.sent)
        for _ in range(60):
            side = self.turn
            if os.path.exists(self.db[side]):
                self.take(side)
            else:
                r = self.cli(side, "sync", "--folder", self.box)  # his copy is made from the first bundle
                assert r.code == 0, r.err
            self.act(side, stop_at)
            self.send(side)
            self.turn = OTHER[side]
            if all(os.path.exists(self.db[s]) for s in OTHER):
                self.take(self.turn)  # what the other copy holds now (read, counted as no bundle)
                there = [(self.state(s).firefight, self.state(s).step) for s in OTHER]
                if all(t == until for t in there):
                    return len(self.sent) - n
        raise AssertionError(f"did not reach {until}: {[(s, self.state(s).step) for s in OTHER]}")


# ---- the busy walk (issue 37 item 7): the newcomers' game on `kolkhoz` ---------------------------------

def _mmc(st, side: str) -> list[str]:
    return sorted(u.id for u in st.units.values()
                  if u.side == side and u.kind in ("squad", "hs") and u.status in ("available", "on_map"))


def _patrol(n: int):
    """Allied patrol n (2.7): a recon to the kolkhoz office with a leader and a squad of the company."""
    def make(st, side):
        leaders = sorted(u.id for u in st.units.values() if u.side == side and u.kind == "leader"
                         and u.status in ("available", "on_map"))
        return ["patrol", side, "--type", "recon", "--units", _mmc(st, side)[n], "--leader", leaders[n - 1],
                "--hex", "P4"]
    return make


def busy_plan() -> dict:
    """Issue 37's newcomers' game: a Russian Rifle Company (four 2.36 leader DRs) against a German platoon, two
    Allied patrols run in firefight 1, a night Dual Attack in firefight 2 (both sides buy the Attack Option),
    Disease (3.41) in each RePh."""
    plan: dict = {(1, "2.3", "axis"): [["buy", "axis", "I1", "--mode", "on-map"]],
                  (1, "2.3", "allied"): [["buy", "allied", "I1", "--mode", "on-map"], ["patrols", "allied", "2"]],
                  (1, "2.7", "allied"): [_patrol(1), _patrol(2)],
                  (2, "2.3", "axis"): [["attack", "axis"]], (2, "2.3", "allied"): [["attack", "allied"]]}
    return plan
