"""What a run report says: system, verdicts, figures worst first, charts."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from rtgauge.analysis.analysed_run import AnalysedRun, Judging
from rtgauge.conditions import figures_partial
from rtgauge.fmt import COLUMNS, us, us2
from rtgauge.model import Bundle, ImportInfo, Metric, System, TestRecord, Verdict
from rtgauge.report import plots
from rtgauge.report.answer import answer, unit
from rtgauge.report.audit_report import audit_blocks
from rtgauge.report.deadline_report import run_section
from rtgauge.report.document import (
    Block,
    Cell,
    Chart,
    Details,
    Heading,
    Notice,
    Para,
    Pre,
    Report,
    Table,
)
from rtgauge.report.explain_section import culprits_table, test_section
from rtgauge.report.run_length_report import proved_blocks
from rtgauge.report.summary import order_tests
from rtgauge.run import Run


def _yes(v: Any) -> str:
    return "—" if v is None else ("yes" if v else "no")


def _mentions(warnings: list[str], *words: str) -> bool:
    return any(w.lower() in text.lower() for text in warnings for w in words)


def trust_warnings(run: Run) -> list[str]:
    """What makes these figures less trustworthy, most serious first.

    The probe states most of these in system.warnings; the conditions module
    decides them from the probe's facts and the host's knowledge of the
    target, so every caveat is shown once, even one the probe could not see.
    """
    probe = run.system.warnings
    derived = list(run.conditions.reasons)
    governor = run.system.cpu.governor
    if governor not in (None, "performance"):
        derived.append(f"CPU frequency governor is '{governor}', not 'performance'")
    # Emulation first: it voids every timing. Then the probe's words, then ours.
    first = [w for w in probe if _mentions([w], "emulated")]
    rest = [w for w in probe if w not in first]
    ours = [text for text in derived if not _mentions(probe, *_keywords(text))]
    ours_emulated = [o for o in ours if o.startswith("emulated")]
    out = first + ours_emulated + rest + [o for o in ours if o not in ours_emulated]
    if not run.complete:
        out.append("incomplete run: interrupted or cut short; the tests that finished are shown")
    bad = [t.id for t in run.tests if figures_partial(t)]
    if bad:
        out.append(
            f"tests that did not finish (error or interrupted): {', '.join(bad)}; "
            "their figures are partial and feed no rating, deadline verdict or comparison mark"
        )
    return out


def _keywords(text: str) -> tuple[str, ...]:
    """The words by which a probe warning already says the same thing."""
    for key, words in (
        ("emulated", ("emulated",)),
        ("no SCHED_FIFO", ("SCHED_FIFO",)),
        ("no mlockall", ("mlockall",)),
        ("hypervisor", ("virtual machine", "hypervisor")),
        ("CPU frequency", ("governor", "frequency")),
    ):
        if text.startswith(key):
            return words
    return (text,)


def system_table(s: System, imported: ImportInfo | None = None) -> Table:
    k, c, clk, p, build = s.kernel, s.cpu, s.clock, s.privileges, s.probe
    floor = clk.floor_ns
    rows = [
        ("OS", f"{s.host.os_pretty_name or s.host.os} ({s.host.machine})"),
        ("kernel", f"{s.host.release} — {s.host.version}"),
        *([("firmware profile", s.profile)] if s.profile else []),
        (
            "preemption model",
            f"{k.preempt_model or 'unknown'}"
            + (f" (from {k.preempt_source})" if k.preempt_source else ""),
        ),
        (
            "tick rate",
            f"measured {k.hz_measured or '—'} Hz; configured {k.hz_config or '—'}",
        ),
        ("CPUs", f"{c.online} online: {c.model or '—'}; measured on {c.selected}"),
        ("frequency governor", str(c.governor or "—")),
        ("isolated / nohz_full", f"{k.isolcpus or 'none'} / {k.nohz_full or 'none'}"),
        (
            "RT throttling",
            f"{k.rt_runtime_us} µs of every {k.rt_period_us} µs"
            if k.rt_runtime_us is not None
            else "—",
        ),
        (
            "clock",
            f"{clk.source} at {(clk.freq_hz or 0) / 1e6:.1f} MHz; kernel clocksource "
            f"{clk.kernel_clocksource or '—'}",
        ),
        (
            "measurement floor",
            f"two back-to-back reads: min {floor.min:.0f} ns, "
            f"mean {floor.mean:.1f} ns, max {floor.max:.0f} ns",
        ),
        (
            "virtualisation",
            f"hypervisor {_yes(s.virtualization.hypervisor)}"
            + (f" ({s.virtualization.vendor})" if s.virtualization.vendor else ""),
        ),
        (
            "obtained",
            f"SCHED_FIFO {_yes(p.sched_fifo)}"
            + (f" at {p.prio}" if p.sched_fifo else f" ({p.sched_fifo_reason})")
            + f"; mlockall {_yes(p.mlockall)}; cpu_dma_latency 0 {_yes(p.cpu_dma_latency)}"
            + f"; euid {p.euid}",
        ),
        (
            "probe",
            f"{build.version} ({build.arch}, {build.libc}, "
            f"{'static' if build.static else 'dynamic'})",
        ),
    ]
    if imported is not None:
        rows = _imported_rows(rows, imported)
    return Table(["", ""], [[Cell(a), Cell(b)] for a, b in rows])


def _imported_rows(rows: list[tuple[str, str]], imported: ImportInfo) -> list[tuple[str, str]]:
    """An imported run: the facts its source did not give say so, instead of
    showing the placeholders the contract needs."""
    unknown = "unknown: not in the imported file"
    blank = {
        "CPUs",
        "clock",
        "measurement floor",
        "tick rate",
        "RT throttling",
        "isolated / nohz_full",
    }
    if not imported.conditions_known:
        blank.add("obtained")
    out = [(k, unknown if k in blank else v) for k, v in rows if k != "probe"]
    tool = f"{imported.source} {imported.tool_version or ''}".strip()
    return out + [("imported from", f"{tool}, file {imported.file}")]


def metric_table(metrics: list[Metric], in_unit: str = "µs") -> Table:
    rows = []
    for m in sorted(metrics, key=lambda m: m.worst, reverse=True):
        rows.append(
            [Cell(m.name)] + [Cell(us2(m.stat(k))) for k, _ in COLUMNS] + [Cell(str(m.count))]
        )
    return Table([f"figure ({in_unit})"] + [h for _, h in COLUMNS] + ["count"], rows)


def negative_note(metrics: list[Metric]) -> Para | None:
    """The intervals that ended before they began, where a figure has any."""
    named = [f"{m.name} {m.negative}" for m in metrics if m.negative]
    if not named:
        return None
    return Para(
        "Negative intervals (the end stamp earlier than its reference: an early wake-up "
        "or a clock that stepped back), counted apart and not in the figures: " + ", ".join(named),
        "note",
    )


def sweep_charts(test: TestRecord) -> list[Block]:
    """Where a parameter varies (threads, waiters, size): cost against it.

    Metrics sharing a name stem form a group; the x axis is the numeric
    parameter that takes the most distinct values in the group."""
    stems: dict[str, list[Metric]] = defaultdict(list)
    for m in test.metrics:
        if m.count and any(_numeric(v) for v in m.params.values()):
            stems[m.name.rsplit(".", 1)[0]].append(m)
    out: list[Block] = []
    for stem, ms in sorted(stems.items()):
        keys = {k for m in ms for k, v in m.params.items() if _numeric(v)}
        best = max(sorted(keys), key=lambda k: len({m.params.get(k) for m in ms}), default=None)
        pts = [(float(m.params[best]), m) for m in ms if best and _numeric(m.params.get(best))]
        if best is None or len({x for x, _ in pts}) < 3:
            continue
        pts.sort(key=lambda p: p[0])
        series = {
            label: [(x, float(v)) for x, m in pts if (v := m.stat(key))]
            for label, key in (("max", "max"), ("p99", "p99"), ("mean", "mean"))
        }
        svg = plots.line_chart_svg(f"{stem} against {best}", best, series)
        if svg:
            out.append(Chart(svg, f"{stem}: max, p99 and mean against {best}"))
    return out


def _numeric(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


SHOWN_HISTOGRAMS = 3  # per test; the others are folded away


def histograms(test: TestRecord) -> list[Block]:
    latency = [m for m in test.metrics if m.count and m.hist.buckets]
    latency.sort(key=lambda m: (not m.name.endswith(".all"), -m.worst))
    out: list[Block] = []
    for i, m in enumerate(latency):
        svg = plots.histogram_svg(m)
        if not svg:
            continue
        block = Chart(svg, f"{m.name}: {m.count} samples, max {us(m.max)} µs")
        if i < SHOWN_HISTOGRAMS:
            out.append(block)
        else:
            out.append(Details(f"histogram of {m.name}", [block]))
    return out


def unmet_note(metrics: list[Metric]) -> Para | None:
    """The figures measured without the condition their names promise."""
    named = [f"{m.name} ({m.condition_unmet})" for m in metrics if m.condition_unmet]
    if not named:
        return None
    return Para(
        "Measured without the condition its name promises, shown for the record and used "
        "for no rating, deadline verdict or comparison mark: " + "; ".join(named),
        "warn",
    )


PARTIAL_NOTE = (
    "partial figures: the test did not finish; shown for the record, used for no rating, "
    "deadline verdict or comparison mark"
)


def test_blocks(t: TestRecord, in_unit: str = "µs") -> list[Block]:
    out: list[Block] = [Heading(3, f"{t.id} — {t.title}", anchor=t.id)]
    status = t.shown_status + (f": {t.reason}" if t.reason else "")
    opts = ", ".join(f"{k}={v}" for k, v in t.options.items())
    cond = t.conditions
    out.append(
        Para(
            f"{status}. {cond.policy}"
            + (f" {cond.prio}" if cond.policy != "SCHED_OTHER" else "")
            + f", mlockall {_yes(cond.mlockall)}, CPUs {cond.cpus}; "
            f"{t.duration_ms / 1000:.2f} s" + (f"; options {opts}" if opts else ""),
            "note",
        )
    )
    for n in t.notes:
        out.append(Para(n, "note"))
    for s in t.series:
        svg = plots.series_svg(s)
        if svg:
            out.append(Chart(svg, f"{s.name}: latency over time, load phases marked"))
    if t.metrics and figures_partial(t):
        out.append(Para(PARTIAL_NOTE, "warn"))
    unmet = unmet_note(t.metrics)
    if unmet:
        out.append(unmet)
    if t.metrics:
        out.append(metric_table(t.metrics, in_unit))
        negative = negative_note(t.metrics)
        if negative:
            out.append(negative)
    out += sweep_charts(t)
    out += histograms(t)
    if t.info:
        out.append(Details("details recorded by the test", [Pre(json.dumps(t.info, indent=1))]))
    return out


def _standard_cell(v: Verdict) -> Cell:
    """The rule checked, and where a verdict differs as its OS documents,
    that documentation."""
    said = f"{v.standard.name}: {v.standard.clause}" if v.standard else "not named by the record"
    if v.documented:
        said += f" — {v.outcome_text}: {v.documented.says}; {v.documented.reference}"
    return Cell(said)


def verdict_blocks(run: Run) -> list[Block]:
    rows = []
    evid: list[Block] = []
    for t in run.tests:
        for v in t.verdicts:
            rows.append(
                [
                    Cell(t.id),
                    Cell(v.name),
                    Cell(v.outcome_text if v.documented else v.mark, v.outcome),
                    Cell(v.expected),
                    Cell(v.observed),
                    _standard_cell(v),
                ]
            )
            if v.evidence is not None:
                evid.append(
                    Details(
                        f"evidence: {t.id} {v.name}",
                        [Pre(json.dumps(v.evidence, indent=1)[:20000])],
                    )
                )
    if not rows:
        return [Para("No behaviour test in this run.", "note")]
    return [Table(["test", "verdict", "", "expected", "observed", "standard"], rows)] + evid


def interference_blocks(a: AnalysedRun) -> list[Block]:
    """For each failed verdict of a test the flight recorder watched: what
    held the CPU in its worst kept sample, from the same recorder."""
    out: list[Block] = []
    for t in a.run.tests:
        failed = [v.name for v in t.verdicts if v.failed]
        e = a.test_explained(t)
        if not failed or e is None or not e.windows:
            continue
        x = e.windows[0].explanation
        out.append(
            Para(
                f"{t.id} failed ({', '.join(failed)}): in its worst kept sample ({x.metric}, "
                f"{us2(x.sample_ns)} µs on CPU {x.cpu}) — {x.culprit} (the flight recorder: "
                f"“Why the worst case: {t.id}”).",
                "warn",
            )
        )
    return out


def not_run_blocks(run: Run) -> list[Block]:
    """Tests without figures to trust: errors, skips, interruptions, with reasons."""
    rows = [
        [
            Cell(t.id),
            Cell(t.status, "muted" if t.status == "skipped" else "fail"),
            Cell(t.reason or "no reason given"),
        ]
        for t in run.tests
        if t.status in ("error", "skipped", "interrupted")
    ]
    if not rows:
        return []
    return [
        Heading(2, "Errors, skipped and interrupted tests", "not-run"),
        Table(["test", "status", "reason"], rows),
    ]


def summary_table(run: Run, in_unit: str = "µs", explained: frozenset[str] = frozenset()) -> Table:
    """One row per test, in the terminal summary's order: worst case first;
    the worst max of a test with an explanation leads to it."""
    rows = []
    for t in order_tests(run.tests):
        worst = max(t.metrics, key=lambda m: m.worst, default=None)
        status = t.shown_status
        kind = {"pass": "pass", "ok": "", "fail": "fail", "error": "fail", "differs": "differs"}
        rows.append(
            [
                Cell(t.id),
                Cell(t.title),
                Cell(status, kind.get(status, "muted")),
                Cell(
                    (us2(worst.max) + (" (partial)" if figures_partial(t) else ""))
                    if worst
                    else "—",
                    href=f"#why-{t.id}" if worst and t.id in explained else "",
                ),
                Cell(us2(worst.p99_99 or worst.p99) if worst else "—"),
                Cell(us2(worst.mean) if worst else "—"),
                Cell(worst.name if worst else (t.reason or "")),
            ]
        )
    headers = ["test", "what", "status", f"worst max {in_unit}", "p99.99 (p99)", "mean", "figure"]
    return Table(headers, rows)


def audit_section(a: AnalysedRun) -> list[Block]:
    """The audit, on the first screen: weighed against the deadline when one
    was asked for (the analysed run's, which the explanations point to). An
    imported run has no facts of its system to audit."""
    if a.run.imported is not None:
        return []
    return audit_blocks(a.audit)


def run_blocks(a: AnalysedRun) -> list[Block]:
    run = a.run
    s = run.system
    out: list[Block] = [
        Heading(1, f"rtgauge: {s.host.hostname} — {s.host.release}"),
        Para(answer(a), "answer"),
        Para(
            f"Run of {run.created_at or s.started_at or ''}, target "
            f"{run.target.kind}, {len(run.tests)} tests, "
            + ("complete." if run.complete else "INCOMPLETE."),
            "lead",
        ),
    ]
    warnings = trust_warnings(run)
    if warnings:
        out.append(Notice("Why these figures may be less trustworthy", warnings))
    out += audit_section(a)
    out += [
        Heading(2, "System and how it was measured", "system"),
        system_table(s, run.imported),
    ]
    explained = frozenset(k for k, e in a.explained.items() if e.windows)
    out += [Heading(2, "Summary", "summary"), summary_table(run, unit(a), explained)]
    out += culprits_table(a)
    out += proved_blocks(a.proved)
    if a.claim is not None:
        out += run_section(a.claim)
    out += [Heading(2, "Behaviour verdicts", "verdicts")] + verdict_blocks(run)
    out += interference_blocks(a)
    out += not_run_blocks(run)
    out.append(Heading(2, "Performance, worst case first", "performance"))
    by_family: dict[str, list[TestRecord]] = defaultdict(list)
    for t in run.tests:
        by_family[t.family].append(t)
    for fam, tests in by_family.items():
        out.append(Heading(2, f"{fam} — {run.family_title(fam) or fam}", fam))
        for t in tests:
            out += test_blocks(t, unit(a)) + test_section(a, t)
    out += [
        Heading(2, "How these figures were obtained"),
        Para(
            "Units are µs. Every figure set has count, min, max, mean, standard deviation "
            "and percentiles from a log-linear histogram (≤0.78 % bucket width); a "
            "percentile is null when too few samples back it. Start and stop points of "
            "every test are in docs/methodology.md.",
            "note",
        ),
        Pre(" ".join(run.bundle.command) or " ".join(s.probe.argv)),
    ]
    return out


def run_report(a: AnalysedRun) -> Report:
    """The report of one analysed run, ready for any exporter."""
    run = a.run
    return Report(f"rtgauge: {run.host} {run.system.host.release}", run_blocks(a), [run], [a])


def bundle_report(
    bundle: Bundle, deadline_ns: float | None = None, rate: float = 1e-6, confidence: float = 0.95
) -> Report:
    """The report of a bundle judged by these choices: the bundle read and
    analysed once."""
    return run_report(AnalysedRun.of(bundle, Judging(deadline_ns, rate, confidence)))
