"""An event's stored form (its payload dict) without cattrs: what a write stores, as events/convert.py's
converter unstructures it, so a write imports no cattrs (~0.5x `python -c pass` of every write, issue 36
item 2; reading, importing and the audit keep the converter, which also structures).

The converter's rules, kept here: an attrs value becomes the dict of its fields in order, a field named
in OMITTED_IF_DEFAULT (and a roll's `source`) left out where it holds its default; a tuple or a list becomes
a list, a dict a dict, an enum its value, each item converted the same way; any other value is kept as it is.
tests/test_payload.py compares the two on every event of the demo and the old logs.
"""
from __future__ import annotations

import enum
import types
import typing
from typing import Callable

import attrs

# A key added to an event later is stored only when it is given, so an event without it is stored
# byte for byte as every release before wrote it (and the audit decides old commands to the same text):
# a campaign_started without play by email has no `pbem`, a leader_rolled not placed no `hex` (3.45), a
# patrol_resolved with no DRM typed no `typed` (2.74, ruling R26), a disease_replaced that Replaced (not
# Disrupted, A19.12) no `disrupted`, a units_stranded whose CVP were the players' to record (before ruling R95)
# no `counted`, a firefight_ended without VASL logs (issue 37 item 11) no `vasl_logs`, a sealed that is no
# concealed setup (ruling R112) no `hex`.

OMITTED_IF_DEFAULT = {"campaign_started": ("pbem",), "leader_rolled": ("hex",), "patrol_resolved": ("typed",),
                       "disease_replaced": ("disrupted",), "units_stranded": ("counted",),
                       "firefight_ended": ("vasl_logs",), "sealed": ("hex",),
                       "dice_committed": ("value", "chain")}  # ruling R83: a commitment of ruling R44 as before
# by class name: a roll without a recorded source (an old campaign) is stored without the key, byte for byte as
# the release that wrote it (ruling R32)
OMITTED_IF_DEFAULT_VALUES = {"Roll": ("source",)}

_PLAIN = frozenset((str, int, bool, float, type(None)))
_BY_CLASS: dict[type, Callable] = {}


def unstructure(event) -> dict:
    """The payload dict the store keeps for `event` (an event class instance, events/types.py)."""
    return _of(event.__class__)(event)


def _value(v):
    c = v.__class__
    if c in _PLAIN:
        return v
    if c is tuple or c is list:
        return [_value(x) for x in v]
    if c is dict:
        return {_value(k): _value(x) for k, x in v.items()}
    if attrs.has(c):
        return _of(c)(v)
    if isinstance(v, enum.Enum):
        return v.value
    return v


def _of(cls) -> Callable:
    """The dict maker of an attrs class: each field converted as its declared type says (_field), the omitted
    ones last (where cattrs puts them), left out at their default."""
    make = _BY_CLASS.get(cls)
    if make is None:
        attrs.resolve_types(cls)
        omitted = set(OMITTED_IF_DEFAULT.get(getattr(cls, "TYPE", ""), ())) | \
            set(OMITTED_IF_DEFAULT_VALUES.get(cls.__name__, ()))
        kept = [(a.name, _field(a.type)) for a in attrs.fields(cls) if a.name not in omitted]
        last = [(a.name, _field(a.type), _default(a)) for a in attrs.fields(cls) if a.name in omitted]

        def make(obj, kept=kept, last=last) -> dict:
            out = {name: conv(getattr(obj, name)) for name, conv in kept}
            for name, conv, default in last:
                v = getattr(obj, name)
                if v != default:
                    out[name] = conv(v)
            return out
        _BY_CLASS[cls] = make
    return make


def _default(a: attrs.Attribute):
    """A field's default (an attrs.Factory's value made)."""
    factory = getattr(a.default, "factory", None)
    return a.default if factory is None else factory()


def _field(tp) -> Callable:
    """How a field of declared type `tp` is converted: a plain type (or one or None) kept as it is, a tuple of
    fixed length (or None) a tuple of converted items, anything else by the value's own class (_value)."""
    args = [a for a in typing.get_args(tp) if a is not type(None)] \
        if typing.get_origin(tp) in (typing.Union, types.UnionType) else [tp]
    if len(args) == 1:
        inner = args[0]
        if inner in _PLAIN:
            return _same
        if typing.get_origin(inner) is tuple and ... not in typing.get_args(inner):
            return _fixed_tuple
    return _value


def _same(v):
    return v


def _fixed_tuple(v):
    return None if v is None else tuple(_value(x) for x in v)
