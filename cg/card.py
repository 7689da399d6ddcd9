"""The CG Card (1.2): the campaign's own data as frozen values.

Reading and checking a card file is `cg/card_schema.py` (docs/cg-card.md is the contract).
"""
from __future__ import annotations

import re
from typing import Any, cast

import attrs

from cg.counters import overrides_for
from events import records


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
MOONS = ("none", "partial", "full")  # 2.74: +1 for No Moon or Full Moon
OB_SETUPS = ("on-map", "entry")  # 1.2 OB given: set up on the map, or entering on a game turn
TERRAIN_KEYS = ("woods", "orchard", "brush", "grain", "roads", "bridges")  # [map] terrain the rules read
BURNABLE = ("woods", "orchard", "brush", "grain")  # 3.31: Flames spread into them (ruling R35)
CONCEALMENT = ("woods", "orchard", "brush", "grain", "buildings")  # 2.73: an Ambush mission hex (ruling R36)
BALANCE_EFFECTS = ("cp_drm", "leader_drm", "oba_drm", "historical_drm", "elr", "san", "initial_cp")  # 1.3
QUALITIES = ("elite", "first_line", "second_line", "green", "conscript")  # 3.47
ELR_MAX = 5  # 3.47: some CGs start at 5
MAX_ROWS = 99
# Column letters, ASL style: A..Z, then doubled letters AA, BB, ... (board columns run to GG).
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # string.ascii_uppercase, without the string module's import
COLUMN_LETTERS = tuple(_LETTERS) + tuple(c * 2 for c in _LETTERS)

_HEX_RE = re.compile(r"^([A-Za-z]+)0*([1-9][0-9]*)$")
_COLUMNS_RE = re.compile(r"^([A-Za-z]+)-([A-Za-z]+)$")


def hexgrid():
    """cg.hexgrid, the map's geometry: every reader of the map's hexes (map control, the map views, checking a
    card file's hexes) reaches it through here (`MapSpec.grid`), so that `status` and most reads never import
    it; a map of boards takes cg.boards through it (`hexgrid().boards()`)."""
    from cg import hexgrid  # lazy: cg.hexgrid (~3.3 ms) only where a card's map of hexes is read

    return hexgrid


def single_grid(columns: str, rows: int):
    """The cg.hexgrid.Grid of a single map of `columns` (such as "A-GG") and `rows`."""
    return hexgrid().Grid.from_spec(columns, rows)


# --------------------------------------------------------------------------------------------------
# The card as values


@records.frozen
class Balance:
    """One 1.3 Balance Provision: chosen at `plcg new --balance SIDE:N`; its numbers add to the side's."""

    side: str  # the side it favours
    text: str
    cp_drm: int = 0
    leader_drm: int = 0
    oba_drm: int = 0
    historical_drm: int = 0
    elr: int = 0
    san: int = 0
    initial_cp: int = 0


@records.frozen
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
    theater: str | None = None  # eto | pto | ...: "pto" switches the 2.74 PTO DRMs
    booby_traps: bool | None = None  # CG12: false refuses Booby Traps (2.38 n6); None: as a first-format card
    fortifications: dict[str, int] | None = None  # 2.38: allowed kinds -> limit over the CG; None: all, no limit
    balance: tuple[Balance, ...] = ()  # 1.3 Balance Provisions
    balance_chosen: tuple[str, ...] = ()  # written by `plcg new --balance`: "axis:1", already applied
    ssr: tuple[str, ...] = ()  # third round: the card's special rules as printed, shown by `card show` and the AAR

    @property
    def pto(self) -> bool:
        """2.74: the PTO DRMs apply (day patrols lose their +2, night patrols get it)."""
        return self.theater == "pto"


@records.frozen
class Firefight:
    date: str  # ISO yyyy-mm-dd
    time: str  # day | night
    weather: str | None = None  # 2.2 (None: as the previous firefight)
    moon: str | None = None  # night only: none | partial | full
    turns: int | None = None  # CG2: the last possible game turn
    attacker: str | None = None  # 1.34 historical ATTACKER
    fsr: tuple[str, ...] = ()  # Firefight Special Rules

    @property
    def moon_drm(self) -> bool:
        """2.74: +1 to a night patrol for No Moon or Full Moon."""
        return self.time == "night" and self.moon in ("none", "full")


@records.frozen
class MapSpec:
    columns: str | None  # "A-R"; None on a map of geomorphic boards
    rows: int | None
    strategic: tuple[str, ...]  # the card's list + every TVP and building hex (1.4), map order
    water: tuple[str, ...]  # 3.52
    tvp: dict[str, int]  # 3.33
    friendly_edge: dict[str, str]  # side -> north | south | east | west
    buildings: tuple[str, ...] = ()  # building hexes (3.31, rubble); includes the stone ones
    stone: tuple[str, ...] = ()  # stone building hexes
    boards: tuple[tuple[str, ...], ...] = ()  # geomorphic boards, rows west to east, north to south; "23*" turned
    woods: tuple[str, ...] = ()
    orchard: tuple[str, ...] = ()
    brush: tuple[str, ...] = ()
    grain: tuple[str, ...] = ()
    roads: tuple[str, ...] = ()
    bridges: tuple[str, ...] = ()
    entry: dict[str, tuple[str, ...]] = attrs.Factory(dict)  # side -> edges and hex ranges (1.4 Entry Area)
    hills: dict[str, int] = attrs.Factory(dict)  # third round: hex -> hill level (1, 2, ...), map order
    hexsides: dict[str, tuple[str, ...]] = attrs.Factory(dict)  # third round: wall | hedge | bocage -> "24E4-24E5"
    frozen: tuple[str, ...] = ()  # hexes of `water` frozen over for the CG: Accessible to Infantry (2.73, ruling R96)

    @property
    def column_letters(self) -> tuple[str, ...]:
        return columns_of(self.columns) if self.columns else ()

    def grid(self):
        """The map's hexes: a cg.hexgrid.Grid, or a cg.boards.Geometry for a map of geomorphic boards."""
        if self.boards:
            return hexgrid().board_grid(self.boards)
        return single_grid(cast(str, self.columns), cast(int, self.rows))  # a single grid: both are set (the card check)

    def describe(self) -> str:
        if self.boards:
            return "boards " + " / ".join(" ".join(r) for r in self.boards)
        return f"columns {self.columns}, rows 1-{self.rows}"

    def on_map(self, hex_id: str) -> bool:
        if self.boards:
            return self.grid().valid(hex_id)
        parts = split_hex(hex_id)
        return parts is not None and parts[0] in self.column_letters and 1 <= parts[1] <= cast(int, self.rows)


@records.frozen
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
    available_from: int = 1  # first firefight (1-based) it may be bought at
    available_until: int | None = None  # last one; None: to the end
    max_per_reph: int | None = None  # purchases per RePh, beside `max`
    reserve: bool = True  # false: never bought In Reserve (2.33)
    commissar: bool = False  # Russian: a 2.361 * result may be a Commissar (A25.22)
    time: str | None = None  # third round: "day" | "night": bought only for firefights at that time of day
    # 3.52: its squads are Assault Engineers (ruling R96); None: not said, read from its name as before
    assault_engineers: bool | None = None

    def available_at(self, firefight: int) -> bool:
        return self.available_from <= firefight and (self.available_until is None or firefight <= self.available_until)

    def availability(self) -> str:
        if self.available_from == 1 and self.available_until is None:
            when = "every firefight"
        elif self.available_until is None:
            when = f"from firefight {self.available_from}"
        else:
            when = f"firefights {self.available_from}-{self.available_until}"
        if self.time is not None:
            when += f", {self.time} firefights only"
        return when


@records.frozen
class Ob:
    """A unit group of the OB given (1.2): on the map from the start, or entering on a game turn; no CP."""

    id: str
    name: str
    kind: str
    quality: str | None
    units: tuple[str, ...]
    leaders: tuple[str, ...] = ()
    leader_drs: int = 0  # 2.36 leader DRs owed for it
    platoons: int = 0
    setup: str = "on-map"  # on-map | entry
    enters: int | None = None  # entry: the game turn it enters on
    hexes: tuple[str, ...] = ()
    armor_leader: bool = False  # 2.361 Armor Ldr column for its leader DRs
    area: tuple[str, ...] = ()  # third round: its setup area as printed ("23K-Q", "west of 24G"), on-map only


@records.frozen
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
    ob: tuple[Ob, ...] = ()  # the OB given (1.2)
    reserve: bool = True  # third round: false: this side buys nothing In Reserve (2.33)
    booby_traps: str | None = None  # third round: None as the campaign's; "none", or the level "A" | "B" | "C" (B28.9)
    fortifications: dict[str, int] | None = None  # third round: this side's 2.38 kinds and limits; None: the campaign's

    def group_by_id(self, group_id: str) -> Rg | Ob | None:
        """An RG, or a group of the OB given (its leader DRs and Purchase Record row name it)."""
        wanted = group_id.strip().upper()
        return self.rg_by_id(wanted) or next((g for g in self.ob if g.id == wanted), None)

    def rg_by_id(self, rg_id: str) -> Rg | None:
        wanted = rg_id.strip().upper()
        for rg in self.rg:
            if rg.id == wanted:
                return rg
        return None


@records.frozen
class Card:
    campaign: Campaign
    firefights: tuple[Firefight, ...]
    map: MapSpec
    sides: dict[str, Side]  # exactly "axis" and "allied"
    counters: dict = attrs.Factory(dict)  # ruling R34: nationality -> counter -> overrides
    victory: object = None  # cg.victory.Victory: the CG Victory Conditions (1.3, ruling R74); None: not stated

    def counter_overrides(self, side: str) -> dict:
        """Ruling R34: the card's `[counters]` entries for a side's nationality (cg.counters.lookup's overrides)."""
        return overrides_for(self.counters, self.sides[side].nationality)

    def firefight(self, n: int) -> Firefight | None:
        """Firefight n (1-based) of the card's list; None past its end."""
        return self.firefights[n - 1] if 1 <= n <= len(self.firefights) else None

    def weather_at(self, n: int) -> str:
        """2.2: the firefight's weather, else the last one given before it, else the initial weather."""
        weather = self.campaign.initial_weather
        for ff in self.firefights[:n]:
            if ff.weather:
                weather = ff.weather
        return weather


# --------------------------------------------------------------------------------------------------
# Hexes


def apply_balance(card: Card, choices) -> Card:
    """1.3: the card with the chosen Balance Provisions ("SIDE:N", N counted 1.. among SIDE's) added to
    the sides' values; `campaign.balance_chosen` records them. ValueError names a bad choice."""
    chosen = []
    sides = dict(card.sides)
    for choice in choices:
        side, _, n = str(choice).strip().lower().partition(":")
        own = [b for b in card.campaign.balance if b.side == side]
        if side not in SIDES or not n.isdigit() or not 1 <= int(n) <= len(own):
            listed = ", ".join(
                f"{s}:{i}" for s in SIDES for i, _ in enumerate([b for b in card.campaign.balance if b.side == s], 1)
            )
            raise ValueError(f"--balance {choice!r}: the card's Balance Provisions are {listed or 'none'} (1.3)")
        key = f"{side}:{int(n)}"
        if key in chosen or key in card.campaign.balance_chosen:
            raise ValueError(f"--balance {key} is given twice")
        chosen.append(key)
        b = own[int(n) - 1]
        s = sides[side]
        sides[side] = attrs.evolve(s, **{k: getattr(s, k) + getattr(b, k) for k in BALANCE_EFFECTS})
        if not 0 <= sides[side].elr <= ELR_MAX:
            raise ValueError(f"--balance {key}: {side} ELR would be {sides[side].elr} (0..{ELR_MAX}, 3.47)")
    campaign = attrs.evolve(card.campaign, balance_chosen=card.campaign.balance_chosen + tuple(chosen))
    return attrs.evolve(card, campaign=campaign, sides=sides)


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
