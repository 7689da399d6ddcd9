"""The current schema version of every event type: the table its declarations in events/types.py fill
(`@event(name, version=N)`, 1 by default), so an event's version stands with its class.

Reading a log (status, replay) knows from it which stored events need upcasting: importing events.types
declares the classes and builds none (they are made attrs classes when first used), so neither the attrs
classes nor cattrs are paid for.
"""
from events.types import VERSIONS

__all__ = ["VERSIONS"]
