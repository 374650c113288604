"""What a latency figure gives an extreme-value analysis: the tail of its
histogram as values, its empirical exceedance curve, and the per-block maxima
the probe recorded in time order (schema: metric.blocks). numpy is loaded by
the functions that compute, not by importing the module."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from rtgauge.model import Blocks, Metric

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats: TypeAlias = npt.NDArray[np.float64]


def at_span(blocks: Blocks, span_ms: float) -> Blocks:
    """The blocks merged to span_ms (a multiple of theirs, as the probe
    doubles it): the maximum of each group's maxima, its counts summed. Two
    runs' block maxima compare only over blocks of the same length of test
    time: a longer run's blocks are longer (the probe keeps at most 1024), and
    a longer block has a higher maximum by its length alone."""
    if span_ms <= blocks.span_ms:
        return blocks
    merged: dict[int, tuple[float, int, int]] = {}
    for start, n, mx, above in zip(
        blocks.start_ms, blocks.count, blocks.maxima, blocks.above, strict=True
    ):
        k = int(start // span_ms)
        m0, n0, a0 = merged.get(k, (mx, 0, 0))
        merged[k] = (max(m0, mx), n0 + n, a0 + above)
    keys = sorted(merged)
    return Blocks(
        span_ms=span_ms,
        threshold_ns=blocks.threshold_ns,
        start_ms=[k * span_ms for k in keys],
        count=[merged[k][1] for k in keys],
        maxima=[merged[k][0] for k in keys],
        above=[merged[k][2] for k in keys],
    )


def same_span(a: Blocks, b: Blocks) -> tuple[Blocks, Blocks]:
    """Both at the longer of their two spans."""
    span = max(a.span_ms, b.span_ms)
    return at_span(a, span), at_span(b, span)


def full_maxima(blocks: Blocks) -> Floats:
    """Maxima of the blocks that are nearly full: a block cut short at the
    start, the end or a pause holds fewer samples and a smaller maximum."""
    import numpy as np

    if not blocks.count:
        return np.zeros(0)
    typical = float(np.median(blocks.count))
    keep = [m for m, n in zip(blocks.maxima, blocks.count, strict=True) if n >= typical / 2]
    return np.asarray(keep, dtype=float)


def tail_values(metric: Metric, k: int) -> tuple[float, Floats, int]:
    """(threshold u, the values above it, n): u is the low edge of the highest
    bucket at which at least k samples lie at or above it. A bucket's samples
    are spread evenly across its width (their exact values were binned)."""
    import numpy as np

    buckets = metric.hist.buckets
    n = metric.count - metric.hist.overflow
    seen, start = 0, len(buckets)
    while start > 0 and seen < k:
        start -= 1
        seen += buckets[start][2]
    u = float(buckets[start][0]) if buckets else 0.0
    parts = []
    for lo, hi, c in buckets[start:]:
        width = float(hi - lo)
        parts.append(lo + (np.arange(c, dtype=float) + 0.5) * width / c)
    values = np.concatenate(parts) if parts else np.zeros(0)
    return u, values, n


def empirical_exceedance(metric: Metric) -> list[tuple[float, float]]:
    """(x, P(X ≥ x)) at each bucket's low edge: exact, since a bucket holds
    only values at or above its low edge."""
    n = metric.count
    if not n:
        return []
    out = []
    remaining = n
    for lo, _, c in metric.hist.buckets:
        out.append((float(max(lo, 1)), remaining / n))
        remaining -= c
    return out
