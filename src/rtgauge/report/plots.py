"""Charts as inline SVG strings: no plotting library, no network.

Every text that reaches the SVG is escaped; numbers are formatted here.
"""

from __future__ import annotations

import math
from html import escape

from rtgauge.model import Metric, Series

W, H = 640, 240
ML, MR, MT, MB = 64, 16, 20, 40  # margins
HISTOGRAM_BARS = 60  # a histogram is re-binned into this many bars for display
PALETTE = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#0969da", "#bf3989"]


def _ticks_log(lo: float, hi: float) -> list[float]:
    out = []
    e = math.floor(math.log10(lo))
    while 10**e <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10**e
            if lo <= v <= hi:
                out.append(v)
        e += 1
    return out or [lo, hi]


def _label_us(ns: float) -> str:
    v = ns / 1e3
    if v >= 1000:
        return f"{v / 1000:g} ms"
    return f"{v:g} µs"


def _frame(title: str, body: list[str], xlabel: str, ylabel: str) -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {W} {H}" role="img" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>"
        f'<rect x="{ML}" y="{MT}" width="{W - ML - MR}" height="{H - MT - MB}" fill="#fafbfc" '
        f'stroke="#d0d7de"/>'
        + "".join(body)
        + f'<text x="{(ML + W - MR) / 2}" y="{H - 6}" text-anchor="middle" class="ax">'
        f"{escape(xlabel)}</text>"
        f'<text x="12" y="{(MT + H - MB) / 2}" text-anchor="middle" class="ax" '
        f'transform="rotate(-90 12 {(MT + H - MB) / 2})">{escape(ylabel)}</text></svg>'
    )


def histogram_svg(metric: Metric) -> str:
    """Log-log histogram of a metric's sparse buckets, re-binned for display."""
    bins = HISTOGRAM_BARS
    buckets = metric.hist.buckets
    if not buckets:
        return ""
    lo = max(1.0, float(buckets[0][0]))
    hi = max(lo * 1.01, float(buckets[-1][1]))
    llo, lhi = math.log10(lo), math.log10(hi)
    counts = [0] * bins
    for b_lo, b_hi, n in buckets:
        mid = max(1.0, (b_lo + b_hi) / 2)
        i = min(bins - 1, int((math.log10(mid) - llo) / (lhi - llo) * bins))
        counts[max(0, i)] += n
    cmax = max(counts)
    pw, ph = W - ML - MR, H - MT - MB
    lcmax = math.log10(cmax + 1)

    def x(v: float) -> float:
        return ML + (math.log10(v) - llo) / (lhi - llo) * pw

    body = []
    bw = pw / bins
    for i, n in enumerate(counts):
        if not n:
            continue
        h = math.log10(n + 1) / lcmax * ph
        body.append(
            f'<rect x="{ML + i * bw:.1f}" y="{MT + ph - h:.1f}" width="{max(bw - 1, 1):.1f}" '
            f'height="{h:.1f}" fill="#1f6feb"><title>{n} samples</title></rect>'
        )
    for v in _ticks_log(lo, hi):
        body.append(
            f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{MT + ph}" y2="{MT + ph + 4}" '
            f'stroke="#57606a"/><text x="{x(v):.1f}" y="{MT + ph + 16}" text-anchor="middle" '
            f'class="tk">{escape(_label_us(v))}</text>'
        )
    for n in (1, 10, 100, 1000, 10000, 100000, 1000000):
        if n <= cmax:
            y = MT + ph - math.log10(n + 1) / lcmax * ph
            body.append(
                f'<text x="{ML - 4}" y="{y + 4:.1f}" text-anchor="end" class="tk">{n:g}</text>'
                f'<line x1="{ML}" x2="{ML + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eaeef2"/>'
            )
    if metric.hist.overflow:
        body.append(
            f'<text x="{ML + pw - 4}" y="{MT + 14}" text-anchor="end" class="tk">'
            f"{metric.hist.overflow} beyond {escape(_label_us(metric.hist.overflow_above))}"
            f"</text>"
        )
    return _frame(f"histogram of {metric.name}", body, "latency (log scale)", "samples (log)")


def line_chart_svg(title: str, xs_label: str, series: dict[str, list[tuple[float, float]]]) -> str:
    """Lines of (x, ns) points, log y (log x too when x spans over 20 times); one
    colour per series."""
    pts = [p for s in series.values() for p in s if p[1] > 0]
    if not pts:
        return ""
    xmin, xmax = min(p[0] for p in pts), max(p[0] for p in pts)
    ymin, ymax = min(p[1] for p in pts), max(p[1] for p in pts)
    ymin, ymax = ymin / 1.5, ymax * 1.5
    log_x = xmin > 0 and xmax / max(xmin, 1e-9) > 20
    pw, ph = W - ML - MR, H - MT - MB

    def fx(v: float) -> float:
        if xmax == xmin:
            return ML + pw / 2
        if log_x:
            return (
                ML + (math.log10(v) - math.log10(xmin)) / (math.log10(xmax) - math.log10(xmin)) * pw
            )
        return ML + (v - xmin) / (xmax - xmin) * pw

    def fy(v: float) -> float:
        return (
            MT
            + ph
            - (math.log10(v) - math.log10(ymin)) / (math.log10(ymax) - math.log10(ymin)) * ph
        )

    body = []
    for v in _ticks_log(ymin, ymax):
        body.append(
            f'<line x1="{ML}" x2="{ML + pw}" y1="{fy(v):.1f}" y2="{fy(v):.1f}" stroke="#eaeef2"/>'
            f'<text x="{ML - 4}" y="{fy(v) + 4:.1f}" text-anchor="end" class="tk">'
            f"{escape(_label_us(v))}</text>"
        )
    for xv in sorted({p[0] for p in pts}):
        body.append(
            f'<text x="{fx(xv):.1f}" y="{MT + ph + 16}" text-anchor="middle" class="tk">{xv:g}</text>'
        )
    for i, (name, s) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        good = sorted(p for p in s if p[1] > 0)
        path = " ".join(f"{fx(a):.1f},{fy(b):.1f}" for a, b in good)
        body.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for a, b in good:
            body.append(
                f'<circle cx="{fx(a):.1f}" cy="{fy(b):.1f}" r="3" fill="{colour}">'
                f"<title>{escape(name)}: {a:g} → {escape(_label_us(b))}</title></circle>"
            )
        body.append(
            f'<text x="{ML + 8}" y="{MT + 14 + 14 * i}" class="lg" fill="{colour}">'
            f"{escape(name)}</text>"
        )
    return _frame(title, body, xs_label, "ns, log scale")


def series_svg(series: Series) -> str:
    """Latency over time (max per window) with the load phases as bands."""
    points = [(float(t), float(v)) for t, v in series.points if v > 0]
    if not points:
        return ""
    t0, t1 = 0.0, max(p[0] for p in points)
    for ph_ in series.phases:
        t1 = max(t1, float(ph_.end_ms))
    vmin, vmax = min(p[1] for p in points) / 1.5, max(p[1] for p in points) * 1.5
    pw, ph = W - ML - MR, H - MT - MB

    def fx(t: float) -> float:
        return ML + (t - t0) / max(t1 - t0, 1e-9) * pw

    def fy(v: float) -> float:
        return (
            MT
            + ph
            - (math.log10(v) - math.log10(vmin)) / (math.log10(vmax) - math.log10(vmin)) * ph
        )

    body = []
    for i, phase in enumerate(series.phases):
        a, b = fx(float(phase.start_ms)), fx(float(phase.end_ms))
        fill = "#f6f8fa" if i % 2 else "#eef4ff"
        ops = phase.ops_per_s
        tip = f"{phase.name}" + (f": {ops:,.0f} ops/s" if ops else "")
        body.append(
            f'<rect x="{a:.1f}" y="{MT}" width="{max(b - a, 0.5):.1f}" height="{ph}" fill="{fill}">'
            f"<title>{escape(tip)}</title></rect>"
            f'<text x="{(a + b) / 2:.1f}" y="{MT + 12}" text-anchor="middle" class="tk">'
            f"{escape(str(phase.name))}</text>"
        )
    for v in _ticks_log(vmin, vmax):
        body.append(
            f'<text x="{ML - 4}" y="{fy(v) + 4:.1f}" text-anchor="end" class="tk">'
            f"{escape(_label_us(v))}</text>"
        )
    path = " ".join(f"{fx(t):.1f},{fy(v):.1f}" for t, v in points)
    body.append(f'<polyline fill="none" stroke="#d1242f" stroke-width="1.2" points="{path}"/>')
    body.append(
        f'<text x="{ML + pw}" y="{MT + ph + 16}" text-anchor="end" class="tk">'
        f"{t1 / 1000:.1f} s</text>"
    )
    label = f"max per {series.window_ms:g} ms window"
    return _frame(f"{series.name} over time", body, f"time ({label})", "latency (log)")


def bars_svg(title: str, groups: dict[str, dict[str, float]]) -> str:
    """Grouped bars (log y): one group per label, one bar per system."""
    names = sorted({n for g in groups.values() for n in g})
    vals = [v for g in groups.values() for v in g.values() if v > 0]
    if not vals or not names:
        return ""
    vmin, vmax = min(vals) / 2, max(vals) * 1.5
    pw, ph = W - ML - MR, H - MT - MB - 20
    gw = pw / max(len(groups), 1)
    bw = (gw - 8) / len(names)

    def fy(v: float) -> float:
        return (
            MT
            + ph
            - (math.log10(v) - math.log10(vmin)) / (math.log10(vmax) - math.log10(vmin)) * ph
        )

    body = []
    for v in _ticks_log(vmin, vmax):
        body.append(
            f'<line x1="{ML}" x2="{ML + pw}" y1="{fy(v):.1f}" y2="{fy(v):.1f}" stroke="#eaeef2"/>'
            f'<text x="{ML - 4}" y="{fy(v) + 4:.1f}" text-anchor="end" class="tk">'
            f"{escape(_label_us(v))}</text>"
        )
    for gi, (label, g) in enumerate(groups.items()):
        x0 = ML + gi * gw + 4
        for ni, n in enumerate(names):
            v = g.get(n, 0)
            if v <= 0:
                continue
            y = fy(v)
            body.append(
                f'<rect x="{x0 + ni * bw:.1f}" y="{y:.1f}" width="{max(bw - 1, 1):.1f}" '
                f'height="{MT + ph - y:.1f}" fill="{PALETTE[ni % len(PALETTE)]}">'
                f"<title>{escape(n)}: {escape(_label_us(v))}</title></rect>"
            )
        body.append(
            f'<text x="{x0 + gw / 2 - 4:.1f}" y="{MT + ph + 14}" text-anchor="middle" class="tk">'
            f"{escape(label[:18])}</text>"
        )
    for ni, n in enumerate(names):
        body.append(
            f'<text x="{ML + 8}" y="{MT + 14 + 14 * ni}" class="lg" '
            f'fill="{PALETTE[ni % len(PALETTE)]}">{escape(n)}</text>'
        )
    return _frame(title, body, "", "ns, log scale")
