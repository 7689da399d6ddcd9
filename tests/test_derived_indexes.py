"""Issue 28 (performance, round three): the derived indexes the fold keeps give what a walk over every
unit gives, stay out of the snapshot and the copies, and the start-up reads nothing it does not use:
`status` asks no scan of the whole log for its versions; a card that prints no hexside builds no
adjacency grid to check them."""
from __future__ import annotations

import pytest

import cg.card_as_printed
import cg.app.ledger
import cg.caches
from cg import snapshot
from cg.card_schema import load_card
from cg.app.demo import play
from cg.evolve import evolve, reverted_seqs, start
from cg.app.ledger import Ledger
from cg.state import active_units, settled
from events.store import Store
from tests.conftest import cli_run


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("perf3") / "c.plcg")
    play(path, echo=lambda s: None)
    return path


def _walk(st) -> list:
    """What active_units stands for: every unit not settled, in the order of `units`."""
    return [u for u in st.units.values() if not settled(u, st.firefight)]


def test_the_units_in_play_index_follows_the_fold_event_by_event(played):
    led = Ledger(played)
    try:
        recs = list(led.records())
    finally:
        led.close()
    undone = reverted_seqs(recs)
    st, checked, settled_seen = None, 0, 0
    for seq, batch, etype, p in recs:
        if etype == "campaign_started":
            st = start(p)
        elif etype != "reverted" and seq not in undone:
            evolve(st, etype, p, seq, batch)
        else:
            continue
        units, guns = active_units(st)  # the same state throughout: the index brought up to date in place
        want = _walk(st)
        assert len(units) == len(want) and all(a is b for a, b in zip(units, want)), seq
        assert guns == [u for u in want if u.kind == "gun"], seq
        checked += 1
        settled_seen = max(settled_seen, len(st.units) - len(want))
    assert checked > 100 and settled_seen > 0  # units settled in earlier firefights were left out
    # a checkpoint copy shares the settled units and clones the others, with its own index
    twin = st.copy(share="settled")
    units, _guns = active_units(twin)
    assert [u.id for u in units] == [u.id for u in _walk(st)]
    assert all(twin.units[k] is not u for k, u in st.units.items() if not settled(u, st.firefight))
    assert all(twin.units[k] is u for k, u in st.units.items() if settled(u, st.firefight))
    assert all(u is twin.units[(u.side, u.id)] for u in units)
    # derived: nothing of it in the stored state, and the copy's dump is its original's
    assert snapshot.dump(twin) == snapshot.dump(st)
    assert not {"_active", "_strategic", "active", "strategic"} & set(snapshot.state_data(st))


def test_strategic_terrain_kept_on_the_state_follows_a_gun_that_moves(played):
    led = Ledger(played)
    try:
        st = led.state(use_snapshot=False)
    finally:
        led.close()
    first = st.strategic()
    assert st.strategic() is first  # nothing changed: the answer kept
    gun = next((u for u in active_units(st)[1]), None)
    # the demo campaign puts a Gun on the map (strategic_grows needs rules revision 2 or later): the test
    # must see one, never pass by skipping
    assert gun is not None and st.rules_revision >= 2, "the demo campaign has no Gun in play under revision 2+"
    spare = next(h for h in st.grid().hexes() if h not in first)
    gun.hex, gun.status = spare, "on_map"
    assert spare in st.strategic()


def test_status_scans_no_whole_log_for_its_versions(played, tmp_path, monkeypatch):
    asked = []
    real = Store.versions
    monkeypatch.setattr(Store, "versions", lambda self: asked.append(1) or real(self))
    cg.caches.use(cg.caches.Caches())  # as a new process: the card read from the log's first row
    r = cli_run(played, "status")
    assert r.code == 0, r.err
    assert asked == []  # the card's row is read with its own version; the rest comes from the snapshot


def test_a_card_without_hexsides_builds_no_adjacency_grid(monkeypatch):
    built = []
    real = cg.card_as_printed.real_grid
    monkeypatch.setattr(cg.card_as_printed, "real_grid", lambda g: built.append(1) or real(g))
    card = load_card("sample")
    assert not card.map.hexsides
    assert built == []
    card = load_card("cg/cards/sosnovka.toml")  # it prints walls: each checked against the adjacent hexes
    assert card.map.hexsides["wall"] and built
