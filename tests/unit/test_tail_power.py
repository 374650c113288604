"""The block count the history names for seeing a doubling is the one at
which Fisher's test (the one tail.py runs) does see it in 9 of 10 pairs."""

from __future__ import annotations

import math

import pytest

from rtgauge.analysis.stats import fisher_greater
from rtgauge.analysis.tail import EACH
from rtgauge.analysis.tail_power import blocks_needed


def _pmf(n: int, p: float) -> list[float]:
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def exact_power(n: int, p0: float, p1: float, alpha: float) -> float:
    """Probability over both runs' binomial counts that Fisher's one-sided p
    falls below alpha: every outcome with a weight worth counting."""
    old, new = _pmf(n, p0), _pmf(n, p1)
    total = 0.0
    for a, wa in enumerate(old):
        if wa < 1e-9:
            continue
        for b, wb in enumerate(new):
            if wb >= 1e-9 and fisher_greater(b, n, a, n) < alpha:
                total += wa * wb
    return total


@pytest.mark.parametrize("p0", [0.1, 0.2])
def test_the_named_count_gives_the_power_it_promises(p0: float) -> None:
    n = blocks_needed(p0, 2.0, EACH)
    assert n is not None
    assert 0.87 <= exact_power(n, p0, 2 * p0, EACH) <= 0.95
    assert exact_power(n // 2, p0, 2 * p0, EACH) < 0.75  # half as long: clearly short of it


def test_clustered_blocks_need_phi_times_as_many() -> None:
    one, three = blocks_needed(0.05, 2.0, EACH), blocks_needed(0.05, 2.0, EACH, phi=3.0)
    assert one is not None and three is not None
    assert 3 * one - 3 <= three <= 3 * one + 1


@pytest.mark.parametrize(("p0", "ratio"), [(0.0, 2.0), (0.5, 2.0), (0.3, 1.0)])
def test_a_rate_that_cannot_double_has_no_count(p0: float, ratio: float) -> None:
    assert blocks_needed(p0, ratio, EACH) is None
