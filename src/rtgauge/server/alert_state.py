"""What an alert rule decides, as pure functions: whether one interval is
bad, and what that does to the rule's incident (docs/server.md, "Alerts").

An incident fires on the first bad interval, stays open while bad intervals
come, and clears after `clear_after` clean intervals in a row: one "fired"
and one "cleared" per incident, never one per interval."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from scipy.stats import fisher_exact

from rtgauge.server.long_view import MergedHistogram

Event = Literal["fired", "cleared"] | None


def step(clean: int | None, bad: bool, clear_after: int) -> tuple[int | None, Event]:
    """The next state of a rule for one host, label and test. The state is
    None when no incident is open, else the count of clean intervals in a row
    since its last bad one."""
    if clean is None:
        return (0, "fired") if bad else (None, None)
    if bad:
        return 0, None
    if clean + 1 >= clear_after:
        return None, "cleared"
    return clean + 1, None


@dataclass(frozen=True)
class TailVerdict:
    """An interval's tail against a reference period's."""

    threshold_ns: int  # the reference's quantile, as a bucket edge
    reference_above: int
    reference_count: int
    above: int
    count: int
    p_value: float
    worse: bool


def tail_threshold(reference: MergedHistogram, q: float) -> int | None:
    """The lowest bucket edge with at most (1 - q) of the reference's samples
    at or above it: the reference's quantile as the histograms can tell it."""
    allowed = (1.0 - q) * reference.count * (1 + 1e-9)  # 1 - 0.9999 is not exact in binary
    seen = reference.overflow
    edge: int | None = None
    for lo, hi in sorted(reference.buckets, reverse=True):
        seen += reference.buckets[(lo, hi)]
        if seen > allowed:
            break
        edge = lo
    return edge


def tail_worse(
    reference: MergedHistogram, interval: MergedHistogram, q: float, p: float
) -> TailVerdict | None:
    """Whether the interval has more samples above the reference's quantile
    than chance allows: a one-sided Fisher exact test of the 2×2 table
    (above, not above) × (interval, reference), worse when its p-value is
    below `p`. None when the reference is too small to have that quantile
    (fewer than 10 / (1 - q) samples) or the interval holds none."""
    if reference.count < 10 / (1.0 - q) or interval.count == 0:
        return None
    edge = tail_threshold(reference, q)
    if edge is None:
        return None
    ref_above, ref_n = reference.above(edge), reference.count
    above, n = interval.above(edge), interval.count
    table = [[above, n - above], [ref_above, ref_n - ref_above]]
    p_value = float(fisher_exact(table, alternative="greater").pvalue)
    return TailVerdict(edge, ref_above, ref_n, above, n, p_value, p_value < p)
