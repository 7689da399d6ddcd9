"""CG5 terrain changes: rubble from HE attacks (B24.11/B24.12) and the RePh fire step (3.31/3.311).

Pure: the map's geometry and terrain come in as arguments (a neighbour callable, dicts and sets);
the result is a list of changes for the caller to record.
"""
from __future__ import annotations

from typing import Callable

import attrs

from cg.tables import falling_rubble, rubble_created

DIRECTIONS = (1, 2, 3, 4, 5, 6)  # B.8: the white die of the Falling Rubble DR


def direction_of(white: int) -> int:
    """B24.12 / B.8: the white die gives the direction (1..6) the rubble falls."""
    if isinstance(white, bool) or not isinstance(white, int) or white not in DIRECTIONS:
        raise ValueError(f"white die {white!r}: 1-6")
    return white


@attrs.frozen
class RubbleResult:
    hex: str
    created: bool  # B24.11
    fell: bool  # B24.12
    direction: int | None  # B.8, when it fell
    fell_into: str | None  # the hex it fell into; None when it did not fall or fell off the map
    changes: tuple[tuple[str, str], ...]  # (hex, "rubble")
    levels: int = 0  # B24.12 drm used on the colored dr: non-rooftop levels above ground rubbled

    @property
    def off_map(self) -> bool:
        return self.fell and self.fell_into is None


def _die(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise ValueError(f"die {value!r}: 1-6")
    return value


def resolve_rubble(hex: str, kia: int, stone: bool, level: int, dice: tuple[int, ...],
                   neighbour: Callable[[str, int], str | None], *, top_level: int | None = None) -> RubbleResult:
    """B24.11 rubble creation in building Location `level` of `hex`, then B24.12 falling rubble.

    dice: (creation dr,) when no upper level is rubbled, else (creation dr, white, colored).
    top_level: the hex's highest non-rooftop building level (default `level`); the rubbled level and
    every level above it count for the falling-rubble drm. Rubble falling into another building may
    start a chain (B24.121): the caller resolves that hex in turn.
    """
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise ValueError(f"building level {level!r}: 0 or more")
    top = level if top_level is None else top_level
    if isinstance(top, bool) or not isinstance(top, int) or top < level:
        raise ValueError(f"top_level {top_level!r}: at least the rubbled level {level}")
    upper = top >= 1  # B24.12: an upper level building hex is rubbled
    dice = tuple(dice)
    want = 3 if upper else 1
    if len(dice) != want:
        shape = "(creation dr, white, colored)" if upper else "(creation dr,)"
        raise ValueError(f"dice {list(dice)}: this rubble check takes {shape}")
    for d in dice:
        _die(d)
    levels = top - max(level, 1) + 1 if upper else 0  # B24.11: the level hit and all above it
    created = rubble_created(dice[0], stone, kia)
    if not created:
        return RubbleResult(hex, False, False, None, None, (), levels)
    changes: list[tuple[str, str]] = [(hex, "rubble")]
    if not upper:
        return RubbleResult(hex, True, False, None, None, tuple(changes), levels)
    white, colored = dice[1], dice[2]
    if not falling_rubble(colored, levels):
        return RubbleResult(hex, True, False, None, None, tuple(changes), levels)
    direction = direction_of(white)
    into = neighbour(hex, direction)
    if into is not None:
        changes.append((into, "rubble"))  # B24.121: ground-level rubble in the hex it falls into
    return RubbleResult(hex, True, True, direction, into, tuple(changes), levels)


FIRE_ITEMS = ("flame", "blaze")


def resolve_3_31(terrain: dict[str, list[str]], buildings: set[str], same_date: bool,
                 neighbours: Callable[[str], list[str]], *,
                 burnable: Callable[[str], bool] | None = None) -> list[tuple[str, str, str]]:
    """3.31 Flames/Blazes and 3.311 Burning Wrecks: the changes (hex, "add"|"remove", item), in order.

    terrain: items per hex ("flame", "blaze", "burning_wreck", "rubble", "cleared_open_ground", ...).
    buildings: building hexes (a burnt-out one becomes Rubble). burnable(hex): whether a Flame can go
    there; by default every hex except one marked "cleared_open_ground" (burnt-out Open Ground).
    """
    def items(h: str) -> list[str]:
        return list(terrain.get(h, ()))

    def can_burn(h: str) -> bool:
        if h in buildings:
            return True
        if burnable is not None:
            return bool(burnable(h))
        return "cleared_open_ground" not in items(h)

    changes: list[tuple[str, str, str]] = []

    def add(h: str, op: str, item: str) -> None:
        if (h, op, item) not in changes:
            changes.append((h, op, item))

    flames = [h for h in terrain if "flame" in terrain[h]]
    blazes = [h for h in terrain if "blaze" in terrain[h]]
    wrecks = [h for h in terrain if "burning_wreck" in terrain[h]]

    if same_date:
        sources = blazes  # 3.31: Blazes created before this step
        flipped = [h for h in flames if h not in blazes]
    else:
        # 3.31: each Flame counts as a Blaze already; 3.311: each burning wreck hex as a Blaze
        # ruling R24: 3.311 "Otherwise" means "not on the same date"; then the wreck hex spreads like a Blaze
        # even where its own terrain cannot burn
        sources = [h for h in terrain if h in flames or h in blazes or h in wrecks]
        flipped = []
    source_set = set(sources)
    burning_after = set(flipped)  # hexes still on fire after the step (new Flames are added below)

    for h in flipped:  # 3.31 Flame -> Blaze
        add(h, "remove", "flame")
        add(h, "add", "blaze")

    for h in sources:
        fire = [it for it in FIRE_ITEMS if it in items(h)]
        for it in fire:  # ruling R24: a hex's fire burns out as a whole (a Flame beside its Blaze goes too)
            add(h, "remove", it)
        if fire or can_burn(h):
            if h in buildings or "rubble" in items(h):
                # 3.31: a burnt-out building becomes Rubble; ruling R24: burnt-out rubble stays rubble
                if "rubble" not in items(h):
                    add(h, "add", "rubble")
            elif "cleared_open_ground" not in items(h):
                add(h, "add", "cleared_open_ground")  # 3.31: marker, hex is now Open Ground
        for n in neighbours(h):
            # ruling R24: no Flame into a hex burning out in this step, one still burning, or one that cannot burn
            if n in source_set or n in burning_after or not can_burn(n):
                continue
            add(n, "add", "flame")

    for h in wrecks:  # 3.311
        add(h, "remove", "burning_wreck")
        add(h, "add", "burnt_out_wreck")
        if same_date and can_burn(h) and h not in source_set and h not in burning_after:
            add(h, "add", "flame")
    return changes
