"""Play by email at the pace of a letter, timed (issue 28): the count test's two players (issue 26,
tests/helpers/pace.py: keys, sealed secrets, two-party dice, one `sync` and one `sync --send` a turn)
play the sample card and `bridgehead` from `new` to 2.9 and on to the next 2.1 (the quiet walk), and the
busy walk on `kolkhoz` (issue 37 item 7) two firefights long, and this prints the bundles each stretch took,
the largest bundle and the wall time, so that a slow path shows, beside issue 37 item 7's goals (4 bundles to 2.9
and 6 from 2.9 to the next 2.1 in the quiet walk, 14 a firefight in the busy one). The players commit their later
RePh rolls ahead of their steps (ruling R121) and a Dual Attack is determined by its dice (ruling R122).

    python -m bench.letters
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))


def main() -> None:
    from helpers.pace import Letters

    for card in ("sample", "bridgehead"):
        with tempfile.TemporaryDirectory() as d:
            plan = {(1, "2.3", "axis"): [["buy", "axis", "I1"]], (1, "2.3", "allied"): [["buy", "allied", "I1"]]}
            t = time.perf_counter()
            g = Letters(Path(d), card, plan)
            before = g.play((1, "2.9"), stop_at=(1, "2.9"))
            after = g.play((2, "2.1"), stop_at=(2, "2.1"))
            wall = time.perf_counter() - t
            print(f"{card:11} new to 2.9: {before:2} bundles (goal 4); 2.9 to the next 2.1: {after:2} bundles (goal 6);"
                  " largest "
                  f"{max(b for *_, b in g.sent):,} bytes; {wall:5.1f} s wall ({wall / max(1, before + after):.2f} s a "
                  "bundle, every command a whole in-process click call)")
    from helpers.pace import busy_plan  # issue 37 item 7: the newcomers' game on `kolkhoz`

    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        g = Letters(Path(d), "kolkhoz", busy_plan())
        counts = []
        for ff in (1, 2):
            before = g.play((ff, "2.9"), stop_at=(ff, "2.9"))
            after = g.play((ff + 1, "2.1"), stop_at=(ff + 1, "2.1"))
            counts.append(f"firefight {ff}: {before}+{after} = {before + after}")
        wall = time.perf_counter() - t
        print(f"kolkhoz busy (a company's 4 leader DRs, 2 patrols, a night Dual Attack, Disease): {'; '.join(counts)}"
              f" bundles (pre-firefight+RePh; goal 14 a firefight); {wall:5.1f} s wall")


if __name__ == "__main__":
    main()
