"""The long-term view of one figure as inline SVG: per run (left to right,
oldest first) its latency histogram as a column of colour (a heat map on a
log latency axis, darker = a larger share of that run's samples), with the
maximum and the tail percentile drawn over it and regressions marked."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from rtgauge.model import Metric
from rtgauge.report.plots import MB, ML, MR, MT, H, W, _frame, _label_us, _ticks_log

BINS = 40
SHADES = 6  # decades of share shown: 1e-6 of the samples is the palest colour


@dataclass(frozen=True)
class Column:
    """One run: its histogram, figures and whether it regressed."""

    label: str  # short text under the column
    title: str  # tooltip: date, kernel, label
    metric: Metric
    tail: float | None
    regressed: bool


def _colour(share: float) -> str:
    """Share of a run's samples in a cell → white … blue … dark red."""
    x = max(0.0, min(1.0, (math.log10(share) + SHADES) / SHADES))
    stops = [(255, 255, 255), (158, 202, 225), (33, 113, 181), (8, 48, 107), (165, 15, 21)]
    pos = x * (len(stops) - 1)
    i = min(int(pos), len(stops) - 2)
    f = pos - i
    r, g, b = (round(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f) for k in range(3))
    return f"#{r:02x}{g:02x}{b:02x}"


def history_svg(name: str, cols: list[Column]) -> str:
    values = [
        v
        for c in cols
        for lo, hi, n in c.metric.hist.buckets
        if n
        for v in (max(lo, 1), max(hi - 1, 1))
    ]
    if not values:
        return ""
    ymin, ymax = min(values) / 1.2, max(values) * 1.2
    lmin, lmax = math.log10(ymin), math.log10(ymax)
    pw, ph = W - ML - MR, H - MT - MB
    cw = pw / len(cols)

    def fy(v: float) -> float:
        return MT + ph - (math.log10(max(v, ymin)) - lmin) / (lmax - lmin) * ph

    body: list[str] = []
    bh = ph / BINS
    for i, c in enumerate(cols):
        counts = [0] * BINS
        total = 0
        for lo, hi, n in c.metric.hist.buckets:
            mid = max((lo + hi - 1) / 2, ymin)
            k = min(BINS - 1, max(0, int((math.log10(mid) - lmin) / (lmax - lmin) * BINS)))
            counts[k] += n
            total += n
        x = ML + i * cw
        for k, n in enumerate(counts):
            if n:
                share = n / total
                body.append(
                    f'<rect x="{x:.1f}" y="{MT + ph - (k + 1) * bh:.1f}" width="{cw:.1f}" '
                    f'height="{bh + 0.3:.1f}" fill="{_colour(share)}"><title>'
                    f"{escape(c.label)}: {n} samples ({share:.2%})</title></rect>"
                )
    for v in _ticks_log(ymin, ymax):
        body.append(
            f'<text x="{ML - 4}" y="{fy(v) + 4:.1f}" text-anchor="end" class="tk">'
            f"{escape(_label_us(v))}</text>"
        )
    step = max(1, math.ceil(len(cols) / 16))
    for i, c in enumerate(cols):
        cx = ML + (i + 0.5) * cw
        if i % step == 0 or i == len(cols) - 1:
            body.append(
                f'<text x="{cx:.1f}" y="{MT + ph + 14}" text-anchor="middle" class="tk">'
                f"{escape(c.label)}</text>"
            )
    for key, colour, what in (("max", "#d1242f", "max"), ("tail", "#24292f", "tail")):
        pts = []
        for i, c in enumerate(cols):
            got = c.metric.max if key == "max" else c.tail
            if got:
                pts.append((ML + (i + 0.5) * cw, fy(float(got)), float(got), c))
        if pts:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in pts)
            dash = ' stroke-dasharray="5 3"' if key == "tail" else ""
            body.append(
                f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{path}"/>'
            )
            for x, y, v, c in pts:
                body.append(
                    f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>'
                    f"{escape(c.title)}: {what} {escape(_label_us(v))}</title></circle>"
                )
    for i, c in enumerate(cols):
        if c.regressed:
            cx = ML + (i + 0.5) * cw
            body.append(
                f'<path d="M{cx - 7:.1f},{MT + 2} L{cx + 7:.1f},{MT + 2} L{cx:.1f},{MT + 14} Z" '
                f'fill="#d1242f" stroke="#fff" class="regression"><title>regression: '
                f"{escape(c.title)}</title></path>"
            )
    # The legend sits under the axis, right of its label: never over the data.
    body.append(
        f'<text x="{ML + pw}" y="{H - 6}" text-anchor="end" class="lg">'
        '<tspan fill="#d1242f">— max</tspan>  <tspan fill="#24292f">- - tail</tspan>'
        '  <tspan fill="#d1242f">▼ regression</tspan></text>'
    )
    return _frame(f"{name} over runs", body, "runs, oldest first", "latency (log)").replace(
        f'<text x="{(ML + W - MR) / 2}" y="{H - 6}" text-anchor="middle"',
        f'<text x="{ML}" y="{H - 6}" text-anchor="start"',
        1,
    )
