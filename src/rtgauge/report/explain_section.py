"""The report's "Why the worst case" sections: per explained test, each kept
sample with its culprit line, its parts and the timeline picture; a short
table of the culprits near the top; the culprits side by side in a
comparison. They render the analysed run (analysis/analysed_run.py): what
the explanation says is decided in analysis/explain/, which audit findings
bear on it in analysis/explain_audit.py, both once per run."""

from __future__ import annotations

from rtgauge.analysis.analysed_run import AnalysedRun, ExplainedTest
from rtgauge.analysis.explain import OPERATION, UNACCOUNTED, Explanation
from rtgauge.analysis.explain_audit import Bearing
from rtgauge.fmt import us2
from rtgauge.model import ExplainRecord, TestRecord
from rtgauge.report.document import Block, Cell, Chart, Heading, Para, Table, WindowFiles
from rtgauge.report.timeline import timeline_svg


def _share(ns: int, of: int) -> str:
    if not of:
        return "—"
    share = 100.0 * ns / of
    return "<1 %" if 0 < share < 0.5 else f"{share:.0f} %"


def parts_table(x: Explanation) -> Table:
    rows = [
        [
            Cell(p.label),
            Cell(us2(p.ns)),
            Cell(_share(p.ns, x.sample_ns), "muted" if p.kind == UNACCOUNTED else ""),
            Cell(p.detail, "muted"),
        ]
        for p in x.parts
    ]
    span = "from the call to its return" if x.interval == OPERATION else "from release to running"
    return Table([f"part, {span}", "µs", "share", "why"], rows)


def headline(x: Explanation) -> str:
    where = f"{x.metric}: {us2(x.sample_ns)} µs on CPU {x.cpu}"
    return f"{where} — {x.culprit}"


def bearing_line(b: Bearing, sample_ns: int) -> str:
    """One audit finding that bears on a part of the sample, with its fix."""
    share = _share(b.part.ns, sample_ns)
    fix = f" — fix: {b.finding.fix}" if b.finding.fix else ""
    return (
        f"Bears on it: {b.part.label} ({share}) — {b.says}: audit {b.finding.id} "
        f"{b.finding.status.upper()}{fix}"
    )


def test_section(a: AnalysedRun, test: TestRecord) -> list[Block]:
    """The "Why the worst case" blocks of one test, or none when it has no
    figure to explain."""
    e = a.test_explained(test)
    if e is None:
        return []
    out: list[Block] = [Heading(3, f"Why the worst case: {test.id}", f"why-{test.id}")]
    if e.why_not:
        return out + [Para(e.why_not, "note")]
    if not e.windows:
        out.append(Para("No sample was kept (none above the recorder's floor).", "note"))
    for i, w in enumerate(e.windows):
        if not w.worst:
            continue  # a figure's worst only: a line in the figures' table below
        x = w.explanation
        out.append(Para(headline(x), "lead"))
        out += [Para(bearing_line(b, x.sample_ns)) for b in w.bearings]
        out.append(parts_table(x))
        out.append(Chart(timeline_svg(x), "the sample's timeline on its CPU"))
        out.append(WindowFiles(test.id, i))
    return out + figures_table(e) + recorder_notes(e)


def figures_table(e: ExplainedTest) -> list[Block]:
    """Each figure's maximum, the number the summary shows, with what
    delayed that very sample, or why no window holds it."""
    if len(e.figures) < 2 and all(f.window is not None and f.window.worst for f in e.figures):
        return []  # one figure, explained above
    rows = []
    for f in e.figures:
        x = f.window.explanation if f.window else None
        rows.append(
            [
                Cell(f.metric),
                Cell(us2(f.max_ns)),
                Cell(str(x.cpu) if x else "—"),
                Cell(x.culprit if x else f"not explained: {f.why_not}", "" if x else "warn"),
            ]
        )
    n = sum(f.window is not None for f in e.figures)
    return [
        Para(f"Each figure's worst sample: {n} of {len(e.figures)} explained.", "lead"),
        Table(["figure", "max µs", "CPU", "what delayed that sample"], rows),
    ]


def recorder_notes(e: ExplainedTest) -> list[Block]:
    """What the recorder did over the test, and what it could not keep."""
    rec = e.record
    smallest = min((w.explanation.sample_ns for w in e.worst_windows), default=0)
    figures = f" and each figure's worst ({len(rec.figure_names)} figures)" if rec.figures else ""
    note = (
        f"Recorder: {rec.source or 'kernel tracer'}, the {rec.keep} worst samples{figures} "
        f"kept ({rec.freezes} cut, {rec.offered} offered); {rec.lost_events} events lost "
        "over the test."
    )
    out: list[Block] = [Para(note, "note")]
    cost = recorder_cost(rec)
    if cost:
        out.append(Para(cost, "note"))
    if rec.windows_dropped:
        out.append(
            Para(
                f"{rec.windows_dropped} more kept sample(s) left out of the record: their "
                "events did not fit in the target's memory (the worst are written first).",
                "warn",
            )
        )
    if rec.uncaptured and rec.uncaptured_max_ns > smallest:
        out.append(
            Para(
                f"A sample of {us2(rec.uncaptured_max_ns)} µs came when the recorder could not "
                "cut its window (its reader had fallen behind): it would have been kept and is "
                "not explained.",
                "warn",
            )
        )
    return out


def recorder_cost(rec: ExplainRecord) -> str | None:
    """What the recorder's own writing put into each figure's worst kept
    sample: the events written inside it times what one cost (event_ns)."""
    if not rec.event_ns:
        return None
    seen: dict[str, str] = {}
    for w in rec.windows:  # worst first: a figure's first is its worst kept
        if w.metric in seen:
            continue
        n = sum(1 for ev in w.events if 0 <= ev.t <= w.sample_ns)
        seen[w.metric] = f"{w.metric} {n} ({us2(n * rec.event_ns)} of {us2(w.sample_ns)} µs)"
    if not seen:
        return None
    return (
        f"The recorder is inside these figures: writing one event cost {us2(rec.event_ns)} µs "
        "(measured at its open), and the events it wrote inside each figure's worst kept "
        "sample were: " + "; ".join(seen.values()) + ". --no-explain gives the figures "
        "without it."
    )


def worst_culprit(a: AnalysedRun, test: TestRecord) -> str:
    """The one line for a table: the worst kept sample and its culprit."""
    e = a.test_explained(test)
    if e is None:
        return "no sample kept"
    if e.why_not:
        return e.why_not
    if not e.windows:
        return "no sample kept"
    x = e.windows[0].explanation
    return f"{us2(x.sample_ns)} µs: {x.culprit}"


def culprits_table(a: AnalysedRun) -> list[Block]:
    """Near the top of a run report: each explained test's worst culprit."""
    tests = [t for t in a.run.tests if t.explain is not None]
    if not tests:
        return []
    rows = [[Cell(t.id), Cell(worst_culprit(a, t))] for t in tests]
    return [
        Heading(2, "Why the worst cases", "why"),
        Table(["test", "worst kept sample and what delayed it"], rows),
    ]


def compare_culprits(runs: list[AnalysedRun], labels: list[str]) -> list[Block]:
    """A comparison's culprits side by side: a row per explained test."""
    ids: list[str] = []
    for r in runs:
        ids += [t.id for t in r.run.tests if t.explain is not None and t.id not in ids]
    if not ids:
        return []
    rows = []
    for tid in ids:
        row = [Cell(tid)]
        for r in runs:
            t = r.run.test(tid)
            row.append(Cell(worst_culprit(r, t) if t and t.explain else "—"))
        rows.append(row)
    return [
        Heading(2, "Why the worst cases, side by side", "why"),
        Table(["test", *labels], rows),
    ]
