"""Is the tail of a newer latency figure worse than an older one's?

Tested on the per-block maxima the probe records (metric.blocks: the maximum
of each block of 100 ms of test time), never on samples: latency samples
are not independent (one stall delays several wake-ups in a row), so a test
that counts them as independent draws finds "regressions" in runs of an
unchanged system, even in runs whose tail fell. Block maxima are much
closer to independent. Only full blocks count (one cut short at the start
or the end holds fewer samples, so a smaller maximum).

Two one-sided questions on the blocks, each at ALPHA / 2 (Bonferroni: the
pair at most ALPHA when nothing changed), each for a tail more than FACTOR
times worse:
- do the newer run's block maxima tend to exceed FACTOR times the older
  run's (Mann-Whitney U of the newer maxima against the older ones scaled
  by FACTOR)? A tail worse all through the run;
- do more of its blocks have their maximum above FACTOR times the older
  run's tail percentile, the line the history chart draws (Fisher's exact
  test)? A few more blocks with high maxima.
Either beyond chance is a worse tail, unless that tail percentile fell: a
regression is only ever flagged when the tail line rose (or held).

Blocks with a high maximum come in clusters when a host's or a VM's
episodes cause them (a few seconds of stalls, then none), and are spread
evenly when a periodic disturbance does. Fisher's test assumes each block
is an independent draw; clustered ones are not. So each run's count is
tested at its design effect: the variance of its above-threshold blocks
across groups of GROUP consecutive blocks (1 s), as a multiple phi of a
binomial's (at least 1), divides that run's blocks and hits before the
test (Rao and Scott's correction for clustered counts). Evenly spread
exceedances keep phi at 1; on the development VM every pair of unchanged
runs the uncorrected test flagged had phi between 1.3 and 7.

Why FACTOR: runs of an unchanged system differ by more than chance within
a run explains. On a shared machine or a VM the state of the host moves a
whole run: in 40 consecutive `--quick` runs on the development VM the
median block maximum went from 16.6 to 38.4 µs between two of them, and
without the factor 2 of 39 pairs were flagged (bench/RESULTS.md). A
regression worth a failing check is a multiple, not a few microseconds.

A single maximum against a single maximum is one extreme value each: no
test can say anything from it, so it is shown but never judged. A figure
without blocks (records from before them) is not testable.
"""

from __future__ import annotations

from dataclasses import dataclass

from rtgauge.analysis.stats import NO_BLOCKS, fisher_greater, rank_test, smallest_p
from rtgauge.analysis.tail_data import full_maxima, same_span
from rtgauge.analysis.tail_power import POWER, blocks_needed
from rtgauge.model import Metric

ALPHA = 0.001  # the history's level: it tests every run against the one before, again and again
EACH = ALPHA / 2  # each of the two tests
GROUP = 10  # blocks per group for the design effect: 1 s of 100 ms blocks
GROUPS_MIN = 5  # fewer groups (a run under 5 s) say too little of the clustering
FACTOR = 2.0  # worse means more than twice as high: a run-to-run shift of the host is less


def tail_value(m: Metric) -> tuple[str, float | None]:
    """The highest percentile the samples back (the history's tail line)."""
    for key, name in (("p99_99", "p99.99"), ("p99_9", "p99.9"), ("p99", "p99")):
        value = m.stat(key)
        if value is not None:
            return name, float(value)
    return "p99", None


def _key(name: str) -> str:
    return name.replace(".", "_")


@dataclass(frozen=True)
class TailTest:
    why: str  # "" when tested, else why not ("not testable: ...")
    old_blocks: int = 0
    new_blocks: int = 0
    superiority: float = 0.5  # probability that a newer block maximum exceeds FACTOR x an older
    rank_p: float | None = None  # one-sided Mann-Whitney, newer larger than FACTOR x older
    threshold_ns: float | None = None  # FACTOR x the older run's tail percentile
    threshold_name: str = ""
    old_above: int = 0  # full blocks with their maximum above it
    new_above: int = 0
    fisher_p: float | None = None  # one-sided, newer above more often
    old_tail: float | None = None  # the tail line of each run (threshold_name)
    new_tail: float | None = None
    old_phi: float = 1.0  # each run's design effect for its blocks above the threshold
    new_phi: float = 1.0
    span_ms: float = 0.0  # the blocks' length of test time, as compared
    needed_blocks: int | None = None  # per run, to see the older rate above double (POWER)

    @property
    def tested(self) -> bool:
        return not self.why

    @property
    def beyond_chance(self) -> bool:
        ps = [p for p in (self.rank_p, self.fisher_p) if p is not None]
        return self.tested and any(p < EACH for p in ps)

    @property
    def tail_fell(self) -> bool:
        return (
            self.old_tail is not None
            and self.new_tail is not None
            and self.new_tail < self.old_tail
        )

    @property
    def worse(self) -> bool:
        return self.beyond_chance and not self.tail_fell

    @property
    def evidence(self) -> str:
        if not self.tested:
            return self.why
        rank = (
            f"block maxima ({self.new_blocks} full blocks against {self.old_blocks}): a newer "
            f"one exceeds {FACTOR:g} × an older one in {self.superiority:.0%} of pairs, "
            f"one-sided Mann-Whitney p = {self.rank_p:.2g}"
        )
        above = ""
        if self.threshold_ns is not None:
            clustered = ""
            if self.new_phi > 1.0 or self.old_phi > 1.0:
                clustered = (
                    f" (they come in clusters: the newer run's count weighs as "
                    f"1/{self.new_phi:.2g} of independent blocks, the older's as "
                    f"1/{self.old_phi:.2g})"
                )
            above = (
                f"; {self.new_above} of {self.new_blocks} blocks above "
                f"{self.threshold_ns / 1e3:,.2f} µs ({FACTOR:g} × the older run's "
                f"{self.threshold_name}) against {self.old_above} of {self.old_blocks}"
                f"{clustered}, one-sided Fisher p = {self.fisher_p:.2g}"
            )
        if not self.beyond_chance:
            return f"{rank}{above}: within chance (neither p below {EACH:g}){self._length}"
        if self.tail_fell:
            assert self.old_tail is not None and self.new_tail is not None
            return (
                f"{rank}{above}: beyond chance (p below {EACH:g}), but the "
                f"{self.threshold_name} fell ({self.old_tail / 1e3:,.2f} → "
                f"{self.new_tail / 1e3:,.2f} µs): not a regression"
            )
        return f"{rank}{above}: worse beyond chance (p below {EACH:g})"

    @property
    def _length(self) -> str:
        """Whether runs this long could have seen the older rate above double."""
        if self.needed_blocks is None or self.threshold_ns is None:
            return ""
        shorter = min(self.old_blocks, self.new_blocks)
        seen = f"in {POWER:.0%} of pairs"
        if shorter >= self.needed_blocks:
            return f"; runs this long would see that rate of blocks above it double {seen}"
        span = self.needed_blocks * self.span_ms / 1e3
        return (
            f"; too short to see that rate of blocks above it double: that needs "
            f"{self.needed_blocks:,} full blocks a run (about {_seconds(span)} of test time) "
            f"to be seen {seen}"
        )


def _seconds(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def design_effect(maxima: list[float], threshold: float) -> float:
    """How much more the count of blocks above threshold varies across groups
    of GROUP consecutive blocks than independent blocks would (Pearson's
    chi-square over its degrees of freedom), at least 1; 1 when fewer than
    GROUPS_MIN groups, or when no block or every block is above."""
    hits = [x > threshold for x in maxima]
    groups = [sum(hits[i : i + GROUP]) for i in range(0, len(hits) - GROUP + 1, GROUP)]
    if len(groups) < GROUPS_MIN:
        return 1.0
    p = sum(groups) / (GROUP * len(groups))
    if p in (0.0, 1.0):
        return 1.0
    chi2 = sum((g - GROUP * p) ** 2 for g in groups) / (GROUP * p * (1.0 - p))
    return max(1.0, chi2 / (len(groups) - 1))


def _weighed(hits: int, n: int, phi: float) -> tuple[int, int]:
    """A count of clustered blocks as the independent ones it is worth."""
    n_eff = max(1, round(n / phi))
    return min(n_eff, round(hits / phi)), n_eff


def tail_test(old: Metric, new: Metric) -> TailTest:
    """Is `new`'s tail worse than `old`'s, on their full blocks' maxima?"""
    if old.blocks is None or new.blocks is None:
        return TailTest(NO_BLOCKS)
    old_blocks, new_blocks = same_span(old.blocks, new.blocks)
    a = [float(x) for x in full_maxima(old_blocks)]
    b = [float(x) for x in full_maxima(new_blocks)]
    if smallest_p(len(a), len(b)) >= EACH:
        why = (
            f"not testable: too few full blocks ({len(b)} against {len(a)}) for "
            f"any p below {EACH:g}"
        )
        return TailTest(why, len(a), len(b))
    r = rank_test([FACTOR * x for x in a], b)
    name, old_tail = tail_value(old)
    new_tail = new.stat(_key(name))
    if old_tail is None:
        return TailTest("", len(a), len(b), r.superiority, r.p_greater)
    threshold = FACTOR * old_tail
    old_above = sum(x > threshold for x in a)
    new_above = sum(x > threshold for x in b)
    old_phi, new_phi = design_effect(a, threshold), design_effect(b, threshold)
    return TailTest(
        "",
        len(a),
        len(b),
        r.superiority,
        r.p_greater,
        threshold,
        name,
        old_above,
        new_above,
        fisher_greater(
            *_weighed(new_above, len(b), new_phi), *_weighed(old_above, len(a), old_phi)
        ),
        old_tail,
        None if new_tail is None else float(new_tail),
        old_phi,
        new_phi,
        old_blocks.span_ms,
        blocks_needed(old_above / len(a), 2.0, EACH, phi=old_phi) if a else None,
    )
