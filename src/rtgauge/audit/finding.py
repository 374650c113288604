"""What the audit says about one check, and about a system: a finding per
check, each with its status, its evidence (what was read, where), and for a
warning or a failure the fix and why it matters for latency."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# The statuses, worst first: "unknown" is a check the facts cannot decide
# (not read on this target, or a record from before the audit); "n/a" one
# that does not apply to this system (no SMT, no cpufreq, not x86).
STATUSES = ("fail", "warn", "unknown", "pass", "n/a")
RANK = {s: i for i, s in enumerate(STATUSES)}

# The latency a real-time thread is allowed when no deadline is given: the
# budget against which idle states and time slices are weighed.
DEFAULT_BUDGET_NS = 100_000.0


@dataclass(frozen=True)
class Verdict:
    """What a check's function decides from the facts."""

    status: str
    summary: str  # one sentence: what was found
    evidence: list[str]  # "where: what it said"
    fix: str | None = None  # for warn and fail
    value: str = ""  # the fact judged, in a few words (a comparison's cell)
    details: dict[str, Any] = field(default_factory=dict)  # for other analyses


@dataclass(frozen=True)
class Finding:
    id: str  # stable: other analyses and reports look findings up by it
    title: str
    status: str
    summary: str
    evidence: list[str]
    fix: str | None
    why: str
    value: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "summary": self.summary,
            "evidence": self.evidence,
            "fix": self.fix,
            "why": self.why,
            "value": self.value,
            "details": self.details,
        }


@dataclass(frozen=True)
class Check:
    """One check: its id, title, why it matters, and its pure judgement."""

    id: str
    title: str
    why: str
    judge: Callable[[Any], Verdict]  # Facts -> Verdict (rtgauge.audit.facts)

    def finding(self, facts: Any) -> Finding:
        v = self.judge(facts)
        assert v.status in STATUSES, (self.id, v.status)
        fix = v.fix if v.status in ("warn", "fail") else None
        return Finding(
            self.id, self.title, v.status, v.summary, v.evidence, fix, self.why, v.value, v.details
        )


@dataclass(frozen=True)
class Audit:
    """Every finding of a system, in the checks' order."""

    findings: list[Finding]
    budget_ns: float = DEFAULT_BUDGET_NS

    def get(self, check_id: str) -> Finding | None:
        """The finding of a check by its id ("irq-affinity"), or None when the
        check does not exist for this system's OS."""
        return next((f for f in self.findings if f.id == check_id), None)

    def ordered(self) -> list[Finding]:
        """Failures first, then warnings, unknowns, passes, n/a."""
        return sorted(self.findings, key=lambda f: RANK[f.status])

    @property
    def counts(self) -> dict[str, int]:
        return {s: sum(f.status == s for f in self.findings) for s in STATUSES}

    @property
    def failed(self) -> bool:
        return any(f.status == "fail" for f in self.findings)

    def counts_text(self) -> str:
        c = self.counts
        return ", ".join(f"{n} {s}" for s, n in c.items() if n) or "no check"
