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


def line_chart(title: str, series: dict[str, list[float | None]], xlabels: list[str], *,
               styles: dict[str, dict] | None = None, y_label: str = "", width: int = 640,
               height: int = 280, chart_id: str | None = None) -> str:
    """An SVG line chart: one polyline per series over the x labels; None leaves a gap.

    styles: per series name, optional {"color": "#rrggbb", "dash": "6 4", "marker": "circle"|"square"};
    colours default to the side's (a name starting with "Axis"/"Allied") or a fixed palette, markers
    to squares for Allied series and circles otherwise (told apart in grey print too). The y axis
    starts at 0 unless a value is negative.
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
    per_row = max(1, min(len(series), 4))
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
    # series
    for k, (name, vals) in enumerate(series.items()):
        st = styles.get(name, {})
        color = st.get("color") or side_color(name) or _FALLBACK[k % len(_FALLBACK)]
        dash = f' stroke-dasharray="{escape(st["dash"])}"' if st.get("dash") else ""
        out.append(f'<g class="series" data-series="{escape(name)}">')
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
                           f'stroke-width="2.5"{dash} stroke-linejoin="round"/>')
        marker = st.get("marker") or ("square" if name.strip().lower().startswith("allied") else "circle")
        for i, v in enumerate(vals):
            if v is None:
                continue
            tip = f"<title>{escape(name)}, {escape(str(xlabels[i]))}: {_fmt(v)}</title>"
            cx, cy = x(i), y(v)
            if marker == "square":
                out.append(f'<rect x="{_num(cx - 3.5)}" y="{_num(cy - 3.5)}" width="7" height="7" '
                           f'fill="{color}">{tip}</rect>')
            else:
                out.append(f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="3.8" fill="{color}">{tip}</circle>')
        out.append("</g>")
    # legend
    out.append('<g class="legend">')
    col_w = (width - left - right) / per_row
    for k, name in enumerate(series):
        st = styles.get(name, {})
        color = st.get("color") or side_color(name) or _FALLBACK[k % len(_FALLBACK)]
        dash = f' stroke-dasharray="{escape(st["dash"])}"' if st.get("dash") else ""
        lx = left + (k % per_row) * col_w
        ly = height - 20 * legend_rows + 20 * (k // per_row) - 4
        out.append(f'<line x1="{_num(lx)}" y1="{ly}" x2="{_num(lx + 24)}" y2="{ly}" stroke="{color}" '
                   f'stroke-width="2.5"{dash}/>')
        marker = st.get("marker") or ("square" if name.strip().lower().startswith("allied") else "circle")
        if marker == "square":
            out.append(f'<rect x="{_num(lx + 8.5)}" y="{ly - 3.5}" width="7" height="7" fill="{color}"/>')
        else:
            out.append(f'<circle cx="{_num(lx + 12)}" cy="{ly}" r="3.8" fill="{color}"/>')
        out.append(f'<text x="{_num(lx + 30)}" y="{ly}" dy="0.32em">{escape(name)}</text>')
    out.append("</g>")
    out.append("</svg>")
    return "".join(out)
