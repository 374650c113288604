"""What a latency figure gives an extreme-value analysis: the tail of its
histogram as values, its empirical exceedance curve, and the per-block maxima
the probe recorded in time order (schema: metric.blocks)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Blocks:
    """The probe's block record: one entry per block of `span_ms` of test time."""

    span_ms: float
    threshold_ns: float
    start_ms: list[float]
    count: list[int]
    maxima: list[float]
    above: list[int]

    @classmethod
    def of(cls, metric: dict[str, Any]) -> Blocks | None:
        b = metric.get("blocks")
        if not b:
            return None
        items = b["items"]
        return cls(
            span_ms=float(b["span_ms"]),
            threshold_ns=float(b["threshold_ns"]),
            start_ms=[float(i[0]) for i in items],
            count=[int(i[1]) for i in items],
            maxima=[float(i[2]) for i in items],
            above=[int(i[3]) for i in items],
        )

    def full_maxima(self) -> Floats:
        """Maxima of the blocks that are nearly full: a block cut short at the
        start, the end or a pause holds fewer samples and a smaller maximum."""
        if not self.count:
            return np.zeros(0)
        typical = float(np.median(self.count))
        keep = [m for m, n in zip(self.maxima, self.count, strict=True) if n >= typical / 2]
        return np.asarray(keep, dtype=float)


def tail_values(metric: dict[str, Any], k: int) -> tuple[float, Floats, int]:
    """(threshold u, the values above it, n): u is the low edge of the highest
    bucket at which at least k samples lie at or above it. A bucket's samples
    are spread evenly across its width (their exact values were binned)."""
    buckets = metric["hist"]["buckets"]
    n = int(metric["count"]) - int(metric["hist"]["overflow"])
    seen, start = 0, len(buckets)
    while start > 0 and seen < k:
        start -= 1
        seen += int(buckets[start][2])
    u = float(buckets[start][0]) if buckets else 0.0
    parts = []
    for lo, hi, c in buckets[start:]:
        width = float(hi - lo)
        parts.append(lo + (np.arange(c, dtype=float) + 0.5) * width / c)
    values = np.concatenate(parts) if parts else np.zeros(0)
    return u, values, n


def empirical_exceedance(metric: dict[str, Any]) -> list[tuple[float, float]]:
    """(x, P(X ≥ x)) at each bucket's low edge: exact, since a bucket holds
    only values at or above its low edge."""
    n = int(metric["count"])
    if not n:
        return []
    out = []
    remaining = n
    for lo, _, c in metric["hist"]["buckets"]:
        out.append((float(max(lo, 1)), remaining / n))
        remaining -= int(c)
    return out
