"""Where an event's fold and words are registered: `@on(type)` (what the event does to the state) and
`@words(type)` (the event in words), each a function of the event's class instance (events/types.py).

An event's fold and words stand in the module of the phase whose step writes it (cg/steps/purchase.py,
before.py, end.py, reph.py; where several steps write it, the first in the step order), beside that step;
an event written at any step (play by email's, a rules upgrade) in cg/steps/anywhere.py; the fold loop's own
events (the campaign's start, `step_left`, undo, a sealed secret and its opening) keep theirs in cg/evolve.py
and projections/words.py. The tables are filled as those modules
are imported: `import cg.steps` fills every step's (cg/evolve.py and projections/words.py import it).
"""
from __future__ import annotations

from typing import Callable

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
