"""Write the committed play-by-email fixture: the axis player's copy of a short campaign by email, its key,
and what the code that wrote it said of every row's state (tests/fixtures/pbem-records/).

usage (from the repository root of the tree whose stored forms are to be kept): python
tests/helpers/make_pbem_fixture.py OUT_DIR

Run once (never to refresh the fixture: the point is that later code reads the file as it was written and
gives its states the same stored form). The campaign, on the sample card, two-party dice, secrets sealed,
through the real command line of two copies (tests/helpers/pbem.Game): at 2.3 an axis I1 bought and its 2.36
leader DR committed (ruling R44), both sealed (ruling R47), and answered; the axis player signing over his
answered roll without revealing it (withheld, ruling R67), then revealing it sealed; play on by what each step
owes into the RePh, each side's chain of answers committed (ruling R83), and at 3.47 the axis ELR dr committed
from the allied chain and answered; on to 2.3 of firefight 2, where the allied player buys an I1 and commits
to its leader DR, both sealed, answered by the axis copy and not yet revealed.
For every row of the axis copy, folded with and without the axis key, the replay digest and the sha256 of
the state's `pbem` part as the snapshot dumps it (orjson, keys in their order) are recorded.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)

from conftest import ROOT  # noqa: E402
from helpers.pbem import Game  # noqa: E402

from cg.steps import pending  # noqa: E402

sys.path.insert(0, str(ROOT))


def play(tmp: Path) -> Game:
    g = Game(tmp)
    g.play_to(1, "2.3")
    g.do("axis", "buy", "axis", "I1")  # sealed (ruling R47)
    assert g.cli("axis", "leader", "axis", "I1-1").code == 0  # committed (ruling R44), sealed
    g.send("axis")
    g.send("allied")  # answered
    g.signed_only("axis")  # withheld (ruling R67)
    r = g.cli("axis", "reveal")  # sealed: it closes the request
    assert r.code == 0, r.err
    g.holder = "axis"
    g.play_to(1, "3.47")
    g.send(g.holder)
    r = g.cli("axis", "elr", "axis")  # from the allied chain (ruling R83)
    assert r.code == 0, r.err
    g.holder = "axis"
    g.send("axis")
    g.send("allied")  # the allied bundle answers from its chain: the roll is decided
    g.play_to(2, "2.3")
    g.send(g.holder)
    g.do("allied", "buy", "allied", "I1")  # sealed: the axis copy cannot open it
    owed = next(x for x in pending(g.state("allied")) if x["command"].startswith("plcg leader allied"))
    r = g.cli("allied", "leader", "allied", owed["args"]["rg"])  # committed and sealed (rulings R44, R47)
    assert r.code == 0, r.err
    g.holder = "allied"
    g.send("allied")
    g.send("axis")  # answered; the allied reveal is left owed: the axis copy holds a seal it cannot open
    return g


def expected(db: str, key_file: str) -> dict:
    import orjson

    from cg.app.ledger import Ledger
    from cg.app.keys import load_private
    from projections.digest import digest

    out = {}
    for view, key in (("none", None), ("axis", load_private(key_file))):
        led = Ledger(db, key=key)
        try:
            head = led.store.head()[0]
            for seq in range(1, head + 1):
                st = led.state(at=seq, use_snapshot=False)
                out[f"{view}:{seq}"] = [digest(st)["digest"],
                                        hashlib.sha256(orjson.dumps(st.pbem.data())).hexdigest()]
        finally:
            led.close()
    return out


if __name__ == "__main__":
    dst = Path(sys.argv[1])
    if dst.exists():
        sys.exit(f"{dst} exists: a fixture is written once and never refreshed")
    tmp = Path(tempfile.mkdtemp(prefix="plcg-pbem-fixture-"))
    g = play(tmp)
    dst.mkdir(parents=True)
    with sqlite3.connect(g.db["axis"]) as conn:  # the whole campaign in the file, no WAL beside it
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(g.db["axis"], dst / "axis.plcg")
    shutil.copyfile(g.key["axis"], dst / "axis.key")
    want = {"made_by": "tests/helpers/make_pbem_fixture.py", "card": "sample",
            "states": expected(str(dst / "axis.plcg"), str(dst / "axis.key"))}
    for side_file in dst.glob("axis.plcg-*"):  # opening it made WAL side files: the .plcg alone is the campaign
        side_file.unlink()
    (dst / "expected.json").write_text(json.dumps(want, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    shutil.rmtree(tmp, ignore_errors=True)
