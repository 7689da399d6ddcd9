"""Pictures of the map control (1.4): a terminal hex map and an SVG hex map.

Both read a `MapControl` (cg.control) and draw each hex once, in ASL geometry (ruling R17:
flat-topped hexes, even-lettered columns half a hex lower). Nothing here writes anything.
"""
from __future__ import annotations

import hashlib
import math
import textwrap

from cg import items
from cg.control import SIDES, HexControl, MapControl
from cg.hexgrid import Grid
from projections.words import terrain_words


def escape(data: str) -> str:
    """XML text: "&", "<" and ">" escaped (xml.sax.saxutils.escape, whose module imports urllib.request and
    http.client: ~15 ms of a report's start for three replacements)."""
    if "&" in data or "<" in data or ">" in data:  # most of a map's ~800 texts hold none: no three replacements
        return data.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
    return data


def quoteattr(data: str) -> str:
    """An XML attribute value, quoted (xml.sax.saxutils.quoteattr: the same string)."""
    data = escape(data).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' in data:
        if "'" in data:
            return '"%s"' % data.replace('"', "&quot;")
        return "'%s'" % data
    return '"%s"' % data


# one character per control state (the text view, and the SVG's classes)
CODES = {
    "A": "axis CTHC",
    "L": "allied CTHC",
    "a": "inside the axis MLR",
    "l": "inside the allied MLR",
    "N": "No Man's Land",
    ".": "Uncontrolled Terrain",
    "I": "axis Isolated Location (axis CTHC inside the allied MLR)",
    "J": "allied Isolated Location (allied CTHC inside the axis MLR)",
}


def code(hc: HexControl) -> str:
    """The one-character control state of a hex (see CODES)."""
    if hc.isolated:
        return "I" if hc.isolated == "axis" else "J"
    if hc.cthc:
        return "A" if hc.cthc == "axis" else "L"
    if hc.nml:
        return "N"
    if hc.mlr:
        return "a" if "axis" in hc.mlr else "l"
    return "."


def _by_hex(grid: Grid, items: dict[str, list[str]] | None, what: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for h, things in (items or {}).items():
        try:
            key = grid.canonical(h)
        except ValueError as err:
            raise ValueError(f"{what}: {err}") from None
        out.setdefault(key, []).extend(str(t) for t in things)
    return {h: v for h, v in out.items() if v}


def _lower(grid: Grid, hex: str) -> bool:
    """ruling R17: the hex sits in an even-lettered column, half a hex lower."""
    return grid.axial(hex)[0] % 2 == 1


def _summary(mc: MapControl) -> list[str]:
    lines = []
    for side in SIDES:
        cthc = sum(1 for hc in mc.hexes.values() if hc.cthc == side)
        mlr = sum(1 for hc in mc.hexes.values() if side in hc.mlr)
        held = sorted((h for h, hc in mc.hexes.items() if hc.controller == side), key=mc.grid.index)
        iso = sorted((h for h, hc in mc.hexes.items() if hc.isolated == side), key=mc.grid.index)
        line = f"{side}: controls {', '.join(held) or 'no strategic hex'}; CTHC {_n(cthc)}, MLR {_n(mlr)}"
        if iso:
            line += f"; Isolated Locations {', '.join(iso)}"
        lines.append(line)
    nml = sum(1 for hc in mc.hexes.values() if hc.nml)
    unc = sum(1 for hc in mc.hexes.values() if hc.uncontrolled)
    lines.append(f"No Man's Land {_n(nml)}; Uncontrolled {_n(unc)}")
    return lines


def _n(count: int) -> str:
    return f"{count} hex" if count == 1 else f"{count} hexes"


# -- text ------------------------------------------------------------------------------------------

CELL = 3  # a hex is 3 characters: its control code, why it is Strategic, what it holds
MARGIN = 4  # row labels
WIDTH = 80  # a terminal's width: wider maps print in panels of columns, west to east


def render_text(
    grid: Grid,
    mc: MapControl,
    terrain: dict[str, list[items.Kept | str]] | None = None,
    units: dict[str, list[str]] | None = None,
    why: dict[str, list[str]] | None = None,
) -> str:
    """A terminal hex map: one line per row, one 3-character cell per hex, then a legend, each Strategic
    hex with why it is one, and the terrain/units lists.

    A cell is the control code (CODES), then '*' for the card's Strategic Terrain or '+' for Strategic
    Terrain the campaign grew (1.4: a fortification, rubble, an emplaced Gun), then '!' terrain, '@' units,
    '&' both. A row's line holds every column's hex of that row; on the board an even-lettered column's
    hexes sit half a hex lower (ruling R17). `why`: hex -> the reasons it is Strategic Terrain.
    """
    why = why or {}
    terrain_at = _by_hex(grid, terrain, "terrain")
    units_at = _by_hex(grid, units, "units")
    if hasattr(grid, "layout"):  # a map of boards: its boards, each with hexrows A-GG, rows 0-10
        turned = [str(b) for b in grid.layout.boards() if b.turned]
        extent = (f"boards {grid.layout} (hexrows A-GG on each board"
                  + (f"; {', '.join(turned)} turned: its hexrows run GG-A" if turned else "")
                  + f"), {grid.width} columns, rows {grid.first_row}-{grid.rows}")
    else:
        extent = f"columns {grid.columns[0]}-{grid.columns[-1]}, rows 1-{grid.rows}"
    out = _wrap(f"Map control, {extent} (north at the top; friendly edges: "
                + ", ".join(f"{s} {e}" for s, e in sorted(mc.friendly_edge.items())) + ")", "")
    per = max(1, (WIDTH - MARGIN) // CELL)  # columns per panel
    rows = range(getattr(grid, "first_row", 1), grid.rows + 1)  # a map of boards has half hexes at 0
    for first in range(0, len(grid.columns), per):
        cols = list(enumerate(grid.columns))[first:first + per]
        if first:
            out.append("")
        out.append((" " * MARGIN + "".join(f"{c:<{CELL}}" for _ci, c in cols)).rstrip())
        for row in rows:
            line = f"{row:>{MARGIN - 1}} "
            for ci, _col in cols:
                h = grid.at_place(ci, row)
                if h is None:
                    line += " " * CELL
                    continue
                hc = mc.hexes[h]
                mark = {(True, True): "&", (True, False): "!", (False, True): "@"}.get(
                    (h in terrain_at, h in units_at), " "
                )
                star = (" " if not hc.strategic else "+" if any(w.startswith("grown") for w in why.get(h, ()))
                        and not any(not w.startswith("grown") for w in why.get(h, ())) else "*")
                line += code(hc) + star + mark
            out.append(line.rstrip())
    out.append("")
    out += _wrap("Legend (one line per row; on the board an even-lettered column's hexes sit half a hex"
                 " lower, ruling R17):", "")
    for ch, text in CODES.items():
        out.append(f"  {ch}  {text}")
    out.append("  *  Strategic Terrain from the CG Card (1.4: TVP, building, bridge, Woods-Line)")
    out.append("  +  Strategic Terrain the campaign grew (1.4: fortification, rubble, Gun; R46)")
    out.append("  !  terrain (listed below)   @  units (listed below)   &  both")
    strategic = sorted((h for h, hc in mc.hexes.items() if hc.strategic), key=grid.index)
    if strategic:
        out.append("")
        out.append("Strategic Terrain (1.4), and why:")
        for h in strategic:
            hc = mc.hexes[h]
            held = f"{hc.controller} controls it" if hc.controller else "controlled by neither side"
            out += _wrap(f"  {h}: {'; '.join(why.get(h) or ['Strategic Terrain'])} ({held})")
    out.append("")
    out += [w for line in _summary(mc) for w in _wrap(line)]
    if terrain_at:
        out.append("")
        out.append("Terrain:")
        for h in sorted(terrain_at, key=grid.index):
            out += _wrap(f"  {h}: {', '.join(terrain_words(t) for t in terrain_at[h])}")
    if units_at:
        out.append("")
        out.append("Units:")
        for h in sorted(units_at, key=grid.index):
            out += _wrap(f"  {h}: {', '.join(units_at[h])}")
    return "\n".join(out) + "\n"


def _wrap(text: str, indent: str = "      ") -> list[str]:
    """A line of words folded to the terminal's width, its continuation lines indented."""
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False) or [""]


# -- SVG -------------------------------------------------------------------------------------------

SIZE = 36.0  # hex circumradius, px: room for a counter with 10 px text
HEIGHT = math.sqrt(3) * SIZE
PAD = 16.0
INSET = 0.8  # terrain fills an inner hex; the ring outside it keeps the control colour

PAPER = "#f4f0e1"
COLOURS = {  # fill, dark (outline/marker)
    "axis": ("#9fb1c4", "#2c4a6b"),
    "allied": ("#b3c98a", "#4a6a1c"),
}
COUNTER = {"axis": "#3b5b82", "allied": "#5b7a1e", None: "#555555"}  # counter face, white text on it
COUNTER_FONT = 10.0  # px at 1x: a counter's name must be readable
NML_FILL = "#dcb98e"
ISOLATED_MARK = "#c0392b"

# the ground a card maps (MapSpec: water, buildings, stone; woods, orchard, brush, grain, roads, bridges
# where the card has them), each with its inner-hex fill and its words in the legend
GROUND = {
    "water": ("#4f8fd0", "water (stream, pond): +1 to 3.52 clearance"),
    "woods": ("#3f7a35", "woods"),
    "orchard": ("#cfe0a4", "orchard"),
    "brush": ("#9fb56a", "brush"),
    "grain": ("#e6cf6e", "grain"),
}
TREE = "#24511f"
ROAD = ("#b39563", "road")
BRIDGE = ("#8a6a48", "bridge")
BUILDING = {"stone": ("#9c9c9c", "#3a3a3a", "stone building"), "wooden": ("#b8763a", "#5a3412", "wooden building")}

# the colour of a terrain item's mark (cg/items.py gives the mark and the words): fire red, mines and
# explosives dark red, rubble brown, metal and wire dark grey, earthworks and the rest earth brown
MARK_COLOURS = {
    "rubble": "#7b4a1e", "blaze": "#d62400", "flame": "#e06000", "wire": "#222222", "pillbox": "#333333",
    "wreck": "#333333", "burning_wreck": "#d62400", "burnt_out_wreck": "#333333", "tetrahedrons": "#333333",
    "ap_mine": "#8b0000", "at_mine": "#8b0000", "known_minefield": "#8b0000", "mines": "#8b0000",
    "dummy_minefield": "#8b0000", "booby_traps": "#8b0000", "set_dc": "#8b0000", "trip_flares": "#8b0000",
}
EARTH = "#5a3b12"
TVP_BADGE = ("#f2c230", "#222222")  # a gold diamond with dark figures: never taken for a stack's black disc
STACK_BADGE = "#111111"
HILL = ("#8c5a2b", "hill, level 1 (B10); a second line per level more")
HEXSIDE = {"wall": ("#6b6b6b", 5.0, "wall (B9)"), "hedge": ("#2e8b2e", 5.0, "hedge (B9)"),
           "bocage": ("#17401a", 8.0, "bocage (B9)")}
RUBBLED = ("#8a7560", "#4a3a2a", "rubbled building (B24)")
BURNING = ("#e25a00", "#c21f00", "burning building (Blaze, 3.31)")
LABEL_CHARS = 13  # a counter's name up to this long is drawn whole (squeezed to the counter if need be)


_AROUND: dict = {}  # id(grid) -> (the grid, held: its id never a freed one's; hex -> its neighbours in directions 1-6)


def _neighbours(grid: Grid) -> dict[str, tuple]:
    """Every hex's neighbours in directions 1-6 (None off the map), worked out once per grid: each map of a
    report outlines the MLRs of the same grid."""
    got = _AROUND.get(id(grid))
    if got is None or got[0] is not grid:
        if len(_AROUND) > 16:
            _AROUND.clear()
        got = _AROUND[id(grid)] = (grid, {h: tuple(grid.neighbour(h, d) for d in range(1, 7)) for h in grid.hexes()})
    return got[1]


_MARKS: dict = {}  # a kept item -> (_terrain_mark, its words): every map of a report names the same items again


def _item_drawn(item: items.Kept | str) -> tuple[tuple[str, str], str]:
    """(_terrain_mark(item), terrain_words(item)), worked out once per item (a Kept is frozen, a str is
    itself: both pure functions of it)."""
    got = _MARKS.get(item)
    if got is None:
        if len(_MARKS) > 4096:
            _MARKS.clear()
        got = _MARKS[item] = (_terrain_mark(item), terrain_words(item))
    return got


def _item_words(item: items.Kept | str) -> str:
    return _item_drawn(item)[1]


def _terrain_mark(item: items.Kept | str) -> tuple[str, str]:
    """The mark and colour of a kept item, from the one vocabulary (cg/items.py); a word it lacks (a
    revision 1 campaign kept words as typed) shows its first two letters."""
    k = items.kept(item)
    entry = k.reads_as()
    if entry is not None:
        return entry.mark, MARK_COLOURS.get(entry.key, EARTH)
    letters = [c for c in str(k) if c.isalnum()]
    return ("".join(letters[:2]).title() or "?"), "#333333"


_F: dict = {}  # x -> _f(x): every map of a report draws the same hexes at the same coordinates


def _f(x: float) -> str:
    s = _F.get(x)
    if s is None:
        s = f"{x:.1f}".rstrip("0").rstrip(".")
        if x:  # not 0.0: -0.0 equals it as a key and prints "-0"
            _F[x] = s
    return s


def _corners(cx: float, cy: float, size: float = SIZE) -> list[tuple[float, float]]:
    # corner i at 60*i degrees, y down: 0 E, 1 lower right, 2 lower left, 3 W, 4 upper left, 5 upper right
    return [
        (cx + size * math.cos(math.radians(60 * i)), cy + size * math.sin(math.radians(60 * i)))
        for i in range(6)
    ]


def _side_of_direction(d: int) -> tuple[int, int]:
    """The two corners of the hexside towards direction d (1 N, clockwise)."""
    return (d + 3) % 6, (d + 4) % 6


_HEXPATHS: dict = {}


def _hexpath(cx: float, cy: float, size: float) -> str:
    key = (cx, cy, size)
    path = _HEXPATHS.get(key)
    if path is None:
        path = _HEXPATHS[key] = _hexpath_of(cx, cy, size)
    return path


def _hexpath_of(cx: float, cy: float, size: float) -> str:
    return "M" + "L".join(f"{_f(x)} {_f(y)}" for x, y in _corners(cx, cy, size)) + "Z"


# where things sit in a hex (offsets from its centre, px): a player reads them at a glance
BUILDING_AT = (0.0, -9.0)  # centre of the building block
BUILDING_W, BUILDING_H = 24.0, 15.0
COUNTER_Y = 4.0  # top of the counter row
COUNTER_H = 15.0
GROUND_PROBE = (-0.6 * SIZE, 0.0)  # a point of the inner hex that nothing else covers (tests sample it)
TREES = ((-2.0, -14.0), (11.0, -7.0), (-11.0, -6.0), (13.0, 9.0))


def ground_probe(cx: float, cy: float) -> tuple[float, float]:
    return cx + GROUND_PROBE[0], cy + GROUND_PROBE[1]


def building_centre(cx: float, cy: float) -> tuple[float, float]:
    return cx + BUILDING_AT[0], cy + BUILDING_AT[1]


def hex_centres(grid: Grid, title: str = "") -> dict[str, tuple[float, float]]:
    """Each hex's centre in the SVG's pixels (the drawing below and the tests read the same numbers)."""
    top, left = _origin(title)
    first = _first_row(grid)
    out = {}
    for h in grid.hexes():
        ci, row = grid.parse(h)
        out[h] = (left + SIZE + 1.5 * SIZE * ci,
                  top + HEIGHT / 2 + HEIGHT * (row - first) + (HEIGHT / 2 if _lower(grid, h) else 0.0))
    return out


class _Geometry:
    """What every map of one grid draws the same (the hexes' centres, corners, outlines and the map's
    edge): worked out once for the 98 maps of a long campaign's report, not once a map (issue 36)."""

    def __init__(self, grid: Grid, title: str):
        self.first = _first_row(grid)
        self.centres = hex_centres(grid, title)
        self.halves = halves = half_hexes(grid)
        self.corners = {h: _corners(cx, cy) for h, (cx, cy) in self.centres.items()}
        outlines = {h: _half_corners(cx, cy, halves.get(h)) for h, (cx, cy) in self.centres.items()}
        self.points = {h: " ".join(f"{_f(x)},{_f(y)}" for x, y in o) for h, o in outlines.items()}
        self.outline = "".join("M" + "L".join(f"{_f(x)} {_f(y)}" for x, y in outlines[h]) + "Z" for h in grid.hexes())
        self.labels = {}  # each hex's id as the map writes it (its place: the half a map edge leaves of it)
        for h, (cx, cy) in self.centres.items():
            lx, ly = {"south": (cx, cy + 12), "east": (cx + 0.45 * SIZE, cy - HEIGHT / 2 + 9),
                      "west": (cx - 0.45 * SIZE, cy - HEIGHT / 2 + 9)}.get(halves.get(h), (cx, cy - HEIGHT / 2 + 9))
            self.labels[h] = f'<text x="{_f(lx)}" y="{_f(ly)}" font-size="8" fill="#444" text-anchor="middle">{h}</text>'


_GEOMETRY: list = [None, None, None]  # the last map's (grid, title or not, _Geometry)


def _geometry(grid: Grid, title: str) -> _Geometry:
    """The grid's _Geometry (the title moves the map down, whatever it says)."""
    g, titled, geo = _GEOMETRY
    if g is not grid or titled != bool(title):
        geo = _Geometry(grid, title)
        _GEOMETRY[:] = (grid, bool(title), geo)
    return geo


def _first_row(grid: Grid) -> int:
    """The top row drawn: 1 on a single grid; 0 on a map of boards, whose B, D, ... columns start with
    the half hexes of row 0 (drawn below the title, not over it)."""
    return min(1, min(grid.parse(h)[1] for h in grid.hexes()))


def _origin(title: str) -> tuple[float, float]:
    title_h = 28.0 if title else 0.0
    return PAD + title_h + 14.0, PAD + 16.0  # room for the column letters / the row numbers


def _units_of(grid: Grid, units) -> dict[str, list[tuple[str | None, str]]]:
    """units per hex as (side or None, counter name); a plain string has no side."""
    out: dict[str, list[tuple[str | None, str]]] = {}
    for h, things in (units or {}).items():
        try:
            key = grid.canonical(h)
        except ValueError as err:
            raise ValueError(f"units: {err}") from None
        for t in things:
            out.setdefault(key, []).append(tuple(t) if isinstance(t, (tuple, list)) else (None, str(t)))
    return {h: v for h, v in out.items() if v}


_GROUNDS: dict = {}  # (id(grid), the ground given) -> (the grid, held; its ground by kind, each hex's ground in words)


def _ground_once(grid: Grid, ground: dict | None) -> tuple[dict[str, frozenset[str]], dict[str, list[str]]]:
    """_ground_of and every hex's _ground_words, worked out once per card map: each map of a report draws the
    same ground (a ground's values are tuples of hexes, maps.ground)."""
    try:
        key = (id(grid), tuple((ground or {}).items()))
        got = _GROUNDS.get(key)
    except TypeError:  # a ground given as lists: not kept
        key, got = None, None
    if got is None or got[0] is not grid:
        gr = _ground_of(grid, ground)
        got = (grid, gr, {h: _ground_words(h, gr) for h in grid.hexes()})
        if key is not None:
            if len(_GROUNDS) > 16:
                _GROUNDS.clear()
            _GROUNDS[key] = got
    return got[1], got[2]


def _ground_of(grid: Grid, ground: dict | None) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for kind, hexes in (ground or {}).items():
        keep = set()
        for h in hexes or ():
            try:
                keep.add(grid.canonical(h))
            except ValueError as err:
                raise ValueError(f"{kind}: {err}") from None
        out[kind] = frozenset(keep)
    return out


def render_svg(
    grid: Grid,
    mc: MapControl,
    terrain: dict[str, list[items.Kept | str]] | None = None,
    units: dict[str, list] | None = None,
    title: str = "",
    tvp: dict[str, int] | None = None,
    ground: dict[str, tuple[str, ...]] | None = None,
    grown: frozenset[str] = frozenset(),
    hills: dict[str, int] | None = None,
    hexsides: dict[str, tuple[str, ...]] | None = None,
    id_prefix: str = "",
    cls: str = "",
) -> str:
    """A standalone SVG hex map (no XML declaration, so it can also sit inline in HTML).

    One <polygon> per hex, filled by control (CTHC, MLR hatching, NML, Uncontrolled, Isolated
    cross-hatching); the ground drawn inside it (`ground`: water, woods, orchard, brush and grain as an
    inner hex, roads and bridges as bands, buildings as blocks, stone grey and wooden brown), so a ring
    of the control colour stays visible; each side's MLR outlined along its hexsides; strategic hexes
    marked with a disc in the controller's colour (hollow if uncontrolled) carrying the TVP value;
    terrain kept (CG5) as abbreviations (Rb rubble, Fl flame, Wi wire, Mi mines, ...) named in words in
    the legend; units as counters in their side's colour with the counter's name (`units` values are
    (side, name) pairs, or names), a black disc counting a stack, every name in the hex's tooltip.
    `grown`: the hexes that became Strategic Terrain in the campaign (1.4), said so in their tooltip.
    `hills` (hex -> level) draws a brown contour line inside the hex per level; `hexsides` (wall, hedge,
    bocage -> "A-B" pairs of adjacent hexes) draws a band along each. On a map of boards the half hexes of
    its outer edges are drawn as halves; a building with rubble kept is drawn as rubble, one with a Blaze
    as burning. `id_prefix` starts every id (and every reference to one), `cls` is the root's class: for
    a page holding several maps (the HTML report), written with their final ids rather than rewritten.
    """
    terrain_at = _by_hex(grid, terrain, "terrain")
    units_at = _units_of(grid, units)
    gr, ground_words = _ground_once(grid, ground)
    tvp_at: dict[str, int] = {}
    for h, v in (tvp or {}).items():
        try:
            tvp_at[grid.canonical(h)] = int(v)
        except ValueError as err:
            raise ValueError(f"tvp: {err}") from None

    digest = hashlib.sha1(
        repr((title, grid.columns, grid.rows, [code(hc) for hc in mc.hexes.values()])).encode()
    ).hexdigest()[:8]
    pid = f"{id_prefix}plcg{digest}"  # id prefix: several maps can sit in one HTML page

    top, left = _origin(title)
    map_w = 1.5 * SIZE * (len(grid.columns) - 1) + 2 * SIZE
    geo = _geometry(grid, title)
    map_h = HEIGHT * (grid.rows + 1 - geo.first) + HEIGHT / 2
    width = left + map_w + PAD
    centres = geo.centres

    # legend layout (below the map)
    legend_items = _legend_items(pid, terrain_at, gr, units_at)
    legend_items += _relief_legend(hills or {}, hexsides or {}, terrain_at, gr)
    col_w = 250.0
    per_row = max(1, int((width - 2 * PAD) // col_w))
    legend_rows = -(-len(legend_items) // per_row)
    legend_top = top + map_h + 24.0
    height = legend_top + 22.0 * legend_rows + PAD

    out: list[str] = []
    w = out.append
    root_class = f' class="{escape(cls)}"' if cls else ""
    w(
        f'<svg{root_class} xmlns="http://www.w3.org/2000/svg" version="1.1" width="{_f(width)}" height="{_f(height)}"'
        f' viewBox="0 0 {_f(width)} {_f(height)}" font-family="Helvetica, Arial, sans-serif"'
        f' role="img" aria-label={quoteattr(title or "Platoon Leader map control")}>'
    )
    w(f"<title>{escape(title or 'Platoon Leader map control')}</title>")
    w("<defs>")
    for side in SIDES:
        fill, dark = COLOURS[side]
        w(
            f'<pattern id="{pid}-mlr-{side}" patternUnits="userSpaceOnUse" width="8" height="8"'
            f' patternTransform="rotate({45 if side == "axis" else -45})">'
            f'<rect width="8" height="8" fill="{PAPER}"/>'
            f'<line x1="0" y1="0" x2="0" y2="8" stroke="{fill}" stroke-width="4"/></pattern>'
        )
        w(
            f'<pattern id="{pid}-iso-{side}" patternUnits="userSpaceOnUse" width="8" height="8">'
            f'<rect width="8" height="8" fill="{fill}"/>'
            f'<path d="M0 0L8 8M8 0L0 8" stroke="{ISOLATED_MARK}" stroke-width="1.2"/></pattern>'
        )
    w(f'<clipPath id="{pid}-map"><path d="{geo.outline}"/></clipPath>')  # nothing is drawn past the map's edge
    w("</defs>")
    w(f'<rect x="0" y="0" width="{_f(width)}" height="{_f(height)}" fill="#ffffff"/>')
    if title:
        w(
            f'<text x="{_f(PAD)}" y="{_f(PAD + 18)}" font-size="18" font-weight="bold" fill="#222">'
            f"{escape(title)}</text>"
        )
    w(
        f'<text x="{_f(width - PAD)}" y="{_f(PAD + (18 if title else 10))}" font-size="11" fill="#444"'
        f' text-anchor="end">N &#8593;</text>'
    )
    # column letters (just above the top hexes: a map of boards starts with half hexes at row 0) and rows
    first = geo.first
    for ci, col in enumerate(grid.columns):
        w(
            f'<text x="{_f(left + SIZE + 1.5 * SIZE * ci)}" y="{_f(top - 4 + HEIGHT / 2 * (1 - first))}"'
            f' font-size="10" fill="#555"'
            f' text-anchor="middle">{col}</text>'
        )
    for row in range(1, grid.rows + 1):
        w(
            f'<text x="{_f(left - 4)}" y="{_f(top + HEIGHT * (row - first + 0.5) + 4)}" font-size="10" fill="#555"'
            f' text-anchor="end">{row}</text>'
        )

    # hexes, filled by control
    w('<g class="hexes" stroke="#7a7466" stroke-width="0.8">')
    fills = {ch: _fill(pid, ch) for ch in CODES}  # once a map, not once a hex
    points = geo.points
    for h in grid.hexes():
        hc = mc.hexes[h]
        ch = code(hc)
        tip = _tooltip(h, hc, [_item_words(t) for t in terrain_at.get(h, [])],
                       [n for _s, n in units_at.get(h, [])], tvp_at.get(h), ground_words[h], h in grown)
        w(f'<g class="hex" data-hex="{h}" data-control="{escape(ch)}"><title>{escape(tip)}</title>')
        w(f'<polygon points="{points[h]}" fill="{fills[ch]}"/>')
        w("</g>")
    w("</g>")

    w(f'<g class="on-map" clip-path="url(#{pid}-map)">')
    _draw_ground(w, grid, centres, gr, terrain_at)
    _draw_relief(w, grid, centres, hills or {}, hexsides or {})

    # MLR outlines along the hexsides between MLR and non-MLR hexes (clipped at the map's edge)
    around = _neighbours(grid)
    for side in SIDES:
        _fill_colour, dark = COLOURS[side]
        segs = []
        for h in grid.hexes():
            if side not in mc.hexes[h].mlr:
                continue
            corners = geo.corners[h]
            for d, n in enumerate(around[h], 1):
                if n is None or side not in mc.hexes[n].mlr:
                    a, b = _side_of_direction(d)
                    (x1, y1), (x2, y2) = corners[a], corners[b]
                    segs.append(f"M{_f(x1)} {_f(y1)}L{_f(x2)} {_f(y2)}")
        if segs:
            dash = ' stroke-dasharray="7 4"' if side == "allied" else ""
            w(
                f'<path class="mlr mlr-{side}" d="{"".join(segs)}" fill="none" stroke="{dark}"'
                f' stroke-width="3" stroke-linecap="round"{dash}/>'
            )
    w("</g>")

    # markers: hex id, strategic disc with TVP, terrain kept; then the counters on top
    w('<g class="marks" pointer-events="none">')
    buildings = gr.get("buildings", frozenset()) | gr.get("stone", frozenset())
    labels = geo.labels
    for h in grid.hexes():
        hc = mc.hexes[h]
        cx, cy = centres[h]
        w(labels[h])
        if hc.strategic or h in tvp_at:
            fill = COLOURS[hc.controller][1] if hc.controller else "#ffffff"
            r = 9.0 if h in tvp_at else 5.0
            dx = BUILDING_W / 2 + r + 1 if h in buildings else 0.0
            x, y = cx + dx, cy + BUILDING_AT[1]
            if h in tvp_at:  # a gold diamond ringed in the controller's colour: not a stack's black disc
                ring = COLOURS[hc.controller][1] if hc.controller else "#222222"
                w(f'<path class="strategic tvp-badge" d="M{_f(x)} {_f(y - r)}L{_f(x + r)} {_f(y)}L{_f(x)} {_f(y + r)}'
                  f'L{_f(x - r)} {_f(y)}Z" fill="{TVP_BADGE[0]}" stroke="{ring}" stroke-width="2.5"/>')
                w(
                    f'<text x="{_f(x)}" y="{_f(y + 3.5)}" font-size="10" font-weight="bold" fill="{TVP_BADGE[1]}"'
                    f' text-anchor="middle">{tvp_at[h]}</text>'
                )
            else:
                w(f'<circle class="strategic" cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="{fill}" stroke="#222"'
                  f' stroke-width="1"/>')
        if h in terrain_at:
            marks = []
            for item in terrain_at[h]:
                abbr, colour = _item_drawn(item)[0]
                if (abbr, colour) not in marks:
                    marks.append((abbr, colour))
            spans = "".join(
                f'<tspan fill="{colour}">{escape(abbr)}</tspan>' + (" " if i < len(marks) - 1 else "")
                for i, (abbr, colour) in enumerate(marks[:3])
            )
            w(
                f'<text x="{_f(cx)}" y="{_f(cy + HEIGHT / 2 - 3)}" font-size="8.5" font-weight="bold"'
                f' text-anchor="middle" stroke="#ffffff" stroke-width="2.5" paint-order="stroke">{spans}</text>'
            )
    w("</g>")
    _draw_counters(w, centres, units_at)

    # legend
    w('<g class="legend" font-size="11" fill="#222">')
    for i, (kind, arg, text) in enumerate(legend_items):
        x = PAD + col_w * (i % per_row)
        y = legend_top + 22.0 * (i // per_row)
        if kind == "fill":
            w(f'<rect x="{_f(x)}" y="{_f(y - 10)}" width="18" height="13" fill="{arg}" stroke="#7a7466"/>')
        elif kind == "line":
            colour, dash, sw = arg
            w(
                f'<line x1="{_f(x)}" y1="{_f(y - 3)}" x2="{_f(x + 18)}" y2="{_f(y - 3)}" stroke="{colour}"'
                f' stroke-width="{sw}"{dash}/>'
            )
        elif kind == "block":
            fill, stroke = arg
            w(f'<rect x="{_f(x + 2)}" y="{_f(y - 10)}" width="16" height="11" fill="{fill}" stroke="{stroke}"/>')
        elif kind == "counter":
            w(f'<rect x="{_f(x - 4)}" y="{_f(y - 11)}" width="26" height="14" rx="2" fill="{arg}"/>'
              f'<text x="{_f(x + 9)}" y="{_f(y)}" font-size="10" font-weight="bold" fill="#fff"'
              f' text-anchor="middle">4-6-7</text>')
        elif kind == "disc":
            fill, label = arg
            w(f'<circle cx="{_f(x + 9)}" cy="{_f(y - 3)}" r="7" fill="{fill}" stroke="#222"/>')
            if label:
                w(
                    f'<text x="{_f(x + 9)}" y="{_f(y + 0.5)}" font-size="9" font-weight="bold" fill="#fff"'
                    f' text-anchor="middle">{label}</text>'
                )
        elif kind == "diamond":
            fill, ink = arg
            w(f'<path d="M{_f(x + 9)} {_f(y - 12)}L{_f(x + 18)} {_f(y - 3)}L{_f(x + 9)} {_f(y + 6)}L{_f(x)} {_f(y - 3)}Z"'
              f' fill="{fill}" stroke="#222" stroke-width="1.5"/>'
              f'<text x="{_f(x + 9)}" y="{_f(y + 0.5)}" font-size="9" font-weight="bold" fill="{ink}"'
              f' text-anchor="middle">3</text>')
        elif kind == "hexside":
            colour, sw = arg
            w(f'<line x1="{_f(x)}" y1="{_f(y - 3)}" x2="{_f(x + 18)}" y2="{_f(y - 3)}" stroke="{colour}"'
              f' stroke-width="{_f(sw)}" stroke-linecap="round"/>')
        elif kind == "text":
            abbr, colour = arg
            w(f'<text x="{_f(x + 9)}" y="{_f(y)}" font-weight="bold" fill="{colour}" text-anchor="middle">{escape(abbr)}</text>')
        w(f'<text x="{_f(x + 26)}" y="{_f(y)}">{escape(text)}</text>')
    w("</g>")
    w("</svg>")
    return "\n".join(out) + "\n"


def _building_state(items_kept: list[items.Kept | str]) -> str | None:
    """"rubbled" where rubble is kept in the hex (B24), "burning" where a Blaze or Flame is (3.31)."""
    keys = set()
    for i in map(items.kept, items_kept):
        entry = i.reads_as()
        keys.add(entry.key if entry else str(i))
    if "rubble" in keys:
        return "rubbled"
    if keys & {"blaze", "flame"}:
        return "burning"
    return None


def _draw_relief(w, grid: Grid, centres: dict, hills: dict[str, int], hexsides: dict) -> None:
    """Hills: a contour line inside the hex per level (B10); hexside terrain: a band along the hexside (B9)."""
    if hills:
        w(f'<g class="hills" fill="none" stroke="{HILL[0]}" stroke-width="2.5">')
        for h, level in hills.items():
            if h not in centres:
                continue
            cx, cy = centres[h]
            for k in range(level):
                w(f'<path data-hex="{h}" d="{_hexpath(cx, cy, (0.92 - 0.07 * k) * SIZE)}"/>')
            w(f'<text x="{_f(cx - 0.62 * SIZE)}" y="{_f(cy + 0.5 * SIZE)}" font-size="8" fill="{HILL[0]}" stroke="none"'
              f' font-weight="bold">L{level}</text>')
        w("</g>")
    for kind, pairs in hexsides.items():
        colour, sw, _words = HEXSIDE[kind]
        segs = []
        for pair in pairs:
            a, b = pair.split("-")
            d = next((d for d in range(1, 7) if grid.neighbour(a, d) == b), None)
            if d is None or a not in centres:
                continue
            i, j = _side_of_direction(d)
            corners = _corners(*centres[a])
            (x1, y1), (x2, y2) = corners[i], corners[j]
            segs.append(f"M{_f(x1)} {_f(y1)}L{_f(x2)} {_f(y2)}")
        if segs:
            w(f'<path class="hexside hexside-{kind}" d="{"".join(segs)}" stroke="{colour}" stroke-width="{_f(sw)}"'
              f' stroke-linecap="round" fill="none"/>')


def _draw_ground(w, grid: Grid, centres: dict, gr: dict[str, frozenset[str]], terrain_at: dict | None = None) -> None:
    """Water, woods, orchard, brush, grain as an inner hex; roads and bridges as bands; buildings (rubbled or
    burning where the campaign keeps rubble or a Blaze there)."""
    bridges = gr.get("bridges", frozenset())
    w('<g class="ground" pointer-events="none">')
    for kind, (colour, _words) in GROUND.items():
        hexes = gr.get(kind, frozenset()) | (bridges if kind == "water" else frozenset())  # a bridge spans water
        d = "".join(_hexpath(*centres[h], INSET * SIZE) for h in grid.hexes() if h in hexes)
        if d and kind == "water":  # a hex at a time, each named (the water under a bridge is the bridge's)
            for h in grid.hexes():
                if h in hexes:
                    tip = "" if h not in gr.get("water", ()) else f"<title>{escape(h)}: water (3.52)</title>"
                    w(f'<path class="ground-water" d="{_hexpath(*centres[h], INSET * SIZE)}" fill="{colour}"'
                      f' stroke="none">{tip}</path>')
        elif d:
            w(f'<path class="ground-{kind}" d="{d}" fill="{colour}" stroke="none"/>')
        if kind in ("woods", "orchard") and d:
            r = 6.5 if kind == "woods" else 3.0
            ink = TREE if kind == "woods" else "#6c8f3a"
            dots = "".join(f'<circle cx="{_f(centres[h][0] + dx)}" cy="{_f(centres[h][1] + dy)}" r="{r}"/>'
                           for h in grid.hexes() if h in hexes for dx, dy in TREES)
            w(f'<g class="trees-{kind}" fill="{ink}">{dots}</g>')
    roads = gr.get("roads", frozenset())
    segs = []
    for h in grid.hexes():
        if h not in roads and h not in bridges:
            continue
        cx, cy = centres[h]
        for d in range(1, 4):  # each joint once: towards N, NE, SE
            n = grid.neighbour(h, d)
            if n is not None and (n in roads or n in bridges):
                nx, ny = centres[n]
                segs.append(f"M{_f(cx)} {_f(cy)}L{_f(nx)} {_f(ny)}")
    if segs:
        w(f'<path class="ground-roads" d="{"".join(segs)}" stroke="{ROAD[0]}" stroke-width="6"'
          f' stroke-linecap="round" fill="none"/>')
    water = gr.get("water", frozenset())
    for h in sorted(bridges, key=grid.index):
        cx, cy = centres[h]
        wet = [d for d in range(1, 7) if grid.neighbour(h, d) in water]
        angle = 0.0  # a bridge crosses the stream: across the line of the water hexes beside it
        if wet:
            vx = sum(math.sin(math.radians(60 * (d - 1))) for d in wet)
            vy = sum(-math.cos(math.radians(60 * (d - 1))) for d in wet)
            if abs(vx) + abs(vy) > 1e-6:
                angle = math.degrees(math.atan2(vy, vx)) + 90.0
        w(f'<rect class="ground-bridge" x="{_f(cx - SIZE)}" y="{_f(cy - 7)}" width="{_f(2 * SIZE)}" height="14"'
          f' fill="{BRIDGE[0]}" stroke="#3b2a18" stroke-width="1.2" transform="rotate({_f(angle)} {_f(cx)} {_f(cy)})">'
          f'<title>{escape(h)}: bridge (1.4 Strategic Terrain)</title></rect>')
    stone = gr.get("stone", frozenset())
    for h in grid.hexes():
        if h not in gr.get("buildings", frozenset()) and h not in stone:
            continue
        fill, stroke, _words = BUILDING["stone" if h in stone else "wooden"]
        bx, by = building_centre(*centres[h])
        state = _building_state((terrain_at or {}).get(h, []))
        if state == "rubbled":  # the block fallen into a heap of broken pieces
            fill, stroke, _w = RUBBLED
            pieces = ((-10, 2, 9, 6), (-2, -1, 10, 8), (6, 3, 7, 5), (-7, -6, 6, 5), (3, -6, 5, 4))
            body = "".join(f'<rect x="{_f(bx + px)}" y="{_f(by + py)}" width="{pw}" height="{ph}"'
                           f' transform="rotate({(px * 7) % 30 - 15} {_f(bx + px)} {_f(by + py)})"/>'
                           for px, py, pw, ph in pieces)
            w(f'<g class="building building-rubbled" fill="{fill}" stroke="{stroke}" stroke-width="0.8">'
              f'<title>{escape(h)}: rubbled building</title>{body}</g>')
            continue
        w(f'<rect class="building building-{"stone" if h in stone else "wooden"}" x="{_f(bx - BUILDING_W / 2)}"'
          f' y="{_f(by - BUILDING_H / 2)}" width="{_f(BUILDING_W)}" height="{_f(BUILDING_H)}" fill="{fill}"'
          f' stroke="{stroke}" stroke-width="1.5"/>')
        if state == "burning":  # flames over the block, rising past its roof (under the hex id)
            top = by - BUILDING_H / 2
            flame = (f"M{_f(bx - 11)} {_f(by + 5)}L{_f(bx - 8)} {_f(top - 1)}L{_f(bx - 4)} {_f(by - 2)}"
                     f"L{_f(bx)} {_f(top - 4)}L{_f(bx + 4)} {_f(by - 2)}L{_f(bx + 8)} {_f(top - 1)}"
                     f"L{_f(bx + 11)} {_f(by + 5)}Z")
            w(f'<path class="building-burning" d="{flame}" fill="{BURNING[0]}" stroke="{BURNING[1]}" stroke-width="1.2">'
              f'<title>{escape(h)}: burning building</title></path>')
    w("</g>")


def _draw_counters(w, centres: dict, units_at: dict[str, list[tuple[str | None, str]]]) -> None:
    """A stack per side and hex: its first unit's counter on top, edges of the others behind it, and a
    black disc with the number of units where there is more than one."""
    w(f'<g class="counters" font-size="{_f(COUNTER_FONT)}" font-weight="bold" pointer-events="none">')
    stacked = _STACKED
    if len(stacked) > 20_000:  # (a long-lived process drawing many campaigns' maps)
        stacked.clear()
    for h, items in units_at.items():
        centre = centres[h]
        stacks: dict = {}
        for side, name in items:
            stacks.setdefault(side, []).append(name)
        for k, (side, names) in enumerate(stacks.items()):
            n = len(names)
            key = (centre, h, side, k, names[0], min(n - 1, 2))
            drawn = stacked.get(key)
            if drawn is None:
                drawn = stacked[key] = _stack_drawn(centre, h, side, k, names[0], min(n - 1, 2))
            peeking, head, tail, badge = drawn
            for line in peeking:
                w(line)
            w(head + escape(", ".join(names)) + tail)
            if n > 1:
                w(badge + str(n) + "</text>")
    w("</g>")


# a stack's drawing but for the names in its tooltip and its count, by (centre, hex, side, place in the hex, top
# counter, counters peeking out): of the ~11,600 stacks of the maps of a report at 100k events, ~9,200 repeat one
# drawn on an earlier map (the same unit on top in the same hex), though only ~1,300 the whole stack
_STACKED: dict = {}


def _stack_drawn(centre: tuple, h: str, side: str | None, k: int, top: str, peek: int) -> tuple:
    """(the lines of the counters peeking out, the top counter's text before its tooltip's names and after them,
    the badge's text before its count) of a stack drawn at `centre`."""
    cx, cy = centre
    label = counter_label(top)
    natural = 6.4 * len(label) + 8
    cw = min(2 * SIZE - 10, max(28.0, natural))
    width, height = _f(cw), _f(COUNTER_H)
    squeeze = f' textLength="{_f(cw - 6)}" lengthAdjust="spacingAndGlyphs"' if natural > cw else ""
    x, y = cx - cw / 2, cy + COUNTER_Y + k * (COUNTER_H + 2)
    fill = COUNTER[side]
    peeking = tuple(f'<rect x="{_f(x + 2.5 * j)}" y="{_f(y - 2.5 * j)}" width="{width}" height="{height}"'
                    f' rx="2" fill="{fill}" stroke="#ffffff" stroke-width="0.8"/>' for j in range(peek, 0, -1))
    head = (f'<g class="counter" data-hex="{h}" data-side="{side or ""}">'
            f'<rect x="{_f(x)}" y="{_f(y)}" width="{width}" height="{height}" rx="2"'
            f' fill="{fill}" stroke="#ffffff" stroke-width="0.8"/>'
            f'<title>')
    tail = (f'</title>'
            f'<text x="{_f(cx)}" y="{_f(y + COUNTER_H - 4)}" fill="#ffffff" text-anchor="middle"{squeeze}>'
            f'{escape(label)}</text></g>')
    bx, by = _f(x + cw + 2), y + 1
    badge = (f'<circle class="stack-badge" cx="{bx}" cy="{_f(by)}" r="7" fill="{STACK_BADGE}"/>'
             f'<text x="{bx}" y="{_f(by + 3.5)}" fill="#fff" text-anchor="middle">')
    return peeking, head, tail, badge


def counter_label(name: str) -> str:
    """The name a counter shows: whole up to LABEL_CHARS characters (squeezed to fit), else its first whole
    words with an ellipsis, never a cut that reads as another counter ("PzKpfw I." for a PzKpfw IVH)."""
    if len(name) <= LABEL_CHARS:
        return name
    words, out = name.split(), ""
    for word in words:
        if len(out) + len(word) + (1 if out else 0) > LABEL_CHARS - 1:
            break
        out = f"{out} {word}" if out else word
    return (out or name[:LABEL_CHARS - 1]) + "\u2026"


def half_hexes(grid) -> dict[str, str]:
    """On a map of boards, the hexes the map's outer edges cut in half, with the half that is drawn: the
    B, D, ... hexrows' row-0 / row-10 hexes at the map's north / south edge, the A / GG hexrows at its
    west / east edge (cg/boards.py). A single grid has none."""
    if not hasattr(grid, "layout"):
        return {}
    out = {}
    for side, keep in (("north", "south"), ("south", "north"), ("west", "east"), ("east", "west")):
        for h in grid.edge(side):
            q, _g = grid.parse(h)
            if side in ("north", "south") and q % 2 == 1:
                out[h] = keep
            elif side == "west" and q == 0:
                out[h] = keep
            elif side == "east" and q % 2 == 0 and q > 0:
                out[h] = keep
    return out


def _half_corners(cx: float, cy: float, keep: str | None) -> list[tuple[float, float]]:
    """The outline of a hex, or of the half of it a map edge leaves (keep: north | south | east | west)."""
    c = _corners(cx, cy)
    top, bottom = (cx, cy - HEIGHT / 2), (cx, cy + HEIGHT / 2)
    return {None: c, "south": [c[0], c[1], c[2], c[3]], "north": [c[3], c[4], c[5], c[0]],
            "east": [top, c[5], c[0], c[1], bottom], "west": [bottom, c[2], c[3], c[4], top]}[keep]


def _fill(pid: str, ch: str) -> str:
    return {
        "A": COLOURS["axis"][0],
        "L": COLOURS["allied"][0],
        "a": f"url(#{pid}-mlr-axis)",
        "l": f"url(#{pid}-mlr-allied)",
        "N": NML_FILL,
        ".": PAPER,
        "I": f"url(#{pid}-iso-axis)",
        "J": f"url(#{pid}-iso-allied)",
    }[ch]


def _ground_words(h: str, gr: dict[str, frozenset[str]]) -> list[str]:
    words = [kind for kind in GROUND if h in gr.get(kind, ())]
    if h in gr.get("stone", ()):
        words.append("stone building")
    elif h in gr.get("buildings", ()):
        words.append("wooden building")
    words += [w for kind, w in (("roads", "road"), ("bridges", "bridge")) if h in gr.get(kind, ())]
    return words


def _relief_legend(hills: dict, hexsides: dict, terrain_at: dict, gr: dict) -> list[tuple[str, object, str]]:
    """Legend entries for hills, hexside terrain, rubbled and burning buildings, where the map has them."""
    out: list[tuple[str, object, str]] = []
    if hills:
        out.append(("hexside", (HILL[0], 2.5), HILL[1]))
    for kind, pairs in hexsides.items():
        if pairs:
            colour, sw, words = HEXSIDE[kind]
            out.append(("hexside", (colour, sw), words))
    buildings = gr.get("buildings", frozenset()) | gr.get("stone", frozenset())
    states = {_building_state(terrain_at.get(h, [])) for h in buildings}
    if "rubbled" in states:
        out.append(("block", RUBBLED[:2], RUBBLED[2]))
    if "burning" in states:
        out.append(("block", BURNING[:2], BURNING[2]))
    return out


def _legend_items(pid: str, terrain_at: dict[str, list[str]], gr: dict[str, frozenset[str]],
                  units_at: dict) -> list[tuple[str, object, str]]:
    items: list[tuple[str, object, str]] = [
        ("fill", _fill(pid, "A"), "axis CTHC"),
        ("fill", _fill(pid, "L"), "allied CTHC"),
        ("fill", _fill(pid, "a"), "axis MLR (not CTHC)"),
        ("fill", _fill(pid, "l"), "allied MLR (not CTHC)"),
        ("fill", _fill(pid, "N"), "No Man's Land"),
        ("fill", _fill(pid, "."), "Uncontrolled Terrain"),
        ("fill", _fill(pid, "I"), "axis Isolated Location"),
        ("fill", _fill(pid, "J"), "allied Isolated Location"),
        ("line", (COLOURS["axis"][1], "", 3), "axis MLR boundary"),
        ("line", (COLOURS["allied"][1], ' stroke-dasharray="7 4"', 3), "allied MLR boundary"),
        ("disc", (COLOURS["axis"][1], ""), "Strategic Terrain, axis"),
        ("disc", (COLOURS["allied"][1], ""), "Strategic Terrain, allied"),
        ("disc", ("#ffffff", ""), "Strategic Terrain, uncontrolled"),
        ("diamond", TVP_BADGE, "TVP value of the hex (3.33)"),
    ]
    for kind, (colour, words) in GROUND.items():
        if gr.get(kind) or (kind == "water" and gr.get("bridges")):
            items.append(("fill", colour, words))
    if gr.get("roads"):
        items.append(("line", (ROAD[0], "", 6), ROAD[1]))
    if gr.get("bridges"):
        items.append(("block", (BRIDGE[0], "#3b2a18"), BRIDGE[1]))
    if gr.get("stone"):
        items.append(("block", BUILDING["stone"][:2], BUILDING["stone"][2]))
    if gr.get("buildings", frozenset()) - gr.get("stone", frozenset()):
        items.append(("block", BUILDING["wooden"][:2], BUILDING["wooden"][2]))
    sides = {s for v in units_at.values() for s, _n in v}
    for side in (*SIDES, None):
        if side in sides:
            items.append(("counter", COUNTER[side], f"{side + ' ' if side else ''}unit: its counter"))
    if any(len(v) > 1 for v in units_at.values()):
        items.append(("disc", (STACK_BADGE, "2"), "units in a stack (names: hover the hex)"))
    seen: dict[tuple[str, str], list[str]] = {}
    for h in terrain_at:
        for item in terrain_at[h]:
            mark, words = _item_drawn(item)
            if words not in seen.setdefault(mark, []):
                seen[mark].append(words)
    for (abbr, colour), words in sorted(seen.items()):
        for text in sorted(words):
            items.append(("text", (abbr, colour), text))
    return items


def _tooltip(h: str, hc: HexControl, terrain: list[str] | None, units: list[str] | None, tvp: int | None,
             ground: list[str] | None = None, grown: bool = False) -> str:
    parts = [f"{h}: {CODES[code(hc)]}"]
    if ground:
        parts.append(", ".join(ground))
    if hc.strategic:
        new = ", grown in the campaign (1.4): no TVP" if grown else ""  # ruling R46
        parts.append(f"Strategic Terrain ({hc.controller or 'uncontrolled'}{new})")
    if tvp is not None:
        parts.append(f"TVP {tvp}")
    if len(hc.mlr) == 2:
        parts.append("inside both MLRs")
    if terrain:
        parts.append("terrain: " + ", ".join(terrain))
    if units:
        parts.append("units: " + ", ".join(units))
    return "; ".join(parts)
