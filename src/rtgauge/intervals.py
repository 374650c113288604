"""A duration test whose own record never came (the probe or the host was
killed, the power went) rebuilt from the interval records it wrote as it ran.

Counts, minima, maxima and means add up exactly (every sample is in one
interval); percentiles come from the intervals' histograms merged, by the
probe's rule (rtg_hist_quantile), so they are those of the samples recorded.
What the intervals do not carry (standard deviation, when the worst sample
came within its interval, block maxima) stays unsaid (null).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from rtgauge.model import Bundle, IntervalFigure, IntervalRecord, Record

# (record key, quantile, samples it needs): as the probe writes them
PERCENTILES = (
    ("p50", 0.50, 1),
    ("p90", 0.90, 10),
    ("p99", 0.99, 100),
    ("p99_9", 0.999, 1000),
    ("p99_99", 0.9999, 10000),
)
_PER_CPU = re.compile(r"^(?P<base>.+)\.cpu\d+$")


@dataclass
class Merged:
    """One figure's intervals added up."""

    name: str
    count: int = 0
    min: float | None = None
    max: float | None = None
    total: float = 0.0  # sum of the samples (count × mean of each interval)
    buckets: dict[tuple[int, int], int] = field(default_factory=dict)
    overflow: int = 0
    sub_bucket_bits: int = 7
    overflow_above: int = 0

    def add(self, f: IntervalFigure) -> None:
        if f.count == 0 or f.min is None or f.max is None or f.mean is None:
            return
        self.count += f.count
        self.min = f.min if self.min is None else min(self.min, f.min)
        self.max = f.max if self.max is None else max(self.max, f.max)
        self.total += f.mean * f.count
        for lo, hi, n in f.hist.buckets:
            self.buckets[(lo, hi)] = self.buckets.get((lo, hi), 0) + n
        self.overflow += f.hist.overflow
        self.sub_bucket_bits = f.hist.sub_bucket_bits
        self.overflow_above = f.hist.overflow_above

    def merge(self, other: Merged) -> None:
        """Another figure's samples (the per-CPU figures into their .all)."""
        if other.count == 0 or other.min is None or other.max is None:
            return
        self.count += other.count
        self.min = other.min if self.min is None else min(self.min, other.min)
        self.max = other.max if self.max is None else max(self.max, other.max)
        self.total += other.total
        for key, n in other.buckets.items():
            self.buckets[key] = self.buckets.get(key, 0) + n
        self.overflow += other.overflow
        self.sub_bucket_bits = other.sub_bucket_bits
        self.overflow_above = other.overflow_above

    def quantile(self, q: float) -> float | None:
        """The probe's rule: the upper bound of the bucket holding the
        ceil(q × total)-th sample, minus one, clamped to the maximum."""
        if self.max is None:
            return None
        total = sum(self.buckets.values()) + self.overflow
        rank = max(1, math.ceil(q * total))
        seen = 0
        for lo, hi in sorted(self.buckets):
            seen += self.buckets[(lo, hi)]
            if seen >= rank:
                return float(min(hi - 1, self.max))
        return self.max  # the sample is in the overflow

    def metric(self) -> Record:
        """The figure as a test record's metric (schema: metric)."""
        has = self.count > 0
        out: Record = {
            "name": self.name,
            "unit": "ns",
            "count": self.count,
            "min": self.min if has else None,
            "max": self.max if has else None,
            "mean": self.total / self.count if has else None,
            "stddev": None,
            "worst_at_ms": None,
        }
        for key, q, need in PERCENTILES:
            out[key] = self.quantile(q) if has and self.count >= need else None
        out["params"] = {}
        out["hist"] = {
            "kind": "loglinear",
            "sub_bucket_bits": self.sub_bucket_bits,
            "buckets": [[lo, hi, n] for (lo, hi), n in sorted(self.buckets.items())],
            "overflow": self.overflow,
            "overflow_above": self.overflow_above,
        }
        return out


def merged_figures(intervals: list[IntervalRecord]) -> list[Merged]:
    """Each figure's intervals added up, in the order the figures first came;
    per-CPU figures (`<name>.cpuN`) also merged into `<name>.all`, as the
    test itself merges them at its end."""
    by_name: dict[str, Merged] = {}
    for rec in intervals:
        for f in rec.figures:
            by_name.setdefault(f.name, Merged(f.name)).add(f)
    figures = list(by_name.values())
    alls: dict[str, Merged] = {}
    for m in figures:
        per_cpu = _PER_CPU.match(m.name)
        if per_cpu and f"{per_cpu['base']}.all" not in by_name:
            name = f"{per_cpu['base']}.all"
            alls.setdefault(name, Merged(name)).merge(m)
    return figures + list(alls.values())


def duration_words(ms: float) -> str:
    """A span of test time as a reader says it: 45 s, 12 min 30 s, 3 h 05 min."""
    s = int(ms // 1000)
    if s < 60:
        return f"{ms / 1000:.3g} s"
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    if h:
        return f"{h} h {m:02d} min" if m else f"{h} h"
    return f"{m} min {sec:02d} s" if sec else f"{m} min"


def stopped_reason(intervals: list[IntervalRecord]) -> str:
    spent = max(r.to_ms for r in intervals)
    planned = intervals[0].planned_ms
    n = len(intervals)
    what = "interval" if n == 1 else f"{n} intervals"
    return (
        f"stopped after {duration_words(spent)} of {duration_words(planned)}: "
        f"its figures are those of the {what} recorded"
    )


def rebuilt_test(raw: list[Record], ended: Record | None = None) -> Record:
    """The test record of one test from its interval records (raw, checked);
    `ended`: the record the runner wrote in its stead (a test that crashed or
    overran: its status and reason are kept), or None (none came)."""
    intervals = [IntervalRecord.read(r) for r in raw]
    first = raw[0]
    spent = max(r.to_ms for r in intervals)
    reason = stopped_reason(intervals)
    if ended is not None and ended.get("reason"):
        reason = f"{ended['reason']}; {reason}"
    record: Record = {
        "record": "test",
        "schema_version": first["schema_version"],
        "id": first["id"],
        "title": first["title"],
        "kind": first["kind"],
        "status": ended["status"] if ended is not None else "interrupted",
        "reason": reason,
        "options": first["options"],
        "conditions": first["conditions"],
        "duration_ms": spent,
        "metrics": [m.metric() for m in merged_figures(intervals)],
        "verdicts": [],
        "series": [],
        "notes": [
            f"rebuilt from the {len(intervals)} interval records written before the test "
            "stopped: standard deviation, the time of the worst sample and block maxima "
            "were not recorded"
        ],
        "info": {"rebuilt_from_intervals": len(intervals)},
    }
    for key in ("family_title", "release_latency"):
        if key in first:
            record[key] = first[key]
    return record


def with_rebuilt_tests(bundle: Bundle) -> list[Record]:
    """The bundle's test records, with each duration test that has interval
    records but no figures of its own (its record never came, or is the
    runner's after a crash) rebuilt from them."""
    by_id: dict[str, list[Record]] = {}
    for r in bundle.intervals:
        by_id.setdefault(r["id"], []).append(r)
    out: list[Record] = []
    for t in bundle.tests:
        raw = by_id.pop(t["id"], None)
        if raw and not any(m.get("count") for m in t["metrics"]):
            out.append(rebuilt_test(raw, t))
        else:
            out.append(t)
    out += [rebuilt_test(raw) for raw in by_id.values()]
    return out
