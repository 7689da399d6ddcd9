"""The cattrs converter for the event classes.

`unstructure(event)` gives the payload dict the store keeps (a write makes it with events/payload.py, without
cattrs: tests/test_payload.py holds the two equal); `structure(type, version, payload)`
gives the attrs event back, upgrading an old version first (events/upcasters.py, which needs no
cattrs: reading an old log upcasts without importing this module). Every event type round-trips
exactly (tests/test_events.py).
"""
from __future__ import annotations

from typing import Any

import cattrs
from cattrs.gen import make_dict_unstructure_fn, override

from events.payload import OMITTED_IF_DEFAULT
from events.roll import Roll
from events.types import REGISTRY
from events.upcasters import upcast

converter = cattrs.Converter()
# A roll's outcome is an int, a str or None (table results): keep it as it is.
converter.register_structure_hook(Any, lambda v, _t: v)


def _roll_hook():
    """A roll without a recorded source (an old campaign) is stored without the key: byte for byte
    as the release that wrote it (ruling R32)."""

    converter.register_unstructure_hook(
        Roll, make_dict_unstructure_fn(Roll, converter, source=override(omit_if_default=True)))


_roll_hook()

# A key added to an event later is stored only when it is given (events/payload.py says which and why), the
# hook for its class made when one is first unstructured: importing this module builds no event class (a write
# builds those it writes, events/types.py)
converter.register_unstructure_hook_factory(
    lambda cls: getattr(cls, "TYPE", None) in OMITTED_IF_DEFAULT,
    lambda cls: make_dict_unstructure_fn(cls, converter,
                                         # the keys are field names (cattrs' AttributeOverride kwargs), never its _cattrs_ flags
                                         **{k: override(omit_if_default=True) for k in OMITTED_IF_DEFAULT[cls.TYPE]}))  # type: ignore[arg-type]


def unstructure(event) -> dict:
    return converter.unstructure(event)


def structure(etype: str, version: int, payload: dict):
    cls = REGISTRY[etype]
    return converter.structure(upcast(etype, version, payload), cls)
