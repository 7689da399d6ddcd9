"""Issue 28 (performance, round three, the audit again): what deciding the log's commands again asks at
every command is made once: the Strategic flags of a map picture, the CTHCs of a picture, and the
purchases a checkpoint copy clones. The answers must stay what they were."""
from __future__ import annotations

import pytest

import cg.rules.questions as rules
from cg import snapshot
from cg.control import classify
from cg.app.demo import play
from cg.hexgrid import Grid
from cg.app.ledger import Ledger
from cg.snapshot import settled_purchase

EDGES = {"axis": "west", "allied": "east"}


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("perfa2") / "c.plcg")
    play(path, echo=lambda s: None)
    return path


def _state(path):
    led = Ledger(path)
    try:
        return led.state(use_snapshot=False)
    finally:
        led.close()


def test_a_picture_flagged_strategic_again_shares_its_flagged_hexes():
    grid = Grid.from_spec("A-R", 10)
    owned = {"C3": "axis", "C7": "axis", "P4": "allied", "P8": "allied"}
    strategic = frozenset(owned) | {"I5"}
    first = classify(grid, strategic, owned, EDGES)
    grown = classify(grid, strategic | {"J6"}, owned, EDGES)  # a Gun emplaced in J6: the same control
    assert grown.hexes["J6"].strategic and not first.hexes["J6"].strategic
    assert grown.hexes["I5"] is first.hexes["I5"] and grown.hexes["I5"].strategic  # made once, not per call
    assert grown.hexes["A1"] is first.hexes["A1"] and not grown.hexes["A1"].strategic
    assert list(grown.hexes) == list(first.hexes) == list(grid.hexes())  # grid order kept


def test_the_cthcs_of_a_picture_are_found_once_and_handed_out_as_new_sets(played, monkeypatch):
    st = _state(played)
    side = next(iter(st.ground.control.values()))
    want = rules.cthc_clusters(st, side)
    calls = []
    real = rules._clusters
    monkeypatch.setattr(rules, "_clusters", lambda *a: calls.append(a) or real(*a))
    again = rules.cthc_clusters(st, side)
    assert calls == [] and again == want and want  # the same picture: not walked again
    again[0].add("ZZ99")  # a caller's set is its own
    assert rules.cthc_clusters(st, side) == want
    hx = next(h for h, s in st.ground.control.items() if s == side)
    st.ground.control[hx] = "allied" if side == "axis" else "axis"  # another picture: found again
    rules.cthc_clusters(st, side)
    assert len(calls) == 1


def test_a_checkpoint_copy_shares_the_settled_purchases_and_clones_the_others(played):
    st = _state(played)
    twin = st.copy(share="settled")
    shared = [k for k, p in st.purchases.items() if twin.purchases[k] is p]
    assert shared  # the demo campaign has purchases of earlier firefights whose units are all gone
    assert all(settled_purchase(st, st.purchases[k]) for k in shared)
    assert all(twin.purchases[k] is not p for k, p in st.purchases.items() if not settled_purchase(st, p))
    assert list(twin.purchases) == list(st.purchases)
    assert snapshot.dump(twin) == snapshot.dump(st)


def test_the_leadership_drm_reads_the_leaders_in_play_not_every_unit(played, monkeypatch):
    from cg import drm
    from cg.rules import rules_for
    from cg.counters import leader_modifier
    from cg.state import CampaignState

    st = _state(played)
    assert rules_for(st).typed_leadership(None, "3.21") is None  # Leadership from the OB (rulings R30, R33)
    hx = next(iter(st.ground.control))
    for side in ("axis", "allied"):  # a side's leaders and squads in play stacked in one hex
        for u in st.side_units(side):
            if u.kind in ("leader", "squad"):
                u.hex, u.status = hx, "on_map"
    on_map = [u for u in st.units.values() if u.hex and u.status == "on_map"]
    want = {}
    for u in on_map:  # what the walk over the side's units in play gives (3.21 Leadership, ruling R30)
        here = [(leader_modifier(x.name), x.id, x.name) for x in st.side_units(u.side)
                if x.kind == "leader" and x.hex == u.hex and x is not u and x.status != "reserve"
                and leader_modifier(x.name) is not None]
        want[u.id, u.side] = min(here)[0] if here else 0
    assert any(want.values())  # the demo campaign stacks a leader with another unit: the test must see one
    monkeypatch.setattr(CampaignState, "side_units", lambda *a, **k: (_ for _ in ()).throw(AssertionError("walked")))
    for u in on_map:
        got = drm.leadership(st, u, None, "3.21")
        assert (got[0].value if got else 0) == want[u.id, u.side]


class _NoWalk(dict):
    """A state's units that may be looked up but not walked whole (values())."""

    def values(self):
        raise AssertionError("every unit walked")


def test_what_3_1_3_3_and_3_461_owe_is_found_among_the_units_in_play(played):
    from cg.steps import pending

    st = _state(played)
    live = [u for u in st.units.values() if u.status in ("available", "on_map")]
    assert len(live) >= 3 and len(st.units) > len(live)  # settled units the walk need not see
    st.position = st.position.to(ended=False)  # the demo campaign has ended: put back into its RePh
    live[0].encircled, live[1].wounded, live[1].kind = True, True, "leader"
    live[2].recalled, live[2].status = True, "recalled"
    want = {}
    for step in ("3.1", "3.3", "3.461"):
        st.position = st.position.to(step=step)
        want[step] = pending(st)
        assert want[step], step  # each step owes something here: the test must see it
    st.units = _NoWalk(st.units)
    for step in ("3.1", "3.3", "3.461"):
        st.position = st.position.to(step=step)
        assert pending(st) == want[step]


def test_a_setup_asks_only_its_own_sides_reveal_owed(monkeypatch):
    """Every setup of a sealed campaign asks whether a reveal is owed first (ruling R47): only the acting
    side's can block it, so the other side's is not asked; a side that owes blocks as before."""
    from cg import seal
    from events.errors import Refused
    from types import SimpleNamespace

    st = SimpleNamespace(pbem=SimpleNamespace(sealing=True), step="2.6", ended=False)
    asked = []
    monkeypatch.setattr(seal, "owed", lambda s, side: asked.append(side) or ("2.6" if side == "allied" else None))
    seal.check_owed(st, {"name": "setup", "side": "axis", "by": "axis"})
    assert asked == ["axis"]
    with pytest.raises(Refused, match="allied owes the reveal"):
        seal.check_owed(st, {"name": "setup", "side": "allied", "by": "allied"})
    asked.clear()
    with pytest.raises(Refused, match="allied owes the reveal"):
        seal.check_owed(st, {"name": "next", "by": "axis"})  # a next waits on either side
    assert asked == ["axis", "allied"]


def test_a_hex_of_the_maps_own_spelling_is_looked_up_without_canonicalising(monkeypatch):
    grid = Grid.from_spec("A-R", 10)
    mc = classify(grid, frozenset({"C3", "P4"}), {"C3": "axis", "P4": "allied"}, EDGES)
    want = mc["c3"]  # another spelling: canonicalised, as before
    assert want is mc.hexes["C3"]
    with pytest.raises(ValueError):
        mc["Z99"]  # not on the map: refused, as before
    monkeypatch.setattr(type(grid), "canonical", lambda self, h: (_ for _ in ()).throw(AssertionError(h)))
    assert mc["C3"] is want and mc.situation("C3", "axis") == "friendly_mlr"  # (every 3.212 situation asks)


def test_a_run_of_3_2_redeployments_asks_each_place_its_situation_once(played, monkeypatch):
    from cg.control import MapControl
    from cg.rules import redeployment_owed

    st = _state(played)
    for u in st.side_units("axis"):  # units on the map, owing a 3.2 redeployment or not: asked where they are
        if u.status == "available" and not u.hex:
            u.hex, u.status = next(iter(st.ground.control)), "on_map"
    want = redeployment_owed(st)
    asked = []
    real = MapControl.situation
    monkeypatch.setattr(MapControl, "situation", lambda self, h, s: asked.append((h, s)) or real(self, h, s))
    assert redeployment_owed(st) == want  # the same picture: its places' situations are known
    assert asked == []
    st.ground.control[next(iter(st.ground.control))] = "allied" if st.ground.control[next(iter(st.ground.control))] == "axis" else "axis"
    redeployment_owed(st)  # another picture: asked again
    assert asked
