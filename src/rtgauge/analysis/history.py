"""Runs of one system over time: the tail figures per run, and regressions
between consecutive comparable runs (same system, label and options).

A regression is decided here, by pure functions of the bundles:
- a behaviour verdict that passed in the older run and fails in the newer;
- a tail that got worse beyond chance (analysis.tail: on the per-block
  maxima, one-sided, p < 0.001 in all), never one whose tail percentile
  fell; a figure without block maxima is "not testable", never tested on
  its samples (they are not independent).
A higher maximum alone is one extreme value against another, and more
missed periods come from stalls that each miss many periods at once: both
are shown as changes, never a regression by themselves.

Where the label has calibrated limits (analysis.limits), every run of its
system stored after the calibrated runs is checked against them too: a
figure above its limit is a regression ("limit"), with the limit, its
false-alarm rate and how many runs it rests on as evidence.

A run whose system settings differ from the run before it in its group (the
kernel command line, the kernel's options, a sysctl, THP, a governor: what
the audit reads) is marked with what changed: the figures after it may
differ for that reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rtgauge.analysis.likeness import unlike
from rtgauge.analysis.limits import Limits, check_run
from rtgauge.analysis.tail import TailTest, tail_test
from rtgauge.analysis.tail import tail_value as tail_value  # the history's tail line
from rtgauge.audit.settings import changes
from rtgauge.model import Metric, TestRecord
from rtgauge.run import Run


def system_name(r: Run) -> str:
    """What a history follows: the host, or for a guest its kernel."""
    if r.target.kind == "qemu":
        extra = f" {r.target.append}" if r.target.append else ""
        return f"guest {r.system.host.release}{extra}"
    return r.host


def headline(test: TestRecord) -> Metric | None:
    """The figure a history follows for a test (the record's headline, which
    the store's index keeps too)."""
    return test.headline


def missed(test: TestRecord) -> int | None:
    value = test.info.get("missed_periods")
    if isinstance(value, dict):
        return sum(int(v) for v in value.values() if isinstance(v, int))
    return int(value) if isinstance(value, int) else None


def signature(r: Run, test: TestRecord) -> tuple[Any, ...]:
    """What must be equal for two runs of a test to be compared."""
    c = test.conditions
    return (
        sorted(test.options.items(), key=lambda kv: kv[0]),
        c.policy,
        c.prio,
        c.mlockall,
        sorted(c.cpus),
        r.target.kind,
    )


@dataclass(frozen=True)
class Finding:
    test: str
    name: str  # the metric or verdict
    # "verdict", "tail", "untested" (a tail no test could judge), "max", "missed",
    # "limit" (above a calibrated limit), "unlimited" (why a limit was not checked)
    kind: str
    regression: bool
    evidence: str
    older: str  # the older run's created_at


@dataclass
class RunEntry:
    run: Run
    findings: list[Finding] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # settings changed since the run before

    @property
    def regressed(self) -> bool:
        return any(f.regression for f in self.findings)


@dataclass
class History:
    system: str
    label: str | None
    runs: list[RunEntry]  # oldest first
    limits: Limits | None = None  # the label's calibrated limits, when they are this system's
    unlike: list[str] = field(default_factory=list)  # how its runs differ beside the system


def compare_runs(old: Run, new: Run, test_id: str) -> list[Finding]:
    """Findings for one test between two comparable runs (pure)."""
    t_old, t_new = old.test(test_id), new.test(test_id)
    assert t_old is not None and t_new is not None
    out: list[Finding] = []
    when = old.created_at
    verdicts_old = {v.name: v for v in t_old.verdicts}
    for v in t_new.verdicts:
        before = verdicts_old.get(v.name)
        if before is not None and before.passed and not v.passed:
            evidence = f"passed before ({before.observed}); now fails: {v.observed}"
            out.append(Finding(test_id, v.name, "verdict", True, evidence, when))
        elif before is not None and not before.passed and v.passed:
            out.append(Finding(test_id, v.name, "verdict", False, "failed before; passes", when))
    metrics_old = {m.name: m for m in t_old.metrics if m.count}
    for m in t_new.metrics:
        prior = metrics_old.get(m.name)
        if prior is None or not m.count:
            continue
        tt: TailTest = tail_test(prior, m)
        kind = "tail" if tt.tested else "untested"
        out.append(Finding(test_id, m.name, kind, tt.worse, tt.evidence, when))
        if m.max is not None and prior.max is not None and m.max > prior.max:
            note = (
                f"max {m.max / 1e3:,.2f} µs against {prior.max / 1e3:,.2f} µs: "
                "a single extreme value, not tested"
            )
            out.append(Finding(test_id, m.name, "max", False, note, when))
    mo, mn = missed(t_old), missed(t_new)
    if mo is not None and mn is not None and mn > mo:
        note = f"{mn} missed periods against {mo}: counted, not tested (stalls miss them in bursts)"
        out.append(Finding(test_id, "missed periods", "missed", False, note, when))
    return out


def limit_findings(limits: Limits, r: Run) -> list[Finding]:
    """A run against its label's calibrated limits (pure): each figure above
    its limit a regression; a limit not checked said once per test and reason."""
    out: list[Finding] = []
    said: set[tuple[str, str]] = set()
    for c in check_run(limits, r):
        if c.exceeded:
            out.append(Finding(c.limit.test, c.name, "limit", True, c.evidence(), limits.last))
        elif not c.checked and (c.limit.test, c.why) not in said:
            said.add((c.limit.test, c.why))
            why = f"calibrated limits {c.why}"
            out.append(Finding(c.limit.test, "limits", "unlimited", False, why, limits.last))
    return out


def _with_limits(findings: list[Finding], limited: list[Finding]) -> list[Finding]:
    """A max above its calibrated limit is judged: its "single extreme value,
    not tested" note against the run before goes."""
    judged = {(f.test, f.name.removesuffix(" max")) for f in limited if f.kind == "limit"}
    kept = [f for f in findings if not (f.kind == "max" and (f.test, f.name) in judged)]
    return kept + limited


def build(runs: list[Run], limits: Mapping[str, Limits] | None = None) -> list[History]:
    """Group runs by (system, label), oldest first, each run compared per test
    with the latest earlier run of the same group that ran it with the same
    options and conditions; and with the label's calibrated limits, when
    `limits` has them for that system, each run stored after the calibrated
    runs."""
    groups: dict[tuple[str, str | None], list[Run]] = {}
    for r in sorted(runs, key=lambda r: r.created_at):
        groups.setdefault((system_name(r), r.label), []).append(r)
    out = []
    for (system, label), group in groups.items():
        entries = [RunEntry(r) for r in group]
        for before, entry in zip(entries, entries[1:], strict=False):
            entry.changed = changes(before.run.system, entry.run.system)
        for i, entry in enumerate(entries):
            for t in entry.run.tests:
                if t.status in ("error", "skipped", "interrupted"):
                    continue
                sig = signature(entry.run, t)
                for prev in reversed(entries[:i]):
                    pt = prev.run.test(t.id)
                    if pt is None or pt.status in ("error", "skipped", "interrupted"):
                        continue
                    if signature(prev.run, pt) == sig:
                        entry.findings += compare_runs(prev.run, entry.run, t.id)
                        break
        lim = (limits or {}).get(label) if label is not None else None
        if lim is not None and lim.system != system:
            lim = None  # another system's: they say nothing of this one
        if lim is not None:
            for entry in entries:
                if entry.run.created_at > lim.last:  # the calibrated runs are not judged
                    entry.findings = _with_limits(entry.findings, limit_findings(lim, entry.run))
        out.append(History(system, label, entries, lim, unlike([e.run for e in entries])))
    return out
