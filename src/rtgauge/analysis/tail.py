"""Is the tail of one latency distribution worse than another's?

The test counts exceedances: how many samples of each run lie above a tail
percentile of the older run, and asks with a one-sided Fisher exact test
whether the newer run exceeds it more often than chance allows. The
percentile is the highest one the older run puts at least ten samples above
(p99.9 from 10 000 samples, p99 from 1000, p90 from 100): a threshold set by
one or two samples would say more about them than about the system.

Latency samples are not independent: one stall of the machine delays several
wake-ups in a row, so a p-value computed as if they were is optimistic. The
test therefore asks for more than the usual 0.05: p < 0.001 and an
exceedance rate at least doubled.

A single maximum against a single maximum is one extreme value each: no test
can say anything from it, so it is shown but never judged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

ALPHA = 0.001  # significance level (samples cluster in bursts: see above)
RATIO = 2.0  # and the exceedance rate must at least double: small shifts on huge counts are noise
# (percentile key, its name, samples the older run needs for it: ten above it)
THRESHOLDS = (("p99_9", "p99.9", 10_000), ("p99", "p99", 1000), ("p90", "p90", 100))


@dataclass(frozen=True)
class TailTest:
    threshold_ns: float | None  # the older run's p99.9 / p99; None: not testable
    threshold_name: str  # "p99.9", "p99" or why it was not tested
    old_above: int
    old_n: int
    new_above: int
    new_n: int
    p_value: float | None
    worse: bool

    @property
    def evidence(self) -> str:
        if self.threshold_ns is None:
            return self.threshold_name
        p = f"{self.p_value:.2g}" if self.p_value is not None else "—"
        return (
            f"{self.new_above} of {self.new_n} samples above {self.threshold_ns / 1e3:,.2f} µs "
            f"(the older run's {self.threshold_name}) against {self.old_above} of {self.old_n}; "
            f"one-sided Fisher exact p = {p}"
        )


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def fisher_greater(a: int, n1: int, b: int, n2: int) -> float:
    """P(X >= b) where X is how many of the `a + b` exceedances fall in the
    second group of n2 samples, all groupings equally likely (hypergeometric):
    small when the second group exceeds more often than the first."""
    k = a + b
    if k == 0 or n2 == 0 or n1 == 0:
        return 1.0
    total = _log_comb(n1 + n2, k)
    hi = min(k, n2)
    terms = [
        _log_comb(n2, x) + _log_comb(n1, k - x) - total for x in range(b, hi + 1) if k - x <= n1
    ]
    if not terms:
        return 1.0
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def above(metric: dict[str, Any], threshold: float) -> int:
    """Samples surely above the threshold: buckets that start above it."""
    n = int(metric["hist"]["overflow"]) if metric["hist"]["overflow_above"] > threshold else 0
    return n + sum(int(c) for lo, _, c in metric["hist"]["buckets"] if lo > threshold)


def tail_test(old: dict[str, Any], new: dict[str, Any]) -> TailTest:
    """Is `new`'s tail worse than `old`'s? (Both are metric records.)"""
    found = next(
        ((k, n) for k, n, need in THRESHOLDS if old["count"] >= need and old.get(k) is not None),
        None,
    )
    if found is None or new["count"] < 100:
        return TailTest(
            None, "too few samples to test the tail", 0, old["count"], 0, 0, None, False
        )
    thr, name = float(old[found[0]]), found[1]
    a, n1 = above(old, thr), int(old["count"])
    b, n2 = above(new, thr), int(new["count"])
    p = fisher_greater(a, n1, b, n2)
    rate_old, rate_new = a / n1, b / n2
    worse = p < ALPHA and rate_new >= RATIO * rate_old
    return TailTest(thr, name, a, n1, b, n2, p, worse)
