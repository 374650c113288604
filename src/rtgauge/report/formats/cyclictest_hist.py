"""Latency histograms in cyclictest's -h layout, the input OSADL's long-term
plotting scripts take: one line per 1 µs bucket with a column per CPU, then
the # Total / Min / Avg / Max / Histogram Overflows footer.

rtgauge's buckets are at most 1 µs wide below 128 µs, so there the counts
are exact; a wider bucket above is counted in the µs of its upper edge (the
figure never looks better than it was). Samples beyond the last line are
the overflows, as in cyclictest.
"""

from __future__ import annotations

import re

from rtgauge.errors import UsageError
from rtgauge.model import Metric
from rtgauge.report.document import Report
from rtgauge.report.formats.exporter import TextExporter
from rtgauge.run import Run

US = 1000
MAX_LINES = 10_000  # 10 ms of 1 µs lines; beyond, overflows
_LATENCY = re.compile(r"^timer\.wakeup\.([a-z0-9_]+)\.(cpu|thread)(\d+)$")


def latency_columns(run: Run) -> list[Metric]:
    """The first latency test's per-CPU (or per-thread) metrics, in CPU order."""
    for t in run.tests:
        groups: dict[str, list[tuple[int, Metric]]] = {}
        for m in t.metrics:
            found = _LATENCY.match(m.name)
            if found and m.count:
                groups.setdefault(found.group(1), []).append((int(found.group(3)), m))
        if groups:
            cols = next(iter(groups.values()))
            return [m for _, m in sorted(cols, key=lambda c: c[0])]
    raise UsageError("no wake-up latency histogram in this run (TMR-P-LAT) to export")


def _ns(v: float | None) -> float:
    assert v is not None  # a figure with samples has its statistics
    return v


def to_us_buckets(metric: Metric, lines: int) -> tuple[list[int], int]:
    counts = [0] * lines
    over = metric.hist.overflow
    top = int(_ns(metric.max)) // US
    for _, hi, n in metric.hist.buckets:
        k = min((hi - 1) // US, top)  # no sample lies above the maximum
        if k < lines:
            counts[k] += n
        else:
            over += n
    return counts, over


def cyclictest_hist(run: Run) -> str:
    cols = latency_columns(run)
    top = max(int(_ns(m.max)) // US for m in cols)
    lines = min(top + 1, MAX_LINES)
    per = [to_us_buckets(m, lines) for m in cols]
    out = ["# Histogram"]
    for i in range(lines):
        out.append(f"{i:06d} " + "\t".join(f"{c[i]:06d}" for c, _ in per))
    out.append("# Total: " + " ".join(f"{sum(c):09d}" for c, _ in per))
    out.append("# Min Latencies: " + " ".join(f"{int(_ns(m.min)) // US:05d}" for m in cols))
    out.append("# Avg Latencies: " + " ".join(f"{round(_ns(m.mean) / US):05d}" for m in cols))
    out.append("# Max Latencies: " + " ".join(f"{int(_ns(m.max)) // US:05d}" for m in cols))
    out.append("# Histogram Overflows: " + " ".join(f"{o:05d}" for _, o in per))
    return "\n".join(out) + "\n"


class CyclictestHistExporter(TextExporter):
    """Latency histograms in cyclictest's -h layout (OSADL's plots read it)."""

    name, suffix = "cyclictest-hist", ".hist.txt"

    def render(self, report: Report) -> str:
        if not report.runs:
            raise UsageError("cyclictest-hist needs a run")
        return cyclictest_hist(report.runs[0])
