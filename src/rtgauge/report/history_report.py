"""What a history says, as blocks (the HTML page) and as text (the terminal)."""

from __future__ import annotations

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.history import History, RunEntry, headline, missed, tail_value
from rtgauge.analysis.likeness import run_name
from rtgauge.fmt import us
from rtgauge.model import TestRecord
from rtgauge.report.document import Block, Cell, Chart, Heading, Notice, Para, Report, Table
from rtgauge.report.explain_section import worst_culprit
from rtgauge.report.history_plots import Column, history_svg


def group_title(h: History) -> str:
    return f"{h.system}" + (f" — label {h.label}" if h.label else " — no label")


def limits_line(h: History) -> str:
    """What the label's calibrated limits are and which runs they judge."""
    lim = h.limits
    assert lim is not None
    return (
        f"{lim.summary()}, calibrated {lim.created_at}: the runs after {lim.last} are "
        "checked against them"
    )


def test_ids(h: History) -> list[str]:
    out: list[str] = []
    for e in h.runs:
        for t in e.run.tests:
            if t.id not in out:
                out.append(t.id)
    return out


def _test(e: RunEntry, test_id: str) -> TestRecord | None:
    return e.run.test(test_id)


def run_cells(e: RunEntry, test_id: str) -> list[str]:
    """created, kernel, max, tail, missed, verdicts, change (for one test)."""
    r = e.run
    t = _test(e, test_id)
    kernel = f"{r.system.host.release} ({r.system.kernel.preempt_model or '?'})"
    if t is None:
        return [r.created_at, kernel, "—", "—", "—", "not run", ""]
    m = headline(t)
    name, tail = tail_value(m) if m else ("", None)
    verdicts = t.verdicts
    passed = sum(v.passed for v in verdicts)
    vtext = f"{passed}/{len(verdicts)} pass" if verdicts else t.status
    lost = missed(t)
    regs = [f for f in e.findings if f.test == test_id and f.regression]
    change = ", ".join(
        word for word, on in (("REGRESSION", regs), ("settings changed", e.changed)) if on
    )
    return [
        r.created_at,
        kernel,
        us(m.max) if m else "—",
        f"{us(tail)} ({name})" if tail is not None else "—",
        "—" if lost is None else str(lost),
        vtext,
        change,
    ]


def new_tail_cause(e: RunEntry, test_id: str, kind: str) -> str:
    """What delayed the worst kept sample of a run whose tail regressed."""
    t = _test(e, test_id)
    if kind != "tail" or t is None or t.explain is None:
        return ""
    return f"; its worst case: {worst_culprit(AnalysedRun.of(e.run), t)}"


CAPTION = (
    "{}: a column per run, numbered as in the table; colour: the share of that run's samples "
    "at that latency (white none, blue few … dark red most); red line: the maximum, dashed: "
    "the tail percentile; ▼: a regression"
)
HEADERS = ["run", "kernel", "max µs", "tail µs", "missed", "verdicts", "change"]


def history_blocks(histories: list[History]) -> list[Block]:
    out: list[Block] = [Heading(1, "rtgauge history")]
    out.append(
        Para(
            "Per system and label, every stored run, oldest first. A regression is a behaviour "
            "verdict that went from pass to fail, or a tail more than twice as high beyond "
            "chance, tested on the maxima of 100 ms blocks (close to independent, unlike "
            "samples): the newer run's block maxima above twice the older run's (one-sided "
            "Mann-Whitney U) or more of its blocks above twice the older run's tail "
            "percentile (one-sided Fisher's exact test), either at p < 0.0005, and never "
            "when the tail percentile fell. A figure without block maxima is not testable. "
            "A higher maximum alone is a single extreme value, and missed periods come in "
            "bursts: shown, not tested. Where the label has calibrated limits (history "
            "--calibrate), a figure of a later run above its limit is a regression too.",
            "lead",
        )
    )
    for h in histories:
        out.append(Heading(2, group_title(h)))
        newest = h.runs[-1]
        out.append(
            Para(
                f"{len(h.runs)} runs; newest {newest.run.created_at}: "
                + ("REGRESSED" if newest.regressed else "no regression"),
                "warn" if newest.regressed else "",
            )  # fmt: skip
        )
        regs = [
            f"{e.run.created_at} {f.test} {f.name}: {f.evidence}"
            + new_tail_cause(e, f.test, f.kind)
            for e in h.runs
            for f in e.findings
            if f.regression
        ]
        if h.limits is not None:
            out.append(Para(limits_line(h), "note"))
        out += [Para(line, "warn") for line in h.unlike]
        if regs:
            out.append(Notice("Regressions", regs))
        changed = [
            f"#{i + 1} {run_name(e.run)}: {c}" for i, e in enumerate(h.runs) for c in e.changed
        ]
        if changed:
            out.append(Notice("Settings changed since the run before", changed, "note"))
        for test_id in test_ids(h):
            out.append(Heading(3, test_id))
            cols = []
            for i, e in enumerate(h.runs):
                t = _test(e, test_id)
                m = headline(t) if t else None
                if m is None or not m.hist.buckets:
                    continue
                cols.append(
                    Column(
                        f"#{i + 1}",
                        f"#{i + 1} {run_name(e.run)}, {e.run.system.host.release}",
                        m,
                        tail_value(m)[1],
                        any(f.regression and f.test == test_id for f in e.findings),
                    )
                )
            if cols:
                m0 = cols[-1].metric
                out.append(Chart(history_svg(m0.name, cols), CAPTION.format(m0.name)))
            rows = []
            for i, e in enumerate(h.runs):
                cells = run_cells(e, test_id)
                row = [Cell(f"#{i + 1} {cells[0]}")] + [Cell(c) for c in cells[1:6]]
                row.append(Cell(cells[6], "fail" if "REGRESSION" in cells[6] else ""))
                rows.append(row)
            out.append(Table(HEADERS, rows))
            notes = [
                f"#{i + 1} {run_name(e.run)}: {f.name}: {f.evidence}"
                for i, e in enumerate(h.runs)
                for f in e.findings
                if f.test == test_id and not f.regression and f.kind != "tail"
            ]
            if notes:
                out.append(Notice("Changes that are not regressions", notes, "note"))
    return out


def history_report(histories: list[History]) -> Report:
    return Report("rtgauge history", history_blocks(histories))
