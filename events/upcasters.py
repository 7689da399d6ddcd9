"""The upcasters: a stored payload of an older event version brought up to the current one.

Plain functions on payload dicts, with the current versions taken from events/versions.py: reading a
log that holds old versions (`status` on a file of the first release, whose first event is a
campaign_started v1) needs neither the attrs event classes nor cattrs. events/convert.py turns the
upcast payload into an event class where a caller wants one.
"""
from __future__ import annotations

from typing import Callable

from events.errors import BadInput
from events.versions import VERSIONS

# (type, from_version) -> function upgrading a payload dict to from_version + 1
UPCASTERS: dict[tuple[str, int], Callable[[dict], dict]] = {}


def upcaster(etype: str, from_version: int):
    def wrap(fn):
        UPCASTERS[(etype, from_version)] = fn
        return fn

    return wrap


def upcast(etype: str, version: int, payload: dict) -> dict:
    """Bring a stored payload up to the current version of its event type; an event this release
    does not know (a newer type or version, or no upcaster) is bad input, never a crash."""
    current = VERSIONS.get(etype)
    if current is None or version > current:
        raise BadInput(f"the log holds {etype} v{version}, which this plcg does not know: upgrade plcg")
    while version < current:
        step = UPCASTERS.get((etype, version))
        if step is None:
            raise BadInput(f"the log holds {etype} v{version}, which this plcg cannot upgrade "
                           f"(no upcaster from v{version})")
        payload = step(payload)
        version += 1
    return payload


@upcaster("campaign_started", 1)
def _started_v1(payload: dict) -> dict:
    """A log of the first release was decided under rules revision 1 (ruling R32)."""
    return {**payload, "rules_revision": 1}
