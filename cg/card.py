"""The CG Card (1.2): the campaign's own data as frozen values.

Reading and checking a card file is `cg/card_schema.py` (docs/cg-card.md is the contract).
"""
from __future__ import annotations

import re
import string
from typing import Any

import attrs


SIDES = ("axis", "allied")  # 1.4: Axis Side, Allied Side
INTENSITIES = ("low", "mid", "high")  # 2.11
PATROLS_BY_INTENSITY = {"low": 1, "mid": 2, "high": 3}  # 2.31
TIMES = ("day", "night")
EDGES = ("north", "south", "east", "west")
RG_KINDS = (
    "infantry",
    "heavy_weapons",
    "gun",
    "afv",
    "vehicle",
    "oba",
    "fortification_points",
    "air",
    "other",
)
QUALITIES = ("elite", "first_line", "second_line", "green", "conscript")  # 3.47
ELR_MAX = 5  # 3.47: some CGs start at 5
MAX_ROWS = 99
# Column letters, ASL style: A..Z, then doubled letters AA, BB, ... (board columns run to GG).
COLUMN_LETTERS = tuple(string.ascii_uppercase) + tuple(c * 2 for c in string.ascii_uppercase)

_HEX_RE = re.compile(r"^([A-Za-z]+)0*([1-9][0-9]*)$")
_COLUMNS_RE = re.compile(r"^([A-Za-z]+)-([A-Za-z]+)$")


# --------------------------------------------------------------------------------------------------
# The card as values


@attrs.frozen
class Campaign:
    name: str
    intensity: str  # low | mid | high (2.11)
    reserves: bool  # In Reserve purchases allowed (2.33)
    patrols_per_reph: int  # resolved: the card's, else 1 / 2 / 3 by intensity (2.31); 0 = no patrols
    initial_attacker: str  # axis | allied: the Initial Firefight ATTACKER (2.4, ruling R2)
    initial_weather: str  # 2.2
    max_infantry_platoons: int = 3  # 2.3, per purchase step (ruling R12)
    disease: bool = False  # 3.41 in force (FSR)
    legacy_leader_drm: bool = False  # 2.361 legacy nationality drm in force


@attrs.frozen
class Firefight:
    date: str  # ISO yyyy-mm-dd
    time: str  # day | night


@attrs.frozen
class MapSpec:
    columns: str  # "A-R"
    rows: int
    strategic: tuple[str, ...]  # the card's list + every TVP and building hex (1.4), map order
    water: tuple[str, ...]  # 3.52
    tvp: dict[str, int]  # 3.33
    friendly_edge: dict[str, str]  # side -> north | south | east | west
    buildings: tuple[str, ...] = ()  # building hexes (3.31, rubble); includes the stone ones
    stone: tuple[str, ...] = ()  # stone building hexes

    @property
    def column_letters(self) -> tuple[str, ...]:
        return columns_of(self.columns)

    def on_map(self, hex_id: str) -> bool:
        parts = split_hex(hex_id)
        return parts is not None and parts[0] in self.column_letters and 1 <= parts[1] <= self.rows


@attrs.frozen
class Rg:
    id: str  # I1, HW2, A1, O1, F1 ...: the letters give the type (2.33)
    name: str
    kind: str  # one of RG_KINDS
    quality: str | None  # infantry only (3.47)
    leader_drs: int  # 2.36: platoon 1, company 4, section 0
    platoons: int  # infantry platoons it counts as for the 2.3 limit (ruling R12)
    armor_leader: bool  # 2.361 Armor Ldr column
    cost: int  # CP, before the 2.34 setup change
    max: int  # purchases allowed in the whole CG
    fp: int  # fortification_points only: FP gained per purchase (2.38)
    units: tuple[str, ...]
    strength: str | None = None  # free text, e.g. an OBA module's caliber


@attrs.frozen
class Side:
    nationality: str  # lower case; picks the 2.361 column
    elr: int  # 3.47
    san: int
    cp_drm: int  # 2.12
    leader_drm: int  # 2.361
    oba_drm: int  # 2.351
    historical_drm: int  # 2.351, 2.361, 3.41, 3.44, 3.47
    promotion_drm: int  # 3.44
    initial_cp: int  # 2.3, Initial Firefight
    attack_cost: int  # ruling R3
    control: tuple[str, ...]  # 1.32
    rg: tuple[Rg, ...]
    patrol_cost: int = 1  # 2.31
    cp_provided: tuple[int, ...] = ()  # 2.1 EXC: CP for firefights 2, 3, ... instead of the 2.12 DR

    def rg_by_id(self, rg_id: str) -> Rg | None:
        wanted = rg_id.strip().upper()
        for rg in self.rg:
            if rg.id == wanted:
                return rg
        return None


@attrs.frozen
class Card:
    campaign: Campaign
    firefights: tuple[Firefight, ...]
    map: MapSpec
    sides: dict[str, Side]  # exactly "axis" and "allied"


# --------------------------------------------------------------------------------------------------
# Hexes


def columns_of(spec: str) -> tuple[str, ...]:
    """The column letters of a columns spec such as "A-R" or "A-GG"; () when the spec is not valid."""
    m = _COLUMNS_RE.match(spec.strip()) if isinstance(spec, str) else None
    if not m:
        return ()
    first, last = m.group(1).upper(), m.group(2).upper()
    if first not in COLUMN_LETTERS or last not in COLUMN_LETTERS:
        return ()
    i, j = COLUMN_LETTERS.index(first), COLUMN_LETTERS.index(last)
    return COLUMN_LETTERS[i : j + 1] if i <= j else ()


def split_hex(hex_id: str) -> tuple[str, int] | None:
    """("C", 4) for "C4" or "c04"; None when it is not a hex id."""
    m = _HEX_RE.match(hex_id.strip()) if isinstance(hex_id, str) else None
    if not m:
        return None
    return m.group(1).upper(), int(m.group(2))


def _hex_sort_key(hex_id: str) -> tuple[int, str, int]:
    col, row = split_hex(hex_id) or ("", 0)
    idx = COLUMN_LETTERS.index(col) if col in COLUMN_LETTERS else len(COLUMN_LETTERS)
    return idx, col, row


# --------------------------------------------------------------------------------------------------
# Checking


def card_to_dict(card: Card) -> dict:
    """Plain JSON-able data (arrays as lists); parse_card(card_to_dict(card)) == card."""
    return _plain(attrs.asdict(card))


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v


def describe(card: Card) -> str:
    """One line: firefights, dates, intensity, nationalities."""
    ffs = card.firefights
    n = len(ffs)
    dates = ffs[0].date if ffs[0].date == ffs[-1].date else f"{ffs[0].date} to {ffs[-1].date}"
    nights = sum(1 for f in ffs if f.time == "night")
    night = f" ({nights} at night)" if nights else ""
    axis, allied = card.sides["axis"].nationality, card.sides["allied"].nationality
    return (
        f"{n} firefight{'s' if n != 1 else ''}{night}, {dates}, {card.campaign.intensity} intensity, "
        f"{axis} vs {allied}, {card.campaign.initial_attacker} attacks first"
    )
