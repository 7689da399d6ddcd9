"""Loading a campaign in bulk: the cyclic garbage collector kept out of the way of acyclic data.

Folding the log and loading a snapshot allocate tens of thousands of dicts, lists and attrs objects
that stay alive (the state) or die by reference counting (payloads). None of them form cycles, but
every 700 allocations the collector walks the young objects anyway, and now and then the whole heap:
inside a command that was a third of the snapshot load. So the collector is paused for the load,
and what survived it is moved straight to the oldest generation (gc.freeze then gc.unfreeze: two
list splices, which also reset the young count) instead of being walked once more by the first
young collection after it. Nothing else changes: cycles among those objects, had there been any,
are still found by the next full collection.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


class _StartUp:
    """Whether the command line froze what its start-up made (freeze_start_up): then nothing frozen is
    unfrozen, and gc_paused need not count the frozen objects to know it (gc.get_freeze_count walks every
    one of them: ~0.4 ms for the command line's ~37,000, twice in a `status`)."""

    frozen = False


def freeze_start_up(collecting: bool, frozen: bool = True) -> None:
    """The end of cli.py's start-up, which paused the collector before its imports (`collecting`: whether it ran
    then). The start-up makes ~37,000 tracked objects (modules, classes, functions, tables) and no garbage: where
    `frozen`, every object tracked so far goes to the permanent generation, which no collection walks, the
    interpreter's last one at exit included (issue 36 item 2: ~8% of a `status`'s instructions); not where a test
    runner imported plcg (its objects are its own: tests/test_replay_paths.py). The collector then runs as before."""
    if frozen:
        gc.freeze()
        _StartUp.frozen = True
    if collecting:
        gc.enable()


@contextmanager
def gc_paused():
    if not gc.isenabled():  # nested, or the caller paused it: leave it as found
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        # a host process that froze objects itself (the command line's start-up too) keeps them frozen
        if not _StartUp.frozen and gc.get_freeze_count() == 0:
            gc.freeze()  # every tracked object to the permanent generation, unwalked ...
            gc.unfreeze()  # ... and back into the oldest one
        gc.enable()
