"""ASL geomorphic boards: the hex grid of a CG Card map built from several boards.

A card whose map is made of geomorphic boards says so with `[map] boards = [["24", "23*"], ["12", "13"]]`:
rows of boards listed west to east, rows listed north to south; a trailing `*` marks a board turned 180
degrees. Hex ids on such a map carry the board: "24J4", "23A1" (ids never carry the star).

README
------
Geometry of one geomorphic board. 33 hexrows (columns) A..Z, AA..GG, flat-topped hexes in vertical
columns, numbered north to south. Counting A as 0, the even columns (A, C, E, ..., EE, GG) hold hexes 1..10;
the odd columns (B, D, ..., FF) hold hexes 0..10 and sit half a hex lower, so B1 touches A1 to its
south-east and C1 to its south-west; B0 and B10 (D0, D10, ...) are half hexes cut by the north and south
board edges, and the whole of columns A and GG are half hexes cut by the west and east board edges.
One board therefore has 17 x 10 + 16 x 11 = 346 hexes.

Joining boards. Boards butted side by side share a column: the GG half hexes of the west board and the
A half hexes of the east board are ONE hex (24GG5 and 23A5). Boards butted north-south share a row of
half hexes: row 10 of the upper board's odd columns and row 0 of the lower board's odd columns are ONE
hex (12B10 and 13B0). Both names are accepted; one is canonical. ASL A2.2 names the combined hex after
the printed coordinate, else after "the northeastern most board of those two"; printing is not modelled
here, so the north-eastern rule is applied to every join: across a west-east join the EAST board's name
is canonical (23A5, alias 24GG5); across a north-south join the NORTH board's name is canonical (12B10,
alias 13B0). Half hexes on the outer edges of the whole map stay hexes of the map (A2.6 lets units leave
the map from "any mapboard edge hex or half-hex", e.g. 2X0). A board's name may be used only once on a
map (a repeated board would make its hex ids ambiguous).

Turned boards ("23*", 180 degrees). Hex (column X, row r) of a turned board sits where hex (column
GG-X, row r') of an unturned board would: for even columns r' = 11 - r (rows 1..10 reverse), for odd
columns r' = 10 - r (rows 0..10 reverse). So 23*A1 lies at the south-east corner of the board's place,
23*GG10 at its north-west corner, 23*B0 is a half hex on its SOUTH edge, and a turned board joins its
western neighbour with its GG column (24GG5 = 23GG6 in "24 | 23*").

Distance is counted in hex steps as on the table (adjacent = 1), across joins as across any hexside.

Map-wide coordinates. Board (row R, place C) of the layout puts its map-column m (0..32, after turning)
at map column Q = 32 C + m and its map-row g at map row G = 10 R + g; axial (q, r) = (Q, G - (Q - Q % 2)//2)
-- the same axial system, stagger and direction numbering (1 N, 2 NE, 3 SE, 4 S, 5 SW, 6 NW) as
cg/hexgrid.py, so an unturned single board has exactly the axial coordinates Grid gives columns A-GG.
`join_table(layout)` lists, for a layout, which names are the same hex across each join.

Sources (checked before encoding; public material)
-------------------------------------------------
* ASL Rulebook A2.2 GRID COORDINATES (eASLRB, https://easlrb-195320.firebaseapp.com/A/A2.HTM): board
  number + hex row letter + number; butted boards' edge half-hexes combine into one hex, named after the
  printed coordinate, else the north-easternmost board; the row number of such a hex is 0 or 10.
  A2.6 EXIT (quoted in a forum thread, https://forum.cote1664.net/index.php?action=printpage&topic=11256.0):
  units may leave "from any mapboard edge hex or half-hex", "such as 2X0".
* VASL (github.com/vasl-developers/vasl), src/VASL/LOS/Map/Map.java: "A standard geomorphic map board is
  10 x 33 hexes"; each column holds `height + (col % 2)` hexes; "A1 is (0,0), A2 would be (0,1), B0 would
  be (1,0)"; the grid is `(width - 1) * Hex.WIDTH` wide (A and GG centred on the board edges: half hexes);
  flip() turns a board 180 degrees by swapping hexGrid[x][y] with hexGrid[width-x-1][len-y-1];
  insertMap() notes that boards' edge half hexes are merged. src/VASL/LOS/Map/Hex.java setHexFlags(): in
  the normal geomorphic layout column 0 has no west hexsides, the last column no east hexsides, and an odd
  column's row 0 / row `height` hexes have no north / south hexsides (half hexes).
  src/VASL/build/module/map/boardPicker/board/ASLHexGrid.java: odd columns are drawn half a hex lower
  (y = dy (row - 0.5) against dy (row - 1) for even columns). src/VASL/build/module/ASLMap.java: the LOS
  map of several boards is `width / hexWidth + 1` columns wide (side-by-side boards overlap by one column)
  and `height / hexHeight` rows high. ASLBoard.locationName() prefixes the board name on multi-board maps.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from cg import caches
from cg.axial import DIRECTIONS, axial_distance as _axial_distance, axial_line  # noqa: F401  (DIRECTIONS: part of this API)

# the 33 hexrows of a geomorphic board: A..Z then AA..GG
COLUMNS: tuple[str, ...] = tuple(chr(c) for c in range(65, 91)) + tuple(chr(c) * 2 for c in range(65, 72))
_COLUMN_INDEX = {label: i for i, label in enumerate(COLUMNS)}
LAST_COLUMN = len(COLUMNS) - 1  # 32 (GG)
BOARD_ROWS = 10  # rows 1..10 in even columns, 0..10 in odd ones
HEXES_PER_BOARD = 17 * 10 + 16 * 11  # 346

# same numbering and axial steps as cg/hexgrid.py (1 N, clockwise)
EDGES = ("north", "south", "east", "west")

_BOARD_NAME_RE = re.compile(r"[0-9A-Za-z]{1,8}")
_HEX_TAIL_RE = re.compile(r"^(.*?)([A-Za-z]*)(0|[1-9][0-9]?)$")


def column_rows(column: str) -> range:
    """The row numbers of one hexrow of a geomorphic board: 1..10 for A, C, ..., GG; 0..10 for B, D, ..., FF."""
    i = _COLUMN_INDEX[column]
    return range(1, BOARD_ROWS + 1) if i % 2 == 0 else range(BOARD_ROWS + 1)


# -- layout -------------------------------------------------------------------------------------------
@attrs.frozen(slots=True)
class Board:
    """One board of a layout: its name ("24") and whether it is turned 180 degrees ("24*")."""

    name: str
    turned: bool = False

    def __str__(self) -> str:
        return self.name + ("*" if self.turned else "")


def _parse_board(value: Any, where: str) -> Board:
    if not isinstance(value, str):
        raise ValueError(
            f"map boards: {where} is {value!r}; a board is text such as \"24\" or \"23*\" (quote board numbers)"
        )
    text = value.strip()
    turned = text.endswith("*")
    name = text[:-1] if turned else text
    if not _BOARD_NAME_RE.fullmatch(name):
        raise ValueError(
            f"map boards: {where} is {value!r}; a board name is 1-8 letters/digits such as \"24\" or \"1a\","
            " optionally followed by * for a board turned 180 degrees"
        )
    return Board(name, turned)


def _check_rows(rows: tuple[tuple[Board, ...], ...]) -> None:
    if not rows:
        raise ValueError("map boards: no boards (expected rows of boards such as [[\"24\", \"23*\"]])")
    for n, row in enumerate(rows, 1):
        if not row:
            raise ValueError(f"map boards: row {n} is empty (every row needs at least one board)")
        # rows may differ in length (third round): each starts at the map's west edge
    seen: dict[str, tuple[int, int]] = {}
    for n, row in enumerate(rows, 1):
        for k, board in enumerate(row, 1):
            key = board.name.lower()
            if key in seen:
                r0, k0 = seen[key]
                raise ValueError(
                    f"map boards: board {board.name} is used twice (row {r0} place {k0} and row {n} place {k});"
                    " each board may appear once, or its hex ids would name two hexes"
                )
            seen[key] = (n, k)
    # "1" next to "1a": "1AA5" (board 1, hexrow AA) and "1aA5" (board 1a, hexrow A) differ only in case
    for key in seen:
        if len(key) > 1 and key[-1] in "abcdefg" and key[:-1] in seen:
            raise ValueError(
                f"map boards: boards {key[:-1]} and {key} cannot share a map: an id such as"
                f" {key[:-1]}{key[-1].upper() * 2}5 would name a hex of both"
            )


@attrs.frozen(slots=True)
class Layout:
    """The boards of a map: `rows[R][C]` is the board in layout row R (north to south), place C (west to east)."""

    rows: tuple[tuple[Board, ...], ...]

    def __attrs_post_init__(self) -> None:
        _check_rows(self.rows)

    @classmethod
    def parse(cls, value: Any) -> Layout:
        """Layout.parse([["24", "23*"], ["12", "13"]]): the card's `[map] boards` value (a Layout passes through)."""
        if isinstance(value, Layout):
            return value
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise ValueError(
                f"map boards must be a list of rows of board names such as [[\"24\", \"23*\"]], not {value!r}"
            )
        rows = []
        for n, row in enumerate(value, 1):
            if isinstance(row, str) or not isinstance(row, (list, tuple)):
                raise ValueError(
                    f"map boards: row {n} must be a list of board names such as [\"24\", \"23*\"], not {row!r}"
                )
            rows.append(tuple(_parse_board(b, f"row {n} place {k}") for k, b in enumerate(row, 1)))
        return cls(tuple(rows))

    @property
    def width(self) -> int:
        """Boards in the longest layout row (rows may differ in length; each starts at the west edge)."""
        return max(len(row) for row in self.rows)

    @property
    def height(self) -> int:
        """Number of layout rows."""
        return len(self.rows)

    def boards(self) -> tuple[Board, ...]:
        """Every board, rows north to south, each west to east."""
        return tuple(b for row in self.rows for b in row)

    def names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.boards())

    def position(self, name: str) -> tuple[int, int]:
        """(layout row, place in row) of a board, from 0; ValueError if it is not on the map."""
        key = name.lower()
        for r, row in enumerate(self.rows):
            for c, b in enumerate(row):
                if b.name.lower() == key:
                    return r, c
        raise ValueError(f"board {name!r} is not on the map ({self})")

    def board(self, name: str) -> Board:
        r, c = self.position(name)
        return self.rows[r][c]

    def spec(self) -> list[list[str]]:
        """The `[map] boards` value this layout was read from (normalised)."""
        return [[str(b) for b in row] for row in self.rows]

    def __str__(self) -> str:
        return " / ".join(" ".join(str(b) for b in row) for row in self.rows)


def parse_layout(value: Any) -> Layout:
    """The card's `[map] boards` value as a Layout (ValueError with the reason if it is not a valid layout)."""
    return Layout.parse(value)


# -- hex ids ------------------------------------------------------------------------------------------
def _hex_candidates(text: str) -> list[tuple[str, str, int]]:
    m = _HEX_TAIL_RE.match(text)
    if not m:
        return []
    head, letters, row_s = m.groups()
    row = int(row_s)
    out = []
    for k in (2, 1):  # the longer hexrow first ("1aa5" -> board 1, hexrow AA)
        if len(letters) < k:
            continue
        column = letters[-k:].upper()
        board = head + letters[:-k]
        if column in _COLUMN_INDEX and board:
            out.append((board, column, row))
    return out


def parse_hex(hex_id: str, boards: Iterable[str] | None = None) -> tuple[str, str, int]:
    """Split a board hex id into (board, hexrow, row): "24J4" -> ("24", "J", 4); "23gg10" -> ("23", "GG", 10).

    Letters are case-insensitive. The id must start with a board name; the row must exist in that hexrow
    (1..10 in A, C, ..., GG; 0..10 in B, D, ..., FF). With `boards` (the layout's board names) the board is
    matched against them (case-insensitively, returned as spelled in `boards`) -- needed for board names
    that end in a letter ("1aA5" is board 1a only if the map has a board 1a; without `boards` the longer
    hexrow wins and "1aA5" reads as board 1, hexrow AA). An id that reads as a bare hex id ("J4", "gg5") is
    refused as lacking its board, unless `boards` holds a board that makes sense of it (board "g": "gg5").
    """
    if not isinstance(hex_id, str):
        raise ValueError(f"hex id must be text such as \"24J4\", not {hex_id!r}")
    text = hex_id.strip()
    if "*" in text:
        raise ValueError(
            f"hex {hex_id!r}: hex ids never carry the * of a turned board; write the board number alone (\"23A1\")"
        )
    candidates = _hex_candidates(text)
    m = _HEX_TAIL_RE.match(text)
    bare = m is not None and not m.group(1) and m.group(2).upper() in _COLUMN_INDEX  # "J4", "gg5": no board
    if boards is not None:
        known = {b.lower(): b for b in boards}
        matching = [(known[b.lower()], c, r) for b, c, r in candidates if b.lower() in known]
        if not matching and candidates and not bare:
            raise ValueError(
                f"hex {hex_id!r} is not on the map: it does not start with a board of the map"
                f" ({', '.join(known.values())}) followed by a hexrow A..GG and a row"
            )
        candidates = matching
    elif bare:
        candidates = []
    if not candidates:
        if bare:
            assert m is not None  # bare: it matched
            raise ValueError(
                f"hex {hex_id!r} has no board number: on a map of geomorphic boards write the board first,"
                f" e.g. \"24{m.group(2).upper()}{m.group(3)}\""
            )
        raise ValueError(
            f"hex {hex_id!r} is not a board hex id: expected board, hexrow A..GG and row, e.g. \"24J4\""
        )
    board, column, row = candidates[0]
    if row not in column_rows(column):
        rows = column_rows(column)
        kind = "A, C, E, ..., GG" if rows.start == 1 else "B, D, F, ..., FF"
        raise ValueError(
            f"hex {hex_id!r}: hexrow {column} has rows {rows.start}-{rows.stop - 1}"
            f" (hexrows {kind} hold rows {rows.start}-{rows.stop - 1})"
        )
    return board, column, row


def _name(board: str, column: str, row: int) -> str:
    return f"{board}{column}{row}"


# -- geometry -----------------------------------------------------------------------------------------
def _to_map(r_layout: int, c_layout: int, turned: bool, column_index: int, row: int) -> tuple[int, int]:
    """Board hex -> (map column Q, map row G) (see the README section above)."""
    if turned:
        m = LAST_COLUMN - column_index
        g = (BOARD_ROWS + 1 - row) if column_index % 2 == 0 else (BOARD_ROWS - row)
    else:
        m, g = column_index, row
    return LAST_COLUMN * c_layout + m, BOARD_ROWS * r_layout + g


def _axial(q: int, g: int) -> tuple[int, int]:
    return q, g - (q - (q & 1)) // 2


@attrs.frozen(slots=True)
class Join:
    """One seam between two boards: `pairs` lists (canonical id, alias) along it (north to south / west to east)."""

    kind: str  # "side by side" (west | east) or "stacked" (north / south)
    first: Board  # the west or north board
    second: Board  # the east or south board
    pairs: tuple[tuple[str, str], ...]


@attrs.frozen(slots=True, eq=False)
class Geometry:
    """The hexes of a map of geomorphic boards; the same questions as cg.hexgrid.Grid answers."""

    layout: Layout
    ids: tuple[str, ...]  # canonical ids, map column west to east, then north to south
    aliases: Mapping[str, str]  # alias -> canonical id (the other name of each joined half-hex pair)
    axial_of: Mapping[str, tuple[int, int]]  # canonical id -> axial (q, r), map-wide
    at: Mapping[tuple[int, int], str]  # axial -> canonical id
    index_of: Mapping[str, int]
    edges: Mapping[str, frozenset[str]]
    adjacent: Mapping[str, tuple[str, ...]]  # canonical id -> on-map neighbours, direction order 1..6
    joins: tuple[Join, ...]

    # -- ids ----------------------------------------------------------------------------------------
    def hexes(self) -> tuple[str, ...]:
        """Every hex of the map once (canonical ids), map column by map column, north to south."""
        return self.ids

    def canonical(self, hex: str) -> str:
        """The map's name of a hex: "24gg5" -> "23A5" on "24 23"; ValueError if it is not on the map."""
        if hex in self.index_of:
            return hex
        alias = self.aliases.get(hex)
        if alias is not None:
            return alias
        board, column, row = parse_hex(hex, self.layout.names())
        name = _name(board, column, row)
        if name in self.index_of:
            return name
        return self.aliases[name]  # every board hex is a map hex or an alias of one

    def valid(self, hex: str) -> bool:
        try:
            self.canonical(hex)
        except ValueError:
            return False
        return True

    def names(self, hex: str) -> tuple[str, ...]:
        """Every name of the hex: (canonical,) or (canonical, alias) for a joined half-hex pair."""
        h = self.canonical(hex)
        return (h,) + tuple(a for a, c in self.aliases.items() if c == h)

    def parse(self, hex: str) -> tuple[str, str, int]:
        """(board, hexrow, row) of the hex's canonical id."""
        return parse_hex(self.canonical(hex), self.layout.names())

    def index(self, hex: str) -> int:
        """Place of the hex in hexes() (tie-break order)."""
        return self.index_of[self.canonical(hex)]

    def axial(self, hex: str) -> tuple[int, int]:
        """Map-wide axial (q, r) of the hex."""
        return self.axial_of[self.canonical(hex)]

    # -- geometry -----------------------------------------------------------------------------------
    def distance(self, a: str, b: str) -> int:
        """Hex steps from a to b as on the table (adjacent = 1; across joins as across any hexside)."""
        return _axial_distance(self.axial(a), self.axial(b))

    def neighbour(self, hex: str, direction: int) -> str | None:
        """The hex next to `hex` in direction 1..6 (1 N, clockwise), None if off the map."""
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be 1..6 (1 N, 2 NE, 3 SE, 4 S, 5 SW, 6 NW), not {direction!r}")
        q, r = self.axial(hex)
        dq, dr = DIRECTIONS[direction]
        return self.at.get((q + dq, r + dr))

    def neighbours(self, hex: str) -> list[str]:
        """The on-map hexes adjacent to `hex` (canonical ids), in direction order 1..6."""
        return list(self.adjacent[self.canonical(hex)])

    def adjacency(self) -> Mapping[str, tuple[str, ...]]:
        """canonical id -> its on-map neighbours; do not modify."""
        return self.adjacent

    def edge(self, side: str) -> frozenset[str]:
        """The hexes and half hexes touching one edge of the whole map (north, south, east, west)."""
        try:
            return self.edges[side]
        except KeyError:
            raise ValueError(f"map edge must be one of {', '.join(EDGES)}, not {side!r}") from None

    def line(self, a: str, b: str) -> list[str]:
        """A shortest on-map hex path from a to b, both included, drawn as cg.hexgrid.Grid.line draws it."""
        return axial_line(self.canonical(a), self.canonical(b), self.axial_of, self.at, self.index_of)


def _northeast_key(pos: tuple[int, int]) -> tuple[int, int]:
    """Sort key: larger = more north-eastern (A2.2). pos = (layout row, place)."""
    r, c = pos
    return c, -r


def _build(layout: Layout) -> Geometry:
    # every board name of every hex, by map position
    names_at: dict[tuple[int, int], list[tuple[tuple[int, int], str]]] = {}
    for r_l, row in enumerate(layout.rows):
        for c_l, board in enumerate(row):
            for ci, column in enumerate(COLUMNS):
                for hr in column_rows(column):
                    pos = _to_map(r_l, c_l, board.turned, ci, hr)
                    names_at.setdefault(pos, []).append(((r_l, c_l), _name(board.name, column, hr)))
    aliases: dict[str, str] = {}
    canonical_at: dict[tuple[int, int], str] = {}
    for pos, named in names_at.items():  # sorted in place: canonical name first (the joins below rely on it)
        named.sort(key=lambda item: _northeast_key(item[0]), reverse=True)
        canonical_at[pos] = named[0][1]
        for _, other in named[1:]:
            aliases[other] = named[0][1]
    order = sorted(canonical_at)
    ids = tuple(canonical_at[p] for p in order)
    axial = {canonical_at[p]: _axial(*p) for p in order}
    at = {a: h for h, a in axial.items()}
    # the map's edges follow its boards: per map column its northern- and southernmost hex; per layout row
    # its last board's east column (rows may differ in length; a seam's half hexes belong to both rows)
    top: dict[int, int] = {}
    bottom: dict[int, int] = {}
    for q, g in order:
        top[q] = min(top.get(q, g), g)
        bottom[q] = max(bottom.get(q, g), g)

    def east(q: int, g: int) -> bool:  # an east column is even (32 per board): its rows 1..10 are one board's
        return q == LAST_COLUMN * len(layout.rows[min(max(g - 1, 0) // BOARD_ROWS, layout.height - 1)])

    edges = {
        "north": frozenset(canonical_at[(q, g)] for (q, g) in order if g == top[q]),
        "south": frozenset(canonical_at[(q, g)] for (q, g) in order if g == bottom[q]),
        "west": frozenset(canonical_at[(q, g)] for (q, g) in order if q == 0),
        "east": frozenset(canonical_at[(q, g)] for (q, g) in order if east(q, g)),
    }
    adjacent = {}
    for h, (q, r) in axial.items():
        adjacent[h] = tuple(at[(q + dq, r + dr)] for dq, dr in DIRECTIONS.values() if (q + dq, r + dr) in at)
    joins = []
    for r_l, row in enumerate(layout.rows):
        for c_l in range(len(row) - 1):
            q = LAST_COLUMN * (c_l + 1)
            pairs = tuple(
                (names_at[(q, g)][0][1], names_at[(q, g)][1][1])
                for g in range(BOARD_ROWS * r_l + 1, BOARD_ROWS * r_l + BOARD_ROWS + 1)
            )
            joins.append(Join("side by side", row[c_l], row[c_l + 1], pairs))
    for r_l in range(layout.height - 1):
        for c_l in range(min(len(layout.rows[r_l]), len(layout.rows[r_l + 1]))):
            g = BOARD_ROWS * (r_l + 1)
            pairs = tuple(
                (names_at[(q, g)][0][1], names_at[(q, g)][1][1])
                for q in range(LAST_COLUMN * c_l + 1, LAST_COLUMN * c_l + LAST_COLUMN, 2)
            )
            joins.append(Join("stacked", layout.rows[r_l][c_l], layout.rows[r_l + 1][c_l], pairs))
    return Geometry(
        layout=layout,
        ids=ids,
        aliases=aliases,
        axial_of=axial,
        at=at,
        index_of={h: i for i, h in enumerate(ids)},
        edges=edges,
        adjacent=adjacent,
        joins=tuple(joins),
    )


def geometry(layout: Layout | Any) -> Geometry:
    """The hexes of a map of geomorphic boards (cached per layout): `geometry([["24", "23*"]])`.

    Gives every canonical hex id in a stable order (`hexes()`), alias -> canonical id for the joined half
    hexes (`aliases`), map-wide axial coordinates (`axial_of`) and the inverse (`at`), plus distance,
    neighbours, edges and lines.
    """
    layout = Layout.parse(layout)
    c = caches.current()
    return c.bounded(c.layouts, layout, lambda: _build(layout), limit=32)


def distance(layout: Layout | Any, a: str, b: str) -> int:
    """Hex steps between two board hex ids of a layout, across joins as on the table."""
    return geometry(layout).distance(a, b)


def joins(layout: Layout | Any) -> tuple[Join, ...]:
    """The seams of a layout: west-east joins row by row, then north-south joins."""
    return geometry(layout).joins


def join_table(layout: Layout | Any) -> str:
    """A text table of which hex names are the same hex across each join of a layout (canonical = alias)."""
    geo = geometry(layout)
    lines = [
        (
            f"Board joins of the map {geo.layout} (ASL A2.2: a joined hex takes the name on the more"
            " north-eastern board; the other name is an alias):"
        )
    ]
    if not geo.joins:
        lines.append("  (one board: no joins)")
    for join in geo.joins:
        sep = "|" if join.kind == "side by side" else "/"
        lines.append(f"  {join.first} {sep} {join.second} ({join.kind}):")
        for canonical, alias in join.pairs:
            lines.append(f"    {canonical} = {alias}")
    return "\n".join(lines)


README_SECTION = __doc__.split("README\n------\n", 1)[1].split("\nSources", 1)[0].strip()
