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

When the runs back p99.99 (10,000 samples or more), the second question is
asked at two lines, p99.99 and p99.9, each at half its level (EACH / 2, so
the pair stays at most ALPHA). The top line alone misses a disturbance that
lands between them: on the development VM a periodic hog whose delays came
out near 400 µs raised p99.9 from 48 to 438 µs, while the older run's
p99.99 (692 µs, a few host pauses) stayed above them; asked only there, the
check missed it (bench/RESULTS.md, "Regression check, 2m runs").

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
class Line:
    """The blocks-above question at one more tail line (p99.9 below p99.99)."""

    name: str
    threshold_ns: float  # FACTOR x the older run's value of this line
    old_above: int
    new_above: int
    p: float  # one-sided Fisher, newer above more often
    level: float
    old_tail: float
    new_tail: float | None
    old_phi: float
    new_phi: float

    @property
    def beyond_chance(self) -> bool:
        return self.p < self.level

    @property
    def fell(self) -> bool:
        return self.new_tail is not None and self.new_tail < self.old_tail

    @property
    def worse(self) -> bool:
        return self.beyond_chance and not self.fell


def _above_text(
    name: str,
    threshold_ns: float,
    counts: tuple[int, int, int, int],
    phis: tuple[float, float],
    p: float,
) -> str:
    """ "N of M blocks above X µs (2 × the older run's p99.9) against K of L, p"."""
    new_above, new_blocks, old_above, old_blocks = counts
    old_phi, new_phi = phis
    clustered = ""
    if new_phi > 1.0 or old_phi > 1.0:
        clustered = (
            f" (they come in clusters: the newer run's count weighs as "
            f"1/{new_phi:.2g} of independent blocks, the older's as 1/{old_phi:.2g})"
        )
    return (
        f"{new_above} of {new_blocks} blocks above {threshold_ns / 1e3:,.2f} µs ({FACTOR:g} × "
        f"the older run's {name}) against {old_above} of {old_blocks}{clustered}, "
        f"one-sided Fisher p = {p:.2g}"
    )


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
    lower: Line | None = None  # the same question at p99.9 when the line above is p99.99

    @property
    def fisher_level(self) -> float:
        """The level of the blocks-above question at each line it is asked at."""
        return EACH / 2 if self.lower is not None else EACH

    @property
    def _rank_worse(self) -> bool:
        return self.rank_p is not None and self.rank_p < EACH and not self.tail_fell

    @property
    def _top_worse(self) -> bool:
        return (
            self.fisher_p is not None and self.fisher_p < self.fisher_level and not self.tail_fell
        )

    @property
    def tested(self) -> bool:
        return not self.why

    @property
    def beyond_chance(self) -> bool:
        if not self.tested:
            return False
        rank = self.rank_p is not None and self.rank_p < EACH
        top = self.fisher_p is not None and self.fisher_p < self.fisher_level
        return rank or top or (self.lower is not None and self.lower.beyond_chance)

    @property
    def tail_fell(self) -> bool:
        return (
            self.old_tail is not None
            and self.new_tail is not None
            and self.new_tail < self.old_tail
        )

    @property
    def worse(self) -> bool:
        """Beyond chance at a question whose own tail line did not fall."""
        if not self.tested:
            return False
        return self._rank_worse or self._top_worse or (self.lower is not None and self.lower.worse)

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
        if self.threshold_ns is not None and self.fisher_p is not None:
            counts = (self.new_above, self.new_blocks, self.old_above, self.old_blocks)
            phis = (self.old_phi, self.new_phi)
            above = "; " + _above_text(
                self.threshold_name, self.threshold_ns, counts, phis, self.fisher_p
            )
        if self.lower is not None:
            low = self.lower
            counts = (low.new_above, self.new_blocks, low.old_above, self.old_blocks)
            above += "; " + _above_text(
                low.name, low.threshold_ns, counts, (low.old_phi, low.new_phi), low.p
            )
        return f"{rank}{above}: {self._conclusion}"

    @property
    def _levels(self) -> str:
        if self.lower is None:
            return f"p below {EACH:g}"
        return f"p below {EACH:g} for the maxima, below {self.fisher_level:g} at each line"

    @property
    def _conclusion(self) -> str:
        if not self.beyond_chance:
            none = "neither" if self.lower is None else "no"
            return f"within chance ({none} {self._levels}){self._length}"
        worse_at = [
            what
            for what, yes in (
                ("the block maxima", self._rank_worse),
                (f"the {self.threshold_name}", self._top_worse),
                (
                    f"the {self.lower.name if self.lower else ''}",
                    self.lower is not None and self.lower.worse,
                ),
            )
            if yes
        ]
        if worse_at:
            return f"worse beyond chance ({self._levels}) at {' and '.join(worse_at)}"
        fell = []
        if self.old_tail is not None and self.new_tail is not None and self.tail_fell:
            fell.append(
                f"the {self.threshold_name} fell ({self.old_tail / 1e3:,.2f} → "
                f"{self.new_tail / 1e3:,.2f} µs)"
            )
        if self.lower is not None and self.lower.beyond_chance and self.lower.new_tail is not None:
            fell.append(
                f"the {self.lower.name} fell ({self.lower.old_tail / 1e3:,.2f} → "
                f"{self.lower.new_tail / 1e3:,.2f} µs)"
            )
        return f"beyond chance ({self._levels}), but {' and '.join(fell)}: not a regression"

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
        _lower_line(old, new, name, a, b),
    )


def _lower_line(old: Metric, new: Metric, top: str, a: list[float], b: list[float]) -> Line | None:
    """The blocks-above question at p99.9 when the top line is p99.99."""
    old_tail = old.stat("p99_9")
    if top != "p99.99" or old_tail is None:
        return None
    new_tail = new.stat("p99_9")
    threshold = FACTOR * float(old_tail)
    old_above = sum(x > threshold for x in a)
    new_above = sum(x > threshold for x in b)
    old_phi, new_phi = design_effect(a, threshold), design_effect(b, threshold)
    p = fisher_greater(*_weighed(new_above, len(b), new_phi), *_weighed(old_above, len(a), old_phi))
    return Line(
        "p99.9",
        threshold,
        old_above,
        new_above,
        p,
        EACH / 2,
        float(old_tail),
        None if new_tail is None else float(new_tail),
        old_phi,
        new_phi,
    )
