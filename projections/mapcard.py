"""What the CG Card's map draws on top of the control map (`plcg map --svg`): water and bridge hexes, and
for a map of geomorphic boards each board's name and the joins between boards.

It reads the hexes' outlines out of the SVG that projections/mapview.py drew (each hex is a
`<g class="hex" data-hex="ID">` holding its `<polygon>`), so it follows that drawing whatever its layout,
and adds one `<g class="card-map">` before the end of the SVG.
"""
from __future__ import annotations

import re
from cg.boards import joins
from projections.mapview import escape

_HEX = re.compile(r'<g class="hex" data-hex="([^"]+)"[^>]*>.*?<polygon points="([^"]+)"', re.S)
WATER = "#6fa8dc"
BRIDGE = "#7f6000"
JOIN = "#3d3d3d"


def _outlines(svg: str) -> dict[str, list[tuple[float, float]]]:
    out = {}
    for h, pts in _HEX.findall(svg):
        out[h] = [tuple(float(v) for v in p.split(",")) for p in pts.split()]
    return out


def _centre(points) -> tuple[float, float]:
    return sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points)


def overlay(svg: str, card_map, grid) -> str:
    """The SVG with the card's water, bridges, board names and joins drawn over it."""
    shapes = _outlines(svg)
    if not shapes:
        return svg
    out = ['<g class="card-map">']
    for h in card_map.water:
        if h in shapes:
            pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in shapes[h])
            out.append(f'<polygon points="{pts}" fill="{WATER}" fill-opacity="0.55" stroke="none">'
                       f"<title>{escape(h)}: water (3.52)</title></polygon>")
    for h in card_map.bridges:
        if h in shapes:
            (cx, cy), pts = _centre(shapes[h]), shapes[h]
            w = (max(x for x, _ in pts) - min(x for x, _ in pts)) * 0.7
            out.append(f'<rect x="{cx - w / 2:.1f}" y="{cy - 3:.1f}" width="{w:.1f}" height="6" fill="{BRIDGE}">'
                       f"<title>{escape(h)}: bridge (1.4 Strategic Terrain)</title></rect>")
    layout = getattr(grid, "layout", None)
    if layout is not None:
        for join in joins(layout):
            line = [_centre(shapes[c]) for c, _ in join.pairs if c in shapes]
            if len(line) > 1:
                d = " ".join(f"{x:.1f},{y:.1f}" for x, y in line)
                out.append(f'<polyline points="{d}" fill="none" stroke="{JOIN}" stroke-width="2"'
                           f' stroke-dasharray="6 4"><title>join {escape(str(join.first))} | '
                           f'{escape(str(join.second))}</title></polyline>')
        for board in layout.boards():
            mine = [_centre(p) for h, p in shapes.items() if grid.geo.parse(h)[0] == board.name]
            if not mine:
                continue
            x = sum(p[0] for p in mine) / len(mine)
            y = sum(p[1] for p in mine) / len(mine)
            turned = " (turned)" if board.turned else ""
            out.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="48" font-weight="bold" fill="#000"'
                       f' fill-opacity="0.18" text-anchor="middle" dominant-baseline="middle">'
                       f"Board {escape(board.name)}{turned}</text>")
    out.append("</g>")
    # under the hex ids, Strategic Terrain marks and counters: a board's name never covers a counter
    i = svg.find('<g class="marks"')
    i = i if i >= 0 else svg.rindex("</svg>")
    return svg[:i] + "".join(out) + svg[i:]
