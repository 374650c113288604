"""Is the tail of a newer latency distribution worse than an older one's?

The exceedance test is the one comparisons use (analysis.stats.tail_test:
samples above a threshold, counted from the histograms, Fisher's exact
test), with the threshold a regression asks about: a tail percentile of the
older run, the highest one it has at least ten samples above (p99.9 from
10 000 samples, p99 from 1000, p90 from 100). The newer run must exceed it
more often, at p < 0.001, and at least twice as often.

Why stricter than a comparison: latency samples are not independent. One
stall of the machine delays several wake-ups in a row, so a p-value
computed as if they were is optimistic, and a history tests every run
against the one before it, again and again.

A single maximum against a single maximum is one extreme value each: no
test can say anything from it, so it is shown but never judged.
"""

from __future__ import annotations

from dataclasses import dataclass

from rtgauge.analysis.stats import tail_test as exceedances
from rtgauge.model import Metric

ALPHA = 0.001  # significance level (samples cluster in bursts: see above)
RATIO = 2.0  # and the exceedance rate must at least double: small shifts on huge counts are noise
# (percentile key, its name, samples the older run needs for it: ten above it)
THRESHOLDS = (("p99_9", "p99.9", 10_000), ("p99", "p99", 1000), ("p90", "p90", 100))


@dataclass(frozen=True)
class TailTest:
    threshold_ns: float | None  # the older run's percentile; None: not testable
    threshold_name: str  # "p99.9", "p99", "p90" or why it was not tested
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
            f"Fisher exact p = {p}"
        )


def tail_test(old: Metric, new: Metric) -> TailTest:
    """Is `new`'s tail worse than `old`'s?"""
    n_old, n_new = old.count, new.count
    found = next(
        (
            (value, name)
            for k, name, need in THRESHOLDS
            if n_old >= need and (value := old.stat(k)) is not None
        ),
        None,
    )
    if found is None or n_new < 100:
        return TailTest(None, "too few samples to test the tail", 0, n_old, 0, n_new, None, False)
    t = exceedances(old, new, float(found[0]))
    a, b = t.above
    if t.threshold_ns is None or t.p is None:
        return TailTest(None, "no sample above the threshold", a, n_old, b, n_new, None, False)
    rate_old, rate_new = a / n_old, b / n_new
    worse = t.p < ALPHA and rate_new > rate_old and rate_new >= RATIO * rate_old
    return TailTest(t.threshold_ns, found[1], a, n_old, b, n_new, t.p, worse)
