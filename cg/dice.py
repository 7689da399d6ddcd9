"""Dice: a dr (one die) or a DR (white die, colored die), rolled by the ledger from the operating
system's random source, by the seeded roller, or given by hand (ruling R31).

The ledger's own dice (`os_dice`, a campaign started without --seed) cannot be foreseen by anyone:
they are recorded with the command that rolled them (its `ledger_dice`), which is how the audit
decides the command again. The seeded roller is HMAC-SHA256 over the campaign seed and the position of the roll (event seq and
the roll's index inside that event), so any reader holding the log can re-derive every die.
"""
from __future__ import annotations

import hashlib
import hmac

import attrs

from events import osrandom
from events import records
from events.errors import BadInput


@records.frozen(slots=True)
class Dice:
    values: tuple[int, ...]  # (dr,) or (white, colored)
    manual: bool = False  # True: typed in with --dice; False: rolled by the ledger
    source: str | None = None  # "ledger" | "seeded" | "typed"; None in a campaign without sources (R32)

    @property
    def total(self) -> int:
        return sum(self.values)

    @property
    def white(self) -> int:
        return self.values[0]

    @property
    def colored(self) -> int:
        return self.values[-1]


def seeded(seed: str, seq: int, index: int, count: int) -> Dice:
    """The ledger's own roll for roll `index` of the event at `seq`: `count` dice of 1..6."""
    values = []
    for die in range(count):
        msg = f"{seq}:{index}:{die}".encode()
        digest = hmac.new(seed.encode(), msg, hashlib.sha256).digest()
        # 2**64 % 6 bias is below 1e-18: irrelevant for play, and the audit re-derives the same way.
        values.append(int.from_bytes(digest[:8], "big") % 6 + 1)
    return Dice(tuple(values), manual=False)


TAKES = {  # what a roll takes, in the one wording every dice error uses
    1: "one die (a dr), e.g. --dice 4",
    2: "two dice (a DR: white,colored), e.g. --dice 3,5",
    3: "three dice (a dr, then white,colored), e.g. --dice 4,3,5",
}


def bad_dice(text, count: int) -> BadInput:
    """The one dice error: '--dice 7,1: this roll takes two dice (a DR: white,colored), e.g. --dice 3,5;
    each die shows 1-6'."""
    takes = TAKES.get(count, f"{count} dice")
    shown = text if isinstance(text, str) and text and text.strip() == text and " " not in text else repr(text)
    return BadInput(f"--dice {shown}: this roll takes {takes}; each die shows 1-6")


def os_dice(count: int) -> tuple[int, ...]:
    """`count` dice from the operating system's random source (ruling R31): nobody can foresee them."""
    return tuple(osrandom.randbelow(6) + 1 for _ in range(count))


def parse(text: str | None, count: int) -> Dice | None:
    """`--dice N` (a dr) or `--dice W,C` (a DR). None when no dice were given."""
    if text is None:
        return None
    parts = [p.strip() for p in str(text).split(",")]
    try:
        values = tuple(int(p) for p in parts)
    except ValueError:
        raise bad_dice(text, count) from None
    if len(values) != count or any(v < 1 or v > 6 for v in values):
        raise bad_dice(text, count)
    return Dice(values, manual=True)


def check(values: tuple[int, ...] | list[int], count: int) -> None:
    if len(values) != count or any(not isinstance(v, int) or v < 1 or v > 6 for v in values):
        raise bad_dice(",".join(str(v) for v in values), count)
