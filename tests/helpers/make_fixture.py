"""Write the committed old-log fixture: a short campaign played by this release, and its expected digest.

usage: python tests/helpers/make_fixture.py OUT.plcg OUT.digest

Run it once per release whose log format is to be kept readable (never to refresh an existing
fixture: the point is that later releases read the file as it was written). The campaign: the
shipped sample card, seed "plcg-fixture", the demo players' choices (cg/app/demo.py) through the
Initial Firefight (purchases, leader and OBA DRs, setup, a patrol, the result, the whole RePh) and
the Idle second firefight, with one undo and manual dice, stopping at step 2.3 of firefight 3.
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from helpers.campaigns import ROOT, at, drive  # noqa: E402

sys.path.insert(0, ROOT)

SEED = "plcg-fixture"


def make(path: str) -> None:
    from cg.app.ledger import Ledger

    led = Ledger.create(path, "sample", SEED, None)
    try:
        drive(led, at(1, "2.4"))
        led.run({"name": "undo", "reason": "fixture: one more look at the purchases"})  # a revert in the log
        drive(led, at(2, "2.1"))
        led.run({"name": "cp", "side": "axis", "dice": "4,2"})  # manual dice
        led.run({"name": "cp", "side": "allied", "dice": "6,6"})
        drive(led, at(3, "2.3"))
    finally:
        led.close()


def expected(path: str) -> dict:
    from cg.app.ledger import VERSION, Ledger
    from events.store import FORMAT
    from cg.app.audit import run_audit
    from projections.digest import canonical_state, digest

    led = Ledger(path)
    try:
        st = led.state(use_snapshot=False)
        d = digest(st)
        state = json.loads(canonical_state(st))
        report = run_audit(led)
        head_seq, head_hash = led.store.head()
        first = next(led.store.read())
    finally:
        led.close()
    return {
        "made_by": "tests/helpers/make_fixture.py",
        "product_version": VERSION,
        "format": FORMAT,
        "rules": first.payload["rules"],
        "seed": SEED,
        "events": head_seq,
        "head_hash": head_hash,
        "digest": d["digest"],
        "headline": d["headline"],
        "audit": {"findings": report["findings"], "notes": report["notes"]},
        "state": state,  # the folded state the digest hashes (projections/digest.canonical_state)
    }


if __name__ == "__main__":
    out, digest_out = sys.argv[1], sys.argv[2]
    if os.path.exists(out):
        sys.exit(f"{out} exists: a fixture is written once and never refreshed")
    make(out)
    with open(digest_out, "w", encoding="utf-8") as fh:
        json.dump(expected(out), fh, indent=2, sort_keys=True)
        fh.write("\n")
    # the writer closed cleanly, so the WAL was checkpointed into the file: only empty side files remain
    assert not os.path.exists(out + "-wal") or os.path.getsize(out + "-wal") == 0
    for suffix in ("-wal", "-shm"):
        if os.path.exists(out + suffix):
            os.unlink(out + suffix)
