"""Everything a report says about one run and one deadline, computed once:
the empirical verdict per latency figure and the pWCET of the headline ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtgauge.analysis.pwcet import Pwcet, estimate
from rtgauge.analysis.requirements import (
    DeadlineVerdict,
    deadline_verdicts,
    green_withheld,
    judged,
)
from rtgauge.model import Metric, TestRecord
from rtgauge.run import Run


@dataclass(frozen=True)
class DeadlineClaim:
    deadline_ns: float
    rate: float
    confidence: float
    withheld: str | None  # why no green verdict may be given, or None
    verdicts: list[DeadlineVerdict]
    pwcets: list[Pwcet]

    def to_json(self) -> dict[str, Any]:
        return {
            "deadline_ns": self.deadline_ns,
            "tolerated_rate": self.rate,
            "confidence": self.confidence,
            "green_withheld": self.withheld,
            "verdicts": [v.to_json() for v in self.verdicts],
            "pwcet": [p.to_json() for p in self.pwcets],
        }


def pwcet_figures(test: TestRecord) -> list[Metric]:
    """The figures of a latency test that get an EVT estimate: the merged one
    (.all) where there is one, plus for TMR-P-LOAD the worst load phase (the
    merged figure mixes phases, which EVT's checks reject); else every one."""
    ms = [m for m in test.metrics if judged(test, m)]
    merged = [m for m in ms if m.name.endswith(".all")]
    if not merged:
        return ms
    rest = [m for m in ms if m not in merged]
    worst = [max(rest, key=lambda m: m.max or 0)] if rest and test.id == "TMR-P-LOAD" else []
    return merged + worst


def claim(run: Run, deadline_ns: float, rate: float, confidence: float = 0.95) -> DeadlineClaim:
    usable = run.conditions.figures_usable  # partial figures: no extrapolation
    pwcets = [
        estimate(t.id, m, deadline_ns, confidence)
        for t in run.tests
        if t.latency_test and usable(t.id)
        for m in pwcet_figures(t)
        if usable(t.id, m.name)
    ]
    return DeadlineClaim(
        deadline_ns,
        rate,
        confidence,
        green_withheld(run),
        deadline_verdicts(run, deadline_ns, rate, confidence),
        pwcets,
    )
