"""Deadline verdicts: does a measured latency distribution meet a deadline at a
tolerated miss rate, and can the samples back that claim?

Every activation that missed counts: samples above the deadline (a histogram
bucket straddling it counts whole), overflowed samples, missed periods,
timer overruns and samples the test lost. The verdict comes from an exact
binomial (Clopper–Pearson) upper bound on the miss rate at a stated
confidence: "meets" only when that bound is at or below the tolerated rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtgauge.analysis.binomial import lower_bound, samples_needed, upper_bound
from rtgauge.model import Metric, Record, TestRecord
from rtgauge.run import Run

MEETS, MISSES, TOO_FEW = "meets", "misses", "not enough samples"
HOUR_NS = 3600e9


@dataclass(frozen=True)
class MissCount:
    """What missed the deadline in one figure, and out of how many activations."""

    samples: int
    above: int  # samples that may exceed the deadline, overflow included
    surely_above: int  # samples that surely exceed it
    missed_periods: int = 0  # activations that never ran on time (skipped periods)
    overruns: int = 0  # timer expiries folded into one (signal overruns)
    lost: int = 0  # samples taken but not kept: their latency is unknown

    @property
    def activations(self) -> int:
        return self.samples + self.missed_periods + self.overruns + self.lost

    @property
    def misses(self) -> int:
        return self.above + self.missed_periods + self.overruns + self.lost

    def words(self) -> str:
        parts = [f"{self.above:,} above the deadline"]
        for n, what in (
            (self.missed_periods, "missed periods"),
            (self.overruns, "overruns"),
            (self.lost, "lost samples"),
        ):
            if n:
                parts.append(f"{n:,} {what}")
        return ", ".join(parts)


@dataclass(frozen=True)
class DeadlineVerdict:
    test: str
    metric: str
    deadline_ns: float
    rate: float  # tolerated misses per activation
    confidence: float
    count: MissCount
    upper: float  # Clopper–Pearson upper bound on the miss rate
    lower: float
    needed: int | None  # activations that would back the rate (None: none can)
    period_ns: float | None  # the test's activation period, when it has one
    quantile_ns: float | None  # the (1 - rate) quantile from the histogram
    outcome: str  # MEETS, MISSES or TOO_FEW
    green_withheld: str | None  # why a "meets" may not be shown as a pass
    meaningful: bool = True  # False (emulated): a miss says nothing about the OS either

    @property
    def observed_rate(self) -> float:
        n = self.count.activations
        return self.count.misses / n if n else 1.0

    @property
    def margin_ns(self) -> float | None:
        return None if self.quantile_ns is None else self.deadline_ns - self.quantile_ns

    @property
    def green(self) -> bool:
        return self.outcome == MEETS and self.green_withheld is None

    @property
    def limit(self) -> str | None:
        """What keeps a verdict from being claimed (the conditions' words), or None."""
        return self.green_withheld

    @property
    def meets(self) -> bool:
        return self.outcome == MEETS

    @property
    def claim(self) -> str:
        """'met' (shown green), 'missed' (red), or 'not claimed': too few samples,
        or conditions that cannot support the claim (an emulated miss included)."""
        return "met" if self.green else "missed" if self.red else "not claimed"

    @property
    def red(self) -> bool:
        """A miss that says something about the OS (not an emulated CPU's)."""
        return self.outcome == MISSES and self.meaningful

    def per_hour(self, rate: float) -> float | None:
        return None if not self.period_ns else rate * HOUR_NS / self.period_ns

    @property
    def hours_needed(self) -> float | None:
        if self.needed is None or not self.period_ns:
            return None
        return self.needed * self.period_ns / HOUR_NS

    def explanation(self) -> str:
        c, conf = self.count, f"{self.confidence * 100:g} %"
        head = (
            f"{_misses(c.misses)} in {c.activations:,} activations ({c.words()}); "
            f"rate {self.observed_rate:.2g}, {conf} upper bound {self.upper:.2g}"
        )
        if self.outcome == MEETS:
            return head + f" ≤ {self.rate:g}"
        if self.outcome == MISSES:
            return head + f"; the observed rate is above {self.rate:g}"
        if self.needed is None:
            return head + "; no number of samples can prove a zero miss rate"
        more = f"{self.needed:,} activations"
        if self.hours_needed is not None:
            more += f" ({hours_text(self.hours_needed)} at this period)"
        tail = "with no miss" if c.misses == 0 else f"with no more than {_misses(c.misses)}"
        return head + f" > {self.rate:g}; {more} {tail} would back {self.rate:g} at {conf}"

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "metric": self.metric,
            "deadline_ns": self.deadline_ns,
            "tolerated_rate": self.rate,
            "confidence": self.confidence,
            "verdict": self.outcome,
            "claim": self.claim,
            "green": self.green,
            "green_withheld": self.green_withheld,
            "meaningful": self.meaningful,
            "activations": self.count.activations,
            "misses": self.count.misses,
            "samples": self.count.samples,
            "above_deadline": self.count.above,
            "surely_above_deadline": self.count.surely_above,
            "missed_periods": self.count.missed_periods,
            "overruns": self.count.overruns,
            "lost": self.count.lost,
            "rate_per_activation": self.observed_rate,
            "upper_bound_per_activation": self.upper,
            "lower_bound_per_activation": self.lower,
            "period_ns": self.period_ns,
            "rate_per_hour": self.per_hour(self.observed_rate),
            "upper_bound_per_hour": self.per_hour(self.upper),
            "activations_needed": self.needed,
            "hours_needed": self.hours_needed,
            "quantile_ns": self.quantile_ns,
            "margin_ns": self.margin_ns,
            "explanation": self.explanation(),
        }


def _misses(n: int) -> str:
    return f"{n:,} miss" + ("" if n == 1 else "es")


def hours_text(h: float) -> str:
    if h < 1 / 60:
        return f"{h * 3600:.3g} s"
    if h < 1:
        return f"{h * 60:.3g} min"
    if h < 48:
        return f"{h:.3g} h"
    if h < 24 * 730:
        return f"{h / 24:,.0f} days"
    return f"{h / 24 / 365:,.3g} years"


def misses(metric: Metric, deadline_ns: float) -> tuple[int, int]:
    """(surely above, possibly above) the deadline, from the histogram: a bucket
    [low, high) holds values up to high - 1, so it may miss when high - 1 > deadline."""
    sure = possible = metric.hist.overflow
    for lo, hi, n in metric.hist.buckets:
        if lo > deadline_ns:
            sure += n
            possible += n
        elif hi - 1 > deadline_ns:
            possible += n
    return sure, possible


def quantile(metric: Metric, q: float) -> float | None:
    total = metric.count
    if not total or metric.max is None:
        return None
    rank = max(1, int(-(-q * total // 1)))
    seen = 0
    for _, hi, n in metric.hist.buckets:
        seen += n
        if seen >= rank:
            return float(min(hi - 1, metric.max))
    return float(metric.max)


def _info_count(info: Record, key: str, metric_name: str) -> int:
    """A count from the test's info: a number, or one per CPU ({"cpu0": n, ...}).

    Per-CPU counts go to that CPU's figure; a merged figure (.all) gets their
    sum; any other figure of the test gets the test's total (a miss whose
    place is unknown counts against every figure that could hold it)."""
    v = info.get(key)
    if isinstance(v, bool) or v is None:
        return 0
    if isinstance(v, (int, float)):
        return int(v)
    if isinstance(v, dict):
        suffix = metric_name.rsplit(".", 1)[-1]
        if suffix in v and isinstance(v[suffix], (int, float)):
            return int(v[suffix])
        return sum(int(x) for x in v.values() if isinstance(x, (int, float)))
    return 0


def count_misses(test: TestRecord, metric: Metric, deadline_ns: float) -> MissCount:
    sure, possible = misses(metric, deadline_ns)
    return MissCount(
        samples=metric.count,
        above=possible,
        surely_above=sure,
        missed_periods=_info_count(test.info, "missed_periods", metric.name),
        overruns=_info_count(test.info, "overruns", metric.name),
        lost=_info_count(test.info, "entries_lost", metric.name),
    )


def period_ns(test: TestRecord) -> float | None:
    p = test.options.get("period_us")
    return float(p) * 1e3 if isinstance(p, (int, float)) and p > 0 else None


def judge(
    test: TestRecord,
    metric: Metric,
    deadline_ns: float,
    rate: float,
    confidence: float = 0.95,
    green_withheld: str | None = None,
    meaningful: bool = True,
) -> DeadlineVerdict:
    c = count_misses(test, metric, deadline_ns)
    n, k = c.activations, c.misses
    upper, lower = upper_bound(k, n, confidence), lower_bound(k, n, confidence)
    if n and upper <= rate:
        outcome = MEETS
    elif n and (k / n > rate or lower > rate):
        outcome = MISSES
    else:
        outcome = TOO_FEW
    top = float(metric.max) if metric.max is not None else None
    q = quantile(metric, 1.0 - rate) if rate > 0 else (top if n else None)
    return DeadlineVerdict(
        test=test.id,
        metric=metric.name,
        deadline_ns=deadline_ns,
        rate=rate,
        confidence=confidence,
        count=c,
        upper=upper,
        lower=lower,
        needed=samples_needed(k, rate, confidence) if outcome == TOO_FEW else None,
        period_ns=period_ns(test),
        quantile_ns=q,
        outcome=outcome,
        green_withheld=green_withheld,
        meaningful=meaningful,
    )


def judged(test: TestRecord, metric: Metric) -> bool:
    """A latency figure a deadline applies to (the probe says which are)."""
    return test.is_release_latency(metric) and metric.count > 0


def green_withheld(run: Run) -> str | None:
    """Why this run may not earn a green deadline verdict, or None: the
    conditions module decides (emulated, no SCHED_FIFO, no mlockall)."""
    cond = run.conditions
    return None if cond.deadline_verdict_allowed else cond.timing_limit


def claim_limit(run: Run, test: TestRecord, figure: str | None = None) -> str | None:
    """Why a test's figures (or one figure of it) may back no claim: the
    test's partial figures, the figure's condition that did not hold, or the
    run's conditions; None when they may."""
    cond = run.conditions
    if not cond.figures_usable(test.id):
        return f"partial figures ({test.id} {test.status})"
    if figure is not None and not cond.figures_usable(test.id, figure):
        return f"condition unmet ({cond.figure_unmet(test.id, figure)})"
    return green_withheld(run)


def deadline_verdicts(
    run: Run, deadline_ns: float, rate: float, confidence: float = 0.95
) -> list[DeadlineVerdict]:
    cond = run.conditions
    out = []
    for t in run.tests:
        for m in t.metrics:
            if not judged(t, m):
                continue
            # Partial figures, and those whose condition did not hold, are
            # judged for the reader but claim nothing either way.
            usable = cond.figures_usable(t.id, m.name)
            why = claim_limit(run, t, m.name)
            meaningful = cond.timing_meaningful and usable
            out.append(judge(t, m, deadline_ns, rate, confidence, why, meaningful))
    return out
