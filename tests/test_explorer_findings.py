"""The explorer's last findings (issue 23), each a walk it failed on, played again as a plain test."""
from __future__ import annotations

from pathlib import Path

import orjson

from projections.digest import canonical_state
from test_explorer import Replay

FIXTURES = Path(__file__).parent / "fixtures" / "explorer"


def test_a_unit_eliminated_isolated_loses_its_mark_in_the_stored_snapshot_too(tmp_path):
    """sosnovka, one copy: a squad eliminated at 3.3 while Isolated (3.25) is out of play from the next
    firefight on, but that firefight's end still takes its Isolated mark off (3.211, Ammunition Shortage).
    The snapshot kept it among the settled units, whose stored part is not written again, so the state
    loaded from the snapshot after a later `next` had the mark back and differed from a replay of the log."""
    cmds = [orjson.loads(line) for line in (FIXTURES / "sosnovka-isolated-eliminated-cold-part.jsonl").read_bytes().splitlines()]
    r = Replay(str(tmp_path), "sosnovka")
    try:
        for cmd in cmds:
            r.run(cmd)
        live = r.led.state()
        assert live.step == "3.461" and not live.unit("OB1-allied.2", "allied").isolated
        assert canonical_state(live) == canonical_state(r.led.state(use_snapshot=False))
    finally:
        r.led.close()
