"""One kept window as the files a trace viewer opens, for the reports'
download links (docs/traces.md): the Perfetto trace (JSON) and the
trace-cmd trace.dat, each of that window alone."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.report.document import Link, Report, WindowFiles, WindowLinks
from rtgauge.traces.perfetto import ExportedWindow, run_windows, trace_document
from rtgauge.traces.tracedat import trace_dat_bytes


@dataclass(frozen=True)
class FileKind:
    key: str  # what a server's address ends with: "json", "dat"
    label: str  # the link's text
    media_type: str


KINDS = (
    FileKind("json", "Perfetto trace (JSON)", "application/json"),
    FileKind("dat", "trace.dat (trace-cmd, KernelShark)", "application/octet-stream"),
)
BY_KEY = {k.key: k for k in KINDS}


def file_name(test: str, index: int, kind: FileKind) -> str:
    """The name a download is saved under: TMR-P-LAT-window1.dat."""
    return f"{test}-window{index + 1}.{kind.key}"


def window(a: AnalysedRun, test_id: str, index: int) -> ExportedWindow | None:
    """The test's index-th kept window (worst first), or None when it has none."""
    t = a.run.test(test_id)
    if t is None or t.explain is None or index < 0:
        return None
    windows = run_windows(a, [t])
    return windows[index] if index < len(windows) else None


def window_bytes(w: ExportedWindow, kind: FileKind) -> bytes:
    if kind.key == "json":
        return (json.dumps(trace_document([w])) + "\n").encode()
    return trace_dat_bytes([w])


def embedded_links(report: Report) -> WindowLinks:
    """Each kept window's files as data: URIs (base64), for a report file."""

    def links(f: WindowFiles) -> list[Link]:
        if f.run >= len(report.analysed):
            return []
        w = window(report.analysed[f.run], f.test, f.index)
        if w is None:
            return []
        out = []
        for k in KINDS:
            data = base64.b64encode(window_bytes(w, k)).decode()
            out.append(
                (k.label, f"data:{k.media_type};base64,{data}", file_name(f.test, f.index, k))
            )
        return out

    return links
