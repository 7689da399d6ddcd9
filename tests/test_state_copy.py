"""CampaignState.copy (field by field, no deepcopy) and the memoised map pictures (cg/state.py): a copy
equals its original and is independent of it, whichever side is changed afterwards; a picture is
never one of a control that changed since."""
from __future__ import annotations

import copy

import attrs
import pytest

from cg import snapshot
from cg.app.demo import play
from cg.state import CampaignState
from cg.app.ledger import Ledger


@pytest.fixture(scope="module")
def state(tmp_path_factory) -> CampaignState:
    path = str(tmp_path_factory.mktemp("copy") / "c.plcg")
    play(path, echo=lambda s: None)
    led = Ledger(path)
    try:
        return led.state(use_snapshot=False)
    finally:
        led.close()


def _dump(st: CampaignState) -> bytes:
    return snapshot.dump(st)  # every field of the state and of each unit, purchase, firefight, side


def _changed(v):
    return "changed" if not isinstance(v, str) else v + "!"


def _scalars_only(v) -> bool:
    return all(not isinstance(getattr(v, f.name), (dict, list, set)) and not attrs.has(type(getattr(v, f.name)))
               for f in attrs.fields(type(v)))


def _change_everything(x, seen=None) -> None:
    """Change every value reachable from x in place: each field, each container; but the elements of
    a firefight's `lost` list, which the copy shares (evolve only ever appends new pairs)."""
    seen = set() if seen is None else seen
    if id(x) in seen:
        return
    seen.add(id(x))
    if attrs.has(type(x)):
        for a in attrs.fields(type(x)):
            v = getattr(x, a.name)
            if a.name == "card":
                continue
            if a.name == "lost":
                v.append(["axis", "changed"])
            elif attrs.has(type(v)) and _scalars_only(v):  # a frozen value (Position): replaced, as evolve does
                setattr(x, a.name, attrs.evolve(v, **{f.name: _changed(getattr(v, f.name)) for f in attrs.fields(type(v))}))
            elif isinstance(v, (dict, list, set)) or attrs.has(type(v)):
                _change_everything(v, seen)
            else:
                try:
                    setattr(x, a.name, _changed(v))
                except attrs.exceptions.FrozenInstanceError:  # an immutable value (a kept item): shared, unchanged
                    pass
    elif isinstance(x, dict):
        for v in list(x.values()):
            if isinstance(v, (dict, list, set)) or attrs.has(type(v)):
                _change_everything(v, seen)
        x["changed"] = 1
    elif isinstance(x, list):
        for v in x:
            if isinstance(v, (dict, list, set)) or attrs.has(type(v)):
                _change_everything(v, seen)
        x.append("changed")
    elif isinstance(x, set):
        x.add("changed")


def test_a_copy_equals_its_original_and_shares_the_card(state):
    twin = state.copy()
    assert twin is not state and _dump(twin) == _dump(state)
    assert twin.card is state.card
    assert copy.deepcopy(state).card is state.card


@pytest.mark.parametrize("changed", ["copy", "original"])
def test_changing_a_copy_or_its_original_leaves_the_other_as_it_was(state, changed):
    original = state.copy()
    twin = original.copy()
    before = _dump(twin)
    _change_everything(twin if changed == "copy" else original)
    untouched = original if changed == "copy" else twin
    assert _dump(untouched) == before


def test_every_unit_purchase_firefight_and_side_is_a_new_object(state):
    twin = state.copy()
    pairs = [(twin.units, state.units), (twin.purchases, state.purchases), (twin.sides, state.sides)]
    for new, old in pairs:
        assert new.keys() == old.keys()
        assert all(new[k] is not old[k] and attrs.asdict(new[k]) == attrs.asdict(old[k]) for k in new)
    assert all(a is not b for a, b in zip(twin.firefights, state.firefights))
    assert len(state.units) > 10 and len(state.purchases) > 3


def test_the_map_picture_follows_the_control_as_it_changes(state):
    st = state.copy()
    hx, side = next(iter(st.ground.control.items()))
    other = "allied" if side == "axis" else "axis"
    first = st.map_control()
    assert first.hexes[hx].controller == side
    st.ground.control[hx] = other  # changed in place, as evolve does
    assert st.map_control().hexes[hx].controller == other
    assert state.map_control().hexes[hx].controller == side  # another state, the other control
    st.ground.control[hx] = side
    assert st.map_control() is first  # the same control: the memoised picture
    assert st.grid() is state.grid()
