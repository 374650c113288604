"""cyclictest --json (rt-tests 2.x).

Keys as rt-tests writes them: "cmdline:" and "rt_test_version:" carry a
trailing colon; "resolution_in_ns" 1 means the values are in ns, else µs.
Each thread has cycles, min, max, avg and a sparse "histogram" (bucket →
count, empty without -h); the JSON has no overflow count: the cycles the
histogram does not hold lie above its last bucket.
"""

from __future__ import annotations

import json
from email.utils import parsedate_to_datetime
from typing import Any

from rtgauge.errors import UsageError
from rtgauge.importers.bundle import Imported
from rtgauge.importers.columns import Column, merged, metric
from rtgauge.importers.cyclictest_cmdline import parse_cmdline

SOURCE = "cyclictest --json"
METRIC = "timer.wakeup.clock_nanosleep"


def looks_like(text: str) -> bool:
    head = text.lstrip()[:400]
    return head.startswith("{") and ('"rt_test_version:"' in head or '"file_version"' in head)


def _num(v: Any, what: str, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1e18:
        raise UsageError(f"{where}: {what} is not a number of 0 or more")
    return float(v)


def _started(text: Any) -> str | None:
    try:
        return parsedate_to_datetime(str(text)).isoformat(timespec="seconds")
    except (TypeError, ValueError, OverflowError):  # a year past datetime's 9999
        return None


def parse(text: str, where: str) -> Imported:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not JSON ({exc.msg} at line {exc.lineno}); truncated?") from exc
    if not isinstance(data, dict) or not isinstance(data.get("thread"), dict):
        raise UsageError(f"{where}: not cyclictest --json output (no 'thread' object)")
    scale = 1 if data.get("resolution_in_ns") else 1000
    cmdline = data.get("cmdline:")
    opts = parse_cmdline(cmdline) if isinstance(cmdline, str) else None
    threads = sorted(data["thread"].items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else -1)
    if not threads:
        raise UsageError(f"{where}: no threads in the file")
    cpus = [t.get("cpu") for _, t in threads if isinstance(t, dict)]
    by_cpu = bool(opts and opts.pinned) and len(set(cpus)) == len(cpus)
    columns: list[Column] = []
    for key, t in threads:
        w = f"{where}: thread {key}"
        if not isinstance(t, dict) or not isinstance(t.get("histogram"), dict):
            raise UsageError(f"{w}: no histogram object")
        cycles = int(_num(t.get("cycles"), "cycles", w))
        suffix = f"cpu{int(t['cpu'])}" if by_cpu else f"thread{int(key)}"
        col = Column(f"{METRIC}.{suffix}", scale)
        for bucket, n in t["histogram"].items():
            if not str(bucket).isdigit():
                raise UsageError(f"{w}: histogram bucket {bucket!r} is not a number")
            col.counts[int(bucket) * scale] = int(_num(n, f"bucket {bucket}", w))
        held = sum(col.counts.values())
        if held > cycles:
            raise UsageError(f"{w}: the histogram holds {held} samples, more than {cycles} cycles")
        col.min_ns = _num(t.get("min"), "min", w) * scale
        col.max_ns = _num(t.get("max"), "max", w) * scale
        col.mean_ns = _num(t.get("avg"), "avg", w) * scale
        col.over = cycles - held
        if held:
            col.limit_ns = (max(col.counts) + scale) if col.over else None
        columns.append(col)
    metrics = [metric(c) for c in columns]
    if len(columns) > 1:
        metrics.append(metric(merged(f"{METRIC}.all", columns)))
    raw_sysinfo = data.get("sysinfo")
    sysinfo: dict[str, Any] = raw_sysinfo if isinstance(raw_sysinfo, dict) else {}
    return Imported(
        source=SOURCE,
        test_id="TMR-P-LAT",
        title="Periodic wake-up latency (cyclictest)",
        family_title="Timers and wake-up latency",
        release_latency="timer.wakeup.",  # from the programmed expiry
        metrics=metrics,
        tool_version=str(data.get("rt_test_version:") or "") or None,
        command=cmdline if isinstance(cmdline, str) else None,
        started_at=_started(data.get("start_time")),
        host={
            "hostname": sysinfo.get("nodename"),
            "os": sysinfo.get("sysname"),
            "release": sysinfo.get("release"),
            "version": sysinfo.get("version"),
            "machine": sysinfo.get("machine"),
        },
        realtime=bool(sysinfo["realtime"]) if "realtime" in sysinfo else None,
        policy=opts.policy if opts and data.get("return_code") == 0 else None,
        prio=opts.prio if opts and data.get("return_code") == 0 else None,
        mlockall=opts.mlockall if opts and data.get("return_code") == 0 else None,
        cpus=[int(c) for c in cpus if isinstance(c, int) and c >= 0] if by_cpu else [],
        options={"period_us": opts.interval_us} if opts and opts.interval_us else {},
        info={"threads": len(columns), "return_code": data.get("return_code")},
        notes=[]
        if any(c.counts for c in columns)
        else ["no histogram in the file (cyclictest without -h): only min, mean and max are known"],
    )
