"""rtla timerlat hist and rtla osnoise hist output.

    # RTLA timerlat histogram
    # Time unit is microseconds (us)          (or nanoseconds (ns) with -n)
    # Duration:   0 00:10:00
    Index   IRQ-000   Thr-000   Usr-000   IRQ-001 ...   (osnoise: CPU-000 ...)
    0        276489         0 ...
    over:         0 ...
    count:   600002 ...
    min: / avg: / max:
    ALL: ...                                   (newer rtla: totals, not read)

Index is the bucket's low edge in the time unit (with -b, a multiple of the
bucket size); rows with only zeros may be left out. "over" counts the
samples beyond the last bucket.
"""

from __future__ import annotations

import math
import re

from rtgauge.errors import UsageError
from rtgauge.importers.bundle import Imported
from rtgauge.importers.columns import Column, metric

STATS = ("over", "count", "min", "avg", "max")
# column prefix -> (metric name, test id) for each tool
TIMERLAT = {
    "IRQ": "irq.service.timerlat_irq",
    "Thr": "irq.task.timerlat_thread",
    "Usr": "irq.task.timerlat_user",
}
OSNOISE = {"CPU": "clock.gap.osnoise"}


def looks_like(text: str) -> bool:
    return "# RTLA " in text[:200] or bool(re.search(r"^Index\s+(IRQ|Thr|Usr|CPU)-\d+", text, re.M))


def _value(text: str, where: str) -> int | None:
    if text in ("-", ""):
        return None
    if not text.isdigit():
        raise UsageError(f"{where}: {text!r} is not a number of 0 or more")
    return int(text)


def parse(text: str, where: str) -> Imported:
    lines = [ln.strip() for ln in text.splitlines()]
    unit = 1000
    header: list[str] | None = None
    rows: list[list[int]] = []
    stats: dict[str, list[int | None]] = {}
    for n, line in enumerate(lines, start=1):
        w = f"{where}:{n}"
        if not line:
            continue
        if line.startswith("#"):
            if "nanoseconds" in line:
                unit = 1
            continue
        words = line.split()
        if words[0] == "Index":
            header = words[1:]
            continue
        if words[0] == "ALL:":
            break  # the newer summary over all CPUs: derived, not read
        if header is None:
            raise UsageError(f"{w}: no 'Index' header before the data (not rtla hist output?)")
        if len(words) != len(header) + 1:
            raise UsageError(f"{w}: {len(words) - 1} values for {len(header)} columns; truncated?")
        key = words[0].rstrip(":")
        if words[0].endswith(":"):
            if key in STATS:
                stats[key] = [_value(v, w) for v in words[1:]]
            continue
        if stats:
            raise UsageError(f"{w}: a histogram line after the summary")
        values = [_value(v, w) for v in words]
        if any(v is None for v in values):
            raise UsageError(f"{w}: a histogram line with a missing value")
        rows.append([int(v) for v in values if v is not None])
    if header is None:
        raise UsageError(f"{where}: no 'Index' header (not rtla hist output?)")
    missing = [k for k in STATS if k not in stats]
    if missing:
        raise UsageError(f"{where}: truncated: no '{missing[0]}:' line")
    kinds = {h.split("-")[0] for h in header}
    names = TIMERLAT if kinds <= set(TIMERLAT) else OSNOISE if kinds <= set(OSNOISE) else None
    if names is None or not all(re.fullmatch(r"[A-Za-z]+-\d+", h) for h in header):
        raise UsageError(f"{where}: unknown columns {' '.join(header)[:60]!r}")
    width = _bucket(rows) * unit
    limit = (rows[-1][0] * unit + width) if rows else None
    metrics = []
    cpus: list[int] = []
    for c, h in enumerate(header):
        kind, cpu = h.split("-")
        col = Column(f"{names[kind]}.cpu{int(cpu)}", width, limit_ns=limit)
        for r in rows:
            if r[c + 1]:
                col.counts[r[0] * unit] = r[c + 1]
        col.over = stats["over"][c] or 0
        count = stats["count"][c]
        if count is not None and count != col.total:
            raise UsageError(
                f"{where}: column {h} holds {col.total} samples but 'count:' says {count}; "
                "truncated?"
            )
        for key, attr in (("min", "min_ns"), ("avg", "mean_ns"), ("max", "max_ns")):
            v = stats[key][c]
            setattr(col, attr, None if v is None or not col.total else float(v * unit))
        metrics.append(metric(col))
        if int(cpu) not in cpus:
            cpus.append(int(cpu))
    timerlat = names is TIMERLAT
    return Imported(
        source="rtla timerlat hist" if timerlat else "rtla osnoise hist",
        test_id="IRQ-P-LAT" if timerlat else "CLK-P-DUR",
        title="Timer IRQ and thread latency (rtla timerlat)"
        if timerlat
        else "Operating system noise (rtla osnoise)",
        family_title="Interrupt-level response" if timerlat else "Clocks",
        release_latency="irq." if timerlat else None,  # timerlat: from the timer's expiry
        metrics=metrics,
        cpus=cpus,
        info={"columns": header, "bucket_ns": width},
        notes=["rtla prints averages rounded to its time unit: the means are that coarse"],
    )


def _bucket(rows: list[list[int]]) -> int:
    """The bucket size: the greatest common step between the indexes shown
    (rows of zeros may be missing, so consecutive differences can be larger)."""
    step = 0
    for a, b in zip(rows, rows[1:], strict=False):
        step = math.gcd(step, b[0] - a[0])
    return step or 1
