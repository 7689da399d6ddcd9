"""The process tests/test_reliability.py kills: it plays the campaign in DB on, command after command.

usage: crash_child.py DB SEED

Prints READY once the file is open, then one line per command that returned (the CLI's exit 0):
`OK FIRST LAST COMMAND-JSON`, flushed before the next command starts. Now and then it undoes the
last command (a revert, which refreshes the stored snapshot). Prints ENDED when the CG is over and
STUCK if no command is accepted.
"""
from __future__ import annotations

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from helpers.campaigns import ROOT, key, step_once  # noqa: E402

sys.path.insert(0, ROOT)

from events.errors import PlcgError  # noqa: E402
from cg.app.ledger import Ledger  # noqa: E402


def warm_up(led) -> None:
    """Fold once and import everything a command needs before the parent starts its clock."""
    import cg.snapshot  # noqa: F401
    import cg.evolve  # noqa: F401
    import events.convert  # noqa: F401
    import projections.words  # noqa: F401
    from cg.commands import decide
    from helpers.campaigns import choices

    st = led.state()
    for cmd in choices(st)[:3]:
        try:
            decide(st, cmd, st.seq + 1)  # pure: nothing is written
        except PlcgError:
            pass


def main(db: str, seed: str) -> int:
    rng = random.Random(seed)
    led = Ledger(db, write=True)
    warm_up(led)
    print("READY", flush=True)
    tried: set = set()
    while True:
        if led.state().ended:
            print("ENDED", flush=True)
            return 0
        if rng.random() < 0.08:
            cmd = {"name": "undo", "reason": "crash test: taken back"}
            try:
                stored = led.run(cmd)
            except PlcgError:
                continue
        else:
            got = step_once(led, tried)
            if got is None:
                print("STUCK", flush=True)
                return 0
            cmd, stored = got
        print(f"OK {stored[0].seq} {stored[-1].seq} {key(cmd)}", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
