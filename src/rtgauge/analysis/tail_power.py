"""How long two runs must be for the block test to see a change: the number
of full blocks per run at which the one-sided comparison of the proportions
of blocks above the threshold detects a given ratio of rates in a given
share of run pairs (its power), at the level each of the tail test's two
questions uses.

The normal approximation of the two-proportion test with equal runs
(Fleiss, Statistical Methods for Rates and Proportions, eq. 4.14), the
count inflated by the design effect phi of clustered blocks (tail.py): a
clustered block is worth 1/phi of an independent one. Checked against the
exact power of Fisher's test in tests/unit/test_tail_power.py."""

from __future__ import annotations

import math
from statistics import NormalDist

POWER = 0.9  # "seen in 9 runs of 10"


def blocks_needed(
    p0: float, ratio: float, alpha: float, power: float = POWER, phi: float = 1.0
) -> int | None:
    """Full blocks per run to see the rate p0 of blocks above the threshold
    become ratio × p0, with probability `power` at one-sided level `alpha`;
    None when that rate cannot be (p0 of 0, or ratio × p0 of 1 or more)."""
    p1 = ratio * p0
    if not 0.0 < p0 < p1 < 1.0:
        return None
    z_a = NormalDist().inv_cdf(1.0 - alpha)
    z_b = NormalDist().inv_cdf(power)
    mean = (p0 + p1) / 2.0
    n = (
        z_a * math.sqrt(2.0 * mean * (1.0 - mean))
        + z_b * math.sqrt(p0 * (1.0 - p0) + p1 * (1.0 - p1))
    ) ** 2 / (p1 - p0) ** 2
    return math.ceil(n * max(1.0, phi))
