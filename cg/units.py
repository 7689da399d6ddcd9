"""The unit vocabulary: what a counter of the campaign is, where it is, and the questions the rules ask.

Kinds and statuses are `StrEnum`s whose values are the words the log and the snapshot have always stored
("squad", "on_map"), so a stored unit reads as before and compares equal to its member. Every rule that
asks "is this an MMC" asks it here (tests/test_units.py walks the code for a bare comparison of a kind or
a status word outside this module).

ASL A1.1: Multi-Man Counters (MMC) are squads, half-squads and crews; Single Man Counters (SMC) are
leaders and heroes (A1.2). Personnel are both.
"""
from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    """What a unit is (ruling R18: from its counter's name and its RG's kind, `cg.state.unit_kind`)."""

    LEADER = "leader"  # SMC (A1.2); a heroic leader keeps this kind and the `hero` flag
    SQUAD = "squad"  # MMC (A1.1)
    HALF_SQUAD = "hs"  # MMC (A1.1)
    CREW = "crew"  # MMC (A1.1): of a Gun or a vehicle
    SW = "sw"  # Support Weapon (A1.4)
    GUN = "gun"  # Ordnance (C)
    VEHICLE = "vehicle"  # AFV or other vehicle (D)
    OTHER = "other"  # anything else the card lists (a unit of an RG of another kind)

    @property
    def is_mmc(self) -> bool:
        """A1.1: squads, half-squads and crews (PL 3.44 hardening, 3.45 placement and limit, 2.74 size)."""
        return self in MMC

    @property
    def is_smc(self) -> bool:
        """A1.2: leaders (a Hero SMC made in play is a unit with the `hero` flag)."""
        return self is Kind.LEADER

    @property
    def is_personnel(self) -> bool:
        """MMC or SMC: what a patrol is made of (2.72) and what Random Selection strikes (ruling R29)."""
        return self in PERSONNEL

    @property
    def hs_equivalents(self) -> int:
        """Ruling R26 (2.74 size): a squad is two half-squads, a half-squad or a crew one, others none."""
        return 2 if self is Kind.SQUAD else 1 if self in (Kind.HALF_SQUAD, Kind.CREW) else 0

    @property
    def repairable(self) -> bool:
        """3.46: what a repair dr can be for (a weapon or a vehicle, never personnel)."""
        return self in REPAIRABLE


MMC = frozenset({Kind.SQUAD, Kind.HALF_SQUAD, Kind.CREW})
# 2.37: a leader sets up stacked with a MMC/AFV of its RG, a SW/Gun with a unit of its RG (by kind)
OWNERS = {"leader": ("squad", "hs", "crew", "vehicle"), "sw": ("squad", "hs", "crew", "leader", "vehicle"),
          "gun": ("squad", "hs", "crew", "leader", "vehicle")}
PERSONNEL = MMC | {Kind.LEADER}
REPAIRABLE = frozenset({Kind.SW, Kind.GUN, Kind.VEHICLE, Kind.OTHER})


class Status(StrEnum):
    """Where a unit of the order of battle is."""

    AVAILABLE = "available"  # in the OB, off map or with no recorded hex (a roster-only campaign)
    ON_MAP = "on_map"  # set up (2.6) or redeployed onto the map
    RESERVE = "reserve"  # bought In Reserve (2.33) and not yet released
    ELIMINATED = "eliminated"
    CAPTURED = "captured"
    EVACUATED = "evacuated"  # 3.32
    RECALLED = "recalled"  # 3.461
    EXPENDED = "expended"  # CG7: a used OBA module or Air Support
    RECOMBINED = "recombined"  # 3.42: a half-squad gone into the squad it recombined into (`oob`: recombined)

    @property
    def in_play(self) -> bool:
        """Still in the side's order of battle: it may set up, redeploy, patrol or be lost."""
        return self in IN_PLAY


IN_PLAY = frozenset({Status.AVAILABLE, Status.ON_MAP, Status.RESERVE})
PRESENT = frozenset({Status.AVAILABLE, Status.ON_MAP})  # in play and not held In Reserve (2.33)


def kind(value: str) -> Kind:
    """The member for a stored word (a unit of a log written by any release)."""
    return Kind(value)


def is_mmc(value: str) -> bool:
    return value in MMC


def is_smc(value: str) -> bool:
    return value == Kind.LEADER


def is_personnel(value: str) -> bool:
    return value in PERSONNEL


_AN_INITIALS = set("AEFHILMNORSX")  # initialisms said letter by letter: "an AFV", "an OBA", "an ELR"
# ASL's abbreviations read as their words, as the rules write them: "a MMC", "a DC" (a half-squad, a Support
# Weapon, a Light Machine Gun...)
_READ_AS_WORDS = frozenset({"HS", "MMC", "SMC", "SW", "LMG", "MMG", "HMG", "MG", "FT", "DC", "ATR", "MTR", "LATW"})


def article(word: object) -> str:
    """`word` with its indefinite article, as spoken: "a squad", "an allied CTHC", "an 8-3-8", "an AFV", "a MMC"."""
    w = str(word)
    head = w.split()[0] if w.split() else w
    lead = head[:1]
    if lead.isdigit():  # eight, eleven, eighteen
        an = lead == "8" or head.startswith(("11", "18")) and not head[2:3].isdigit()
    elif head.isupper() and len(head) > 1 and head.isalpha():
        an = lead in _AN_INITIALS and head not in _READ_AS_WORDS
    else:
        low = head.lower()
        an = low[:1] in "aeiou" and not low.startswith(("uni", "use", "usu", "one", "eu"))
    return f"{'an' if an else 'a'} {w}"
