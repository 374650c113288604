"""The pWCET curve as inline SVG: exceedance probability (log) against latency
(log), the measured points, the fitted tail with its band, the deadline and
the tolerated miss rate. One colour per system."""

from __future__ import annotations

import math
from html import escape

from rtgauge.analysis.pwcet import CURVE_LOW, Pwcet
from rtgauge.report.plots import MB, ML, MR, MT, PALETTE, H, W, _frame, _label_us, _ticks_log


def _label(ns: float) -> str:
    return f"{ns / 1e9:g} s" if ns >= 1e9 else _label_us(ns)


def _latency_ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 ticks over a few decades; powers of ten only over more, so the
    labels of a heavy tail's wide range do not run into each other."""
    ticks = _ticks_log(lo, hi)
    if math.log10(hi / lo) <= 4:
        return ticks
    return [t for t in ticks if math.log10(t) == round(math.log10(t))] or ticks


def pwcet_svg(
    title: str,
    series: list[tuple[str, Pwcet]],
    deadline_ns: float | None,
    rate: float | None,
) -> str:
    xs = [x for _, r in series for x, _ in r.empirical if x > 0]
    if not xs:
        return ""
    top = max(xs)
    fit_x = [x for _, r in series for _, x, _, _ in r.curve if math.isfinite(x)]
    x_lo = min(xs)
    x_hi = max([top * 1.5] + ([deadline_ns * 1.3] if deadline_ns else []) + fit_x)
    x_hi = min(x_hi, max(top, deadline_ns or 0) * 100)  # a heavy tail runs off the chart
    y_lo = CURVE_LOW
    lx0, lx1 = math.log10(x_lo), math.log10(max(x_hi, x_lo * 1.01))
    pw, ph = W - ML - MR, H - MT - MB

    def fx(x: float) -> float:
        return ML + (math.log10(max(x, x_lo)) - lx0) / (lx1 - lx0) * pw

    def fy(p: float) -> float:
        return MT + (-math.log10(max(p, y_lo))) / (-math.log10(y_lo)) * ph

    def inside(x: float) -> bool:
        return math.isfinite(x) and x_lo <= x <= x_hi

    body = []
    for e in range(0, int(-math.log10(y_lo)) + 1, 3):
        y = fy(10.0**-e)
        body.append(
            f'<line x1="{ML}" x2="{ML + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eaeef2"/>'
            f'<text x="{ML - 4}" y="{y + 4:.1f}" text-anchor="end" class="tk">'
            f"{'1' if e == 0 else f'1e-{e}'}</text>"
        )
    for v in _latency_ticks(x_lo, x_hi):
        body.append(
            f'<text x="{fx(v):.1f}" y="{MT + ph + 16}" text-anchor="middle" class="tk">'
            f"{escape(_label(v))}</text>"
        )
    if rate:
        y = fy(rate)
        body.append(
            f'<line x1="{ML}" x2="{ML + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#9a6700" '
            f'stroke-dasharray="2 3"/><text x="{ML + pw - 4}" y="{y - 3:.1f}" '
            f'text-anchor="end" class="tk">tolerated {rate:g}</text>'
        )
    if deadline_ns:
        x = fx(deadline_ns)
        body.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{MT}" y2="{MT + ph}" stroke="#d1242f" '
            f'stroke-width="1.5" stroke-dasharray="5 3"/><text x="{x + 4:.1f}" y="{MT + 12}" '
            f'class="lg" fill="#d1242f">deadline {escape(_label_us(deadline_ns))}</text>'
        )
    for i, (label, r) in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        band = [(p, lo, hi) for p, _, lo, hi in r.curve if lo is not None and hi is not None]
        if band:
            left = [f"{fx(min(lo, x_hi)):.1f},{fy(p):.1f}" for p, lo, _ in band]
            right = [f"{fx(min(hi, x_hi)):.1f},{fy(p):.1f}" for p, _, hi in reversed(band)]
            body.append(
                f'<polygon points="{" ".join(left + right)}" fill="{colour}" '
                f'fill-opacity="0.15" stroke="none"><title>{escape(label)}: '
                f"{r.confidence * 100:g} % band</title></polygon>"
            )
        line = [f"{fx(x):.1f},{fy(p):.1f}" for p, x, _, _ in r.curve if inside(x)]
        if len(line) > 1:
            body.append(
                f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                f'points="{" ".join(line)}"/>'
            )
        for x, p in r.empirical:
            body.append(
                f'<circle cx="{fx(x):.1f}" cy="{fy(p):.1f}" r="2" fill="{colour}">'
                f"<title>{escape(label)}: P(latency ≥ {escape(_label_us(x))}) = {p:.3g}"
                f"</title></circle>"
            )
        fit = "fit + band" if r.curve else escape(r.status)
        body.append(
            f'<text x="{ML + 8}" y="{MT + ph - 8 - 14 * (len(series) - 1 - i)}" class="lg" '
            f'fill="{colour}">{escape(label)}: measured (dots), {fit}</text>'
        )
    return _frame(title, body, "latency (log scale)", "exceedance probability")
