"""Metric records built from known samples the way the probe builds them:
the same log-linear histogram (1 ns buckets below 256 ns, then 128 buckets per
power of two) and, optionally, the block record (max, count, count above a
threshold per block of test time)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from rtgauge.model import Metric, TestRecord

SUB_BITS = 7
LIMIT = 1 << 35


def bucket(v: int) -> tuple[int, int]:
    if v < (1 << (SUB_BITS + 1)):
        return v, v + 1
    width = 1 << (v.bit_length() - 1 - SUB_BITS)
    lo = v // width * width
    return lo, lo + width


def metric(
    name: str,
    values_ns: Any,
    period_ms: float | None = None,
    span_ms: float = 100.0,
    threshold_ns: int = 100_000,
) -> dict[str, Any]:
    """A metric record of these samples; with period_ms, sample i is taken at
    i * period_ms and the block record is added."""
    vals = [int(v) for v in np.asarray(values_ns)]
    kept = [v for v in vals if v < LIMIT]
    counts = Counter(bucket(v) for v in kept)
    m: dict[str, Any] = {
        "name": name,
        "unit": "ns",
        "count": len(vals),
        "min": min(vals),
        "max": max(vals),
        "mean": float(np.mean(vals)),
        "stddev": float(np.std(vals, ddof=1)),
        "p50": None,
        "p90": None,
        "p99": None,
        "p99_9": None,
        "p99_99": None,
        "worst_at_ms": 0.0,
        "params": {},
        "hist": {
            "kind": "loglinear",
            "sub_bucket_bits": SUB_BITS,
            "buckets": [[lo, hi, n] for (lo, hi), n in sorted(counts.items())],
            "overflow": len(vals) - len(kept),
            "overflow_above": LIMIT,
        },
    }
    if period_ms is not None:
        blocks: dict[int, list[int]] = {}
        for i, v in enumerate(vals):
            b = int(i * period_ms // span_ms)
            e = blocks.setdefault(b, [0, 0, 0])
            e[0] += 1
            e[1] = max(e[1], v)
            e[2] += v > threshold_ns
        m["blocks"] = {
            "span_ms": span_ms,
            "threshold_ns": threshold_ns,
            "items": [[b * span_ms, n, mx, a] for b, (n, mx, a) in sorted(blocks.items())],
        }
    return m


def as_metric(partial: dict[str, Any]) -> Metric:
    """The view of a hand-made figure: what it leaves out is empty or null."""
    hist = {"sub_bucket_bits": SUB_BITS, "buckets": [], "overflow": 0, "overflow_above": LIMIT}
    stats = ("min", "max", "mean", "stddev", "p50", "p90", "p99", "p99_9", "p99_99")
    full: dict[str, Any] = {"name": "m", "unit": "ns", "count": 0, "worst_at_ms": None}
    full |= {k: None for k in stats} | partial
    full["hist"] = hist | partial.get("hist", {})
    return Metric.read(full)


def as_test(partial: dict[str, Any]) -> TestRecord:
    """The view of a hand-made test record: id and what it gives, the rest empty."""
    full: dict[str, Any] = {
        "title": "t",
        "kind": "P",
        "status": "ok",
        "reason": None,
        "options": {},
        "conditions": {"policy": "SCHED_FIFO", "prio": 95, "mlockall": True, "cpus": [0]},
        "duration_ms": 0,
        "verdicts": [],
    } | partial
    full["metrics"] = [m for m in full.get("metrics", [])]
    return TestRecord.read(full)


def timed_test(test_id: str, metrics: list[dict[str, Any]], **info: Any) -> TestRecord:
    """A latency test of these figures, as a record written before the probe
    said which figures are release latencies (the host's lists decide)."""
    return as_test(
        {"id": test_id, "options": {"period_us": 1000}, "metrics": metrics, "info": info}
    )
