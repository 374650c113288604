"""Statistics on histograms: is one distribution different from another?"""

from __future__ import annotations

import math
from typing import Any


def _points(metric: dict[str, Any]) -> list[tuple[float, int]]:
    """(bucket midpoint, count); overflow samples sit above every bucket."""
    pts = [((lo + hi - 1) / 2.0, int(n)) for lo, hi, n in metric["hist"]["buckets"] if n]
    if metric["hist"]["overflow"]:
        pts.append((float(metric["hist"]["overflow_above"]) * 2, int(metric["hist"]["overflow"])))
    return pts


def mann_whitney(a: dict[str, Any], b: dict[str, Any]) -> tuple[float, float]:
    """Two-sided Mann-Whitney U test on two histograms (bucket midpoints as
    values, ties within a bucket corrected for). Returns (p-value, the
    probability that a sample of a is larger than one of b)."""
    pa, pb = _points(a), _points(b)
    n1, n2 = sum(c for _, c in pa), sum(c for _, c in pb)
    if n1 == 0 or n2 == 0:
        return 1.0, 0.5
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
    n = n1 + n2
    mean = n1 * n2 / 2.0
    var = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1))) if n > 1 else 0.0
    if var <= 0:
        return 1.0, u1 / (n1 * n2)
    z = (u1 - mean) / math.sqrt(var)
    p = math.erfc(abs(z) / math.sqrt(2))
    return p, u1 / (n1 * n2)


def significant(a: dict[str, Any], b: dict[str, Any], alpha: float = 0.01) -> bool:
    """Different beyond chance (p < alpha) and by a margin that matters: the
    probability of superiority away from 0.5 by more than 0.05."""
    p, sup = mann_whitney(a, b)
    return p < alpha and abs(sup - 0.5) > 0.05
