"""The first line of a report, which answers before it explains: the run's
worst figure, where, against what budget, and what the explanation of that
very sample names; the behaviour verdicts that failed; and the time base the
figures are in when it is not real time."""

from __future__ import annotations

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.fmt import duration
from rtgauge.report.document import Cell, Table


def time_base(a: AnalysedRun) -> str | None:
    """What a figure of this run is in, when not real time on the target."""
    c = a.run.conditions
    if c.virtual_time:
        return "virtual time (an emulator counting instructions)"
    if c.emulated:
        return "emulated time (not the target's real time)"
    return None


def unit(a: AnalysedRun) -> str:
    """The unit of the run's figures as a table's header says it: µs, or
    µs of virtual or emulated time."""
    c = a.run.conditions
    return "virtual µs" if c.virtual_time else "emulated µs" if c.emulated else "µs"


def worst_line(a: AnalysedRun) -> str:
    """ "worst 12.6 ms on CPU 1, over the 100 µs budget — 98 % no kernel
    event at all: the hypervisor …", or what stands for it."""
    h = a.headline()
    if h is None:
        return "no figure measured"
    where = f" on CPU {h.cpu}" if h.cpu is not None else ""
    side = "over" if h.max_ns > h.budget_ns else "within"
    line = f"worst {duration(h.max_ns)}{where}, {side} the {duration(h.budget_ns)} budget"
    line += f" ({h.test_id} {h.metric}" + (", partial" if h.partial else "") + ")"
    base = time_base(a)
    if base:
        line += f", in {base}"
    return f"{line} — {_why(a, h.test_id, h.culprit)}"


def _why(a: AnalysedRun, test_id: str, culprit: str | None) -> str:
    if culprit is not None:
        return culprit
    e = a.explained.get(test_id)
    if e is None:
        return "no explanation: the test keeps no trace window"
    if e.why_not:
        return e.why_not
    return "this sample was not kept by the flight recorder (see why below)"


def verdicts_line(a: AnalysedRun) -> str:
    """How many behaviour verdicts ran, which failed, and how many differ
    from their standard as the OS documents (counted apart: not failures)."""
    verdicts = [(t.id, v) for t in a.run.tests for v in t.verdicts]
    failed = [f"{tid} {v.name}" for tid, v in verdicts if v.failed]
    differ = sum(1 for _, v in verdicts if v.documented)
    if not verdicts:
        return "no behaviour verdict"
    also = f"; {differ} differ from their standard as the OS documents" if differ else ""
    if not failed:
        passed = len(verdicts) - differ
        if not differ:
            return f"all {len(verdicts)} behaviour verdicts passed"
        return f"{passed} of {len(verdicts)} behaviour verdicts passed, none failed{also}"
    shown = ", ".join(failed[:4]) + (f" and {len(failed) - 4} more" if len(failed) > 4 else "")
    return f"{len(failed)} of {len(verdicts)} behaviour verdicts failed: {shown}{also}"


def answers_table(analysed: list[AnalysedRun], labels: list[str]) -> Table:
    """A comparison's first screen: each system's answer in a row."""
    rows = []
    for label, a in zip(labels, analysed, strict=True):
        h = a.headline()
        if h is None:
            worst, why = "—", "no figure measured"
        else:
            side = "over" if h.max_ns > h.budget_ns else "within"
            where = f" on CPU {h.cpu}" if h.cpu is not None else ""
            base = time_base(a)
            worst = f"{duration(h.max_ns)}{where}, {side} {duration(h.budget_ns)} ({h.test_id})"
            worst += f", {base}" if base else ""
            why = _why(a, h.test_id, h.culprit)
        rows.append([Cell(label), Cell(worst), Cell(why), Cell(verdicts_line(a))])
    return Table(["system", "worst figure", "what delayed it", "behaviour"], rows)


def answer(a: AnalysedRun) -> str:
    """The run's answer in one line (two clauses)."""
    return f"{worst_line(a)}; {verdicts_line(a)}."
