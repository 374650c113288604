"""A long view's figures, computed on the server so that its answer stays
small whatever the span: each series cut to at most LIMIT points, each the
maximum of its time bucket (and the id of the interval that holds it), and
the span's histograms merged into one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rtgauge.store.intervals_table import Point
from rtgauge.store.merged_hist import MergedHistogram, merged

__all__ = ["LIMIT", "MergedHistogram", "downsample", "merged", "series_json"]

LIMIT = 2000  # points per series: more than a screen's width shows


def downsample(points: Sequence[Point], limit: int = LIMIT) -> list[Point]:
    """At most `limit` points: the span cut into `limit` equal stretches of
    time, each kept as its largest point (the earliest of equals), so no
    maximum is ever lost and each still names its interval. `points` are in
    time order."""
    if len(points) <= limit:
        return list(points)
    first, last = points[0].start, points[-1].start
    width = (last - first).total_seconds() / limit or 1.0
    out: list[Point] = []
    bucket = -1
    for p in points:
        b = min(int((p.start - first).total_seconds() / width), limit - 1)
        if b != bucket:
            out.append(p)
            bucket = b
        elif p.max_ns > out[-1].max_ns:
            out[-1] = p
    return out


def series_json(points: Sequence[Point]) -> dict[str, list[object]]:
    """A downsampled series as the page's script draws it: columns, not objects."""
    return {
        "id": [p.id for p in points],
        "time": [_iso(p.start) for p in points],
        "max_us": [round(p.max_ns / 1000, 3) for p in points],
    }


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S")  # UTC; plotly draws times without a zone
