"""One analysed run: a stored run and the judging choices (a deadline, the
tolerated miss rate, the confidence) worked out once into everything the
reports say — the conditions of its figures, the audit weighed against the
latency budget, the deadline claims, what the run's length proves at the
budget, and every kept window's explanation with its structured parts and
the audit findings that bear on them.

Reports (Markdown, HTML), compare, history, explain, check, the server's
pages and every `--format json` only render it; its JSON has a schema of its
own (schema/analysis-v1.json). Nothing in it is judged twice: the audit the
explanations point to is the audit the report shows.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from rtgauge.analysis.deadline_claim import DeadlineClaim, claim
from rtgauge.analysis.explain import Explanation, Part, Subject, explanations
from rtgauge.analysis.explain_audit import Bearing, bearing
from rtgauge.analysis.run_length import Proof, proofs
from rtgauge.audit import DEFAULT_BUDGET_NS, Audit, judge
from rtgauge.conditions import figures_partial
from rtgauge.model import Bundle, ExplainRecord, Metric, TestRecord, Verdict
from rtgauge.run import Run

SCHEMA = "rtgauge-analysis/1"


@dataclass(frozen=True)
class Judging:
    """The choices a run is judged by: a deadline (None: none asked for),
    the tolerated miss rate and the confidence of its bound. The audit's
    latency budget is the deadline, or 100 µs without one."""

    deadline_ns: float | None = None
    rate: float = 1e-6
    confidence: float = 0.95

    @property
    def budget_ns(self) -> float:
        return self.deadline_ns if self.deadline_ns is not None else DEFAULT_BUDGET_NS


@dataclass(frozen=True)
class ExplainedWindow:
    """One kept sample taken apart, with the audit's findings on its parts,
    and why it was kept: among the K worst of the test, its figure's
    worst, or both."""

    explanation: Explanation
    bearings: tuple[Bearing, ...]
    worst: bool = True
    figure_max: bool = False


@dataclass(frozen=True)
class FigureCover:
    """Whether a figure's maximum, the number a reader sees first, is
    explained: the window that holds that very sample, or why none does."""

    metric: str
    max_ns: int
    window: ExplainedWindow | None
    why_not: str | None


@dataclass(frozen=True)
class ExplainedTest:
    """A test whose figures the flight recorder was asked to explain."""

    test_id: str
    record: ExplainRecord
    windows: tuple[ExplainedWindow, ...]
    figures: tuple[FigureCover, ...] = ()

    @property
    def worst_windows(self) -> tuple[ExplainedWindow, ...]:
        """The K worst samples of the test, worst first."""
        return tuple(w for w in self.windows if w.worst)

    @property
    def figure_windows(self) -> tuple[ExplainedWindow, ...]:
        """The figures' worst samples that are not among the K worst."""
        return tuple(w for w in self.windows if not w.worst)

    @property
    def why_not(self) -> str | None:
        """Why it is not explained, or None when the recorder ran."""
        if self.record.state == "on":
            return None
        return f"not explained: {self.record.why or self.record.state}"


@dataclass(frozen=True)
class Headline:
    """The first line of a report: the worst figure, where, against what
    budget, and what the explanation of that sample names."""

    test_id: str
    metric: str
    max_ns: float
    cpu: int | None
    budget_ns: float
    culprit: str | None  # the explanation of that very sample, when one was kept
    partial: bool  # the test did not finish: the figure is partial


@dataclass(frozen=True)
class AnalysedRun:
    run: Run
    judging: Judging
    audit: Audit  # weighed against judging.budget_ns
    claim: DeadlineClaim | None
    explained: dict[str, ExplainedTest] = field(default_factory=dict)
    proved: tuple[Proof, ...] = ()  # what the run's length backs at the budget

    @classmethod
    def of(cls, source: Run | Bundle, judging: Judging | None = None) -> AnalysedRun:
        run = source if isinstance(source, Run) else Run.of(source)
        j = judging or Judging()
        audit = judge(run.system, run.end, run.target, j.budget_ns)
        found = (
            claim(run, j.deadline_ns, j.rate, j.confidence) if j.deadline_ns is not None else None
        )
        explained = {t.id: _explained(run, t, audit) for t in run.tests if t.explain is not None}
        proved = tuple(proofs(run, j.budget_ns, j.confidence))
        return cls(run, j, audit, found, explained, proved)

    def test_explained(self, test: TestRecord) -> ExplainedTest | None:
        return self.explained.get(test.id)

    def headline(self) -> Headline | None:
        """The worst maximum of the run's latencies from a release instant
        (what a latency budget is about; every figure when the run has none),
        with the explanation of that sample where one was kept."""
        worst: tuple[TestRecord, Metric] | None = None
        latency = [t for t in self.run.tests if t.latency_test and t.metrics]
        for t in latency or self.run.tests:
            for m in t.metrics:
                if m.max is not None and (worst is None or m.max > (worst[1].max or 0)):
                    worst = (t, m)
        if worst is None:
            return None
        t, m = worst
        win = self._window_of(t, m)
        x = win.explanation if win else None
        cpu = x.cpu if x else _cpu_of(m)
        return Headline(
            t.id,
            m.name,
            float(m.max or 0),
            cpu,
            self.judging.budget_ns,
            x.culprit if x else None,
            figures_partial(t),
        )

    def _window_of(self, t: TestRecord, m: Metric) -> ExplainedWindow | None:
        """The kept window of a figure's maximum, if it was kept."""
        e = self.explained.get(t.id)
        if e is None or m.max is None:
            return None
        # a merged figure (….all) holds its per-CPU figures' samples
        family = m.name.rsplit(".", 1)[0] + "." if m.name.endswith(".all") else None
        for w in e.windows:
            x = w.explanation
            same = x.metric == m.name or (family is not None and x.metric.startswith(family))
            if same and abs(x.sample_ns - m.max) <= max(1.0, 1e-6 * m.max):
                return w
        return None

    def to_json(self) -> dict[str, Any]:
        """The analysed run as data (schema/analysis-v1.json)."""
        r = self.run
        head = self.headline()
        return {
            "schema": SCHEMA,
            "run": {
                "host": r.host,
                "created_at": r.created_at or None,
                "label": r.label,
                "target": r.target.kind,
                "complete": r.complete,
                "os": r.system.host.os,
                "release": r.system.host.release,
                "probe_version": r.system.probe.version,
            },
            "judging": {
                "deadline_ns": self.judging.deadline_ns,
                "miss_rate": self.judging.rate,
                "confidence": self.judging.confidence,
                "budget_ns": self.judging.budget_ns,
            },
            "conditions": {
                "emulated": r.conditions.emulated,
                "virtual_time": r.conditions.virtual_time,
                "virtualised": r.conditions.virtualised,
                "sched_fifo": r.conditions.rt_policy_ok,
                "mlockall": r.conditions.mlock_ok,
                "reasons": list(r.conditions.reasons),
                "partial_tests": list(r.conditions.partial_tests),
            },
            "headline": None if head is None else asdict(head),
            "audit": {
                "budget_ns": self.audit.budget_ns,
                "counts": self.audit.counts,
                "findings": [f.to_json() for f in self.audit.ordered()],
            },  # report/audit_report.audit_view gives the same
            "deadline": self.claim.to_json() if self.claim else None,
            "proved": [p.to_json() for p in self.proved],
            "tests": [_test_json(t, self.explained.get(t.id)) for t in r.tests],
        }


def _explained(run: Run, test: TestRecord, audit: Audit) -> ExplainedTest:
    assert test.explain is not None
    xs = explanations(run, test)
    windows = tuple(
        ExplainedWindow(x, tuple(bearing(x, audit.findings)), r.worst, r.figure_max)
        for x, r in zip(xs, test.explain.windows, strict=True)
    )
    return ExplainedTest(test.id, test.explain, windows, _coverage(test, windows))


def _coverage(test: TestRecord, windows: tuple[ExplainedWindow, ...]) -> tuple[FigureCover, ...]:
    """Each tracked figure's maximum against the windows kept."""
    rec = test.explain
    assert rec is not None
    out: list[FigureCover] = []
    tracked = set(rec.figure_names)
    for fig in test.metrics:  # a figure the recorder is not given, and why
        if fig.max is None or fig.name in tracked or fig.name.endswith(".all"):
            continue
        if fig.unexplained:
            out.append(FigureCover(fig.name, int(fig.max), None, fig.unexplained))
        elif rec.figures_untracked and rec.figure_names:
            room = f"beyond the recorder's room for {rec.figures} figures (--explain-figures)"
            out.append(FigureCover(fig.name, int(fig.max), None, room))
    for name in rec.figure_names:
        m = test.metric(name)
        if m is None or m.max is None:
            continue
        top = int(m.max)
        w = next(
            (w for w in windows if w.explanation.metric == name and w.explanation.sample_ns >= top),
            None,
        )
        why: str | None = None
        if w is None:
            if m.unexplained:  # some of its samples were not offered (a forked side's)
                why = m.unexplained
            elif rec.uncaptured and rec.uncaptured_max_ns >= top:
                why = "it came when the recorder could not cut a window"
            elif top <= rec.floor_ns:
                why = "at or below the recorder's floor"
            else:
                why = "not kept, and the record does not say why"
        out.append(FigureCover(name, top, w, why))
    return tuple(out)


def _cpu_of(m: Metric) -> int | None:
    """A per-CPU figure's CPU, from its name (….cpu1) or its parameters."""
    cpu = m.params.get("cpu")
    if isinstance(cpu, int) and not isinstance(cpu, bool):
        return cpu
    tail = m.name.rsplit(".", 1)[-1]
    return int(tail[3:]) if tail.startswith("cpu") and tail[3:].isdigit() else None


def subject_json(s: Subject | None) -> dict[str, Any] | None:
    if s is None:
        return None
    out: dict[str, Any] = {"what": s.what}
    if s.what == "task":
        out.update(pid=s.pid, comm=s.comm, policy=s.policy or None, prio=s.prio)
        out.update(priority=s.priority, nice=s.nice)
        if s.role:
            out["role"] = s.role
        if s.origin:
            out["origin"] = s.origin
        if s.work:
            out["work"] = s.work
    elif s.what in ("idle", "thread"):
        out["pid"] = s.pid
    else:
        out.update(num=s.num if s.num >= 0 else None, name=s.name or None)
        if s.opened_before:
            out["opened_before"] = True
    return out


def part_json(p: Part, sample_ns: int) -> dict[str, Any]:
    return {
        "kind": p.kind,
        "rule": p.rule,
        "ns": p.ns,
        "share": round(p.ns / sample_ns, 4) if sample_ns > 0 else None,
        "subject": subject_json(p.subject),
        "via": subject_json(p.via),
        "legal": p.legal,
        "label": p.label,
        "detail": p.detail,
    }


def window_json(w: ExplainedWindow) -> dict[str, Any]:
    x = w.explanation
    c = x.named
    return {
        "metric": x.metric,
        "sample_ns": x.sample_ns,
        "cpu": x.cpu,
        "complete": x.complete,
        "lost_events": x.lost_events,
        "wake_at_ns": x.wake_at,
        "switch_at_ns": x.switch_at,
        "culprit": {
            "text": x.culprit,
            "kind": x.culprit_kind,
            "party": c.party[0] if c else None,
            "whom": subject_json(c.party[1]) if c else None,
            "share": round(c.share, 4) if c else None,
        },
        "parts": [part_json(p, x.sample_ns) for p in x.parts],
        "bears_on": [b.to_json() for b in w.bearings],
        "worst": w.worst,
        "figure_max": w.figure_max,
        "interval": x.interval,
    }


def explained_json(e: ExplainedTest) -> dict[str, Any]:
    rec = e.record
    return {
        "state": rec.state,
        "why_not": e.why_not,
        "source": rec.source,
        "keep": rec.keep,
        "offered": rec.offered,
        "freezes": rec.freezes,
        "lost_events": rec.lost_events,
        "uncaptured": rec.uncaptured,
        "uncaptured_max_ns": rec.uncaptured_max_ns,
        "windows_dropped": rec.windows_dropped,
        "windows": [window_json(w) for w in e.windows],
        "figures": [
            {
                "metric": f.metric,
                "max_ns": f.max_ns,
                "explained": f.window is not None,
                "why_not": f.why_not,
            }
            for f in e.figures
        ],
    }


def _metric_json(m: Metric) -> dict[str, Any]:
    return {
        "name": m.name,
        "count": m.count,
        "min_ns": m.min,
        "max_ns": m.max,
        "mean_ns": m.mean,
        "p99_ns": m.p99,
        "p99_9_ns": m.p99_9,
        "p99_99_ns": m.p99_99,
    }


def _test_json(t: TestRecord, e: ExplainedTest | None) -> dict[str, Any]:
    return {
        "id": t.id,
        "title": t.title,
        "status": t.status,
        "reason": t.reason,
        "partial": figures_partial(t),
        "metrics": [_metric_json(m) for m in t.metrics],
        "verdicts": [_verdict_json(v) for v in t.verdicts],
        "explain": explained_json(e) if e else None,
    }


def _verdict_json(v: Verdict) -> dict[str, Any]:
    d = v.documented
    return {
        "name": v.name,
        "passed": v.passed,
        "outcome": v.outcome,
        "expected": v.expected,
        "observed": v.observed,
        "standard": asdict(v.standard) if v.standard else None,
        "seen": v.seen,
        "documented": None
        if d is None
        else {"text": d.text(v.standard), "says": d.says, "reference": d.reference},
    }
