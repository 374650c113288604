"""A long view's figures, computed on the server so that its answer stays
small whatever the span: each series cut to at most LIMIT points, each the
maximum of its time bucket (and the id of the interval that holds it), and
the span's histograms merged into one."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from rtgauge.store.intervals_table import Point

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


@dataclass
class MergedHistogram:
    """Log-linear histograms added bucket by bucket (the same scheme on every
    interval: [low, high_exclusive, count], plus what overflowed)."""

    buckets: dict[tuple[int, int], int] = field(default_factory=dict)
    overflow: int = 0
    overflow_above: int = 0

    def add(self, hist: dict[str, object]) -> None:
        for lo, hi, n in hist["buckets"]:  # type: ignore[attr-defined]
            key = (int(lo), int(hi))
            self.buckets[key] = self.buckets.get(key, 0) + int(n)
        self.overflow += int(hist["overflow"])  # type: ignore[call-overload]
        self.overflow_above = max(self.overflow_above, int(hist["overflow_above"]))  # type: ignore[call-overload]

    @property
    def count(self) -> int:
        return sum(self.buckets.values()) + self.overflow

    def above(self, threshold: int) -> int:
        """Samples in the buckets at or above `threshold` (a bucket edge), overflow included."""
        return sum(n for (lo, _), n in self.buckets.items() if lo >= threshold) + self.overflow

    def rows(self) -> list[list[int]]:
        return [[lo, hi, n] for (lo, hi), n in sorted(self.buckets.items())]


def merged(hists: Iterable[str]) -> MergedHistogram:
    """The histograms (JSON text, as the store keeps them) merged."""
    out = MergedHistogram()
    for text in hists:
        out.add(json.loads(text))
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
