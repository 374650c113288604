"""Statistics on histograms: is one distribution different from another, in
its bulk (Mann-Whitney U) or in its tail (exceedances, Fisher's exact test)?"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from rtgauge.model import Metric

# Up to this many samples in all, the Mann-Whitney p-value is exact (the
# full distribution of U); above, the normal approximation with ties.
EXACT_MAX = 60
# A tail is tested above the pooled p99: with fewer samples than this, too
# few lie above it for any test, and a max is a single extreme value.
TAIL_MIN_SAMPLES = 200
NOT_TESTED = "single extreme value, not tested"  # a max against a max


def _points(metric: Metric) -> list[tuple[float, int]]:
    """(bucket midpoint, count); overflow samples sit above every bucket."""
    hist = metric.hist
    pts = [((lo + hi - 1) / 2.0, n) for lo, hi, n in hist.buckets if n]
    if hist.overflow:
        pts.append((float(hist.overflow_above) * 2, hist.overflow))
    return pts


@lru_cache(maxsize=4096)
def _u_counts(n1: int, n2: int) -> tuple[int, ...]:
    """How many orderings of n1 + n2 distinct values give each U (0..n1*n2):
    the largest value is either one of a's (beating all n2 of b's) or b's."""
    if n1 == 0 or n2 == 0:
        return (1,)
    with_a = _u_counts(n1 - 1, n2)
    with_b = _u_counts(n1, n2 - 1)
    out = [0] * (n1 * n2 + 1)
    for u, c in enumerate(with_a):
        out[u + n2] += c
    for u, c in enumerate(with_b):
        out[u] += c
    return tuple(out)


def mann_whitney_exact_p(u: float, n1: int, n2: int) -> float:
    """Two-sided exact p-value of U (as scipy's mannwhitneyu(method="exact"),
    which also ignores ties): twice the smaller tail, at most 1."""
    counts = _u_counts(n1, n2)
    total = sum(counts)
    below = sum(counts[: math.floor(u) + 1])
    above = sum(counts[math.ceil(u) :])
    return min(1.0, 2.0 * min(below, above) / total)


@dataclass(frozen=True)
class BulkTest:
    p: float
    superiority: float  # probability that a sample of a exceeds one of b
    method: str  # "exact" or "normal approximation"


def mann_whitney(a: Metric, b: Metric) -> BulkTest:
    """Two-sided Mann-Whitney U test on two histograms (bucket midpoints as
    values, ties within a bucket corrected for in the approximation)."""
    pa, pb = _points(a), _points(b)
    n1, n2 = sum(c for _, c in pa), sum(c for _, c in pb)
    if n1 == 0 or n2 == 0:
        return BulkTest(1.0, 0.5, "no samples")
    merged: dict[float, list[int]] = {}
    for v, c in pa:
        merged.setdefault(v, [0, 0])[0] += c
    for v, c in pb:
        merged.setdefault(v, [0, 0])[1] += c
    rank_sum_a = 0.0
    next_rank = 1.0
    tie_term = 0.0
    for v in sorted(merged):
        ca, cb = merged[v]
        t = ca + cb
        mid = next_rank + (t - 1) / 2.0
        rank_sum_a += ca * mid
        next_rank += t
        tie_term += t**3 - t
    u1 = rank_sum_a - n1 * (n1 + 1) / 2.0
    sup = u1 / (n1 * n2)
    n = n1 + n2
    if n <= EXACT_MAX:
        return BulkTest(mann_whitney_exact_p(u1, n1, n2), sup, "exact")
    var = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)))
    if var <= 0:
        return BulkTest(1.0, sup, "normal approximation")
    z = (u1 - n1 * n2 / 2.0) / math.sqrt(var)
    return BulkTest(math.erfc(abs(z) / math.sqrt(2)), sup, "normal approximation")


def significant(t: BulkTest, alpha: float) -> bool:
    """Different beyond chance (p < alpha) and by a margin that matters: the
    probability of superiority away from 0.5 by more than 0.05."""
    return t.p < alpha and abs(t.superiority - 0.5) > 0.05


def _lcomb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def fisher_exact(a_hits: int, a_n: int, b_hits: int, b_n: int) -> float:
    """Two-sided p-value of Fisher's exact test on the 2x2 table
    [[a_hits, a_n - a_hits], [b_hits, b_n - b_hits]]: the probability, given
    the margins, of a table at most as likely as the one observed."""
    hits, total = a_hits + b_hits, a_n + b_n
    lo, hi = max(0, a_n - (total - hits)), min(hits, a_n)

    def logp(k: int) -> float:
        return _lcomb(hits, k) + _lcomb(total - hits, a_n - k) - _lcomb(total, a_n)

    observed = logp(a_hits)
    p = sum(math.exp(logp(k)) for k in range(lo, hi + 1) if logp(k) <= observed + 1e-7)
    return min(1.0, p)


@dataclass(frozen=True)
class TailTest:
    threshold_ns: float | None  # the pooled p99 bucket's upper edge; None: not tested
    above: tuple[int, int]  # samples of a and of b above it
    p: float | None  # Fisher's exact test; None: not tested


def _above(metric: Metric, threshold: float) -> int:
    n = sum(c for lo, _, c in metric.hist.buckets if lo > threshold)
    return n + metric.hist.overflow


def tail_test(a: Metric, b: Metric, threshold_ns: float | None = None) -> TailTest:
    """Do a and b exceed the pooled p99 (or a given threshold: a history uses
    the older run's own tail percentile) equally often? Counts above it, from
    the histograms, compared with Fisher's exact test."""
    n_a, n_b = a.count, b.count
    if n_a + n_b < TAIL_MIN_SAMPLES:
        return TailTest(None, (0, 0), None)
    threshold = threshold_ns if threshold_ns is not None else _pooled_p99(a, b)
    if threshold is None:  # the pooled p99 lies in the overflow
        return TailTest(None, (0, 0), None)
    above = (_above(a, threshold), _above(b, threshold))
    if sum(above) == 0:
        return TailTest(None, above, None)
    return TailTest(threshold, above, fisher_exact(above[0], n_a, above[1], n_b))


def _pooled_p99(a: Metric, b: Metric) -> float | None:
    pooled: dict[tuple[int, int], int] = {}
    for m in (a, b):
        for lo, hi, c in m.hist.buckets:
            pooled[(lo, hi)] = pooled.get((lo, hi), 0) + c
    rank = math.ceil(0.99 * (a.count + b.count))
    seen = 0
    for (_, hi), c in sorted(pooled.items()):
        seen += c
        if seen >= rank:
            return float(hi - 1)
    return None
