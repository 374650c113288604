"""cyclictest histogram output (-h N, on stdout or --histfile).

One line per 1 µs bucket, `bucket count count ...` (a column per thread; -H
adds a last column with all threads), then a footer:
    # Total: <held in the histogram, per column>
    # Min Latencies / # Avg Latencies: per thread (not for the -H column)
    # Max Latencies / # Histogram Overflows: per column
The file says nothing of the system or the command line.
"""

from __future__ import annotations

import re

from rtgauge.errors import UsageError
from rtgauge.importers.bundle import Imported
from rtgauge.importers.columns import Column, merged, metric

SOURCE = "cyclictest -h histogram"
METRIC = "timer.wakeup.clock_nanosleep"
US = 1000
FOOTER = ("Total", "Min Latencies", "Avg Latencies", "Max Latencies", "Histogram Overflows")
_ROW = re.compile(r"^\d+(\s+\d+)+$")


def looks_like(text: str) -> bool:
    return "# Histogram" in text[:2000] or "# Total:" in text


def _ints(values: str, what: str, where: str) -> list[int]:
    try:
        return [int(v) for v in values.split()]
    except ValueError:
        raise UsageError(f"{where}: '# {what}:' holds something other than numbers") from None


def parse(text: str, where: str) -> Imported:
    rows: list[list[int]] = []
    footer: dict[str, list[int]] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = re.match(r"#\s*([A-Za-z ]+?):\s*(.*)$", line)
            if m and m.group(1) in FOOTER:
                footer[m.group(1)] = _ints(m.group(2), m.group(1), where)
            continue
        if footer:
            break  # anything after the footer (another run's output) is not ours
        if not _ROW.match(line):
            raise UsageError(f"{where}:{n}: not a histogram line: {line[:40]!r}")
        rows.append([int(v) for v in line.split()])
    if not rows:
        raise UsageError(f"{where}: no histogram lines (not cyclictest -h output?)")
    missing = [k for k in FOOTER if k not in footer]
    if missing:
        raise UsageError(f"{where}: truncated: the footer has no '# {missing[0]}:' line")
    ncol = len(rows[0]) - 1
    if any(len(r) != ncol + 1 for r in rows):
        raise UsageError(f"{where}: histogram lines have different numbers of columns")
    threads = len(footer["Min Latencies"])
    all_column = threads == ncol - 1  # -H: the last column holds every thread
    if threads != ncol and not all_column:
        raise UsageError(f"{where}: {ncol} histogram columns but {threads} threads in the footer")
    for key in ("Total", "Max Latencies", "Histogram Overflows"):
        if len(footer[key]) != ncol:
            raise UsageError(f"{where}: '# {key}:' has {len(footer[key])} values, not {ncol}")
    limit = (rows[-1][0] + 1) * US
    columns = []
    for c in range(ncol):
        name = f"{METRIC}.all" if all_column and c == ncol - 1 else f"{METRIC}.thread{c}"
        col = Column(name, US, limit_ns=limit)
        for r in rows:
            if r[c + 1]:
                col.counts[r[0] * US] = r[c + 1]
        held = sum(col.counts.values())
        if held != footer["Total"][c]:
            raise UsageError(
                f"{where}: column {c} holds {held} samples but '# Total:' says "
                f"{footer['Total'][c]}; truncated?"
            )
        col.over = footer["Histogram Overflows"][c]
        col.max_ns = float(footer["Max Latencies"][c] * US)
        if c < threads:
            col.min_ns = float(footer["Min Latencies"][c] * US)
            col.mean_ns = float(footer["Avg Latencies"][c] * US)
        columns.append(col)
    per_thread = columns[:threads]
    if all_column:
        whole = columns[-1]
        # Min and mean of all threads from the per-thread columns.
        summed = merged(whole.name, per_thread)
        whole.min_ns, whole.mean_ns = summed.min_ns, summed.mean_ns
    metrics = [metric(c) for c in per_thread]
    if all_column:
        metrics.append(metric(columns[-1]))
    elif threads > 1:
        metrics.append(metric(merged(f"{METRIC}.all", per_thread)))
    return Imported(
        source=SOURCE,
        test_id="TMR-P-LAT",
        title="Periodic wake-up latency (cyclictest)",
        family_title="Timers and wake-up latency",
        release_latency="timer.wakeup.",  # from the programmed expiry
        metrics=metrics,
        info={"threads": threads, "histogram_buckets_us": len(rows)},
        notes=["cyclictest prints averages rounded to whole µs: the means are that coarse"],
    )
