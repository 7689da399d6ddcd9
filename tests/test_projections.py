"""Projections rebuilt from the log alone equal the live state's, at every seq of a demo campaign
(issue 4), and the snapshot path equals the full fold (the snapshot is derived data)."""
from __future__ import annotations

import cli
from cg.app.demo import play
from projections.digest import canonical_state
from projections.maps import map_json
from projections.oob import oob_rows
from projections.purchases import purchase_rows
from projections.roster import roster_rows, totals


def _views(st):
    return (roster_rows(st), oob_rows(st, "axis"), oob_rows(st, "allied"), purchase_rows(st, "axis", True),
            purchase_rows(st, "allied", False), map_json(st), canonical_state(st))


def test_every_projection_from_the_log_equals_the_live_state_at_every_seq(tmp_path):
    live = {}

    def around(led, cmd, run):
        stored = run(cmd)
        live[stored[-1].seq] = _views(led.state_after)  # the state the command folded as it wrote
        return stored

    path = str(tmp_path / "p.plcg")
    play(path, echo=lambda s: None, around=around)
    led = cli.Ledger(path)
    try:
        assert len(live) > 200
        for seq, views in live.items():
            assert _views(led.state(at=seq)) == views, f"projection differs at seq {seq}"
    finally:
        led.close()


def test_snapshot_is_derived_data(tmp_path):
    path = str(tmp_path / "s.plcg")
    play(path, echo=lambda s: None)
    led = cli.Ledger(path, write=True)
    try:
        with_snap = canonical_state(led.state())
        assert led.store.snapshot() is not None
        led.store.drop_snapshot()
        assert led.store.snapshot() is None
        assert canonical_state(led.state()) == with_snap
    finally:
        led.close()


def test_roster_cg_tvp_is_the_running_total_at_every_step(tmp_path):
    """3.33: the CG TVP column is the total so far. A firefight whose TVP is not awarded yet (any step
    before its 3.33) carries the total of the one before, and the footer's total is the side's."""
    path = str(tmp_path / "t.plcg")
    checked = []

    def around(led, cmd, run):
        stored = run(cmd)
        st = led.state()
        rows = roster_rows(st)
        for side in ("axis", "allied"):
            mine = [r["cg_tvp"] for r in rows if r["side"] == side]
            assert mine == sorted(mine)  # a running total: it never drops back
            assert totals(rows)[side]["cg_tvp"] == st.sides[side].tvp_total
        if st.firefight > 1 and any(st.sides[s].tvp_total for s in ("axis", "allied")):
            checked.append((st.firefight, st.step))
        return stored

    play(path, echo=lambda s: None, around=around)
    assert any(step == "2.1" for _, step in checked)  # a new firefight with TVP already awarded before it


def test_roster_rows_follow_the_rules(tmp_path):
    """CP left = CP before + gained - spent, per firefight and side; Idle firefights have no winner."""
    path = str(tmp_path / "r.plcg")
    play(path, echo=lambda s: None)
    led = cli.Ledger(path)
    st = led.state()
    led.close()
    rows = roster_rows(st)
    assert len(rows) == 2 * len(st.card.firefights)
    for side in ("axis", "allied"):
        left = 0
        for r in [r for r in rows if r["side"] == side]:
            assert r["cp_left"] == left + r["cp_gained"] - r["cp_spent"]
            left = r["cp_left"]
            if r["type"] == "idle":
                assert r["winner"] is None
