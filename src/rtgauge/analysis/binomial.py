"""Exact (Clopper–Pearson) bounds on a miss rate from k misses in n activations.

The rule of three (3/n) holds only for k = 0; these bounds hold for any k,
so a deadline claim stays honest once a miss has been seen. scipy is loaded
when a bound is first asked for (a report with a deadline), not on import.
"""

from __future__ import annotations

import math


def upper_bound(misses: int, n: int, confidence: float) -> float:
    """One-sided upper bound: the true rate is below it with this confidence."""
    if n <= 0:
        return 1.0
    if misses >= n:
        return 1.0
    from scipy.stats import beta

    return float(beta.ppf(confidence, misses + 1, n - misses))


def lower_bound(misses: int, n: int, confidence: float) -> float:
    """One-sided lower bound: the true rate is above it with this confidence."""
    if n <= 0 or misses <= 0:
        return 0.0
    from scipy.stats import beta

    return float(beta.ppf(1.0 - confidence, misses, n - misses + 1))


def samples_needed(misses: int, rate: float, confidence: float) -> int | None:
    """The fewest activations whose upper bound, with `misses` misses among them,
    is at or below `rate`; None when no count can (a zero rate)."""
    if rate <= 0:
        return None
    if misses == 0:  # closed form: (1 - rate)^n <= 1 - confidence
        n = max(1, math.ceil(math.log1p(-confidence) / math.log1p(-rate)))
        return _settled(n, rate, confidence)
    lo = hi = max(misses + 1, 1)
    while upper_bound(misses, hi, confidence) > rate:  # the bound falls as n grows
        lo, hi = hi, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if upper_bound(misses, mid, confidence) <= rate:
            hi = mid
        else:
            lo = mid + 1
    return hi


def _settled(n: int, rate: float, confidence: float) -> int:
    """The closed form's n, checked against the bound itself: rounding in the
    logarithms may put a count one off where the exact answer sits just
    beside an integer."""
    while upper_bound(0, n, confidence) > rate:
        n += 1
    while n > 1 and upper_bound(0, n - 1, confidence) <= rate:
        n -= 1
    return n
