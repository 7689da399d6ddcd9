"""Pictures of the map control (1.4): a terminal hex map and an SVG hex map.

Both read a `MapControl` (cg.control) and draw each hex once, in ASL geometry (ruling R17:
flat-topped hexes, even-lettered columns half a hex lower). Nothing here writes anything.
"""
from __future__ import annotations

import hashlib
import math
from xml.sax.saxutils import escape, quoteattr

from cg.control import SIDES, HexControl, MapControl
from cg.hexgrid import Grid

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

CELL = 3  # columns are 3 characters apart; a row takes two lines (upper, then lower columns)
MARGIN = 4  # row labels


def render_text(
    grid: Grid,
    mc: MapControl,
    terrain: dict[str, list[str]] | None = None,
    units: dict[str, list[str]] | None = None,
) -> str:
    """A terminal hex map: one 3-character cell per hex, then a legend and the terrain/units lists.

    A cell is the control code (CODES), then '*' for Strategic Terrain, then '!' terrain, '@' units,
    '&' both. Odd-lettered columns (A, C, ...) print on a row's first line, even-lettered ones (B, D,
    ...) on its second, half a hex lower, as on the board.
    """
    terrain_at = _by_hex(grid, terrain, "terrain")
    units_at = _by_hex(grid, units, "units")
    width = MARGIN + CELL * len(grid.columns) + 1
    header = [" "] * width
    for ci, col in enumerate(grid.columns):
        for k, ch in enumerate(col):
            header[MARGIN + CELL * ci + k] = ch
    out = [
        f"Map control, columns {grid.columns[0]}-{grid.columns[-1]}, rows 1-{grid.rows}"
        f" (north at the top; friendly edges: "
        + ", ".join(f"{s} {e}" for s, e in sorted(mc.friendly_edge.items()))
        + ")",
        "".join(header).rstrip(),
    ]
    for row in range(getattr(grid, "first_row", 1), grid.rows + 1):  # a map of boards has half hexes at 0
        for lower in (False, True):
            line = [" "] * width
            if not lower:
                line[: MARGIN - 1] = f"{row:>{MARGIN - 1}}"
            for ci, col in enumerate(grid.columns):
                h = grid.at_place(ci, row)
                if h is None or _lower(grid, h) != lower:
                    continue
                hc = mc.hexes[h]
                mark = {(True, True): "&", (True, False): "!", (False, True): "@"}.get(
                    (h in terrain_at, h in units_at), " "
                )
                cell = code(hc) + ("*" if hc.strategic else " ") + mark
                x = MARGIN + CELL * ci
                line[x : x + CELL] = cell
            out.append("".join(line).rstrip())
    out.append("")
    out.append("Legend:")
    for ch, text in CODES.items():
        out.append(f"  {ch}  {text}")
    out.append("  *  Strategic Terrain (A* / L*: controlled by that side)")
    out.append("  !  terrain (listed below)   @  units (listed below)   &  both")
    out.append("")
    out.extend(_summary(mc))
    if terrain_at:
        out.append("")
        out.append("Terrain:")
        for h in sorted(terrain_at, key=grid.index):
            out.append(f"  {h}: {', '.join(terrain_at[h])}")
    if units_at:
        out.append("")
        out.append("Units:")
        for h in sorted(units_at, key=grid.index):
            out.append(f"  {h}: {', '.join(units_at[h])}")
    return "\n".join(out) + "\n"


# -- SVG -------------------------------------------------------------------------------------------

SIZE = 30.0  # hex circumradius, px
HEIGHT = math.sqrt(3) * SIZE
PAD = 16.0

PAPER = "#f4f0e1"
COLOURS = {  # fill, dark (outline/marker)
    "axis": ("#9fb1c4", "#2c4a6b"),
    "allied": ("#b3c98a", "#4a6a1c"),
}
NML_FILL = "#dcb98e"
ISOLATED_MARK = "#c0392b"

# terrain item -> (abbreviation, colour); matched by the first keyword found in the item's text
TERRAIN_MARKS = (
    ("rubble", "Rb", "#7b4a1e"),
    ("blaze", "Bz", "#d62400"),
    ("flame", "Fl", "#e06000"),
    ("wire", "Wi", "#222222"),
    ("mine", "Mi", "#8b0000"),
    ("booby", "BT", "#8b0000"),
    ("roadblock", "Rd", "#5a3b12"),
    ("panji", "Pj", "#5a3b12"),
    ("set dc", "DC", "#8b0000"),
    ("set_dc", "DC", "#8b0000"),
    ("trench", "Tr", "#5a3b12"),
    ("foxhole", "Fx", "#5a3b12"),
    ("sangar", "Sg", "#5a3b12"),
    ("pillbox", "Pb", "#333333"),
    ("shellhole", "Sh", "#5a3b12"),
    ("shell hole", "Sh", "#5a3b12"),
    ("wreck", "Wk", "#333333"),
)


def _terrain_mark(item: str) -> tuple[str, str]:
    low = item.lower()
    for word, abbr, colour in TERRAIN_MARKS:
        if word in low:
            return abbr, colour
    letters = [c for c in item if c.isalnum()]
    return ("".join(letters[:2]).title() or "?"), "#333333"


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _corners(cx: float, cy: float) -> list[tuple[float, float]]:
    # corner i at 60*i degrees, y down: 0 E, 1 lower right, 2 lower left, 3 W, 4 upper left, 5 upper right
    return [
        (cx + SIZE * math.cos(math.radians(60 * i)), cy + SIZE * math.sin(math.radians(60 * i)))
        for i in range(6)
    ]


def _side_of_direction(d: int) -> tuple[int, int]:
    """The two corners of the hexside towards direction d (1 N, clockwise)."""
    return (d + 3) % 6, (d + 4) % 6


def render_svg(
    grid: Grid,
    mc: MapControl,
    terrain: dict[str, list[str]] | None = None,
    units: dict[str, list[str]] | None = None,
    title: str = "",
    tvp: dict[str, int] | None = None,
) -> str:
    """A standalone SVG hex map (no XML declaration, so it can also sit inline in HTML).

    One <polygon> per hex, filled by control (CTHC, MLR hatching, NML, Uncontrolled, Isolated
    cross-hatching); each side's MLR outlined along its hexsides; strategic hexes marked with a disc in
    the controller's colour (hollow if uncontrolled) carrying the TVP value; terrain as small
    abbreviations (Rb rubble, Fl flame, Bz blaze, Wi wire, Mi mines, ...); units as a count with the
    names in the hex's tooltip; hex ids at the top of each hex; a legend below.
    """
    terrain_at = _by_hex(grid, terrain, "terrain")
    units_at = _by_hex(grid, units, "units")
    tvp_at: dict[str, int] = {}
    for h, v in (tvp or {}).items():
        try:
            tvp_at[grid.canonical(h)] = int(v)
        except ValueError as err:
            raise ValueError(f"tvp: {err}") from None

    digest = hashlib.sha1(
        repr((title, grid.columns, grid.rows, [code(hc) for hc in mc.hexes.values()])).encode()
    ).hexdigest()[:8]
    pid = f"plcg{digest}"  # id prefix: several maps can sit in one HTML page

    title_h = 28.0 if title else 0.0
    top = PAD + title_h + 14.0  # room for the column letters
    left = PAD + 16.0  # room for the row numbers
    map_w = 1.5 * SIZE * (len(grid.columns) - 1) + 2 * SIZE
    map_h = HEIGHT * grid.rows + HEIGHT / 2
    width = left + map_w + PAD

    centres: dict[str, tuple[float, float]] = {}
    for h in grid.hexes():
        ci, row = grid.parse(h)
        cx = left + SIZE + 1.5 * SIZE * ci
        cy = top + HEIGHT / 2 + HEIGHT * (row - 1) + (HEIGHT / 2 if _lower(grid, h) else 0.0)
        centres[h] = (cx, cy)

    # legend layout (below the map)
    legend_items = _legend_items(pid, terrain_at)
    col_w = 210.0
    per_row = max(1, int((width - 2 * PAD) // col_w))
    legend_rows = -(-len(legend_items) // per_row)
    legend_top = top + map_h + 24.0
    height = legend_top + 22.0 * legend_rows + PAD

    out: list[str] = []
    w = out.append
    w(
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{_f(width)}" height="{_f(height)}"'
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
    # column letters and row numbers
    for ci, col in enumerate(grid.columns):
        w(
            f'<text x="{_f(left + SIZE + 1.5 * SIZE * ci)}" y="{_f(top - 4)}" font-size="10" fill="#555"'
            f' text-anchor="middle">{col}</text>'
        )
    for row in range(1, grid.rows + 1):
        w(
            f'<text x="{_f(left - 4)}" y="{_f(top + HEIGHT * (row - 0.5) + 4)}" font-size="10" fill="#555"'
            f' text-anchor="end">{row}</text>'
        )

    # hexes
    w('<g class="hexes" stroke="#7a7466" stroke-width="0.8">')
    for h in grid.hexes():
        hc = mc.hexes[h]
        cx, cy = centres[h]
        ch = code(hc)
        pts = " ".join(f"{_f(x)},{_f(y)}" for x, y in _corners(cx, cy))
        tip = _tooltip(h, hc, terrain_at.get(h), units_at.get(h), tvp_at.get(h))
        w(f'<g class="hex" data-hex="{h}" data-control="{escape(ch)}"><title>{escape(tip)}</title>')
        w(f'<polygon points="{pts}" fill="{_fill(pid, ch)}"/>')
        w("</g>")
    w("</g>")

    # MLR outlines along the hexsides between MLR and non-MLR hexes
    for side in SIDES:
        _fill_colour, dark = COLOURS[side]
        segs = []
        for h in grid.hexes():
            if side not in mc.hexes[h].mlr:
                continue
            corners = _corners(*centres[h])
            for d in range(1, 7):
                n = grid.neighbour(h, d)
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

    # markers: hex id, strategic disc with TVP, units, terrain
    w('<g class="marks" pointer-events="none">')
    for h in grid.hexes():
        hc = mc.hexes[h]
        cx, cy = centres[h]
        w(
            f'<text x="{_f(cx)}" y="{_f(cy - HEIGHT / 2 + 10)}" font-size="8" fill="#555"'
            f' text-anchor="middle">{h}</text>'
        )
        if hc.strategic or h in tvp_at:
            fill = COLOURS[hc.controller][1] if hc.controller else "#ffffff"
            ink = "#ffffff" if hc.controller else "#222222"
            r = 8.0 if h in tvp_at else 5.0
            w(
                f'<circle cx="{_f(cx)}" cy="{_f(cy - 2)}" r="{_f(r)}" fill="{fill}" stroke="#222"'
                f' stroke-width="1"/>'
            )
            if h in tvp_at:
                w(
                    f'<text x="{_f(cx)}" y="{_f(cy + 1.5)}" font-size="9" font-weight="bold" fill="{ink}"'
                    f' text-anchor="middle">{tvp_at[h]}</text>'
                )
        if h in units_at:
            n = len(units_at[h])
            label = units_at[h][0] if n == 1 and len(units_at[h][0]) <= 8 else f"{n} unit{'s' if n > 1 else ''}"
            w(
                f'<text x="{_f(cx)}" y="{_f(cy + 12)}" font-size="7.5" fill="#111" text-anchor="middle">'
                f"{escape(label)}</text>"
            )
        if h in terrain_at:
            marks = []
            for item in terrain_at[h]:
                abbr, colour = _terrain_mark(item)
                if (abbr, colour) not in marks:
                    marks.append((abbr, colour))
            spans = "".join(
                f'<tspan fill="{colour}">{escape(abbr)}</tspan>' + (" " if i < len(marks) - 1 else "")
                for i, (abbr, colour) in enumerate(marks[:3])
            )
            w(
                f'<text x="{_f(cx)}" y="{_f(cy + 20)}" font-size="7" font-weight="bold"'
                f' text-anchor="middle">{spans}</text>'
            )
    w("</g>")

    # legend
    w('<g class="legend" font-size="11" fill="#222">')
    for i, (kind, arg, text) in enumerate(legend_items):
        x = PAD + col_w * (i % per_row)
        y = legend_top + 22.0 * (i // per_row)
        if kind == "fill":
            w(f'<rect x="{_f(x)}" y="{_f(y - 10)}" width="18" height="13" fill="{arg}" stroke="#7a7466"/>')
        elif kind == "line":
            colour, dash = arg
            w(
                f'<line x1="{_f(x)}" y1="{_f(y - 3)}" x2="{_f(x + 18)}" y2="{_f(y - 3)}" stroke="{colour}"'
                f' stroke-width="3"{dash}/>'
            )
        elif kind == "disc":
            fill, label = arg
            w(f'<circle cx="{_f(x + 9)}" cy="{_f(y - 3)}" r="7" fill="{fill}" stroke="#222"/>')
            if label:
                w(
                    f'<text x="{_f(x + 9)}" y="{_f(y + 0.5)}" font-size="9" font-weight="bold" fill="#fff"'
                    f' text-anchor="middle">{label}</text>'
                )
        elif kind == "text":
            abbr, colour = arg
            w(f'<text x="{_f(x + 9)}" y="{_f(y)}" font-weight="bold" fill="{colour}" text-anchor="middle">{escape(abbr)}</text>')
        w(f'<text x="{_f(x + 24)}" y="{_f(y)}">{escape(text)}</text>')
    w("</g>")
    w("</svg>")
    return "\n".join(out) + "\n"


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


def _legend_items(pid: str, terrain_at: dict[str, list[str]]) -> list[tuple[str, object, str]]:
    items: list[tuple[str, object, str]] = [
        ("fill", _fill(pid, "A"), "axis CTHC"),
        ("fill", _fill(pid, "L"), "allied CTHC"),
        ("fill", _fill(pid, "a"), "axis MLR (not CTHC)"),
        ("fill", _fill(pid, "l"), "allied MLR (not CTHC)"),
        ("fill", _fill(pid, "N"), "No Man's Land"),
        ("fill", _fill(pid, "."), "Uncontrolled Terrain"),
        ("fill", _fill(pid, "I"), "axis Isolated Location"),
        ("fill", _fill(pid, "J"), "allied Isolated Location"),
        ("line", (COLOURS["axis"][1], ""), "axis MLR boundary"),
        ("line", (COLOURS["allied"][1], ' stroke-dasharray="7 4"'), "allied MLR boundary"),
        ("disc", (COLOURS["axis"][1], ""), "Strategic Terrain, axis"),
        ("disc", (COLOURS["allied"][1], ""), "Strategic Terrain, allied"),
        ("disc", ("#ffffff", ""), "Strategic Terrain, uncontrolled"),
        ("disc", ("#555555", "3"), "TVP value"),
    ]
    seen = []
    for h in terrain_at:
        for item in terrain_at[h]:
            abbr, colour = _terrain_mark(item)
            word = item.strip().lower()
            if (abbr, colour) not in [(a, c) for a, c, _w in seen]:
                seen.append((abbr, colour, word))
    for abbr, colour, word in sorted(seen):
        items.append(("text", (abbr, colour), word))
    return items


def _tooltip(h: str, hc: HexControl, terrain: list[str] | None, units: list[str] | None, tvp: int | None) -> str:
    parts = [f"{h}: {CODES[code(hc)]}"]
    if hc.strategic:
        parts.append(f"Strategic Terrain ({hc.controller or 'uncontrolled'})")
    if tvp is not None:
        parts.append(f"TVP {tvp}")
    if len(hc.mlr) == 2:
        parts.append("inside both MLRs")
    if terrain:
        parts.append("terrain: " + ", ".join(terrain))
    if units:
        parts.append("units: " + ", ".join(units))
    return "; ".join(parts)
