"""Two players, two campaign files, bundles only: the play-by-email tests' driver.

`Game(tmp)` makes a key per side (`plcg keys new`), the axis player's copy (`plcg new --axis-key
--allied-key`), and the allied copy from the axis player's first bundle (`plcg receive` on a file
that does not exist). `game.do(side, *args)` runs a command in that side's copy with its key, after
passing the latest history to it; `game.play_to(firefight, step)` plays on by what `status` owes,
each roll made by its own side and, under two-party dice, answered and revealed through bundles.
Everything goes through the real command line (cli_run).
"""
from __future__ import annotations

from pathlib import Path

from conftest import cli_run

from cg.app.ledger import Ledger
from cg.pbem import deferred
from cg.steps import pending
from cg.app.keys import load_private

OTHER = {"axis": "allied", "allied": "axis"}


class Game:
    def __init__(self, tmp: Path, policy: str = "two-party", seed: str = "pbem", sealed: bool = True,
                 card: str = "sample", revision: int | None = None):
        self.tmp = Path(tmp)
        self.key = {s: str(self.tmp / f"{s}.key") for s in OTHER}
        self.pub = {}
        for s in OTHER:
            r = cli_run(self.tmp / "unused.plcg", "keys", "new", "-o", self.key[s])
            assert r.code == 0, r.err
            self.pub[s] = r.out.strip()
        self.db = {s: str(self.tmp / f"{s}.plcg") for s in OTHER}
        args = ["new", "--card", card, "--seed", seed, "--axis-key", self.pub["axis"],
                "--allied-key", self.pub["allied"]]
        args += ["--dice-policy", policy or "any"]  # None: the roller's own dice (a keyed campaign's default is two-party)
        if not sealed:  # open rosters: the tests that read the two-party dice and purchases in the clear
            args += ["--open-secrets"]
        if revision is not None:  # an earlier rules revision (ruling R32)
            args += ["--rules-revision", str(revision)]
        r = cli_run(self.db["axis"], *args)
        assert r.code == 0, r.err
        self.holder = "axis"  # the copy that holds the latest history
        self.n = 0
        self.bundles: list[str] = []
        self.confirm = True  # the other side confirms every proposal at once
        self.proposals = 0
        self.send("axis")  # the allied copy is made from the first bundle

    # ---- the medium ----
    def cli(self, side: str, *args):
        return cli_run(self.db[side], "--key", self.key[side], *args)

    def bundle(self, side: str, since: int = 0) -> str:
        self.n += 1
        path = str(self.tmp / f"b{self.n:03d}-{side}.bundle")
        r = self.cli(side, "bundle", "--since", str(since), "-o", path)
        assert r.code == 0, r.err
        self.bundles.append(path)
        return path

    def send(self, side: str) -> str:
        """`side` bundles what it holds after the other copy's head; the other copy receives it."""
        other = OTHER[side]
        since = self.head(other) if Path(self.db[other]).exists() else 0
        path = self.bundle(side, since)
        r = cli_run(self.db[other], "receive", path)
        assert r.code == 0, r.err
        self.holder = other
        return path

    def signed_only(self, side: str) -> None:
        """`side`'s own client signs its head and bundles, owing what it owes (no reveal, no answer: ruling R67
        calls a reveal so owed withheld); the other copy takes the bundle in."""
        from cg import pbem
        from events import bundle as bundles

        key = load_private(self.key[side])
        led = Ledger(self.db[side], write=True, key=key)
        try:
            since = led.store.head()[0]
            seq, h = led.store.head()
            led.run({"name": "sign", "seq": seq, "hash": h, "sig": pbem.sign_head(key, seq, h)}, key)
            rows_, campaign = led.bundle_rows(since)
        finally:
            led.close()
        path = str(self.tmp / "withheld.bundle")
        bundles.write(path, rows_, since, campaign)
        assert cli_run(self.db[OTHER[side]], "receive", path).code == 0

    def head(self, side: str) -> int:
        led = Ledger(self.db[side])
        try:
            return led.store.head()[0]
        finally:
            led.close()

    def state(self, side: str | None = None):
        """The state as `side`'s player sees it in his copy (his own sealed secrets open, ruling R47)."""
        from cg.app.keys import load_private

        side = side or self.holder
        led = Ledger(self.db[side], key=load_private(self.key[side]))
        try:
            return led.state()
        finally:
            led.close()

    # ---- playing ----
    def do(self, side: str, *args):
        """Run a command in `side`'s copy with its key, after handing it the latest history."""
        if self.holder != side:
            self.send(self.holder)
        r = self.cli(side, *args)
        assert r.code == 0, (args, r.err)
        self._settle(side)
        return r

    def _settle(self, side: str) -> None:
        """A shared fact just proposed: the other side confirms it (ruling R45). Two-party dice just
        committed: the other side answers, the roller reveals."""
        st = self.state(side)
        if st.pbem and st.pbem.proposal and self.confirm:
            self.send(side)
            other = OTHER[side]
            r = self.cli(other, "confirm")
            assert r.code == 0, r.err
            self.proposals += 1
            return self._settle(other)
        if not st.pbem or not st.pbem.requests:
            return
        self.send(side)  # the other copy receives the commitment ...
        self.send(OTHER[side])  # ... and its bundle answers it (from its chain: the roll is decided, ruling R83)
        st = self.state(side)
        if any(r.side == side and r.answer is not None and not deferred(st, r) for r in st.pbem.requests.values()):
            r = self.cli(side, "reveal")  # ruling R44: the roller reveals
            assert r.code == 0, r.err

    def play_to(self, firefight: int, step: str, plan: dict | None = None, limit: int = 300) -> None:
        plan = plan or {}
        acted = set()
        for _ in range(limit):
            st = self.state()
            if (st.firefight, st.step) == (firefight, step):
                return
            assert not st.ended
            if (st.firefight, st.step) not in acted:
                acted.add((st.firefight, st.step))
                for side, args in plan.get((st.firefight, st.step), []):
                    self.do(side, *args)
                continue
            owed = pending(st)
            if not owed:  # the other player may owe what only his copy knows (his sealed purchases, R47)
                other = OTHER[self.holder]
                self.send(self.holder)
                owed = pending(self.state(other))
            if not owed:
                self.do(self.holder, "next")
                continue
            side, args = self._resolve(st, owed[0], plan)
            self.do(side, *args)
        raise AssertionError(f"did not reach firefight {firefight} step {step}")

    def _resolve(self, st, item: dict, plan: dict):
        c = item["command"].split()
        if item["runnable"]:
            side = item["args"].get("side") or self.holder
            return side, c[1:]
        if c[1] == "end":
            return self.holder, ["end", "--turn", "5", "--cvp-lost", "axis=4", "--cvp-lost", "allied=6"]
        if c[1] == "night":
            return self.holder, ["night", "Half Moon, NVR 2"]
        if c[1] == "reveal":  # ruling R47: "SIDE owes the reveal of its sealed ..."
            return item["what"].split()[0], ["reveal"]
        if c[1] == "option":
            return self.holder, ["option", "A"]
        if c[1] == "patrol":
            return c[2], ["patrol", c[2], "--give-up", "not sent (test plan)"]
        raise AssertionError(f"the test plan does not say how to do: {item['command']}")
