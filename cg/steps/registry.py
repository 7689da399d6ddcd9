"""Where an event's fold and words are registered: `@on(type)` (what the event does to the state) and
`@words(type)` (the event in words), each a function of the event's class instance (events/types.py).

An event's fold and words stand in the module of the phase whose step writes it (cg/steps/purchase.py,
before.py, end.py, reph.py; where several steps write it, the first in the step order), beside that step;
an event written at any step (play by email's, a rules upgrade) in cg/steps/anywhere.py; the fold loop's own
events (the campaign's start, `step_left`, undo, a sealed secret and its opening) have theirs in cg/evolve.py.
The tables are filled as those modules are imported: `import cg.steps` fills every step's, and `import
cg.evolve` (which imports cg.steps) all of them: projections/words.py imports it.
"""
from __future__ import annotations

from typing import Callable

from events.stored import build
from events.types import REGISTRY

FOLDS: dict[str, Callable] = {}  # type name -> fn(state, event of that type's class): cg/evolve.py folds with it
WORDS: dict[str, Callable[..., str]] = {}  # type name -> fn(event) -> str: projections/words.py says it


def on(name: str):
    """The fold of the event class registered as `name` in events/types.py: fn(state, event)."""
    def wrap(fn):
        FOLDS[name] = fn
        return fn

    return wrap


def words(*names: str):
    """The words of the events registered as `names` in events/types.py: fn(event) -> str."""
    def wrap(fn):
        for name in names:
            WORDS[name] = fn
        return fn

    return wrap


# the events the other side may read as a Known Minefield (ruling R22: projections/words._seen marks them "secret")
MAY_BE_SECRET = frozenset(("fortified", "fortification_placed"))


def said(etype: str, p: dict) -> str:
    """A stored event in words (its `@words` given its class's instance, built from the payload); one marked
    "secret", as the other side reads it (ruling R22); a type with no words yet, at least not snake_case.
    projections/words.summary says a whole log with a memo of the constructors; a seal's opened events
    (cg/evolve.py) are said here."""
    fn = WORDS.get(etype)
    if fn is None:
        return etype.replace("_", " ")
    if etype in MAY_BE_SECRET and "secret" in p:
        return fn(build(REGISTRY[etype], {k: v for k, v in p.items() if k != "secret"}), True)
    return fn(build(REGISTRY[etype], p))
