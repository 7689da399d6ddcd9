"""The ASL hex grid of a CG Card map: hex ids, adjacency, distance, edges, shortest lines.

Ruling R17 — hex grid geometry. A card map is ASL board geometry: flat-topped hexes in vertical
columns, columns lettered west to east (A..Z, then AA, BB, ..., ZZ as on ASL boards), rows numbered
north to south from 1 to the card's `rows`. The even-lettered columns (B, D, F, ..., Z, BB, DD, ...)
sit half a hex lower than the odd-lettered ones (A, C, ..., AA, CC, ...), as on an ASL board (B0 is the
half hex at the top edge, so B1 lies half a hex below A1): A1 touches B1 to its south-east, and B1
touches C1 to its north-east. Parity is taken from the letter's place in the whole A..ZZ sequence, so
a map that starts at another column keeps the board's stagger. Directions are numbered from north
clockwise: 1 N, 2 NE, 3 SE, 4 S, 5 SW, 6 NW (B24.12 reads the falling-rubble direction off a die this
way); d and d+3 are opposite. Distance is the number of hex steps, counting the target hex but not the
start (adjacent = 1), computed from cube/axial coordinates; on a card map it equals the shortest path
that stays on the map.

Internally a hex is axial (q, r): q = column place in A..ZZ, r = row - (q - q % 2) // 2.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import attrs

from cg import caches
from cg.axial import DIRECTIONS, axial_distance as _axial_distance, axial_line, axial_within  # noqa: F401  (DIRECTIONS: part of this API)
from events import records

# A..Z then the doubled letters AA, BB, ..., ZZ (ASL boards run A..GG)
LABELS: tuple[str, ...] = tuple(chr(c) for c in range(65, 91)) + tuple(chr(c) * 2 for c in range(65, 91))
_LABEL_INDEX = {label: i for i, label in enumerate(LABELS)}

DIRECTION_NAMES = {1: "N", 2: "NE", 3: "SE", 4: "S", 5: "SW", 6: "NW"}
EDGES = ("north", "south", "east", "west")

_HEX_RE = re.compile(r"^([A-Za-z]+)([1-9][0-9]*)$")


def column_labels(spec: str) -> tuple[str, ...]:
    """'A-R' -> ('A', ..., 'R'); 'A-GG' -> ('A', ..., 'Z', 'AA', ..., 'GG'); 'C' -> ('C',)."""
    if not isinstance(spec, str):
        raise ValueError(f"map columns must be text like 'A-R', not {spec!r}")
    parts = [p.strip().upper() for p in spec.split("-")]
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"map columns {spec!r}: expected FIRST-LAST such as 'A-R' or 'A-GG'")
    first, last = parts
    for label in (first, last):
        if label not in _LABEL_INDEX:
            raise ValueError(
                f"map columns {spec!r}: {label!r} is not an ASL column letter (A..Z, AA, BB, ..., ZZ)"
            )
    i, j = _LABEL_INDEX[first], _LABEL_INDEX[last]
    if i > j:
        raise ValueError(f"map columns {spec!r}: {first} comes after {last}")
    return LABELS[i : j + 1]


def _axial(label_index: int, row: int) -> tuple[int, int]:
    return label_index, row - (label_index - (label_index & 1)) // 2


@records.frozen(slots=True)
class _Geometry:
    ids: tuple[str, ...]  # column-major
    index: dict[str, int]  # id -> place in ids
    axial: dict[str, tuple[int, int]]
    at: dict[tuple[int, int], str]  # axial -> id
    place: dict[str, tuple[int, int]]  # id -> (column index in the grid, row)
    edges: dict[str, frozenset[str]]
    adjacent: dict[str, tuple[str, ...]]  # id -> on-map neighbours in direction order 1..6


def _geometry(columns: tuple[str, ...], rows: int) -> _Geometry:
    ids: list[str] = []
    axial: dict[str, tuple[int, int]] = {}
    place: dict[str, tuple[int, int]] = {}
    for ci, label in enumerate(columns):
        li = _LABEL_INDEX[label]
        for row in range(1, rows + 1):
            h = f"{label}{row}"
            ids.append(h)
            axial[h] = _axial(li, row)
            place[h] = (ci, row)
    edges = {
        "north": frozenset(f"{c}1" for c in columns),
        "south": frozenset(f"{c}{rows}" for c in columns),
        "west": frozenset(f"{columns[0]}{r}" for r in range(1, rows + 1)),
        "east": frozenset(f"{columns[-1]}{r}" for r in range(1, rows + 1)),
    }
    at = {a: h for h, a in axial.items()}
    adjacent = {}
    for h, (q, r) in axial.items():
        adjacent[h] = tuple(
            at[(q + dq, r + dr)] for dq, dr in DIRECTIONS.values() if (q + dq, r + dr) in at
        )
    return _Geometry(
        ids=tuple(ids),
        index={h: i for i, h in enumerate(ids)},
        axial=axial,
        at=at,
        place=place,
        edges=edges,
        adjacent=adjacent,
    )


def _check_columns(_instance, _attribute, value) -> None:
    if not value:
        raise ValueError("map columns: at least one column is needed")
    for label in value:
        if label not in _LABEL_INDEX:
            raise ValueError(f"map column {label!r} is not an ASL column letter (A..Z, AA, ..., ZZ)")
    first = _LABEL_INDEX[value[0]]
    if tuple(value) != LABELS[first : first + len(value)]:
        raise ValueError(f"map columns {'-'.join(value)} are not consecutive ASL column letters")


def _check_rows(_instance, _attribute, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"map rows must be a whole number of 1 or more, not {value!r}")


@records.frozen(slots=True)
class Grid:
    """The hexes of one card map (ruling R17)."""

    columns: tuple[str, ...] = attrs.field(converter=records.as_tuple, validator=_check_columns)
    rows: int = attrs.field(validator=_check_rows)
    _geo: _Geometry = attrs.field(init=False, eq=False, repr=False, hash=False)
    if TYPE_CHECKING:  # set below the class (_grid_at_place, _grid_width, _grid_edge_hex)
        def at_place(self, column: int, row: int) -> str | None: ...

        @property
        def width(self) -> int: ...

        def edge_hex(self, hex: str, edge: str) -> str: ...

    def __attrs_post_init__(self) -> None:
        c = caches.current()
        key = (self.columns, self.rows)
        object.__setattr__(self, "_geo", c.bounded(c.geometries, key, lambda: _geometry(*key)))

    @classmethod
    def from_spec(cls, columns: str, rows: int) -> "Grid":
        """Grid.from_spec('A-R', 10): the card's [map] columns and rows (one Grid per spec: it is frozen)."""
        c = caches.current()
        return c.bounded(c.grids, (columns, rows), lambda: cls(column_labels(columns), rows))

    # -- ids --------------------------------------------------------------------------------------
    def hexes(self) -> tuple[str, ...]:
        """Every hex id, column by column (A1..A10, B1..B10, ...)."""
        return self._geo.ids

    def canonical(self, hex: str) -> str:
        """The map's spelling of a hex id ('c4' -> 'C4'); ValueError if it is not on this map."""
        if hex in self._geo.index:
            return hex
        m = _HEX_RE.match(hex.strip()) if isinstance(hex, str) else None
        if m:
            h = f"{m.group(1).upper()}{m.group(2)}"
            if h in self._geo.index:
                return h
        raise ValueError(
            f"hex {hex!r} is not on the map (columns {self.columns[0]}-{self.columns[-1]}, rows 1-{self.rows})"
        )

    def valid(self, hex: str) -> bool:
        try:
            self.canonical(hex)
        except ValueError:
            return False
        return True

    def parse(self, hex: str) -> tuple[int, int]:
        """(column index in this map from 0, row from 1); ValueError if not on the map."""
        return self._geo.place[self.canonical(hex)]

    def index(self, hex: str) -> int:
        """Place of the hex in hexes(): the ledger's tie-break order (column, then row)."""
        return self._geo.index[self.canonical(hex)]

    def axial(self, hex: str) -> tuple[int, int]:
        """Axial (q, r) coordinates of the hex (ruling R17)."""
        return self._geo.axial[self.canonical(hex)]

    # -- geometry ---------------------------------------------------------------------------------
    def distance(self, a: str, b: str) -> int:
        axial = self._geo.axial
        try:
            pa, pb = axial[a], axial[b]
        except KeyError:
            pa, pb = axial[self.canonical(a)], axial[self.canonical(b)]
        dq = pa[0] - pb[0]
        dr = pa[1] - pb[1]
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def neighbour(self, hex: str, direction: int) -> str | None:
        """The hex next to `hex` in direction 1..6 (1 N, clockwise), None if off the map."""
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be 1..6 (1 N, 2 NE, 3 SE, 4 S, 5 SW, 6 NW), not {direction!r}")
        q, r = self.axial(hex)
        dq, dr = DIRECTIONS[direction]
        return self._geo.at.get((q + dq, r + dr))

    def neighbours(self, hex: str) -> list[str]:
        """The on-map hexes adjacent to `hex`, in direction order 1..6."""
        try:
            return list(self._geo.adjacent[hex])
        except KeyError:
            return list(self._geo.adjacent[self.canonical(hex)])

    def adjacency(self) -> dict[str, tuple[str, ...]]:
        """hex id -> its on-map neighbours (direction order), for fast graph walks; do not modify."""
        return self._geo.adjacent

    def within(self, hex: str, radius: int) -> list[str]:
        """Every on-map hex at distance 0..radius of `hex`, in grid order."""
        return axial_within(*self.axial(hex), radius, self._geo.at, self._geo.index)

    def edge(self, side: str) -> frozenset[str]:
        """The hexes along one map edge: north = row 1, south = last row, west/east = first/last column."""
        try:
            return self._geo.edges[side]
        except KeyError:
            raise ValueError(f"map edge must be one of {', '.join(EDGES)}, not {side!r}") from None

    def line(self, a: str, b: str) -> list[str]:
        """A shortest on-map hex path from a to b, both included (len = distance + 1): see
        cg.boards.axial_line (from the end first in grid order, nearest the straight line)."""
        return axial_line(self.canonical(a), self.canonical(b), self._geo.axial, self._geo.at, self._geo.index)


def _grid_width(self) -> int:
    return len(self.columns)


def _grid_edge_hex(self, hex: str, edge: str) -> str:
    """The hex of map edge `edge` straight behind `hex`: same row for west/east, same column for north/south."""
    col, row = self.parse(hex)
    if edge == "west":
        return f"{self.columns[0]}{row}"
    if edge == "east":
        return f"{self.columns[-1]}{row}"
    if edge == "north":
        return f"{self.columns[col]}1"
    if edge == "south":
        return f"{self.columns[col]}{self.rows}"
    raise ValueError(f"map edge must be one of {', '.join(EDGES)}, not {edge!r}")


def _grid_at_place(self, column: int, row: int) -> str | None:
    """The hex at (column index from 0, row), None if there is none: the inverse of parse()."""
    if 0 <= column < len(self.columns) and 1 <= row <= self.rows:
        return f"{self.columns[column]}{row}"
    return None


setattr(Grid, "at_place", _grid_at_place)
setattr(Grid, "width", property(_grid_width))  # map columns, as BoardGrid.width
setattr(Grid, "edge_hex", _grid_edge_hex)


class BoardGrid:
    """A map of geomorphic boards (cg/boards.py) behind the Grid interface everything uses.

    `parse` gives (map column from 0, map row) across the whole map: odd map columns start at row 0 (the
    half hexes of the boards' north edge), even ones at row 1; `rows` is the last map row.
    """

    def __init__(self, geo) -> None:
        self.geo = geo
        self._place = {}
        for h, (q, r) in geo.axial_of.items():
            self._place[h] = (q, r + (q - (q & 1)) // 2)
        self._at_place = {p: h for h, p in self._place.items()}
        self.width = max(q for q, _ in self._place.values()) + 1
        self.rows = max(g for _, g in self._place.values())
        self.layout = geo.layout
        first: dict[int, str] = {}
        for h in geo.ids:  # map column -> its hexrow letter on the board at the top (display only)
            first.setdefault(self._place[h][0], h)
        self.columns = tuple(geo.parse(first[q])[1] for q in range(self.width))

    def __eq__(self, other) -> bool:
        return isinstance(other, BoardGrid) and other.layout == self.layout

    def __hash__(self) -> int:
        return hash(self.layout)

    def hexes(self):
        return self.geo.hexes()

    def canonical(self, hex: str) -> str:
        return self.geo.canonical(hex)

    def valid(self, hex: str) -> bool:
        return self.geo.valid(hex)

    def names(self, hex: str):
        return self.geo.names(hex)

    def parse(self, hex: str) -> tuple[int, int]:
        return self._place[self.geo.canonical(hex)]

    def index(self, hex: str) -> int:
        return self.geo.index(hex)

    def axial(self, hex: str) -> tuple[int, int]:
        return self.geo.axial(hex)

    def distance(self, a: str, b: str) -> int:
        return self.geo.distance(a, b)

    def neighbour(self, hex: str, direction: int):
        return self.geo.neighbour(hex, direction)

    def neighbours(self, hex: str) -> list[str]:
        return self.geo.neighbours(hex)

    def adjacency(self):
        return self.geo.adjacency()

    def within(self, hex: str, radius: int) -> list[str]:
        return axial_within(*self.axial(hex), radius, self.geo.at, self.geo.index_of)

    def edge(self, side: str) -> frozenset[str]:
        return self.geo.edge(side)

    def line(self, a: str, b: str) -> list[str]:
        return self.geo.line(a, b)

    first_row = 0  # the half hexes along the north edge of the boards' odd hexrows

    def at_place(self, column: int, row: int) -> str | None:
        return self._at_place.get((column, row))

    def edge_hex(self, hex: str, edge: str) -> str:
        """As Grid.edge_hex; a half-hex row missing in the edge column takes the nearest row of it."""
        col, row = self.parse(hex)
        if edge not in EDGES:
            raise ValueError(f"map edge must be one of {', '.join(EDGES)}, not {edge!r}")
        if edge in ("north", "south"):
            rows = [g for (q, g) in self._at_place if q == col]
            return self._at_place[(col, min(rows) if edge == "north" else max(rows))]
        for g in (row, row + 1, row - 1):
            cols = [q for (q, g2) in self._at_place if g2 == g]  # rows of boards may differ in length
            q = 0 if edge == "west" else max(cols, default=-1)
            if (q, g) in self._at_place:
                return self._at_place[(q, g)]
        raise AssertionError(f"no {edge} edge hex behind {hex}")


def boards():
    """cg.boards, the geomorphic boards: what a map of boards reads (its layout, hexrows, hex ids) comes through
    here, so that a single grid's readers never import it."""
    from cg import boards  # lazy: cg.boards (~2.4 ms) only for a map of boards

    return boards


def board_grid(layout) -> BoardGrid:
    """The BoardGrid of a card's `[map] boards` (one per layout)."""
    key = tuple(tuple(r) for r in layout)
    c = caches.current()
    return c.bounded(c.board_grids, key, lambda: BoardGrid(boards().geometry([list(r) for r in key])))
