"""The replay's fast path (events/store.fold_rows + cg/evolve.fold_stored) against the plain fold.

The fast path reads only (type, payload) and counts seqs instead of reading them when the log has
no gaps; it learns which rows to upcast from one query. Whatever the log, it must give the state the
plain fold over every parsed record gives, or refuse the same way.
"""
from __future__ import annotations

import sqlite3

import pytest

from events.errors import BadInput
from cg.evolve import fold
from projections.digest import digest


def _plain(led):
    """The reference: every record parsed, reverts found first (cg/evolve.fold)."""
    return fold(list(led.records()))


@pytest.fixture
def played(campaign):
    camp = campaign(plan={1: {"buy": [("axis", "I1", "on-map")]}})  # set up: not bought to enter (R50)
    camp.advance(1, "2.6")
    st = camp.state()
    unit = next(u for u in st.units.values() if u.side == "axis")
    spot = next(h for h, hc in st.map_control().hexes.items() if hc.cthc == "axis" and hc.isolated != "axis")
    camp.run("setup", side="axis", unit=unit.id, hex=spot)
    camp.run("undo", reason="a test undo")
    camp.close()
    return camp.path


def _ledger(path):
    import cli

    return cli.Ledger(path)


def test_fast_fold_equals_the_plain_fold(played):
    led = _ledger(played)
    try:
        fast = led.state(use_snapshot=False)
        assert fast.reverts, "the campaign holds an undo: the fast path must skip what it took back"
        assert digest(fast) == digest(_plain(led))
        assert fast.seq == led.store.head()[0]
        assert fast.last_batch == led.store.batch_of(fast.seq) == fast.seq  # an undo is a batch of one
    finally:
        led.close()


def test_a_log_with_a_gap_folds_by_its_real_seqs(played):
    """A deleted row (the audit reports it) must not shift the seqs the fold sees: the commencement
    seqs and the reverts name real seqs."""
    led = _ledger(played)
    try:
        head = led.store.head()[0]
        victim = next(s for s, _b, t, _p in led.records() if t == "weather_set")
    finally:
        led.close()
    conn = sqlite3.connect(played)
    conn.execute("DELETE FROM events WHERE seq = ?", (victim,))
    conn.commit()
    conn.close()
    led = _ledger(played)
    try:
        fast = led.state(use_snapshot=False)
        plain = _plain(led)
        assert fast.seq == plain.seq == head
        assert fast.commencements == plain.commencements
        assert digest(fast) == digest(plain)
    finally:
        led.close()


@pytest.mark.parametrize("change, words", [
    ("UPDATE events SET version = 99 WHERE type = 'weather_set'", "weather_set v99"),
    ("UPDATE events SET version = 0 WHERE type = 'weather_set'", "weather_set v0"),
    ("UPDATE events SET type = 'from_the_future' WHERE type = 'weather_set'", "from_the_future v1"),
])
def test_an_event_this_release_does_not_know_is_refused(played, change, words):
    conn = sqlite3.connect(played)
    conn.execute(change)
    conn.commit()
    conn.close()
    led = _ledger(played)
    try:
        with pytest.raises(BadInput, match=words):
            led.state(use_snapshot=False)
    finally:
        led.close()


def test_a_row_at_an_old_version_is_upcast(played, monkeypatch):
    """A stored version below the current one goes through the upcasters, found by the stale query."""
    from events import upcasters, versions

    conn = sqlite3.connect(played)
    conn.execute("UPDATE events SET version = 0 WHERE type = 'weather_set'")
    conn.commit()
    conn.close()
    seen = []

    def v0_to_v1(p):
        seen.append(p["text"])
        return {**p, "text": p["text"] + " (upcast)"}

    monkeypatch.setitem(upcasters.UPCASTERS, ("weather_set", 0), v0_to_v1)
    assert versions.VERSIONS["weather_set"] == 1
    led = _ledger(played)
    try:
        st = led.state(use_snapshot=False)
    finally:
        led.close()
    assert len(seen) == 1
    assert st.firefights[0].weather == seen[0] + " (upcast)"


def test_the_reverts_index_is_made_by_new_files_and_at_the_first_append_of_old_ones(campaign):
    camp = campaign()
    conn = sqlite3.connect(camp.path)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "events_reverted" in names
    conn.execute("DROP INDEX events_reverted")  # as a file made before the index
    conn.commit()
    conn.close()
    camp.close()
    camp = type(camp).attach(camp.path)
    camp.run("weather", text="Clear")
    conn = sqlite3.connect(camp.path)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    conn.close()
    camp.close()
    assert "events_reverted" in names


def test_a_ledger_goes_on_from_its_own_last_command_only_while_the_head_is_still_there(played):
    import cli

    a = cli.Ledger(played, write=True)
    b = cli.Ledger(played, write=True)
    try:
        st = a.state()
        unit = next(u for u in st.units.values() if u.status in ("available", "on_map") and u.side == "axis")
        mc = st.map_control()  # rules revision 2: setup inside the friendly MLR (2.32), HIP only when bought
        spot, other = [h for h in sorted(mc.hexes) if mc.situation(h, "axis") == "friendly_mlr"][:2]
        a.run({"name": "setup", "side": "axis", "unit": unit.id, "hex": spot})
        kept = a.state_after
        b.run({"name": "setup", "side": "axis", "unit": unit.id, "hex": other})  # another writer
        a.run({"name": "setup", "side": "axis", "unit": unit.id, "hex": spot})
        assert a.state_after is not kept, "the head moved: the kept state must not be used"
        assert a.state_after.unit(unit.id, "axis").hex == spot
        assert digest(a.state_after) == digest(a.state(use_snapshot=False))
        again = a.state_after
        a.run({"name": "setup", "side": "axis", "unit": unit.id, "hex": other})
        assert a.state_after is again  # its own last command: folded on in place
        assert digest(a.state_after) == digest(a.state(use_snapshot=False))
    finally:
        a.close()
        b.close()


def test_gc_paused_leaves_the_collector_as_it_found_it():
    import gc

    from cg.bulk import gc_paused

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: the outer one restores
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # paused by the caller: still paused
    finally:
        gc.enable()
    held = [[i] for i in range(10)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            pass
        assert gc.get_freeze_count() == frozen  # what the host froze stays frozen
    finally:
        gc.unfreeze()
    del held


@pytest.mark.parametrize("text", ['{"text": "Clear"', '{"text": "Clear"},{"text": "Rain"}', "not json"])
def test_a_payload_that_is_not_one_json_value_is_bad_input_naming_its_row(played, text):
    """The fast path parses a chunk's payloads joined into one array; an edited payload that breaks
    the join, or that would pass for two payloads, sends the chunk row by row, which names the row."""
    conn = sqlite3.connect(played)
    (seq,) = conn.execute("SELECT seq FROM events WHERE type = 'weather_set'").fetchone()
    conn.execute("UPDATE events SET payload = ? WHERE seq = ?", (text, seq))
    conn.commit()
    conn.close()
    led = _ledger(played)
    try:
        with pytest.raises(BadInput, match=f"payload of row {seq} is not JSON"):
            led.state(use_snapshot=False)
    finally:
        led.close()


def test_an_undo_appended_while_the_log_is_folded_is_not_half_seen(played, monkeypatch):
    """Another writer's undo lands between the fold's first query and its read of the reverts: the
    fold must give the state before that undo, not the rows it takes back without the undo itself."""
    import cli
    from events.store import Store

    before = _ledger(played)
    try:
        want = digest(before.state(use_snapshot=False))
    finally:
        before.close()
    real = Store.reverts
    done = []

    def reverts_after_another_writer(self, until=None):
        if not done:
            done.append(True)
            other = cli.Ledger(played, write=True)
            try:
                other.run({"name": "undo", "reason": "another writer, meanwhile"})
            finally:
                other.close()
        return real(self, until)

    monkeypatch.setattr(Store, "reverts", reverts_after_another_writer)
    led = _ledger(played)
    try:
        assert digest(led.state(use_snapshot=False)) == want
        assert done
    finally:
        led.close()
