"""Every event class in events/types.py round-trips exactly through events/convert.py:
unstructure -> orjson dumps/loads (what the store keeps) -> structure == the original.

The strategies are built from each class's own type hints, so a new event class or field is covered
without touching this file (a hint the builder does not know fails loudly)."""
from __future__ import annotations

import functools
import types
import typing

import attrs
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events import types as ev
from events.convert import OMITTED_IF_DEFAULT, structure, unstructure
from events.roll import Drm, Roll

TEXT = st.text(max_size=12)
INT = st.integers(min_value=-(2 ** 53), max_value=2 ** 53)
# a table result (Roll.outcome / rolled): an int, a word, or none
ANY = st.one_of(st.none(), st.booleans(), INT, TEXT)
JSON = st.recursive(st.one_of(st.none(), st.booleans(), INT, TEXT),
                    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
                    max_leaves=8)


def strategy(hint) -> st.SearchStrategy:
    """A strategy for one type hint of an event field."""
    if hint is typing.Any:
        return ANY
    if hint is str:
        return TEXT
    if hint is bool:
        return st.booleans()
    if hint is int:
        return INT
    if hint is dict:
        return st.dictionaries(TEXT, JSON, max_size=4)  # the whole CG Card: a JSON object
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*[st.none() if a is type(None) else strategy(a) for a in args])
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(strategy(args[0]), max_size=3).map(tuple)
        return st.tuples(*[strategy(a) for a in args])
    if origin is dict:
        return st.dictionaries(strategy(args[0]), strategy(args[1]), max_size=3)
    if attrs.has(hint):
        return builds(hint)
    raise TypeError(f"no strategy for the event field type {hint!r}: teach tests/test_events.py")


@functools.lru_cache(maxsize=None)
def builds(cls) -> st.SearchStrategy:
    hints = typing.get_type_hints(cls, vars(ev) | {"Roll": Roll, "Drm": Drm, "Any": typing.Any})
    return st.builds(cls, **{f.name: strategy(hints[f.name]) for f in attrs.fields(cls)})


def round_trip(event):
    payload = orjson.loads(orjson.dumps(unstructure(event)))
    return structure(event.TYPE, event.VERSION, payload)


NAMES = sorted(ev.REGISTRY)


def test_the_registry_holds_every_event_class():
    classes = set(ev.Event.__subclasses__())  # every class declared an event (built when asked for)
    assert classes == set(ev.REGISTRY.values())
    assert len(NAMES) >= 30
    for name, cls in ev.REGISTRY.items():
        assert cls.TYPE == name and cls.VERSION >= 1 and attrs.has(cls)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_event_round_trips_exactly(name, data):
    event = data.draw(builds(ev.REGISTRY[name]))
    back = round_trip(event)
    assert back == event
    assert type(back) is type(event)
    # tuples come back as tuples, not lists: the structured value is the same value, field by field
    for f in attrs.fields(type(event)):
        assert type(getattr(back, f.name)) is type(getattr(event, f.name)), f.name


def _roll(outcome, rolled=None) -> Roll:
    return Roll(dice=(3, 4), drm=(Drm("3.47", "won firefight 1", -1), Drm("3.47", "2 firefight(s)", 2)),
                final=8, table="3.47", row="4-12", outcome=outcome, manual=True, rolled=rolled)


HAND_BUILT = [
    ev.CampaignStarted(product="plcg", product_version="0.1.0", rules="Platoon Leader 2.5", seed="s",
                       card_ref="sample", card={"campaign": {"name": "X", "reserves": True},
                                                "firefights": [{"date": "1944-07-14"}]}, redeployment=None,
                       rules_revision=2),
    ev.CpReplenished(side="axis", roll=Roll(dice=(1, 1), drm=(), final=2, table="2.12", row="<2", outcome=16),
                     gained=16, total=20),
    ev.CpReplenished(side="axis", roll=None, gained=7, total=9),
    ev.RgBought(side="allied", rg="I1", purchase="I1-2", mode="reserve", base_cost=5, delta=-1, cost=4, cp_left=14,
                platoons=1, units=(ev.UnitRef("I1-2.1", "6-6-7"), ev.UnitRef("I1-2.4", "BAZ 44")), fp=0),
    ev.LeaderRolled(side="axis", purchase="I1-2", roll=_roll("9-2", rolled="10-2"),
                    unit=ev.UnitRef("I1-2.L2", "9-2")),
    ev.LeaderRolled(side="axis", purchase=None, roll=_roll(None), unit=None, generated=True),
    ev.FirefightDetermined(type="dual", attacker=None, setup_first="axis", move_first="allied",
                           rolls=(_roll("axis"), _roll("allied"))),
    ev.FirefightEnded(turn=6, cvp_lost={"axis": 14, "allied": 9}, winner="axis", winner_rule="1.31",
                      control=(ev.SideHex("allied", "H6"),), lost=(ev.SideUnit("axis", "I1-1.2"),),
                      terrain=(ev.HexItem("I5", "rubble"),), repairs=(ev.HexItem("axis:MG1", "malfunction"),)),
    ev.ElrRolled(side="allied", roll=_roll(4), before=5, after=4),
    ev.TerrainChanged(rule="3.31", changes=(ev.TerrainChange("H6", "remove", "flame"),), rolls=(), note=""),
    ev.Reverted(seqs=(4, 5, 6), reason="typo", force=True, restores=False),
    ev.ClearanceRolled(side="allied", hex="C5", item="mines", roll=_roll("no effect"), casualty_reduction=True),
    ev.RulesUpgraded(revision=2, from_firefight=3),
]


@pytest.mark.parametrize("event", HAND_BUILT, ids=[e.TYPE for e in HAND_BUILT])
def test_hand_built_events_round_trip(event):
    assert round_trip(event) == event


def test_a_changed_payload_does_not_round_trip_to_the_original():
    """The comparison is not vacuous: a payload changed in the store gives a different event."""
    e = HAND_BUILT[4]
    payload = orjson.loads(orjson.dumps(unstructure(e)))
    payload["roll"]["drm"][0]["value"] = -2
    assert structure(e.TYPE, e.VERSION, payload) != e
    assert isinstance(structure(e.TYPE, e.VERSION, payload).roll.drm, tuple)


def _records():
    """Every class made by events/records.py: the events' and their values', those of the state, the card, the
    items and the tables, the dice, the counters, the maps' geometry and control, the specs, the steps, the
    victory conditions, a command's context, the rolls and the store's rows."""
    import attrs

    from cg import card, control, counters, dice, hexgrid, items, specs, state, tables, victory
    from cg.commands import base
    from cg.steps import step
    from events import roll, store, types
    from events.records import plain_repr

    assert types.UnitRef  # the events' value classes are built when first asked for (events/types.py)
    mods = (types, state, card, items, tables, dice, counters, hexgrid, control, specs, step, victory, base, roll,
            store)
    return sorted({c for m in mods for c in vars(m).values()
                   if isinstance(c, type) and attrs.has(c) and c.__repr__ is plain_repr}, key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", _records(), ids=lambda c: c.__name__)
def test_a_record_reads_as_attrs_would_write_it(cls):
    # events/records.py writes one repr for every record class instead of attrs compiling one per class (a
    # third of the class's creation, paid at every command's start): the text is attrs' own, checked against
    # an attrs-made twin of the class, field by field as each shows in the repr
    import attrs

    fields = attrs.fields(cls)
    twin = attrs.make_class(cls.__name__, {a.name: attrs.field(repr=a.repr) for a in fields}, slots=False)
    values = {a.name: (i, f"v{i}", None, ["x"], {"k": 1})[i % 5] for i, a in enumerate(fields)}
    mine, theirs = object.__new__(cls), object.__new__(twin)
    for k, v in values.items():
        object.__setattr__(mine, k, v)
        object.__setattr__(theirs, k, v)
    assert repr(mine) == repr(theirs)


@pytest.mark.parametrize("name", sorted(OMITTED_IF_DEFAULT))
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_key_added_later_is_stored_only_when_given(name, data):
    """events/convert.py's hooks, made when a class is first unstructured: a key added to an event later is
    left out at its default (the payload as every release before wrote it), and stored when it is given."""
    cls = ev.REGISTRY[name]
    event = data.draw(builds(cls))
    keys = OMITTED_IF_DEFAULT[name]
    defaults = {a.name: a.default for a in attrs.fields(cls) if a.name in keys}
    assert set(defaults) == set(keys)
    assert not set(keys) & set(unstructure(attrs.evolve(event, **defaults)))
    kept = {k: v for k, v in attrs.asdict(event, recurse=False).items() if k in keys and v != defaults[k]}
    assert set(kept) <= set(unstructure(event))
