"""Hex geometry in axial coordinates, shared by a single grid (cg/hexgrid.py) and a map of geomorphic
boards (cg/boards.py): directions, distance, hex centres, the shortest line and the hexes within a radius.
Pure: it knows nothing of hex names, only of places (q, r) and the maps from them to ids."""
from __future__ import annotations

import math
from collections.abc import Mapping

# ruling R17: 1 N, 2 NE, 3 SE, 4 S, 5 SW, 6 NW as axial (dq, dr)
DIRECTIONS: dict[int, tuple[int, int]] = {
    1: (0, -1),
    2: (1, -1),
    3: (1, 0),
    4: (0, 1),
    5: (-1, 1),
    6: (-1, 0),
}


def axial_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq = a[0] - b[0]
    dr = a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def centre(axial: tuple[int, int]) -> tuple[float, float]:
    """Centre of a flat-topped hex of unit size (x east, y south)."""
    q, r = axial
    return 1.5 * q, math.sqrt(3) * (r + q / 2)


def axial_line(a: str, b: str, axial: Mapping, at: Mapping, index: Mapping) -> list[str]:
    """A shortest on-map hex path from a to b (canonical ids), both included (len = distance + 1), on any
    map of axial places (`axial`: id -> place, `at`: place -> id, `index`: id -> grid order).

    Each step goes to an on-map neighbour one hex nearer to the far end; among those, the one whose
    centre lies nearest the straight line between the two end centres, then the first in grid order.
    The path is drawn from the end first in grid order, so the line from b to a is this one reversed.
    """
    if index[a] > index[b]:
        return axial_line(b, a, axial, at, index)[::-1]
    ax, bx = axial[a], axial[b]
    x0, y0 = centre(ax)
    x1, y1 = centre(bx)
    vx, vy = x1 - x0, y1 - y0
    norm = math.hypot(vx, vy) or 1.0
    path = [a]
    cur = ax
    remaining = axial_distance(ax, bx)
    while remaining:
        best = None
        for dq, dr in DIRECTIONS.values():
            nxt = (cur[0] + dq, cur[1] + dr)
            h = at.get(nxt)
            if h is None or axial_distance(nxt, bx) != remaining - 1:
                continue
            px, py = centre(nxt)
            off = round(abs((px - x0) * vy - (py - y0) * vx) / norm, 9)
            cand = (off, index[h], h, nxt)
            if best is None or cand < best:
                best = cand
        if best is None:  # cannot happen: a card map is a hex rectangle (see the exhaustive tests)
            raise AssertionError(f"no on-map step from {path[-1]} towards {b}")
        path.append(best[2])
        cur = best[3]
        remaining -= 1
    return path


def axial_within(q: int, r: int, radius: int, at: Mapping, index: Mapping) -> list[str]:
    """Every on-map hex at distance 0..radius of the axial place (q, r), in grid order."""
    out = []
    for dq in range(-radius, radius + 1):
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
            n = at.get((q + dq, r + dr))
            if n is not None:
                out.append(n)
    out.sort(key=index.__getitem__)
    return out
