"""A histogram column from another tool, turned into an rtgauge metric.

Other tools count samples in linear buckets (cyclictest and rtla: 1 µs) up
to a limit, then only count the samples beyond it. The metric keeps those
buckets as they are, as explicit [low, high) ranges in ns, so every reader
(percentiles, deadline misses, plots, comparisons) works on them unchanged;
the samples beyond the limit become one bucket from the limit to the
column's maximum, which is what the source knows about them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rtgauge.model import Record

# Where the probe's own histogram stops counting; nothing imported reaches it.
OVERFLOW_ABOVE = 1 << 35
# Percentile, record key, samples needed to back it (as the probe does).
PERCENTILES = (
    (0.50, "p50", 1),
    (0.90, "p90", 10),
    (0.99, "p99", 100),
    (0.999, "p99_9", 1000),
    (0.9999, "p99_99", 10000),
)


@dataclass
class Column:
    """One histogram column of the source, values already in ns."""

    name: str  # the metric name it becomes
    width_ns: int  # bucket width
    counts: dict[int, int] = field(default_factory=dict)  # bucket low edge (ns) -> samples
    over: int = 0  # samples beyond the last bucket the source keeps
    limit_ns: int | None = None  # where the source's buckets end (None: unknown)
    min_ns: float | None = None
    max_ns: float | None = None
    mean_ns: float | None = None
    count: int | None = None  # the source's own total, when it states one

    @property
    def total(self) -> int:
        return sum(self.counts.values()) + self.over


def quantile(buckets: list[list[int]], total: int, q: float, top: float) -> float:
    """The upper edge of the bucket holding rank ceil(q * total), clamped to the max."""
    want = q * total
    rank = max(1, int(want) + (int(want) < want))
    seen = 0
    for _, hi, n in buckets:
        seen += n
        if seen >= rank:
            return float(min(hi - 1, top))
    return float(top)


def buckets_of(col: Column) -> list[list[int]]:
    out = [[lo, lo + col.width_ns, n] for lo, n in sorted(col.counts.items()) if n]
    if col.over:
        low = col.limit_ns if col.limit_ns is not None else (out[-1][1] if out else col.min_ns)
        low = low or 0
        top = col.max_ns if col.max_ns is not None else low
        out.append([int(low), int(max(top, low)) + 1, col.over])
    return out


def metric(col: Column, params: Record | None = None) -> Record:
    """The metric record of a column; what the source did not say is null."""
    buckets = buckets_of(col)
    total = col.total
    lo_seen = float(buckets[0][0]) if buckets else None
    hi_seen = float(buckets[-1][1] - 1) if buckets else None
    vmin = col.min_ns if col.min_ns is not None else lo_seen
    vmax = col.max_ns if col.max_ns is not None else hi_seen
    out: Record = {
        "name": col.name,
        "unit": "ns",
        "count": total,
        "min": vmin if total else None,
        "max": vmax if total else None,
        "mean": col.mean_ns if total else None,
        "stddev": None,  # no source states it
        "worst_at_ms": None,
        "params": dict(params or {}),
        "hist": {
            "kind": "loglinear",
            "sub_bucket_bits": 0,
            "buckets": buckets,
            "overflow": 0,
            "overflow_above": OVERFLOW_ABOVE,
        },
    }
    for q, key, need in PERCENTILES:
        # Without buckets of its own the source gave min/mean/max only: no percentile.
        backed = total >= need and vmax is not None and col.counts
        out[key] = quantile(buckets, total, q, vmax) if backed and vmax is not None else None
    out["params"].setdefault("bucket_ns", col.width_ns)
    return out


def merged(name: str, cols: list[Column]) -> Column:
    """All columns as one (the `.all` metric): counts summed, extremes kept,
    the mean weighted by counts when every column states one."""
    width = cols[0].width_ns
    out = Column(name, width)
    for c in cols:
        for lo, n in c.counts.items():
            out.counts[lo] = out.counts.get(lo, 0) + n
        out.over += c.over
    limits = [c.limit_ns for c in cols if c.limit_ns is not None]
    out.limit_ns = min(limits) if limits else None
    mins = [c.min_ns for c in cols if c.min_ns is not None and c.total]
    maxs = [c.max_ns for c in cols if c.max_ns is not None and c.total]
    out.min_ns = min(mins) if mins else None
    out.max_ns = max(maxs) if maxs else None
    if all(c.mean_ns is not None or not c.total for c in cols) and out.total:
        out.mean_ns = sum((c.mean_ns or 0.0) * c.total for c in cols) / out.total
    return out
