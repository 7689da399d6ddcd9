"""What a write needs beyond a read: the command handlers (`cg.commands`: decide a command, the first event
of a campaign) and the events' stored form (`events.payload`: the event classes' payload dicts, without cattrs). The ledger
takes this module where a write starts (`Ledger.create`, `Ledger.run`, cg/app/ledger.py's `_writer`): a
read (`status`, `head`, `log`...) imports neither (~70 ms, `python -X importtime`; tests/test_startup.py).
"""
from __future__ import annotations

from cg import commands
from cg.commands import decide_all
from cg.evolve import evolve
from events.payload import unstructure

__all__ = ["decide_all", "start_event", "unstructure", "decided_into"]


def start_event(*args):
    """The campaign's first event (cg/commands/flow.py, loaded by `new` alone)."""
    return commands.start_event(*args)


def decided_into(scratch, cmd: dict, seq: int) -> list:
    """Decide `cmd` on `scratch` (a copy of the state at seq - 1) and fold its events into it: the events."""
    events = decide_all(scratch, cmd, seq, None)
    for i, e in enumerate(events):
        evolve(scratch, e.TYPE, unstructure(e), seq + i, seq)
    return events
