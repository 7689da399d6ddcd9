"""attrs records with one repr written once, not one attrs writes and compiles per class.

attrs compiles each class's generated methods at import; its `__repr__` is a third of that, and every
command imports the state's, the card's and the events' classes before it does anything (start-up,
docs/performance.md). `define` and `frozen` are attrs' own with `repr=False` and this repr, whose text is
attrs' (`Unit(id='I1-1.1', side='axis', ...)`: tests/test_events.py compares it with attrs-made twins).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import attrs


def plain_repr(self) -> str:
    """The record as attrs writes it: its class name and each field that shows in its repr, `name=value!r`."""
    fields = attrs.fields(type(self))
    return f"{type(self).__name__}({', '.join(f'{a.name}={getattr(self, a.name)!r}' for a in fields if a.repr)})"


def as_tuple(value) -> tuple:
    """A field's converter to a tuple: `tuple` itself, as a Python function, because attrs reads a converter's
    signature and a builtin's is parsed from its text through `tokenize` (its pattern compiled on first use:
    ~0.2x `python -c pass` of the command that first builds such a class, issue 36 item 2)."""
    return tuple(value)


def _with(make, maybe_cls, kw):
    def wrap(cls):
        cls = make(cls, repr=False, **kw)
        cls.__repr__ = plain_repr
        return cls

    return wrap if maybe_cls is None else wrap(maybe_cls)


if TYPE_CHECKING:  # to the type checker they are attrs' own (they are attrs classes: only the repr differs)
    from attrs import define, frozen
else:
    def define(maybe_cls=None, **kw):
        """attrs.define, with plain_repr."""
        return _with(attrs.define, maybe_cls, kw)

    def frozen(maybe_cls=None, **kw):
        """attrs.frozen, with plain_repr."""
        return _with(attrs.frozen, maybe_cls, kw)
