"""The checks of what a CG Card says as it is printed (docs/cg-card.md, "Keys of a card as it is
printed"): RGs by time of day, each side's reserve, booby traps and fortification kinds, setup areas as
printed, hills and hexsides, the special rules; and the names a card's problems are reported by. Every
key is optional; without them a card decides as before.

- RGs: `time = "day" | "night"` (bought only for firefights at that time of day);
- sides: `reserve = false` (this side buys nothing In Reserve, 2.33), `booby_traps = false | "A" | "B" |
  "C"` (B28.9 levels), `fortifications = {kind = limit}` (this side's 2.38 kinds, beside the campaign's);
- OB given: `area = ["23K-Q", "west of 24G"]`, setup areas as printed, beside hex lists;
- map: `hills = {"24K5" = 1}` (hill level per hex), `hexsides = {wall = ["24E4-24E5"], hedge = [...],
  bocage = [...]}` (terrain along a hexside between two adjacent hexes): data the map draws;
- campaign: `ssr = ["..."]`, the card's special rules as text, shown by `card show` and the AAR.

cg/card_schema.py calls these checks; each adds every problem it finds to the `_Checker`.
"""
from __future__ import annotations

import re
from typing import Any

from cg import tables
from cg.card import hexgrid, single_grid
from cg.card_checker import _Checker, _join, _show
from cg.units import article

CAMPAIGN_KEYS = ("ssr",)
SIDE_KEYS = ("reserve", "booby_traps", "fortifications")
RG_KEYS = ("time",)
OB_KEYS = ("area",)
MAP_KEYS = ("hills", "hexsides")

TIMES = ("day", "night")
BOOBY_TRAP_LEVELS = ("A", "B", "C")  # B28.9: the level of Booby Traps in force
HEXSIDE_KINDS = ("wall", "hedge", "bocage")  # B9: hexside terrain
MAX_LEVEL = 9


DUMMY_MINEFIELD_FP = "dummy_minefield_fp"  # ruling R22: the card's FP price of one Dummy Minefield (2.38 "As per F.7B")


def fortification_kinds() -> tuple[str, ...]:
    """The 2.38 kinds a card may allow: each kind of the table once. A Dummy Minefield is "As per F.7B", a price
    PL 2.5 does not print: a card allows it only with its FP price (`dummy_minefield_fp`, ruling R22)."""
    return tuple(tables.FORTIFICATIONS)


def check_fortifications(c: _Checker, tbl: dict, path: str) -> dict[str, int] | None:
    """`fortifications = {foxhole = 12, hip = 4}`: allowed 2.38 kinds and their limits, and the FP price of a
    Dummy Minefield where the card allows one (`dummy_minefield = 2, dummy_minefield_fp = 1`, ruling R22);
    None: absent."""
    forts = c.table(tbl, "fortifications", path, default=None)
    if forts is None:
        return None
    kinds = fortification_kinds()
    limits = {}
    for kind, limit in forts.items():
        kpath = f"{path}.fortifications.{kind}"
        if kind == DUMMY_MINEFIELD_FP:
            price = c.integer_value(limit, kpath, lo=1)
            if price is not None:
                limits[kind] = price
            continue
        if kind not in kinds:
            c.add(kpath, f"{_show(kind)} is not a 2.38 fortification kind bought with FP ({' | '.join(kinds)}; "
                         f"{DUMMY_MINEFIELD_FP}: a Dummy Minefield's FP price)")
            continue
        n = c.integer_value(limit, kpath, lo=0)
        if n is not None:
            limits[kind] = n
    if "dummy_minefield" in forts and DUMMY_MINEFIELD_FP not in forts:
        c.add(f"{path}.fortifications.dummy_minefield", "a Dummy Minefield costs \"As per F.7B\" (2.38), a price PL "
              f"2.5 does not print: state its FP price as {DUMMY_MINEFIELD_FP} (ruling R22)")
    if DUMMY_MINEFIELD_FP in forts and "dummy_minefield" not in forts:
        c.add(f"{path}.fortifications.{DUMMY_MINEFIELD_FP}", "prices a Dummy Minefield the table does not allow: "
              "give its limit too (dummy_minefield = N)")
    return limits


# -- [campaign] ---------------------------------------------------------------------------------------
def check_campaign(c: _Checker, tbl: dict) -> dict | None:
    n0 = len(c.problems)
    raw = c.array(tbl, "ssr", "campaign", default=())
    ssr = []
    for i, v in enumerate(raw or ()):
        t = c.text_value(v, f"campaign.ssr#{i + 1}")
        if t is not None:
            ssr.append(t)
    return {"ssr": tuple(ssr)} if len(c.problems) == n0 else None


# -- [sides.X] ----------------------------------------------------------------------------------------
def check_side(c: _Checker, tbl: dict, path: str) -> dict | None:
    n0 = len(c.problems)
    reserve = c.boolean(tbl, "reserve", path, default=True)
    booby: str | None = None
    raw = tbl.get("booby_traps")
    if raw is not None:
        if raw is False or (isinstance(raw, str) and raw.strip().lower() == "none"):
            booby = "none"
        elif raw is True or (isinstance(raw, str) and raw.strip().lower() == "allowed"):
            booby = "allowed"
        elif isinstance(raw, str) and raw.strip().upper() in BOOBY_TRAP_LEVELS:
            booby = raw.strip().upper()
        else:
            c.add(f"{path}.booby_traps", f"{_show(raw)} is not false, true or a Booby Trap level "
                  f"({' | '.join(BOOBY_TRAP_LEVELS)}, B28.9)")
    forts = check_fortifications(c, tbl, path)
    out = {"reserve": reserve, "booby_traps": booby, "fortifications": forts}
    return out if len(c.problems) == n0 else None


def check_commissars(c: _Checker, tbl: dict, path: str, nationality: str | None) -> None:
    """A Commissar is Russian (A25.22): `commissar = true` on another nationality's RG is refused."""
    if nationality is None or nationality in ("russian", "soviet", "soviets", "ussr", "russia"):
        return
    rgs = tbl.get("rg")
    for i, item in enumerate(rgs if isinstance(rgs, list) else ()):  # another type: the side's own check says so
        if isinstance(item, dict) and item.get("commissar") is True:
            c.add(f"{path}.rg{rg_label(item, i)}.commissar",
                  f"a Commissar is Russian (A25.22); this side is {nationality}")


def rg_label(item: Any, i: int) -> str:
    """How a problem path names an RG or an OB group: by its id (`.I6`), else by its place (`#7`, from 1)."""
    rid = item.get("id") if isinstance(item, dict) else None
    if isinstance(rid, str) and re.fullmatch(r"[A-Za-z]+[0-9]+", rid.strip()):
        return "." + rid.strip().upper()
    return f"#{i + 1}"


# -- [[sides.X.rg]] -----------------------------------------------------------------------------------
def check_rg(c: _Checker, item: dict, path: str) -> dict | None:
    n0 = len(c.problems)
    time = c.text(item, "time", path, TIMES, default=None)
    return {"time": time} if len(c.problems) == n0 else None


def rg_time_refusal(st, rg) -> tuple[str, str] | None:
    """(why, rule) when the RG is for firefights at another time of day than the current one."""
    if rg.time is not None and st.ff.time != rg.time:
        return f"{rg.id} may be bought for {rg.time} firefights only (CG Card); firefight {st.firefight} is " \
               f"{article(st.ff.time)} firefight", "2.3"
    return None


# -- setup areas as printed ---------------------------------------------------------------------------
_RANGE = re.compile(r"^(?P<head>.*?)(?P<a>[A-Za-z]{1,2})-(?P<b>[A-Za-z]{1,2})$")
_SIDE_OF = re.compile(r"^(?P<on>on\s*(?:/|or)\s*)?(?P<dir>west|east)\s+of\s+(?:hexrow\s+)?(?P<row>\S+)$", re.I)


def real_grid(grid):
    """A grid with hexes() and parse() from what the card checks carry: a BoardGrid, or (columns, rows)."""
    if hasattr(grid, "canonical"):
        return grid
    cols, rows = grid
    return single_grid(f"{cols[0]}-{cols[-1]}", rows)


def _hexrow_column(grid, board: str | None, letter: str) -> int:
    """The map column (from 0) of a hexrow: `letter` of `board` on a map of boards, else of the grid."""
    letter = letter.upper()
    if board is not None:
        return grid.parse(f"{board}{letter}1")[0]
    if letter not in grid.columns:
        raise ValueError(f"hexrow {letter} is not on the map (columns {grid.columns[0]}-{grid.columns[-1]})")
    return grid.columns.index(letter)


def _split_board(text: str, grid) -> tuple[str | None, str]:
    """("23", "K-Q") for "23K-Q" on a map of boards; (None, text) on a single grid."""
    if not hasattr(grid, "layout"):
        return None, text
    for name in sorted(grid.layout.names(), key=len, reverse=True):
        if text.lower().startswith(name.lower()) and len(text) > len(name):
            return name, text[len(name):]
    raise ValueError(f"{_show(text)} does not start with a board of the map ({', '.join(grid.layout.names())})")


def area_hexes(item: str, grid) -> list[str]:
    """The hexes of one printed setup area, in map order: a hex id, "23K-Q" (board 23, hexrows K to Q),
    "west of 24G" / "on/west of 24G" (and east): every hex of the map west of (or on) that hexrow.
    ValueError says what is wrong.

    # ruling R78: "west of" leaves the hexrow named out, "on/west of" takes it in; a hexrow range takes
    # every row of its hexrows
    """
    text = " ".join(item.split())
    m = _SIDE_OF.match(text)
    if m:
        board, rest = _split_board(m.group("row"), grid)
        if not re.fullmatch(r"[A-Za-z]{1,2}", rest):
            raise ValueError(f"{_show(item)}: {_show(m.group('row'))} is not a hexrow such as \"24G\"")
        try:
            col = _hexrow_column(grid, board, rest)
        except (ValueError, KeyError):
            raise ValueError(f"{_show(item)}: hexrow {rest.upper()} is not on the map") from None
        on = m.group("on") is not None
        west = m.group("dir").lower() == "west"
        keep = (lambda q: q <= col if on else q < col) if west else (lambda q: q >= col if on else q > col)
        out = [h for h in grid.hexes() if keep(grid.parse(h)[0])]
        if not out:
            raise ValueError(f"{_show(item)} holds no hex of the map")
        return out
    m = _RANGE.match(text)
    if m and not re.search(r"[0-9]$", text):
        board, _ = _split_board(text, grid) if hasattr(grid, "layout") else (None, text)
        if board is not None and m.group("head").lower() != board.lower():
            raise ValueError(f"{_show(item)} is not a board and hexrows such as \"23K-Q\"")
        try:
            a, b = (_hexrow_column(grid, board, x) for x in (m.group("a"), m.group("b")))
        except (ValueError, KeyError):
            raise ValueError(f"{_show(item)}: a hexrow of it is not on the map") from None
        if board is None:
            lo, hi = sorted((a, b))
            return [h for h in grid.hexes() if lo <= grid.parse(h)[0] <= hi]
        boards = hexgrid().boards()  # a map of boards
        COLUMNS, column_rows = boards.COLUMNS, boards.column_rows
        ia, ib = COLUMNS.index(m.group("a").upper()), COLUMNS.index(m.group("b").upper())
        if ia > ib:
            raise ValueError(f"{_show(item)}: hexrow {COLUMNS[ia]} comes after {COLUMNS[ib]}")
        names = {grid.canonical(f"{board}{col}{r}") for col in COLUMNS[ia:ib + 1] for r in column_rows(col)}
        return sorted(names, key=grid.index)
    return [grid.canonical(text)]


def check_area(c: _Checker, item: dict, path: str, grid) -> tuple[str, ...] | None:
    """An OB group's `area`: each item a printed setup area or a hex id (checked on the map)."""
    raw = c.array(item, "area", path, default=())
    if raw is None:
        return None
    out = []
    for i, v in enumerate(raw):
        ipath = f"{_join(path, 'area')}#{i + 1}"
        t = c.text_value(v, ipath)
        if t is None:
            continue
        if grid is not None and not getattr(grid, "unchecked", False):
            try:
                area_hexes(t, real_grid(grid))
            except ValueError as e:
                c.add(ipath, str(e))
                continue
        out.append(" ".join(t.split()))
    return tuple(out)


def area_set(items, grid) -> frozenset[str]:
    """Every hex of a list of printed setup areas."""
    return frozenset(h for item in items for h in area_hexes(item, grid))


# -- [map] hills and hexsides -------------------------------------------------------------------------
def check_hills(c: _Checker, tbl: dict, grid, order) -> dict[str, int] | None:
    raw = c.table(tbl, "hills", "map", default={})
    if raw is None:
        return None
    out = {}
    for key, value in raw.items():
        kpath = f"map.hills.{key}"
        h = c.hex_value(key, kpath, grid)
        n = c.integer_value(value, kpath, lo=1, hi=MAX_LEVEL)
        if h is not None and n is not None:
            out[h] = n
    return {h: out[h] for h in sorted(out, key=order)} if order else out


def check_hexsides(c: _Checker, tbl: dict, grid, order) -> dict[str, tuple[str, ...]] | None:
    """hexsides = { wall = ["24E4-24E5"] }: each a pair of adjacent hexes, the hexside between them."""
    raw = c.table(tbl, "hexsides", "map", default={})
    if raw is None:
        return None
    n0 = len(c.problems)
    c.unknown_keys(raw, HEXSIDE_KINDS, "map.hexsides")
    # the grid that knows adjacency, built for the first hexside (~10 ms: most cards print none)
    want_grid, g = grid is not None and not getattr(grid, "unchecked", False), None
    out: dict[str, tuple[str, ...]] = {}
    for kind in HEXSIDE_KINDS:
        items = c.array(raw, kind, "map.hexsides", default=())
        good = []
        for i, v in enumerate(items or ()):
            ipath = f"map.hexsides.{kind}#{i + 1}"
            t = c.text_value(v, ipath)
            if t is None:
                continue
            ends = t.split("-")
            if len(ends) != 2:
                c.add(ipath, f"{_show(t)} is not two adjacent hexes such as \"24E4-24E5\"")
                continue
            a, b = (c.hex_value(e.strip(), ipath, grid) for e in ends)
            if a is None or b is None:
                continue
            if want_grid and g is None:
                g = real_grid(grid)
            if g is not None and b not in g.neighbours(a):
                c.add(ipath, f"{a} and {b} are not adjacent: a hexside lies between two adjacent hexes")
                continue
            if order and order(b) < order(a):
                a, b = b, a
            good.append(f"{a}-{b}")
        if good:
            out[kind] = tuple(dict.fromkeys(good))
    return out if len(c.problems) == n0 else None


# -- problem paths as a player reads them ---------------------------------------------------------------
_GROUP_PATH = re.compile(r"^sides\.(axis|allied)\.(rg|ob)\[(\d+)\]")
_FIREFIGHT_PATH = re.compile(r"^firefights\[(\d+)\]")
_INDEX = re.compile(r"\[(\d+)\]")


def _labels(items: Any) -> list[str]:
    """Each item's label: its id where that id is unique in the list, else its place from 1."""
    items = items if isinstance(items, list) else []
    ids = [rg_label(x, i) for i, x in enumerate(items)]
    return [lab if lab.startswith("#") or ids.count(lab) == 1 else f"#{i + 1}" for i, lab in enumerate(ids)]


def name_paths(problems: list[tuple[str, str]], data: Any) -> list[tuple[str, str]]:
    """The checker's paths as a player reads them: an RG or OB group by its id (`sides.axis.rg.I6.cost`), a
    firefight by its number (`firefight 3.date`), any other list item by its place counted from 1 (`#1`)."""
    sides = data.get("sides") if isinstance(data, dict) else None
    sides = sides if isinstance(sides, dict) else {}
    labels = {}
    for side in ("axis", "allied"):
        got = sides.get(side)
        tbl = got if isinstance(got, dict) else {}
        for key in ("rg", "ob"):
            labels[(side, key)] = _labels(tbl.get(key))

    def one(path: str) -> str:
        m = _GROUP_PATH.match(path)
        if m:
            side, key, i = m.group(1), m.group(2), int(m.group(3))
            found = labels[(side, key)]
            lab = found[i] if i < len(found) else f"#{i + 1}"
            path = f"sides.{side}.{key}{lab}" + path[m.end():]
        m = _FIREFIGHT_PATH.match(path)
        if m:
            path = f"firefight {int(m.group(1)) + 1}" + path[m.end():]
        return _INDEX.sub(lambda k: f"#{int(k.group(1)) + 1}", path)

    return [(one(p), what) for p, what in problems]


class UncheckedBoards:
    """Stands for a map of boards whose `boards` value is wrong: hex ids are checked for their form only
    (board, hexrow, row), so one bad board row is one problem, not one per hex of the card."""

    unchecked = True

    def canonical(self, v: str) -> str:
        board, column, row = hexgrid().boards().parse_hex(v)
        return f"{board}{column}{row}"

    def index(self, _hex: str) -> int:
        return 0
