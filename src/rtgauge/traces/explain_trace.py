"""`rtgauge explain TRACE`: the samples cyclictest broke on in a trace-cmd
recording, and the worst samples of the kernel's timerlat tracer (a
trace-cmd recording, or rtla's saved text trace), explained by the same explanation as a run's kept
windows (analysis.explain.explain), as text, Markdown, HTML, JSON or a
Perfetto trace. A window the trace could not make complete says what the
trace lacked and names nobody."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from rtgauge.analysis.analysed_run import ExplainedWindow, window_json
from rtgauge.analysis.explain import Explanation, explain
from rtgauge.errors import UsageError
from rtgauge.fmt import us2
from rtgauge.report.document import Block, Chart, Heading, Para, Report
from rtgauge.report.explain_section import headline, parts_table
from rtgauge.report.timeline import timeline_svg
from rtgauge.traces import timerlat_trace, tracecmd
from rtgauge.traces.cyclictest_trace import Imported, breaks, imported
from rtgauge.traces.perfetto import ExportedWindow

TRACE_MAGIC = b"\x17\x08\x44tracing"  # how every trace.dat begins
TEXT_MARK = b"# tracer:"  # how the kernel's text trace begins (rtla's saved trace)


def _head(p: Path) -> bytes:
    try:
        with p.open("rb") as f:
            return f.read(4096)
    except OSError:
        return b""


def is_text_trace(p: Path) -> bool:
    """Whether p is the kernel's text trace (as `rtla timerlat -t` saves it)."""
    return _head(p).lstrip().startswith(TEXT_MARK)


def is_trace(text: str) -> bool:
    """Whether the RUN argument names a trace-cmd recording or a text trace."""
    p = Path(text)
    if p.suffix == ".dat":
        return True
    head = _head(p)
    return head.startswith(TRACE_MAGIC) or head.lstrip().startswith(TEXT_MARK)


class Explained:
    """One breaking sample: the window made from the trace, its explanation."""

    def __init__(self, imp: Imported) -> None:
        self.imp = imp
        x = explain(imp.window)
        if imp.lacks:  # the explanation names nobody; it says why here
            x = replace(x, culprit="incomplete: " + "; ".join(imp.lacks))
        self.explanation: Explanation = x


def explained(path: Path) -> list[Explained]:
    """Every breaking sample of the trace, explained; a trace without one is
    a usage error (there is nothing to explain)."""
    rep = tracecmd.read_text(path) if is_text_trace(path) else tracecmd.read(path)
    found = imported(rep, breaks(rep) + timerlat_trace.breaks(rep))
    if not found:
        raise UsageError(
            f'{path}: no sample broke cyclictest\'s limit (no "hit latency threshold" '
            "marker: record cyclictest --tracemark -b LIMIT_US under trace-cmd) and no "
            "timerlat thread sample (record rtla timerlat -t, or trace-cmd record -p timerlat)"
        )
    return [Explained(i) for i in found]


_RELEASES = {
    "hrtimer": "the release from its timer's due time",
    "marker": "the release from the marker's time minus the latency (no hrtimer events)",
    "irq sample": "the release from timerlat's irq entry of the same activation",
    "thread sample": "the release from the thread entry's time minus the latency (no irq entry)",
}


def _said(x: Explained) -> str:
    """Which sample this is, and where its release came from."""
    b = x.imp.brk
    who = (
        f"{b.marker.comm}/{b.marker.pid} on CPU {b.marker.cpu}: a latency of {us2(b.latency_ns)} µs"
    )
    why = (
        f", over its limit of {us2(b.limit_ns)} µs"
        if b.limit_ns is not None
        else ", the worst timerlat thread sample on its CPU"
    )
    return f"{who}{why}; {_RELEASES.get(b.release_from, b.release_from)}"


def as_json(path: Path, xs: list[Explained]) -> list[dict[str, Any]]:
    """Each sample as the analysed run's window (schema/analysis-v1.json,
    explained_window), with where it came from and what the trace lacked."""
    out = []
    for x in xs:
        b = x.imp.brk
        out.append(
            {
                "trace": path.name,
                "marker": b.marker.body.split(": ", 1)[-1],
                "tid": b.marker.pid,
                "comm": b.marker.comm,
                "source": "timerlat" if b.metric == timerlat_trace.METRIC else "cyclictest",
                "limit_ns": b.limit_ns,
                "release_from": b.release_from,
                "lacks": list(x.imp.lacks),
                **window_json(ExplainedWindow(x.explanation, ())),
            }
        )
    return out


def report(path: Path, xs: list[Explained]) -> Report:
    blocks: list[Block] = [Heading(1, f"Why the worst samples: {path.name}")]
    for x in xs:
        e = x.explanation
        blocks.append(Para(_said(x), "note"))
        blocks.append(Para(headline(e), "lead"))
        if x.imp.lacks:
            blocks.append(Para("The trace lacked: " + "; ".join(x.imp.lacks) + ".", "warn"))
        blocks.append(parts_table(e))
        blocks.append(Chart(timeline_svg(e), "the sample's timeline on its CPU"))
    return Report(f"rtgauge explain: {path.name}", blocks)


def exported(path: Path, xs: list[Explained]) -> list[ExportedWindow]:
    return [
        ExportedWindow(path.name, x.explanation, x.imp.window.events, x.imp.window.start)
        for x in xs
    ]
