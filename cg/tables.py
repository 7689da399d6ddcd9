"""Every PL 2.5 table as data, each row beside its rule number, with the lookups.

Pure: no I/O, no state, no dice. Rule numbers are those of PL 2.5 (shared/rules/002_...txt) unless
they start with a letter (ASL: B24, A23, Table 30a).

Row labels are kept as printed, read by ruling R1: "<2" is "2 or less", ">12" is "12 or more".
A final DR beyond a table's printed extremes falls in its first or last row (so 3.52 "1-3" also
takes a final 0 or -1).
"""
from __future__ import annotations

import math
import re
from typing import cast

import attrs

from events import records


@records.frozen
class Hit:
    """The result of a lookup: the table's rule number, the row used (as printed), the result."""

    table: str
    row: str
    result: object


def _bounds(label: str) -> tuple[float, float]:
    """A printed row label to its (low, high) bounds, both inclusive. # ruling R1"""
    if m := re.fullmatch(r"<(-?\d+)", label):
        return (-math.inf, int(m[1]))
    if m := re.fullmatch(r">(-?\d+)", label):
        return (int(m[1]), math.inf)
    if m := re.fullmatch(r"(-?\d+)-(-?\d+)", label):
        return (int(m[1]), int(m[2]))
    if m := re.fullmatch(r"-?\d+", label):
        return (int(label), int(label))
    raise ValueError(f"row label {label!r} is not a DR range")


def _final(value: object, what: str = "final") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    return value


@records.frozen
class Table:
    """One printed table: its rule, its result columns and its rows (label as printed, one result per column)."""

    rule: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[object, ...]], ...]

    def __attrs_post_init__(self) -> None:
        prev_hi = None
        for label, results in self.rows:
            if len(results) != len(self.columns):
                raise ValueError(f"{self.rule} row {label}: {len(results)} results for {len(self.columns)} columns")
            lo, hi = _bounds(label)
            if prev_hi is not None and lo != prev_hi + 1:
                raise ValueError(f"{self.rule} row {label} does not follow the previous row")
            prev_hi = hi

    def lookup(self, final: int, column: str | None = None) -> Hit:
        final = _final(final)
        if column is None:
            if len(self.columns) != 1:
                raise ValueError(f"table {self.rule} needs a column: one of {', '.join(self.columns)}")
            index = 0
        elif column in self.columns:
            index = self.columns.index(column)
        else:
            raise ValueError(f"table {self.rule} has no column {column!r}: one of {', '.join(self.columns)}")
        last = len(self.rows) - 1
        for i, (label, results) in enumerate(self.rows):
            lo, hi = _bounds(label)
            if (i == 0 and final <= hi) or (i == last and final >= lo) or lo <= final <= hi:
                return Hit(self.rule, label, results[index])
        raise AssertionError("unreachable: rows are contiguous")  # pragma: no cover


_ONE = ("result",)

# ---------------------------------------------------------------------------------------------
# 2.12 CP Replenishment Table (Final DR; columns = Intensity, 2.11)
CP_REPLENISHMENT = Table("2.12", ("low", "mid", "high"), (
    ("<2", (16, 25, 34)),
    ("3", (15, 24, 33)),
    ("4", (14, 23, 32)),
    ("5", (13, 22, 31)),
    ("6", (12, 21, 30)),
    ("7", (12, 20, 29)),
    ("8", (12, 19, 28)),
    ("9", (11, 18, 27)),
    ("10", (10, 17, 26)),
    ("11", (9, 16, 25)),
    (">12", (8, 15, 24)),
))


def cp_replenishment(final: int, intensity: str) -> Hit:
    """2.12: CP gained (int) on the card's intensity column."""
    return CP_REPLENISHMENT.lookup(final, intensity)


# 2.31 Patrols per RePh by intensity, CP each; 2.3 infantry platoon limit; 2.33 Reserve distance
PATROLS_PER_REPH = {"low": 1, "mid": 2, "high": 3}  # 2.31
PATROL_COST = 1  # 2.31
MAX_INFANTRY_PLATOONS = 3  # 2.3
RESERVE_MIN_HEXES = 7  # 2.33 (">7" = 7 or more, R1)

# ---------------------------------------------------------------------------------------------
# 2.33 / 2.34 setup modes and cost changes
RESERVE_TYPES = frozenset({"I", "G", "HW", "A"})  # 2.33
SETUP_MODES = ("on-map", "reserve", "entry")

# type -> (on-map, In Reserve) change; entering never changes the cost
SETUP_DELTA = {
    "I": (+1, -1),  # 2.34 Infantry (ID: I)
    "G": (0, -1),  # 2.34 Gun (ID: G)
    "HW": (0, -1),  # ruling R8: HW like Guns
    "A": (+2, -1),  # 2.34 AFV/Vehicles (IDs A and V)
    "V": (+2, -1),  # 2.34
}
MIN_COST = 1  # 2.34: no cost is ever reduced below one

_KIND_TYPE = {"infantry": "I", "gun": "G", "heavy_weapons": "HW", "afv": "A", "vehicle": "V"}


def rg_type(rg_id: str) -> str:
    """The RG type: the letters before the first digit, uppercased ("HW3" -> "HW")."""
    m = re.match(r"[A-Za-z]*", str(rg_id))
    assert m is not None  # [A-Za-z]* matches every text (if only its empty start)
    return m[0].upper()


def may_reserve(rg_id: str) -> bool:
    """2.33: only RGs whose ID begins with I, G, HW or A may be bought In Reserve."""
    return rg_type(rg_id) in RESERVE_TYPES


def setup_cost(kind: str, rg_id: str, mode: str, base_cost: int) -> tuple[int, int]:
    """2.34: (cost, delta) for a setup mode; delta is the change actually applied (cost == base_cost + delta).

    The type comes from the RG id prefix; the card kind is used only when the prefix is not a 2.34 type.
    Any other type changes nothing. Whether the mode is allowed (2.33 Reserves) is not checked here.
    """
    if mode not in SETUP_MODES:
        raise ValueError(f"setup mode {mode!r}: one of {', '.join(SETUP_MODES)}")
    base_cost = _final(base_cost, "base_cost")
    if base_cost < 0:
        raise ValueError(f"base_cost {base_cost}: a CP cost is never negative")
    t = rg_type(rg_id)
    if t not in SETUP_DELTA:
        t = _KIND_TYPE.get(kind, t)
    on_map, reserve = SETUP_DELTA.get(t, (0, 0))
    delta = {"on-map": on_map, "reserve": reserve, "entry": 0}[mode]  # ruling R8: entering never changes cost
    cost = max(MIN_COST, base_cost + delta)
    return cost, cost - base_cost


# ---------------------------------------------------------------------------------------------
# 2.351 Off Board Artillery Table (Final DR)
OBA_TABLE = Table("2.351", _ONE, (
    ("<4", ("plentiful",)),
    ("5-10", ("normal",)),
    (">11", ("scarce",)),
))
MAX_OBA_MODULES = 2  # CG4: per side per CG Firefight


def oba_strength(final: int) -> Hit:
    """2.351: "plentiful" | "normal" | "scarce"."""
    return OBA_TABLE.lookup(final)


# ---------------------------------------------------------------------------------------------
# 2.361 Leader/Armor Leader Table (Final DR); None = "-" (no leader)
LEADER_COLUMNS = ("general", "japanese", "finnish", "armor")
LEADER_TABLE = Table("2.361", LEADER_COLUMNS, (
    # row     All except Jap/Finn, Japanese, Finn, Armor Ldr.
    ("<2", ("10-2", "10-1", "10-1", "10-2")),
    ("3", ("9-2", "10-0", "10-0", "9-2")),
    ("4", ("9-1", "9-1", "9-1", "9-1")),
    ("5-6", ("8-1", "9-0", "9-1", "8-1")),
    ("7-8", ("8-0", "8-0", "9-0", None)),
    ("9-10", ("7-0", "8+1", "8-0", None)),
    (">11", ("6+1", "8+1", None, None)),
))
COMMISSAR_ROWS = frozenset({"5-6", "7-8"})  # 2.361 *: general column, Russian may take a Commissar (A25.22)
LEADER_LIMITED = 2  # 2.362: one each of the top two types

_JAPANESE = {"japanese", "japan"}
_FINNISH = {"finnish", "finn", "finns", "finland"}
_LEGACY_ZERO = {"american", "us", "usa", "u.s.", "british"}  # 2.361 legacy drm +0


def _norm(nationality: str) -> str:
    return str(nationality).strip().lower()


def leader_column(nationality: str, armor: bool) -> str:
    """2.361 column: "armor" for an armor leader DR, else by nationality."""
    if armor:
        return "armor"
    n = _norm(nationality)
    if n in _JAPANESE:
        return "japanese"
    if n in _FINNISH:
        return "finnish"
    return "general"


def leader(final: int, column: str) -> Hit:
    """2.361: the leader received ("9-2", "8+1", ...) or None for a "-" row."""
    return LEADER_TABLE.lookup(final, column)


def leader_order(column: str) -> tuple[str, ...]:
    """The column's distinct leader types, best first (the table's own order)."""
    if column not in LEADER_COLUMNS:
        raise ValueError(f"leader column {column!r}: one of {', '.join(LEADER_COLUMNS)}")
    i = LEADER_COLUMNS.index(column)
    out: list[str] = []
    for _, results in LEADER_TABLE.rows:
        if results[i] is not None and results[i] not in out:
            out.append(cast(str, results[i]))  # a leader's result: its name
    return tuple(out)


def demote_2362(rolled: str | None, column: str, taken: dict[str, int]) -> str | None:
    """2.362 at the Initial Firefight start: at most one each of the column's two best types; an excess
    roll becomes the best type still free below it, down the column. Lower types are unlimited.
    `taken` counts the types this side already holds on this column. # ruling R9
    """
    if rolled is None:
        return None
    order = leader_order(column)
    if rolled not in order:
        raise ValueError(f"leader {rolled!r} is not on the {column} column")
    limited = order[:LEADER_LIMITED]
    for candidate in order[order.index(rolled):]:
        if candidate not in limited or taken.get(candidate, 0) < 1:
            return candidate
    raise AssertionError("unreachable: every column has unlimited types")  # pragma: no cover


def legacy_leader_drm(nationality: str, year: int) -> int:
    """2.361 legacy drm: -1 German before 1945; 0 US/British; +1 all others (incl. 1945 Germans)."""
    n = _norm(nationality)
    if n == "german" and _final(year, "year") < 1945:
        return -1
    if n in _LEGACY_ZERO:
        return 0
    return +1


# ---------------------------------------------------------------------------------------------
# 2.38 Fortification Points Table with its notes (n = note number, I = Isolated ok, S = Initial only)
@records.frozen
class Fortification:
    kind: str
    name: str  # as printed
    isolated_ok: bool  # note I
    initial_only: bool  # note S
    note: str  # rule/note reference
    cost_as_printed: str = ""


FORTIFICATIONS: dict[str, Fortification] = {f.kind: f for f in (
    Fortification("foxhole", "Foxhole", True, False, "2.38 n1", "3/2/1"),
    Fortification("sangar", "Sangar", True, False, "2.38", "2"),
    Fortification("dummy", '"?"', True, False, "2.38 n2", "1"),
    Fortification("hip", "HIP", False, False, "2.38 n3", "5/3/2/2/1"),
    Fortification("roadblock", "Roadblock", False, False, "2.38", "12"),
    Fortification("wire", "Wire", False, False, "2.38", "10"),
    Fortification("pillbox", "Pillbox", False, True, "2.38 n4", "a*(b+c)"),
    Fortification("fortified_building", "Fortified Building", True, False, "2.38 n5", "12"),
    Fortification("tunnel", "Tunnel", False, True, "2.38", "20"),
    Fortification("booby_traps", "Booby Traps", False, False, "2.38 n6; CG12", "15"),
    Fortification("at_ditch", "A-T Ditch", False, True, "2.38", "18"),
    Fortification("ap_mine", "A-P Mine", False, False, "2.38 n7", "2 per Factor"),
    Fortification("at_mine", "A-T/A-B Mine", False, False, "2.38 n7", "5 per Factor"),
    Fortification("set_dc", "Set DC (A23.7)", False, False, "2.38 n8", "25"),
    Fortification("known_minefield", "Known Minefield", False, True, "2.38 (FRU); ruling R22", "x 0.8FP (FRU)"),
    Fortification("dummy_minefield", "Dummy Minefield", False, False, "2.38; F.7B", "As per F.7B"),
    Fortification("cave", "Cave", False, True, "2.38", "15"),
    Fortification("cave_complex", "Cave Complex", False, True, "2.38 n9", "7"),
    Fortification("tetrahedrons", "Tetrahedrons", False, True, "2.38", "15"),
    Fortification("panji", "Panji", False, True, "2.38", "2 per hexside"),
    Fortification("trip_flares", "Trip Flares", False, False, "2.38", "1"),
)}

FIXED_FP = {  # 2.38
    "sangar": 2,
    "dummy": 1,  # n2
    "roadblock": 12,
    "wire": 10,
    "tunnel": 20,
    "booby_traps": 15,  # n6
    "at_ditch": 18,
    "set_dc": 25,  # n8
    "cave": 15,
    "cave_complex": 7,  # n9
    "tetrahedrons": 15,
    "trip_flares": 1,
}
FOXHOLE_FP = {3: 3, 2: 2, 1: 1}  # 2.38 n1: by squad capacity
HIP_FP = {"afv": 5, "squad": 3, "hs": 2, "crew": 2, "smc": 1}  # 2.38 n3
AP_MINE_FP_PER_FACTOR = 2  # 2.38 n7
AT_MINE_FP_PER_FACTOR = 5  # 2.38 n7 (A-T/A-B)
PANJI_FP_PER_HEXSIDE = 2  # 2.38
FORTIFIED_BUILDING_FP_PER_LOCATION = 12  # 2.38 n5
CAVES_PER_COMPLEX = 4  # 2.38 n9
HIP_PERCENT = 10  # 2.38 n3
HIP_PERCENT_JAPANESE = 20  # 2.38 n3 (G.1631)

KNOWN_MINEFIELD_FACTOR = (4, 5)
"""2.38 Known Minefield "x 0.8FP (FRU)": 4/5 as (numerator, denominator), in whole numbers (the fractions
module's import is ~0.1x `python -c pass` of every command). Ruling: 0.8 times the FP the same factors cost as
mines, fractions rounded up; by default the factors are priced as A-P mines (unit "at" prices them as A-T/A-B mines)."""


def _positive(value: object, what: str) -> int:
    if value is None:
        raise ValueError(f"{what} is needed")
    value = _final(value, what)
    if value < 1:
        raise ValueError(f"{what} must be 1 or more, got {value}")
    return value


def fortification_cost(kind: str, *, capacity: int | None = None, factors: int | None = None,
                       unit: str | None = None, hexsides: int | None = None, locations: int = 1,
                       ca: int | None = None, nca: int | None = None) -> int:
    """2.38: the FP cost of one purchase of `kind`; ValueError when a needed argument is missing/invalid."""
    if kind not in FORTIFICATIONS:
        raise ValueError(f"fortification {kind!r} is not on the 2.38 table")
    if kind in FIXED_FP:
        return FIXED_FP[kind]
    if kind == "foxhole":  # n1
        if capacity not in FOXHOLE_FP:
            given = "is required" if capacity is None else f"{capacity}:"
            raise ValueError(f"--capacity {given} a foxhole holds 1, 2 or 3 squads (2.38 n1)")
        return FOXHOLE_FP[capacity]
    if kind == "hip":  # n3
        if unit not in HIP_FP:
            raise ValueError(f"HIP unit {unit!r}: one of {', '.join(HIP_FP)} (2.38 n3)")
        return HIP_FP[unit]
    if kind == "pillbox":  # n4
        capacity = _positive(capacity, "pillbox capacity")
        ca = _positive(ca, "pillbox CA DRM")
        nca = _positive(nca, "pillbox NCA DRM")
        return (ca + nca) * capacity
    if kind == "fortified_building":  # n5
        return FORTIFIED_BUILDING_FP_PER_LOCATION * _positive(locations, "fortified building locations")
    if kind == "ap_mine":  # n7
        return AP_MINE_FP_PER_FACTOR * _positive(factors, "mine factors")
    if kind == "at_mine":  # n7
        return AT_MINE_FP_PER_FACTOR * _positive(factors, "mine factors")
    if kind == "panji":
        return PANJI_FP_PER_HEXSIDE * _positive(hexsides, "panji hexsides")
    if kind == "known_minefield":
        # ruling R22: x0.8 of the same factors' mine cost, FRU; A-P pricing unless unit="at"
        per = {None: AP_MINE_FP_PER_FACTOR, "ap": AP_MINE_FP_PER_FACTOR, "at": AT_MINE_FP_PER_FACTOR}
        if unit not in per:
            raise ValueError(f"known minefield unit {unit!r}: 'ap' (default) or 'at'")
        num, den = KNOWN_MINEFIELD_FACTOR
        return -(-num * per[unit] * _positive(factors, "mine factors") // den)  # rounded up
    if kind == "dummy_minefield":
        raise ValueError("not priced by PL 2.5: as per F.7B")
    raise AssertionError(f"unpriced fortification {kind}")  # pragma: no cover


def hip_limit(non_reserve_squads: int, japanese: bool, night: bool) -> int | None:
    """2.38 n3: squads that may use HIP in a daytime firefight (FRD); None = no limit at night."""
    squads = _final(non_reserve_squads, "non_reserve_squads")
    if squads < 0:
        raise ValueError(f"non_reserve_squads {squads}: never negative")
    if night:
        return None
    return squads * (HIP_PERCENT_JAPANESE if japanese else HIP_PERCENT) // 100


# ---------------------------------------------------------------------------------------------
# 2.41 Dual Attack: dr 1-3 the Axis (sets up / moves) first, else the Allies
def dual_first(dr: int) -> str:
    """2.41: which side sets up (first dr) or moves (second dr) first in a Dual Attack."""
    dr = _final(dr, "dr")
    if not 1 <= dr <= 6:
        raise ValueError(f"dr {dr}: a die shows 1-6")
    return "axis" if dr <= 3 else "allied"


# ---------------------------------------------------------------------------------------------
# 2.74 Patrol Detection Table and Patrol Return Table (Final DR)
PATROL_DETECTION = Table("2.74", _ONE, (
    ("<7", ("mission",)),
    ("8-9", ("compromised",)),
    ("10-11", ("reduced",)),
    ("12-13", ("kia_returned",)),
    (">14", ("kia",)),
))
PATROL_RETURN = Table("2.74 return", _ONE, (
    ("<8", ("safe",)),
    ("9", ("prisoners_lost",)),
    ("10-12", ("reduced",)),
    ("13", ("kia",)),
    (">14", ("captured",)),
))
PATROL_MAX_SQUADS = 3  # 2.72
PATROL_MAX_HEXES = 10  # 2.73 ("<10" = 10 or less, R1)
PATROL_UNITS_WITHIN = 10  # 2.72: the patrol's units come from the friendly MLR "within 10 hexes" of the mission hex


def patrol_detection(final: int) -> Hit:
    """2.74 Patrol Detection Table."""
    return PATROL_DETECTION.lookup(final)


def patrol_return(final: int) -> Hit:
    """2.74 (step 3) Patrol Return Table; its table id is "2.74 return"."""
    return PATROL_RETURN.lookup(final)


# ---------------------------------------------------------------------------------------------
# 3.21 Redeployment Table (Final DR)
REDEPLOYMENT = Table("3.21", ("infantry", "vehicle"), (
    ("<9", ("redeploys", "redeploys")),  # infantry n1
    ("10", ("redeploys_replaced", "redeploys")),  # n2, n3
    ("11", ("redeploys_reduced", "remains")),  # n3; vehicle dagger: may change TCA/VCA, Hull Down
    ("12-13", ("remains_reduced", "eliminated_cs_na")),  # n3
    (">14", ("eliminated", "eliminated_cs_na")),
))
REDEPLOY_ORIGINAL_2 = "orig 2"  # 3.21 n1 row


def redeployment(final: int, column: str, original: tuple[int, int] | None = None) -> Hit:
    """3.21: Redeployment Table; an Original DR of 2 always redeploys infantry (note 1, row "orig 2")."""
    if original is not None:
        if len(original) != 2 or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6
                                     for d in original):
            raise ValueError(f"original DR {original!r}: two dice, each 1-6")
        if column == "infantry" and sum(original) == 2:
            return Hit(REDEPLOYMENT.rule, REDEPLOY_ORIGINAL_2, "redeploys")
    return REDEPLOYMENT.lookup(final, column)


# ---------------------------------------------------------------------------------------------
# 3.32 Evacuation Table (dr)
EVACUATION = Table("3.32", _ONE, (
    ("<2", ("remains",)),
    (">3", ("evacuated",)),
))


def evacuation(dr: int) -> Hit:
    """3.32: "remains" | "evacuated"."""
    return EVACUATION.lookup(dr)


# 3.41 Disease & Starvation Table (dr): squads to suffer ELR Replacement
DISEASE = Table("3.41", _ONE, (
    ("<3", (1,)),
    ("4-6", (2,)),
    (">7", (3,)),
))


def disease(final: int) -> Hit:
    """3.41: number of squads."""
    return DISEASE.lookup(final)


# 3.44 Battlefield Promotion Table (Final dr): # of MMC (also 3.45, second dr +2)
PROMOTION = Table("3.44", _ONE, (
    ("<0", (4,)),
    ("1", (3,)),
    ("2-3", (2,)),
    ("4-5", (1,)),
    (">6", (0,)),
))


def promotion(final: int) -> Hit:
    """3.44 (and 3.45): number of MMC (or leaders)."""
    return PROMOTION.lookup(final)


# ---------------------------------------------------------------------------------------------
# 3.46 repair thresholds (success on dr <= n)
REPAIR = {
    "malfunction": 5,  # 3.46 (non-Isolated owner)
    "low_ammo": 5,  # 3.46
    "disabled": 2,  # 3.46 (weapon other than MA)
    "immobilized": 2,  # 3.46 (in friendly MLR, not adjacent to enemy CTHC)
    "captured_sw": 3,  # 3.46 retained
}
REPAIR_TABLES = {
    kind: Table("3.46", _ONE, (
        (f"<{n}", ("kept" if kind == "captured_sw" else "repaired",)),
        (f">{n + 1}", ("removed" if kind == "captured_sw" else "failed",)),
    ))
    for kind, n in REPAIR.items()
}


def repair(final: int, item_kind: str) -> Hit:
    """3.46: "repaired"/"failed", or "kept"/"removed" for a captured SW."""
    if item_kind not in REPAIR_TABLES:
        raise ValueError(f"repair item {item_kind!r}: one of {', '.join(REPAIR)}")
    return REPAIR_TABLES[item_kind].lookup(final)


# 3.461 Recalled vehicles (dr)
RECALL = Table("3.461", _ONE, (
    ("<2", ("returned",)),
    (">3", ("eliminated",)),
))


def recall(final: int) -> Hit:
    """3.461: "returned" | "eliminated" (no CVP)."""
    return RECALL.lookup(final)


# ---------------------------------------------------------------------------------------------
# 3.47 ELR Loss/Gain (Final DR): change of ELR
ELR_CHANGE = Table("3.47", _ONE, (
    ("<3", (+1,)),
    ("4-12", (0,)),
    (">13", (-1,)),
))
ELR_MAX_GAIN = 4  # 3.47
ELR_MIN = 0  # 3.47
ELR_TOP = 5  # 3.47: once reduced, never returns


def elr_change(final: int, elr: int, five_lost: bool) -> Hit:
    """3.47: the new ELR. `five_lost`: this side's ELR has already dropped from 5 (so it cannot be 5 now)."""
    elr = _final(elr, "elr")
    if not ELR_MIN <= elr <= ELR_TOP:
        raise ValueError(f"ELR {elr}: 0-5")
    if elr == ELR_TOP and five_lost:
        raise ValueError("ELR 5 once lost never returns (3.47)")
    hit = ELR_CHANGE.lookup(final)
    change = cast(int, hit.result)  # the ELR change table's results: ints
    if change > 0:
        new = elr if elr >= ELR_MAX_GAIN else elr + 1  # ruling R13: a side at 5 stays 5
    elif change < 0:
        new = max(ELR_MIN, elr - 1)  # ruling R13: 5 drops to 4
    else:
        new = elr
    return Hit(hit.table, hit.row, new)


# 3.51 SAN adjustment bounds
SAN_MIN = 2  # 3.51
SAN_MAX = 4  # 3.51


def san_adjust(san: int) -> int:
    """3.51: SAN brought into 2..4 before any CP spending."""
    return min(SAN_MAX, max(SAN_MIN, _final(san, "san")))


# ---------------------------------------------------------------------------------------------
# 3.52 Fortification Clearance (Final dr)
CLEARANCE = Table("3.52", _ONE, (
    ("1-3", ("eliminated",)),  # ruling R1: a final below 1 is in this row too
    (">4", ("no effect",)),
))


def clearance(final: int) -> Hit:
    """3.52: "eliminated" | "no effect"."""
    return CLEARANCE.lookup(final)


@records.frozen
class Clearable:
    item: str
    name: str
    rule: str  # ASL rule the item's clearance follows
    on_success: str  # what an "eliminated" result does
    condition: str  # who/where it may be cleared, beyond friendly CTHC/MLR (3.52)
    cr_on_original_6: bool  # 3.52 dagger: Original dr 6 = Casualty Reduction for one MMC
    failure_stops_location: bool  # 3.52: a failed mine attempt ends clearance in the Location


CLEARABLE: dict[str, Clearable] = {c.item: c for c in (
    Clearable("rubble", "Rubble", "B24.71; Table 30a", "a Trailbreak (TB) across the rubble hex; the rubble stays",
              "fallen rubble in a non-building hex only (B24.71)", False, False),
    Clearable("mines", "Mines (A-P, A-T, A-B)", "B24.74; Table 30a", "every mine in the Location removed (3.52 *)",
              "Known minefield; all mines are one item (3.52)", True, True),
    Clearable("wire", "Wire", "B24.73; Table 30a", "wire counter removed", "", False, False),
    Clearable("roadblock", "Roadblock", "B24.76; Table 30a", "roadblock removed", "", False, False),
    Clearable("set_dc", "Set DC", "B24.75; A23; Table 30a", "DC removed, not recoverable", "", False, False),
    Clearable("flame", "Flame", "B24.72; Table 30a", "flame removed, terrain as before the fire",
              "a Blaze cannot be cleared (B24.72)", False, False),
    Clearable("panji", "Panji", "G9.71; Table 30a", "panji removed", "", True, False),
)}


def clearance_cr(original: int, item: str) -> bool:
    """3.52 dagger: vs a Known minefield or Panji an Original dr of 6 reduces one MMC."""
    if item not in CLEARABLE:
        raise ValueError(f"clearance item {item!r}: one of {', '.join(CLEARABLE)}")
    return CLEARABLE[item].cr_on_original_6 and _final(original, "original dr") == 6


def clearance_stops_location(item: str, hit: Hit, ap_mines: bool = True) -> bool:
    """3.52: after a failed attempt vs mines that include A-P mines, no more attempts in that Location.
    # ruling R23: a Location holding only A-T/A-B mines is not stopped (3.52 names the A-P attempt)."""
    if item not in CLEARABLE:
        raise ValueError(f"clearance item {item!r}: one of {', '.join(CLEARABLE)}")
    return CLEARABLE[item].failure_stops_location and ap_mines and hit.result == "no effect"


# ---------------------------------------------------------------------------------------------
# B24 Rubble (ASL), used by CG5 terrain changes
FALLING_RUBBLE_AT = 7  # B24.12: colored dr + levels >= 7 falls
STONE_DRM = 1  # B24.11


def rubble_created(dr: int, stone: bool, kia: int) -> bool:
    """B24.11: the subsequent dr (+1 stone) <= the KIA# of the Original DR rubbles the Location."""
    return _final(dr, "dr") + (STONE_DRM if stone else 0) <= _final(kia, "kia")


def falling_rubble(colored: int, levels: int) -> bool:
    """B24.12: colored dr + non-rooftop levels above ground rubbled >= 7: the rubble falls."""
    return _final(colored, "colored dr") + _final(levels, "levels") >= FALLING_RUBBLE_AT
