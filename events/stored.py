"""The generated constructors and clones, in one module (issue 33 item 7): an event class built from its
stored payload, at the cost of replay's hot loop (issue 22 item 3), and the typed state's clones.

The fold (cg/evolve.py) takes the event classes of events/types.py, one schema per event. Replay
folds ~111k events in a quarter of a second, where cattrs' `structure` (events/convert.py, which
checks every value) would add more than the whole fold, and even `cls(**payload)` a third. So each
type gets a constructor written for it once: the stored payload (already upcast to the current
version, events/upcasters.py) becomes the instance's attribute dict as it is (the top-level event
classes keep a `__dict__` for this), a key the writer left out (a default: `omit_if_default`, an old
opening) takes its default, and only the fields holding attrs values (a `Roll`, `UnitRef`s...) are
built, through the same kind of constructor. No value is checked: the store's rows were checked when
they were decided, and a row edited against its schema still fails in the handler that reads it
(AttributeError, KeyError, TypeError: cg/evolve names the row, never a crash). Lists stay lists where
the class says tuple (a tuple of plain values is read, never compared, by the fold).
"""
from __future__ import annotations

import types
import typing
from typing import Callable

import attrs

_BUILT: dict[type, Callable] = {}


def _nested(tp, scope: dict) -> str | None:
    """The expression converting a stored value `x` of type `tp`, or None where it is kept as stored."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if attrs.has(tp):
        scope[f"b_{tp.__name__}"] = value_builder(tp)
        return f"b_{tp.__name__}(x)"
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            e = _nested(inner[0], scope)
            return None if e is None else f"(None if x is None else {e})"
        return None
    if origin is tuple and args and attrs.has(args[0]):
        scope[f"b_{args[0].__name__}"] = value_builder(args[0])
        return f"tuple(b_{args[0].__name__}(y) for y in x)"
    return None


def _fields(cls) -> tuple:
    attrs.resolve_types(cls)
    return attrs.fields(cls)


def value_builder(cls) -> Callable[[dict], object]:
    """A nested value (a Roll, a UnitRef...: slots classes) from its stored dict, by its __init__."""
    if cls in _BUILT:
        return _BUILT[cls]
    scope: dict = {"cls": cls}
    args = []
    for a in _fields(cls):
        get = f"d[{a.name!r}]" if a.default is attrs.NOTHING else f"d.get({a.name!r}, dflt_{a.name})"
        scope[f"dflt_{a.name}"] = a.default
        e = _nested(a.type, scope)
        args.append(get if e is None else f"(lambda x: {e})({get})")
    exec(f"def build(d):\n    return cls({', '.join(args)})", scope)  # noqa: S102 (our own field names)
    _BUILT[cls] = scope["build"]
    return scope["build"]


def _dict_setter(cls) -> Callable:
    """The setter of the instances' `__dict__` (the descriptor of the first class of `cls`'s MRO that
    makes one): called directly it skips object.__setattr__'s lookup of it, ~25 ns an event."""
    for k in cls.__mro__:
        d = k.__dict__.get("__dict__")
        if d is not None:
            return d.__set__
    return lambda o, v: object.__setattr__(o, "__dict__", v)


def folder(cls, fn: Callable) -> Callable[[object, dict], object]:
    """fn(state, event) as a function of (state, stored payload dict): the `cls` instance is built
    from the payload as described above, in the same call."""
    fields = _fields(cls)
    scope: dict = {"new": object.__new__, "set_dict": _dict_setter(cls), "cls": cls,
                   "fn": fn, "n": len(fields),
                   "defaults": {a.name: a.default for a in fields if a.default is not attrs.NOTHING}}
    lines = ["def fold(st, p):", "    e = new(cls)", "    d = p"]
    if scope["defaults"]:  # a key left out by its writer: its default (in a copy: the payload stays as given);
        # by each defaulted key, not by the count alone: a key of no field (an edited row) must not hide a missing one
        missing = " or ".join(f"{k!r} not in d" for k in scope["defaults"])
        lines += [f"    if len(d) != n or {missing}:",
                  "        d = {**{k: v for k, v in defaults.items() if k not in d}, **d}"]
    for f in fields:  # the attrs values built, in a copy of the payload
        e = _nested(f.type, scope)
        if e is not None:
            lines += [f"    x = d.get({f.name!r})", "    if x is not None:", "        if d is p:",
                      "            d = dict(p)", f"        d[{f.name!r}] = {e}"]
    lines += ["    set_dict(e, d)  # the payload is the instance's attributes: no copy (frozen: never changed)",
              "    return fn(st, e)"]
    exec("\n".join(lines), scope)  # noqa: S102 (our own field names)
    return scope["fold"]


def cloner(cls, atomic, data: Callable, exprs: dict) -> Callable:
    """A function copying one `cls` instance field by field (the typed state's copies, cg/state.py): a
    value whose class is in `atomic` is kept, any other is copied by `data`, unless `exprs` gives the field
    its own expression of `x` (the original). The one other constructor generated in this module."""
    lines = ["def clone(x):", "    n = new(cls)"]
    for a in attrs.fields(cls):
        if a.name in exprs:
            lines.append(f"    n.{a.name} = {exprs[a.name]}")
        else:
            lines += [f"    v = x.{a.name}", f"    n.{a.name} = v if v.__class__ in atomic else data(v)"]
    lines.append("    return n")
    scope = {"new": object.__new__, "cls": cls, "atomic": atomic, "data": data}
    exec("\n".join(lines), scope)  # noqa: S102  (our own field names: attrs generates its methods the same way)
    return scope["clone"]


_ALONE: dict[type, Callable] = {}


def build(cls, payload: dict):
    """One event of `cls` from its stored payload (the fold's constructor, without a handler)."""
    make = _ALONE.get(cls)
    if make is None:
        make = builder(cls)
    return make(None, payload)


def builder(cls) -> Callable[[object, dict], object]:
    """build's constructor of `cls`: make(None, payload) is its instance (made once a process: writing one costs
    ~2 ms, a report's walk that wrote one per type it met would pay that per type)."""
    make = _ALONE.get(cls)
    if make is None:
        make = _ALONE[cls] = folder(cls, lambda _st, o: o)
    return make
