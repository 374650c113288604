"""The plain-text summary printed after a run, worst case first.

Tests with figures come first, the one with the largest maximum at the top;
within a test, figures run from the largest maximum down. Behaviour tests
follow with their verdicts, failures first. Every string from the target
goes through fmt.term: a hostname cannot send escape sequences to the terminal.
"""

from __future__ import annotations

from collections import Counter

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.fmt import clip, term, us2
from rtgauge.intervals import with_rebuilt_tests
from rtgauge.model import Bundle, End, Metric, TestRecord
from rtgauge.report.answer import time_base

_TROUBLE = ("fail", "error", "interrupted")


def _tail(m: Metric) -> str:
    """p99.99, or the highest percentile the samples back, labelled."""
    for value, label in ((m.p99_99, ""), (m.p99_9, " (p99.9)"), (m.p99, " (p99)")):
        if value is not None:
            return us2(value) + label
    return "—"


def order_tests(tests: list[TestRecord]) -> list[TestRecord]:
    measured = sorted((t for t in tests if t.metrics), key=lambda t: -t.worst)
    others = [t for t in tests if not t.metrics]
    others.sort(key=lambda t: t.status not in _TROUBLE and not t.failed)  # stable: run order
    return measured + others


def _test_lines(t: TestRecord, per_test: int) -> list[str]:
    lines = []
    status = term(t.shown_status)
    metrics = sorted(t.metrics, key=lambda m: -m.worst)
    for i, m in enumerate(metrics[:per_test]):
        head = f"{t.id:<11} {status:<11}" if i == 0 else " " * 23
        lines.append(
            f"{head} {clip(term(m.name), 40):<40} {us2(m.max):>11} {_tail(m):>16} "
            f"{us2(m.mean):>10} {m.count:>9}"
        )
    if len(metrics) > per_test:
        more = len(metrics) - per_test
        lines.append(f"{'':23} … {more} more figure{'s' if more > 1 else ''} in the report")
    if not metrics:
        lines.append(f"{t.id:<11} {status:<11} {term(t.title)}")
    for v in sorted(t.verdicts, key=lambda v: ("fail", "differs", "pass").index(v.outcome)):
        lines.append(f"{'':23} {v.mark} {term(v.name)}: {clip(term(v.observed), OBSERVED)}")
        if v.documented:
            lines.append(f"{'':28} {term(v.outcome_text)}: {term(v.documented.reference)}")
    if t.reason:
        lines.append(f"{'':23} reason: {term(t.reason)}")
    return lines


FIGURES_PER_TEST = 4  # the rest are in the report
OBSERVED = 80  # columns of a verdict's observation; the report has it whole


def count_line(bundle: Bundle) -> str:
    """How many tests the run meant to run and what became of each: the
    probe's counts, the test cut short by a signal (interrupted) and the
    tests it never reached (not run). A run whose end record is missing
    (the host lost the target) is counted from its test records."""
    planned = len(bundle.system_view().run.tests)
    # a duration test cut short counts as interrupted, as its rebuilt record says
    tests = [TestRecord.read(t, bundle.os) for t in with_rebuilt_tests(bundle)]
    e = bundle.end_view()
    if e is None:
        by = Counter(t.status for t in tests)
        e = End(
            "interrupted",
            len(tests),
            by["ok"] + by["pass"],
            by["fail"],
            by["error"],
            by["skipped"],
            by["interrupted"],
            3,
            0.0,
        )
        elapsed = ""
    else:
        elapsed = f" ({e.elapsed_ms / 1000:.1f} s)"
    not_run = max(planned - e.tests, 0)
    differ = sum(t.differs for t in tests)  # the probe counted them failed
    parts = [
        f"{e.passed} passed",
        f"{max(e.failed - differ, 0)} failed",
    ]
    if differ:
        parts.append(f"{differ} differ as their OS documents")
    parts += [
        f"{e.errors} errors",
        f"{e.skipped} skipped",
    ]
    if e.interrupted:
        parts.append(f"{e.interrupted} interrupted")
    if not_run:
        parts.append(f"{not_run} not run")
    return f"{e.tests + not_run} tests: {', '.join(parts)}{elapsed}"


def failed_verdicts(bundle: Bundle) -> list[str]:
    """TEST-ID verdict-name of every behaviour verdict that failed (a
    documented difference is not a failure)."""
    return [f"{t.id} {v.name}" for t in bundle.test_views() for v in t.verdicts if v.failed]


def differing_verdicts(bundle: Bundle) -> list[str]:
    """TEST-ID verdict-name of every documented difference."""
    return [f"{t.id} {v.name}" for t in bundle.test_views() for v in t.verdicts if v.documented]


def difference_line(bundle: Bundle) -> str | None:
    """The line that counts the documented differences apart from the
    failures: they do not change the exit code."""
    differ = differing_verdicts(bundle)
    if not differ:
        return None
    shown = ", ".join(term(f) for f in differ[:6])
    more = f" and {len(differ) - 6} more" if len(differ) > 6 else ""
    os = term(bundle.os or "the OS")
    return (
        f"documented differences: {shown}{more} differ from the standard they check, as "
        f"{os} documents (not failures: the exit code does not count them)"
    )


def verdict_line(bundle: Bundle) -> str | None:
    """The closing line of a run whose behaviour verdicts failed: which, and
    what exit code 1 means (the run itself completed)."""
    failed = failed_verdicts(bundle)
    if not failed:
        return None
    shown = ", ".join(term(f) for f in failed[:6])
    more = f" and {len(failed) - 6} more" if len(failed) > 6 else ""
    return (
        f"behaviour verdicts failed: {shown}{more} "
        "(exit code 1: a behaviour verdict failed; the run itself completed)"
    )


def summary_text(a: AnalysedRun) -> str:
    bundle = a.run.bundle
    s = a.run.system
    # Linux's preemption models; another OS (an RTOS) says its own in "rtos".
    rtos = s.rtos or {}
    preempt = s.kernel.preempt_model or ("rtos" if rtos else "unknown")
    name = f"{term(str(rtos['name']))} " if rtos.get("name") else ""
    profile = f"  profile={term(s.profile)}" if s.profile else ""
    lines = [
        f"{term(s.host.hostname)}  {name}{term(s.host.release)}  preempt={preempt}{profile}"
        f"  clock={s.clock.source}  floor={s.clock.floor_ns.mean:.0f} ns",
    ]
    lines += [f"  warning: {term(w)}" for w in s.warnings]
    base = time_base(a)
    if base:
        lines.append(f"  every figure below is in {base}, not µs of the target's real time")
    if s.audit.present:
        audit = a.audit
        failing = [f.id for f in audit.findings if f.status == "fail"]
        lines.append(
            f"  audit: {audit.counts_text()}"
            + (f"; failing: {', '.join(failing)}" if failing else "")
            + " (each check's evidence and fix: the report, or rtgauge check)"
        )
    if not bundle.complete:
        lines.append("  warning: the run is incomplete (interrupted or cut short)")
    lines.append(
        f"\n{'test':<11} {'status':<11} {'figure':<40} {'max µs':>11} {'p99.99 µs':>16} "
        f"{'mean µs':>10} {'count':>9}"
    )
    for t in order_tests(a.run.tests):
        lines += _test_lines(t, FIGURES_PER_TEST)
    lines.append("\n" + count_line(bundle))
    for line in (difference_line(bundle), verdict_line(bundle)):
        if line:
            lines.append(line)
    return "\n".join(lines)
