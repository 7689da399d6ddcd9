"""`plcg replay` builds the state's records once, without attrs' generic recursion (issues 22 and 28).

Counted, not timed. The replay dumps the folded state twice, as the snapshot and for the digest: each
unit's tuple and each purchase's dict are made once for both (cg/snapshot.shared), by builders made
for the record classes instead of `attrs.astuple` / `attrs.asdict`, and they must give what those
give (the digest and the snapshot are the same bytes: test_old_logs, test_undo_snapshot).
"""
from __future__ import annotations

from collections import Counter

import attrs
import pytest

from cg import snapshot
from cg.app.ledger import Ledger
from tests.conftest import cli_run

def test_replay_builds_each_record_once_without_attrs_recursion(r1, monkeypatch):
    generic = Counter()
    for name in ("astuple", "asdict"):
        real = getattr(attrs, name)
        monkeypatch.setattr(attrs, name, lambda *a, _n=name, _r=real, **k: generic.update([_n]) or _r(*a, **k))
    built = Counter()
    real_tuple, real_dict = getattr(snapshot, "_new_tuple", None), getattr(snapshot, "_new_dict", None)
    monkeypatch.setattr(snapshot, "_new_tuple", lambda o, get: built.update([("t", id(o))]) or real_tuple(o, get),
                        raising=False)  # (the code before had none: it fails on the count of attrs' calls)
    monkeypatch.setattr(snapshot, "_new_dict", lambda o: built.update([("d", id(o))]) or real_dict(o),
                        raising=False)
    r = cli_run(r1, "replay")
    assert r.code == 0, r.err
    led = Ledger(str(r1))
    try:
        st = led.state(use_snapshot=False)
    finally:
        led.close()
    assert generic == Counter(), generic  # the code before: attrs.astuple per unit, twice
    tuples = sum(1 for kind, _ in built if kind == "t")
    assert tuples == len(st.units), (tuples, len(st.units))  # every unit once: the snapshot and the digest
    assert max(built.values()) == 1, [k for k, v in built.items() if v > 1][:5]


def test_the_builders_give_what_attrs_gives(r1):
    led = Ledger(str(r1))
    try:
        st = led.state(use_snapshot=False)
    finally:
        led.close()
    assert st.units and st.purchases and st.firefights
    for u in st.units.values():
        assert snapshot._as_tuple(u) == attrs.astuple(u)
    for rec in [*st.purchases.values(), *st.firefights, *st.sides.values()]:
        assert snapshot._as_dict(rec) == attrs.asdict(rec)
