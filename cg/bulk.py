"""Loading a campaign in bulk: the cyclic garbage collector paused while acyclic data is built.

Folding the log and loading a snapshot allocate tens of thousands of dicts, lists and attrs objects
that stay alive (the state) or die by reference counting (payloads). None of them form cycles, but
every 700 allocations the collector walks the young objects anyway, and now and then the whole heap:
on a long campaign that is a third of the snapshot load. Pausing it for the load changes nothing
else; a collection that was due simply runs after it.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    if not gc.isenabled():  # nested, or the caller paused it: leave it as found
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
