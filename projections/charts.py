"""Charts for the HTML After Action Report: pure functions returning inline SVG text.

No JavaScript, no external resources: each chart is a self-contained `<svg>` element (HTML5 inline
SVG needs no namespace declaration) with a title, axes, tick labels, a legend, and a `<title>` on
every data point so a reader hovering it sees the value.
"""
from __future__ import annotations

import math
from html import escape

AXIS_COLOR = "#2f5b8a"  # the map's Axis blue-grey (projections/mapview.py), a shade brighter
ALLIED_COLOR = "#5c8a1e"  # the map's Allied olive green, a shade brighter
_FALLBACK = ("#2e7d32", "#6a1b9a", "#c62828", "#00838f", "#5d4037", "#455a64")


def side_color(name: str) -> str | None:
    """The side's colour when a series name starts with (or is) a side's name."""
    low = name.strip().lower()
    if low.startswith("axis"):
        return AXIS_COLOR
    if low.startswith("allied") or low.startswith("allies"):
        return ALLIED_COLOR
    return None


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values spanning [lo, hi] (about `count` of them; integers where the span allows)."""
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        lo, hi = lo - 1, hi + 1
    raw = (hi - lo) / max(count - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    whole = float(lo).is_integer() and float(hi).is_integer()
    for m in (1, 2, 2.5, 5, 10):
        step = m * mag
        if whole and not float(step).is_integer():
            continue  # whole numbers get whole ticks
        if step >= raw:
            break
    if step < 1 and whole:
        step = 1
    start = math.floor(lo / step) * step
    end = math.ceil(hi / step) * step
    n = int(round((end - start) / step))
    return [round(start + i * step, 10) for i in range(n + 1)]


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


MARKERS = ("circle", "square", "triangle", "diamond", "cross", "star")
DASHES = ("", "7 4", "2 3", "10 3 2 3", "1 5", "12 6")


def _looks(series: dict, styles: dict) -> dict[str, tuple[str, str, str]]:
    """(colour, marker, dash) per series, no two series sharing a marker or a dash pattern: a style's
    own choice first, then the side's (Axis circle and solid, Allied square and dashed), then the
    first one still free."""
    used_m: set = set()
    used_d: set = set()
    out = {}
    for k, name in enumerate(series):
        st = styles.get(name, {})
        allied = name.strip().lower().startswith(("allied", "allies"))
        color = st.get("color") or side_color(name) or _FALLBACK[k % len(_FALLBACK)]
        marker = st.get("marker") or ("square" if allied else "circle")
        if marker in used_m:
            marker = next((m for m in MARKERS if m not in used_m), marker)
        dash = st.get("dash") if st.get("dash") is not None else ("7 4" if allied else "")
        if dash in used_d:
            dash = next((d for d in DASHES if d not in used_d), dash)
        used_m.add(marker)
        used_d.add(dash)
        out[name] = (color, marker, escape(dash))
    return out


def _same_as(series: dict) -> dict[str, str]:
    """A series whose values are all equal to an earlier series' -> that series' name."""
    out: dict[str, str] = {}
    names = list(series)
    for j, b in enumerate(names):
        for a in names[:j]:
            if a not in out and series[a] == series[b] and any(v is not None for v in series[b]):
                out[b] = a
                break
    return out


def _marker(shape: str, cx: float, cy: float, color: str, hollow: bool = False, tip: str = "") -> str:
    """A data point: the first series' filled, the others hollow and larger, so points on the same
    spot both show."""
    r = 5.2 if hollow else 4.0
    paint = f'fill="none" stroke="{color}" stroke-width="1.8" pointer-events="all"' if hollow else f'fill="{color}"'
    if shape == "square":
        return f'<rect x="{_num(cx - r)}" y="{_num(cy - r)}" width="{_num(2 * r)}" height="{_num(2 * r)}" {paint}>{tip}</rect>'
    if shape in ("triangle", "diamond", "star", "cross"):
        if shape == "triangle":
            pts = [(cx, cy - r * 1.25), (cx + r * 1.15, cy + r * 0.8), (cx - r * 1.15, cy + r * 0.8)]
        elif shape == "diamond":
            pts = [(cx, cy - r * 1.3), (cx + r * 1.1, cy), (cx, cy + r * 1.3), (cx - r * 1.1, cy)]
        elif shape == "cross":
            a, b = r * 1.2, r * 0.4
            pts = [(cx - b, cy - a), (cx + b, cy - a), (cx + b, cy - b), (cx + a, cy - b), (cx + a, cy + b),
                   (cx + b, cy + b), (cx + b, cy + a), (cx - b, cy + a), (cx - b, cy + b), (cx - a, cy + b),
                   (cx - a, cy - b), (cx - b, cy - b)]
        else:
            pts = [(cx + (r * 1.3 if i % 2 == 0 else r * 0.55) * math.sin(math.pi * i / 5),
                    cy - (r * 1.3 if i % 2 == 0 else r * 0.55) * math.cos(math.pi * i / 5)) for i in range(10)]
        points = " ".join(f"{_num(px)},{_num(py)}" for px, py in pts)
        return f'<polygon points="{points}" {paint}>{tip}</polygon>'
    return f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(r)}" {paint}>{tip}</circle>'


def line_chart(title: str, series: dict[str, list[float | None]], xlabels: list[str], *,
               styles: dict[str, dict] | None = None, y_label: str = "", width: int = 640,
               height: int = 280, chart_id: str | None = None) -> str:
    """An SVG line chart: one polyline per series over the x labels; None leaves a gap.

    styles: per series name, optional {"color": "#rrggbb", "dash": "6 4", "marker": one of MARKERS};
    colours default to the side's (a name starting with "Axis"/"Allied") or a fixed palette; no two
    series share a marker or a dash pattern (`_looks`), and a series equal to an earlier one is labelled
    "= that one" at its last point and in the legend. The y axis starts at 0 unless a value is negative.
    """
    styles = styles or {}
    n = len(xlabels)
    for name, vals in series.items():
        if len(vals) != n:
            raise ValueError(f"series {name!r} has {len(vals)} values for {n} x labels")
    values = [v for vals in series.values() for v in vals if v is not None]
    lo = min([0.0, *values])
    hi = max([1.0, *values]) if values else 1.0
    ticks = nice_ticks(lo, hi)
    y0, y1 = ticks[0], ticks[-1]

    left, right, top = 52, 16, 40
    per_row = max(1, min(len(series), 4, int((width - 68) // 140)))
    legend_rows = max(1, math.ceil(len(series) / per_row))
    bottom = 36 + 20 * legend_rows
    pw, ph = width - left - right, height - top - bottom
    if pw <= 0 or ph <= 0:
        raise ValueError("chart too small")

    def x(i: int) -> float:
        return left + (pw * (i + 0.5) / n if n else pw / 2)

    def y(v: float) -> float:
        return top + ph - (v - y0) / (y1 - y0) * ph

    out: list[str] = []
    attrs = f' id="{escape(chart_id)}"' if chart_id else ""
    out.append(f'<svg class="chart"{attrs} viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
               f'role="img" aria-label="{escape(title)}" font-family="sans-serif" font-size="11">')
    out.append(f"<title>{escape(title)}</title>")
    out.append(f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>')
    out.append(f'<text x="{width / 2:g}" y="20" text-anchor="middle" font-size="14" font-weight="bold">'
               f"{escape(title)}</text>")
    # grid and y axis
    out.append('<g class="y-axis">')
    for t in ticks:
        ty = _num(y(t))
        out.append(f'<line x1="{left}" y1="{ty}" x2="{left + pw}" y2="{ty}" stroke="#dddddd" stroke-width="1"/>')
        out.append(f'<text x="{left - 6}" y="{ty}" dy="0.32em" text-anchor="end">{_fmt(t)}</text>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#333333" stroke-width="1"/>')
    if y_label:
        out.append(f'<text transform="translate(14 {top + ph / 2:g}) rotate(-90)" text-anchor="middle">'
                   f"{escape(y_label)}</text>")
    out.append("</g>")
    # x axis
    base = _num(y(max(y0, min(0.0, y1))))
    out.append('<g class="x-axis">')
    out.append(f'<line x1="{left}" y1="{base}" x2="{left + pw}" y2="{base}" stroke="#333333" stroke-width="1"/>')
    for i, lab in enumerate(xlabels):
        xi = _num(x(i))
        out.append(f'<line x1="{xi}" y1="{top + ph}" x2="{xi}" y2="{top + ph + 4}" stroke="#333333"/>')
        out.append(f'<text x="{xi}" y="{top + ph + 16}" text-anchor="middle">{escape(str(lab))}</text>')
    out.append("</g>")
    # series: each its own marker and dash pattern (told apart where they cross, and in grey print),
    # drawn widest first so a line lying on another still shows; a line equal to an earlier one says so
    looks = _looks(series, styles)
    same = _same_as(series)
    points: list[str] = []  # every line first, then the points on top of them all
    for k, (name, vals) in enumerate(series.items()):
        color, marker, dash_pattern = looks[name]
        dash = f' stroke-dasharray="{dash_pattern}"' if dash_pattern else ""
        width_px = max(1.6, 3.6 - 0.7 * k)
        out.append(f'<g class="series" data-series="{escape(name)}" data-marker="{marker}" '
                   f'data-dash="{dash_pattern or "solid"}">')
        run: list[str] = []
        segments: list[list[str]] = []
        for i, v in enumerate(vals):
            if v is None:
                if run:
                    segments.append(run)
                run = []
                continue
            run.append(f"{_num(x(i))},{_num(y(v))}")
        if run:
            segments.append(run)
        for seg in segments:
            if len(seg) > 1:
                out.append(f'<polyline points="{" ".join(seg)}" fill="none" stroke="{color}" '
                           f'stroke-width="{_num(width_px)}"{dash} stroke-linejoin="round"/>')
        dots = [_marker(marker, x(i), y(v), color, hollow=k > 0,
                        tip=f"<title>{escape(name)}, {escape(str(xlabels[i]))}: {_fmt(v)}</title>")
                for i, v in enumerate(vals) if v is not None]
        points.append(f'<g class="points" data-series="{escape(name)}">{"".join(dots)}</g>')
        if name in same:
            last = max(i for i, v in enumerate(vals) if v is not None)
            out.append(f'<text class="same" x="{_num(x(last) + 8)}" y="{_num(y(vals[last]) - 8)}" '
                       f'fill="{color}" font-weight="bold">= {escape(same[name])}</text>')
        out.append("</g>")
    out.extend(points)
    # legend
    out.append('<g class="legend">')
    col_w = (width - left - right) / per_row
    for k, name in enumerate(series):
        color, marker, dash_pattern = looks[name]
        dash = f' stroke-dasharray="{dash_pattern}"' if dash_pattern else ""
        lx = left + (k % per_row) * col_w
        ly = height - 20 * legend_rows + 20 * (k // per_row) - 4
        out.append(f'<line x1="{_num(lx)}" y1="{ly}" x2="{_num(lx + 24)}" y2="{ly}" stroke="{color}" '
                   f'stroke-width="2.5"{dash}/>')
        out.append(_marker(marker, lx + 12, ly, color, hollow=k > 0))
        label = name + (f" (same as {same[name]})" if name in same else "")
        out.append(f'<text x="{_num(lx + 30)}" y="{ly}" dy="0.32em">{escape(label)}</text>')
    out.append("</g>")
    out.append("</svg>")
    return "".join(out)
