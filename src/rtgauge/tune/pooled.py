"""One side of an A/B trial: the same figure of several rounds pooled into
one Metric, so the tail test history uses (analysis/tail.py) weighs it as it
weighs one run. Histograms are summed; the block maxima are laid end to end
in the order the rounds ran, each round's blocks after the one before, at
the longest span any round used (a block's maximum grows with its length)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from rtgauge.analysis.requirements import quantile
from rtgauge.analysis.tail_data import at_span
from rtgauge.model import Blocks, Histogram, Metric

# the fewest samples a percentile needs, as the probe states them (core/src/base/metric.c)
BACKED = {"p99": 100, "p99_9": 1000, "p99_99": 10000}


def pooled_hist(hists: Sequence[Histogram]) -> Histogram:
    counts: dict[tuple[int, int], int] = {}
    for h in hists:
        for lo, hi, n in h.buckets:
            counts[(lo, hi)] = counts.get((lo, hi), 0) + n
    return Histogram(
        sub_bucket_bits=hists[0].sub_bucket_bits if hists else 0,
        buckets=[(lo, hi, n) for (lo, hi), n in sorted(counts.items())],
        overflow=sum(h.overflow for h in hists),
        overflow_above=max((h.overflow_above for h in hists), default=0),
    )


def pooled_blocks(blocks: Sequence[Blocks]) -> Blocks | None:
    """The rounds' blocks end to end (None when a round has none)."""
    if not blocks:
        return None
    span = max(b.span_ms for b in blocks)
    start: list[float] = []
    count: list[int] = []
    maxima: list[float] = []
    above: list[int] = []
    offset = 0.0
    for b in (at_span(b, span) for b in blocks):
        start += [offset + s for s in b.start_ms]
        count += b.count
        maxima += b.maxima
        above += b.above
        end = max(b.start_ms, default=0.0) + span
        offset += math.ceil(end / span) * span
    return Blocks(span, blocks[0].threshold_ns, start, count, maxima, above)


def pool(metrics: Sequence[Metric]) -> Metric:
    """The rounds' figures as one Metric (percentiles from the summed
    histogram, stated only where the probe would state them)."""
    first = metrics[0]
    count = sum(m.count for m in metrics)
    maxes = [m.max for m in metrics if m.max is not None]
    mins = [m.min for m in metrics if m.min is not None]
    with_mean = [(m.mean, m.count) for m in metrics if m.mean is not None and m.count]
    mean = sum(v * n for v, n in with_mean) / sum(n for _, n in with_mean) if with_mean else None
    blocks = [m.blocks for m in metrics]
    shell = Metric(
        name=first.name,
        unit=first.unit,
        count=count,
        min=min(mins) if mins else None,
        max=max(maxes) if maxes else None,
        mean=mean,
        stddev=None,
        p50=None,
        p90=None,
        p99=None,
        p99_9=None,
        p99_99=None,
        worst_at_ms=None,
        params=dict(first.params),
        hist=pooled_hist([m.hist for m in metrics]),
        blocks=None if any(b is None for b in blocks) else pooled_blocks([b for b in blocks if b]),
    )

    def at(q: float, key: str) -> float | None:
        return quantile(shell, q) if count >= BACKED.get(key, 1) else None

    return replace(
        shell,
        p50=at(0.5, "p50"),
        p90=at(0.9, "p90"),
        p99=at(0.99, "p99"),
        p99_9=at(0.999, "p99_9"),
        p99_99=at(0.9999, "p99_99"),
    )
