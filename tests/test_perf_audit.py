"""Issue 28 (performance, round three, the audit): what a long audit asks again and again is asked once.

A Gun set up or redeployed grows Strategic Terrain (1.4, revision 2), and every command that reads map
control then asked for a new picture of the whole map; a 3.2 redeployment asked ruling R48's question
(does the side hold a friendly-controlled hex?) of every unit in play. The answers must stay what they were."""
from __future__ import annotations

import cg.control as control
from cg.control import classify
from cg.hexgrid import Grid
from cg.app.demo import play
from cg.app.ledger import Ledger
from cg.rules import redeployment_owed

EDGES = {"axis": "west", "allied": "east"}


def _pictures_equal_but(a, b, hexes) -> bool:
    """Whether two pictures are the same but for the `strategic` flag of `hexes`."""
    return all((ha.strategic == hb.strategic) != (h in hexes) and
               (ha.controller, ha.cthc, ha.nml, ha.mlr, ha.uncontrolled, ha.isolated) ==
               (hb.controller, hb.cthc, hb.nml, hb.mlr, hb.uncontrolled, hb.isolated)
               for (h, ha), hb in zip(a.hexes.items(), b.hexes.values())) and \
        (a.clusters, a.paths, a.fronts, a.edge_paths) == (b.clusters, b.paths, b.fronts, b.edge_paths)


def test_an_uncontrolled_hex_made_strategic_changes_its_flag_and_classifies_nothing_again(monkeypatch):
    grid = Grid.from_spec("A-R", 10)
    strategic = frozenset({"C3", "C7", "P4", "P8", "I5"})
    owned = {"C3": "axis", "C7": "axis", "P4": "allied", "P8": "allied"}
    first = classify(grid, strategic, owned, EDGES)
    assert first.hexes["C3"].strategic and not first.hexes["J6"].strategic
    calls = []
    real = control._mlr
    monkeypatch.setattr(control, "_mlr", lambda *a: calls.append(a) or real(*a))
    grown = classify(grid, strategic | {"J6", "B2"}, owned, EDGES)  # a Gun emplaced in J6, rubble in B2
    assert calls == []  # who controls what is the same: steps 1-8 are not done again
    assert grown.hexes["J6"].strategic and grown.hexes["B2"].strategic
    assert _pictures_equal_but(first, grown, {"J6", "B2"})
    # control changes: the map is classified again, and the picture is the one a first classification gives
    taken = classify(grid, strategic | {"J6"}, {**owned, "I5": "allied"}, EDGES)
    assert len(calls) == 2
    from cg import caches

    caches.use(caches.Caches())  # no memo at all: caches of their own, empty (as another ledger's)
    fresh = classify(grid, strategic | {"J6"}, {**owned, "I5": "allied"}, EDGES)
    assert fresh is not taken
    assert taken == fresh and taken.hexes["I5"].cthc == "allied"


def test_a_3_2_redeployment_asks_ruling_r48_s_hex_question_once_a_side_under_every_revision(monkeypatch, tmp_path):
    """Ruling R48 holds under every revision (issue 35): whether a side holds a friendly-controlled hex is asked
    once a side, never once a unit, and what 3.2 owes is what R48's own test, unit by unit, gives."""
    import cg.rules.questions as rules

    path = str(tmp_path / "c.plcg")
    play(path, echo=lambda s: None)
    led = Ledger(path)
    try:
        st = led.state()
    finally:
        led.close()
    on_map = [u for u in st.units.values() if u.hex and u.status in rules.PRESENT and not u.redeployed]
    sides = sorted({u.side for u in on_map})
    assert len(on_map) > len(sides)  # more units than sides: asking once a unit would show
    for rev in (1, 2, 3):
        st.rules_revision, st.rules_upgrades = rev, []
        mc = st.map_control()
        asked = []
        monkeypatch.setattr(type(mc), "cthc_hexes",
                            lambda self, side, real=type(mc).cthc_hexes: asked.append(side) or real(self, side))
        owed = redeployment_owed(st)
        assert sorted(asked) == sides
        monkeypatch.undo()
        by_unit = [o for o in owed if not rules.cannot_redeploy(st, st.unit(o[1], o[0]))]
        assert owed == by_unit
        stranded = {(u.side, u.id) for u in on_map if rules.cannot_redeploy(st, u)}
        assert not stranded & {(s, u) for s, u, _r in owed}


def test_the_audit_checks_the_stored_snapshot_against_its_own_fold_not_a_second_one(tmp_path, monkeypatch):
    """Issue 25's check of the stored snapshot against a replay up to its seq takes the state the audit
    folded to that seq (issue 28: the log was folded a second time); a forged snapshot is still found."""
    from cg.app.audit import run_audit
    from tests.helpers.campaigns import forge_snapshot

    path = str(tmp_path / "c.plcg")
    play(path, echo=lambda s: None)
    replays = []
    real = Ledger._state
    monkeypatch.setattr(Ledger, "_state", lambda self, at, use, lazy: replays.append((at, use)) or real(self, at, use, lazy))
    led = Ledger(path)
    try:
        seq = led.store.snapshot()[0]
        assert seq < led.store.head()[0]  # kept mid-log: the audit keeps its state there
        assert run_audit(led)["findings"] == [] and replays == []
        st = led.state(at=seq, use_snapshot=False)  # a forgery, its digest recomputed: the CP of the axis
        st.sides["axis"].cp += 7
    finally:
        led.close()
    forge_snapshot(path, st)
    replays.clear()
    led = Ledger(path)
    try:
        found = run_audit(led)["findings"]
    finally:
        led.close()
    assert replays == []
    assert any(f["rule"] == "snapshot" for f in found), found
