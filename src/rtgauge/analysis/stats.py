"""Statistics: is one distribution different from another? Its bulk from the
histograms (Mann-Whitney U on samples); its tail from the per-block maxima
(Mann-Whitney U and exceedances, Fisher's exact test, on blocks).

Why blocks for the tail: latency samples are not independent (one stall
delays several wake-ups in a row, an interrupt burst many), so a test that
counts samples as independent draws gives p-values many orders too small.
The maxima of blocks of 100 ms of test time are much closer to independent:
a stall rarely spans two blocks."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from rtgauge.model import Metric

# Up to this many samples in all, the Mann-Whitney p-value is exact (the
# full distribution of U); above, the normal approximation with ties.
EXACT_MAX = 60
NO_BLOCKS = "not testable: no block maxima"  # older records, figures without blocks


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


def fisher_greater(b_hits: int, b_n: int, a_hits: int, a_n: int) -> float:
    """One-sided Fisher's exact test: the probability, given the margins, that
    b holds b_hits of the hits or more (b exceeds more often than a)."""
    hits, total = a_hits + b_hits, a_n + b_n
    hi = min(hits, b_n)

    def logp(k: int) -> float:
        return _lcomb(hits, k) + _lcomb(total - hits, b_n - k) - _lcomb(total, b_n)

    return min(1.0, sum(math.exp(logp(k)) for k in range(b_hits, hi + 1)))


@dataclass(frozen=True)
class RankTest:
    """Mann-Whitney U of b against a on values (block maxima)."""

    n: tuple[int, int]  # values of a and of b
    superiority: float  # probability that a value of b exceeds one of a (ties half)
    p_greater: float  # one-sided: b tends to be larger
    p_less: float  # one-sided: b tends to be smaller
    method: str  # "exact" or "normal approximation"

    @property
    def p_two_sided(self) -> float:
        return min(1.0, 2.0 * min(self.p_greater, self.p_less))


def smallest_p(n1: int, n2: int) -> float:
    """The smallest one-sided p-value a rank test on n1 and n2 values can
    give (all of one side above all of the other): below a level, it can
    say something; above, it cannot, whatever the values."""
    if n1 == 0 or n2 == 0:
        return 1.0
    return math.exp(-_lcomb(n1 + n2, n1))


def rank_test(a: list[float], b: list[float]) -> RankTest:
    """Mann-Whitney U on values, both one-sided p-values: exact (no ties
    assumed, as the histogram test) up to EXACT_MAX values in all, else the
    normal approximation with ties corrected for."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        return RankTest((n1, n2), 0.5, 1.0, 1.0, "no values")
    u = sum((y > x) + 0.5 * (y == x) for x in a for y in b)  # pairs where b wins
    sup = u / (n1 * n2)
    if n1 + n2 <= EXACT_MAX:
        counts = _u_counts(n2, n1)  # the U of b's values
        total = sum(counts)
        greater = sum(counts[math.ceil(u) :]) / total
        less = sum(counts[: math.floor(u) + 1]) / total
        return RankTest((n1, n2), sup, min(1.0, greater), min(1.0, less), "exact")
    n = n1 + n2
    ties: dict[float, int] = {}
    for v in [*a, *b]:
        ties[v] = ties.get(v, 0) + 1
    tie_term = sum(t**3 - t for t in ties.values())
    var = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)))
    if var <= 0:
        return RankTest((n1, n2), sup, 1.0, 1.0, "normal approximation")
    z = (u - n1 * n2 / 2.0) / math.sqrt(var)
    return RankTest(
        (n1, n2),
        sup,
        0.5 * math.erfc(z / math.sqrt(2)),
        0.5 * math.erfc(-z / math.sqrt(2)),
        "normal approximation",
    )
