"""The explorer's last findings (issue 23), each a walk it failed on, played again as a plain test."""
from __future__ import annotations

from pathlib import Path

import orjson

from conftest import cli_run
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


def test_by_email_an_idle_firefights_purchase_is_revealed_before_the_reph_names_its_units(workdir):
    """kolkhoz by email, sealed secrets, two-party dice: the Axis bought I1 for a firefight nobody attacked in. R47
    revealed purchases at 2.6, which an Idle Firefight skips, so at 3.41 the Axis copy replaced one of its squads by
    Disease (ruling R60) and the Allied copy, still blind to it, refused that bundle for good ("unknown axis unit").
    Ruling R80: once 2.41 has determined the Idle Firefight, 2.4 is not left before each side has revealed what 2.6
    would have revealed."""
    from helpers.pbem import Game

    from cg import seal

    g = Game(workdir, card="kolkhoz")
    g.play_to(2, "2.3")
    g.do("axis", "buy", "axis", "I1", "--mode", "on-map")
    g.play_to(2, "2.4")
    for side in ("axis", "allied"):  # 2.4: each side's Attack Option seal (a no) opened
        g.send(g.holder)
        if seal.owed(g.state(side), side):
            g.do(side, "reveal")
    g.do("allied", "determine")  # Idle
    if g.holder != "allied":
        g.send(g.holder)
    before = Path(g.db["allied"]).read_bytes()
    r = g.cli("allied", "next")  # the Axis' purchase is still sealed here: 2.4 waits for its reveal
    assert r.code == 3 and "axis owes the reveal" in r.err and "R80" in r.err and "2.41" in r.err, r.out + r.err
    assert Path(g.db["allied"]).read_bytes() == before
    g.play_to(2, "3.41")  # the Axis reveals (pending says so), then 2.4 is left for the RePh (3.41)
    squad = next(u.id for u in g.state("axis").units.values()
                 if u.side == "axis" and u.purchase == "I1-1" and u.kind == "squad")
    g.send(g.holder)
    assert g.state("allied").unit(squad, "axis") is not None  # the Allied copy knows the unit now
    g.do("axis", "disease", "axis")  # 1 to 3 squads (3.41): one of the new RG's is chosen
    g.do("axis", "disease", "axis", "--replaced", squad)
    g.send("axis")  # the Allied copy takes the replacement in
    assert cli_run(g.db["axis"], "audit", "--against", g.db["allied"]).code == 0
    rows = {s: {row["unit"]: row for row in orjson.loads(cli_run(g.db[s], "oob", "axis", "--json").out)}
            for s in ("axis", "allied")}
    assert rows["allied"][squad]["name"] == rows["axis"][squad]["name"] == g.state("axis").unit(squad, "axis").name
