"""The one roll value every rolling event carries (log --json shows it as `roll`)."""
from __future__ import annotations

from typing import Any

import attrs

from events import records


@records.frozen(slots=True)
class Drm:
    """One DRM/drm that applied, with the rule that gives it."""

    rule: str  # e.g. "2.12"
    reason: str  # in words: "bought an Attack Option for firefight 2"
    value: int


@records.frozen(slots=True)
class Roll:
    dice: tuple[int, ...]  # as rolled: (dr,) or (white, colored)
    drm: tuple[Drm, ...]
    final: int  # sum(dice) + sum(drm)
    table: str  # rule number of the table, e.g. "2.12"
    row: str  # the table row used, as printed: "<2", "5-10", ">12"
    outcome: Any  # the table's result (contract: cli-contract.md, log --json)
    manual: bool = False  # dice typed in with --dice (True) or rolled by the seeded roller (False)
    rolled: Any = None  # the table's own result where a rule then changed it (2.362 demotion)
    # who made the dice (ruling R31): "ledger" (the OS random source), "seeded" (the seeded roller),
    # "typed" (--dice); None in a campaign started before sources were recorded: derive it with
    # `source_of` (stored without the key, so old logs stay byte for byte as they were, ruling R32)
    source: str | None = None


SOURCES = ("ledger", "seeded", "typed", "two-party")


def source_of(roll: dict) -> str:
    """The source of a roll as stored (log --json's `roll`): recorded, or derived for an old log."""
    src = roll.get("source")
    if src is not None:
        return src
    return "typed" if roll.get("manual") else "seeded"


def roll_source(roll: dict, cmd: dict) -> str:
    """Where a roll's dice came from (log --json `source`): a two-party reveal's, typed in, the ledger's."""
    if roll.get("source") is not None:  # recorded with the roll (ruling R31): ledger, seeded, typed, two-party
        return roll["source"]
    if cmd.get("name") == "reveal":
        return "two-party"
    return source_of(roll)
