"""What a run's length can prove about a miss rate, both ways round: how many
samples a claim "miss rate ≤ R at confidence C" needs (`rtgauge plan`), and
what rate a run's own samples back at its budget (every run report). Both
use the bound the deadline verdict uses: the exact binomial (Clopper–Pearson)
one of analysis/binomial.py, with misses counted as requirements.py counts
them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rtgauge.analysis.binomial import samples_needed, upper_bound
from rtgauge.analysis.requirements import MissCount, claim_limit, count_misses, judged
from rtgauge.model import Metric, TestRecord
from rtgauge.run import Run

DEFAULT_MISSES = (0, 1, 2, 5, 10)
DEFAULT_PERIOD_NS = 1e6  # TMR-P-LAT's default period: 1 kHz


@dataclass(frozen=True)
class Needed:
    """The samples that back the claim with this many misses among them."""

    misses: int
    samples: int
    duration_ns: float  # that many samples at the plan's period

    def to_json(self) -> dict[str, Any]:
        return {"misses": self.misses, "samples": self.samples, "duration_ns": self.duration_ns}


@dataclass(frozen=True)
class Plan:
    deadline_ns: float
    rate: float
    confidence: float
    period_ns: float
    rows: tuple[Needed, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "deadline_ns": self.deadline_ns,
            "miss_rate": self.rate,
            "confidence": self.confidence,
            "period_ns": self.period_ns,
            "needed": [r.to_json() for r in self.rows],
        }


def plan(
    deadline_ns: float,
    rate: float,
    confidence: float,
    period_ns: float = DEFAULT_PERIOD_NS,
    misses: Sequence[int] = DEFAULT_MISSES,
) -> Plan:
    """For each count of misses, the fewest samples whose upper bound on the
    miss rate is at or below `rate` (the deadline only names the claim)."""
    if not (0 < rate < 1 and 0.5 <= confidence < 1 and period_ns > 0 and deadline_ns > 0):
        raise ValueError("a plan needs 0 < rate < 1, 0.5 <= confidence < 1 and positive times")
    if any(k < 0 for k in misses):
        raise ValueError("a count of misses is never negative")
    rows = []
    for k in sorted(set(misses)):
        n = samples_needed(k, rate, confidence)
        assert n is not None  # a positive rate is always backed by enough samples
        rows.append(Needed(k, n, n * period_ns))
    return Plan(deadline_ns, rate, confidence, period_ns, tuple(rows))


@dataclass(frozen=True)
class Proof:
    """What one figure's samples back: its misses at the budget, out of its
    activations, and the upper bound on the miss rate they give."""

    test: str
    metric: str
    budget_ns: float
    confidence: float
    count: MissCount
    upper: float  # the miss rate the run backs at this confidence
    limit: str | None  # why it backs no claim (the run's conditions), or None

    @property
    def samples_only(self) -> bool:
        """Every activation is a sample: no missed period, overrun or lost one."""
        return self.count.activations == self.count.samples

    def to_json(self) -> dict[str, Any]:
        c = self.count
        return {
            "test": self.test,
            "metric": self.metric,
            "budget_ns": self.budget_ns,
            "confidence": self.confidence,
            "samples": c.samples,
            "activations": c.activations,
            "misses": c.misses,
            "above_budget": c.above,
            "upper_bound_per_activation": self.upper,
            "claimed": self.limit is None,
            "not_claimed_because": self.limit,
        }


def headline_judged(test: TestRecord) -> Metric | None:
    """The figure of a test a deadline applies to that stands for it: the
    merged one (.all) where there is one, else the one with the highest
    maximum (the record's headline, among the judged figures)."""
    ms = [m for m in test.metrics if judged(test, m)]
    merged = [m for m in ms if m.name.endswith(".all")]
    return merged[0] if merged else max(ms, key=lambda m: m.max or 0, default=None)


def prove(run: Run, test: TestRecord, metric: Metric, budget_ns: float, conf: float) -> Proof:
    c = count_misses(test, metric, budget_ns)
    upper = upper_bound(c.misses, c.activations, conf)
    return Proof(
        test.id, metric.name, budget_ns, conf, c, upper, claim_limit(run, test, metric.name)
    )


def proofs(run: Run, budget_ns: float, confidence: float) -> list[Proof]:
    """One proof per test with a figure a deadline applies to, its headline one."""
    out = []
    for t in run.tests:
        m = headline_judged(t)
        if m is not None:
            out.append(prove(run, t, m, budget_ns, confidence))
    return out
