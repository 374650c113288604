"""Batches of monitored intervals as `rtgauge monitor` pushes them
(POST /api/intervals), made from known counts: most samples at a base
latency, some in a tail, one worst sample, in the probe's log-linear
histogram (1 ns buckets below 256 ns, then 128 per power of two)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from rtgauge.intervals import Merged

SUB_BITS = 7
LIMIT = 1 << 35


def bucket(v: int) -> tuple[int, int]:
    if v < (1 << (SUB_BITS + 1)):
        return v, v + 1
    width = 1 << (v.bit_length() - 1 - SUB_BITS)
    lo = v // width * width
    return lo, lo + width


def figure(
    name: str, base_ns: int, worst_ns: int, count: int = 60_000, tail: int = 30, spread: int = 1
) -> dict[str, Any]:
    """`count` samples: `tail` of them at three times the base, one at
    `worst_ns`, the rest spread evenly over `spread` buckets from the base's
    (a real interval's histogram holds a hundred or more), each sample at its
    bucket's low edge."""
    counts: dict[tuple[int, int], int] = {}
    body = count - tail - 1
    at = base_ns
    for k in range(spread):
        lo, hi = bucket(at)
        counts[(lo, hi)] = (
            counts.get((lo, hi), 0) + body // spread + (1 if k < body % spread else 0)
        )
        at = hi
    for value, n in ((base_ns * 3, tail), (worst_ns, 1)):
        counts[bucket(value)] = counts.get(bucket(value), 0) + n
    low = min(lo for lo, _ in counts)
    merged = Merged(name, count=count, min=float(low), max=float(worst_ns), buckets=counts)
    merged.total = float(
        sum(lo * n for (lo, _), n in counts.items()) - bucket(worst_ns)[0] + worst_ns
    )
    quantiles = {k: merged.quantile(q) if count >= need else None
                 for k, q, need in (("p50", 0.5, 1), ("p90", 0.9, 10), ("p99", 0.99, 100), ("p99_9", 0.999, 1000))}  # fmt: skip
    return {
        "name": name,
        "unit": "ns",
        "count": count,
        "min": float(low),
        "max": float(worst_ns),
        "mean": merged.total / count,
        **quantiles,
        "hist": {
            "kind": "loglinear",
            "sub_bucket_bits": SUB_BITS,
            "buckets": [[lo, hi, n] for (lo, hi), n in sorted(counts.items())],
            "overflow": 0,
            "overflow_above": LIMIT,
        },
    }


def interval(
    start: datetime,
    worst_ns: int,
    culprit: str | None = "stress-ng-cpu/4242",
    test: str = "TMR-P-LAT",
    minutes: float = 5,
    rt: bool = True,
    tail: int = 30,
    count: int = 60_000,
    spread: int = 1,
) -> dict[str, Any]:
    """One interval of two per-CPU figures; cpu1 holds the worst sample."""
    end = start + timedelta(minutes=minutes)
    return {
        "start": _stamp(start),
        "end": _stamp(end),
        "test": test,
        "gap_ms": 0.0,
        "rt": rt,
        "figures": [
            figure("timer.wakeup.cpu0", 4000, 9000, count, tail, spread),
            figure("timer.wakeup.cpu1", 4000, worst_ns, count, tail, spread),
        ],
        "worst": {
            "figure": "timer.wakeup.cpu1",
            "value_ns": float(worst_ns),
            "culprit": culprit,
            "summary": f"{culprit} ran on CPU 1 for the whole delay"
            if culprit
            else "nothing in the window",
            "window": {
                "cpu": 1,
                "latency_ns": worst_ns,
                "parts": [{"kind": "task", "who": culprit}],
            },
            "why_not": None,
        },
    }


def payload(host: str, label: str | None, intervals: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "kind": "rtgauge-intervals",
        "version": 1,
        "host": host,
        "label": label,
        "intervals": intervals,
    }


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
