"""The snapshot's hot/cold split (cg/snapshot.py): a command loads only the hot part; the settled units
are loaded when something asks for them. Derived data: every answer equals the full fold's."""
from __future__ import annotations

import sqlite3

import orjson
import pytest

from cg.app import demo
from cg.commands import decide
from events.errors import PlcgError
from cg import snapshot
from cg.snapshot import settled, settled_purchase
from cg.steps import pending
from cg.app.ledger import Ledger
from cg.app.replay import refresh_snapshot as _refresh_snapshot
from projections.status import status_dict
from events.convert import unstructure
from events.store import Store
from projections.digest import digest


def _lossy(cold_writes, mid_path):
    """The demo with two squads a side lost at each firefight's end (units settle), recording the
    firefight of every cold-part write and copying the file once firefight 4 is at its purchases."""
    def around(led, cmd, run):
        st = led.state(lazy=True)
        if cmd["name"] == "end":
            lost = []
            for side in ("axis", "allied"):
                lost += [f"{side}:{u.id}" for u in st.side_units(side) if u.kind == "squad"][:2]
            cmd = dict(cmd, lost=lost)
        if mid_path and st.firefight == 4 and st.step == "2.3" and not mid_path.exists():
            dst = sqlite3.connect(mid_path)
            led.store.conn.backup(dst)
            dst.close()
        return run(cmd)

    return around


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    d = tmp_path_factory.mktemp("snap")
    path, mid = d / "c.plcg", d / "mid.plcg"
    writes: list = []
    real = Store._put_snapshot

    def spy(self, seq, h, blob):
        if isinstance(blob, tuple) and blob[1] is not None:
            writes.append(orjson.loads(snapshot.unseal(blob[0]))["state"]["firefight"])
        return real(self, seq, h, blob)

    Store._put_snapshot = spy
    try:
        demo.play(str(path), echo=lambda s: None, around=_lossy(writes, mid))
    finally:
        Store._put_snapshot = real
    return path, mid, writes


def _same_answers(path):
    led = Ledger(str(path))
    try:
        lazy = led.state(lazy=True)
        full = led.state(use_snapshot=False)
        assert lazy._cold is not None and lazy._cold_n > 0  # loaded hot only
        assert len(lazy.units) < len(full.units)
        assert status_dict(lazy) == status_dict(full) and pending(lazy) == pending(full)
        assert lazy.leaders_made == sum(1 for u in full.units.values() if u.kind == "leader")
        assert lazy._cold is not None  # status did not need the settled units
        return led, lazy, full
    except BaseException:
        led.close()
        raise


def _decided(st, cmd, seq):
    try:
        return [(type(e).__name__, unstructure(e)) for e in decide(st.copy(), cmd, seq)]
    except PlcgError as e:
        return (type(e).__name__, str(e))


def test_hot_state_answers_as_the_fold(played):
    path, _, _ = played
    led, lazy, full = _same_answers(path)
    led.close()
    assert digest(lazy) == digest(full)  # digest loads all
    assert lazy._cold is None and list(lazy.units) == list(full.units)  # same units, same order


def test_decide_on_hot_state(played):
    _, mid, _ = played
    _refresh_snapshot(str(mid), Ledger(str(mid)).state(use_snapshot=False), Store.open(str(mid)).head())
    led, lazy, full = _same_answers(mid)
    head = led.store.head()[0]
    led.close()
    dead = next(u for u in full.units.values() if settled(u, full.firefight))
    old = next(p for p in full.purchases.values() if settled_purchase(full, p))
    assert old.id not in lazy.purchases
    alive = next(u for u in full.side_units("axis") if u.kind == "squad")
    cmds = [
        {"name": "buy", "side": "axis", "rg": "I1", "mode": "entry"},
        {"name": "buy", "side": "allied", "rg": "I1", "mode": "entry"},
        {"name": "next"},
        {"name": "leader", "side": old.side, "rg": old.id},  # a settled purchase: refused
        {"name": "oba", "side": old.side, "rg": old.id},
        {"name": "setup", "side": dead.side, "unit": dead.id, "hex": "L4"},  # a settled unit: refused
        {"name": "setup", "side": alive.side, "unit": alive.id, "hex": "L4"},
    ]
    for cmd in cmds:
        assert _decided(lazy, cmd, head + 1) == _decided(full, cmd, head + 1), cmd


def test_cold_part_written_once_per_firefight(played):
    _, _, writes = played
    assert len(writes) >= 3
    assert len(writes) == len(set(writes)), writes  # never twice within one firefight
    assert writes == sorted(writes)


def test_mismatched_cold_token_refolds(played, tmp_path):
    path, _, _ = played
    p = tmp_path / "m.plcg"
    src = sqlite3.connect(path)
    dst = sqlite3.connect(p)
    src.backup(dst)
    src.close()
    dst.execute("UPDATE snapshot_cold SET token = 'other'")
    dst.commit()
    dst.close()
    led = Ledger(str(p))
    st = led.state(lazy=True)
    full = led.state(use_snapshot=False)
    led.close()
    assert st._tail is None  # refolded from the log
    assert status_dict(st) == status_dict(full) and digest(st) == digest(full)


def test_file_without_cold_table_opens(played, tmp_path):
    path, mid, _ = played
    for src_path in (path, mid):
        p = tmp_path / f"old-{src_path.name}"
        src = sqlite3.connect(src_path)
        dst = sqlite3.connect(p)
        src.backup(dst)
        src.close()
        dst.execute("DROP TABLE snapshot_cold")
        dst.commit()
        dst.close()
        led = Ledger(str(p))  # read-only
        st = led.state(lazy=True)
        want = digest(led.state(use_snapshot=False))
        led.close()
        assert st._tail is None and digest(st) == want
    # a write recreates it: the next snapshot is split again
    w = Ledger(str(p), write=True)
    w.run({"name": "buy", "side": "axis", "rg": "I1", "mode": "entry"})
    w.close()
    led = Ledger(str(p))
    assert led.store.cold_token() is not None
    st = led.state(lazy=True)
    assert st._tail is not None and st._cold is not None
    assert digest(st) == digest(led.state(use_snapshot=False))
    led.close()


def test_the_fingerprint_is_made_of_every_module_that_holds_fold_code():
    """A snapshot is trusted only by the fold code that built it: every module holding an event's fold (`@on`,
    beside its step in cg/steps/ since issue 33 item 4) or what leaving and entering a step does to the state
    (`on_left`, `on_enter`) is among the files its fingerprint hashes, with the folds' shared pieces."""
    import sys
    from pathlib import Path

    from cg.steps import STEPS
    from cg.steps.registry import FOLDS

    here = Path(snapshot.__file__).resolve().parent
    hashed = {(here / name).resolve() for name in snapshot.FOLD_CODE}
    holders = {fn.__module__ for fn in FOLDS.values()}
    holders |= {fn.__module__ for s in STEPS for fn in (s.on_left, s.on_enter) if fn is not None}
    holders.add("cg.steps.changes")  # what several steps' folds call
    assert {Path(sys.modules[m].__file__).resolve() for m in holders} <= hashed
