#!/usr/bin/env python3
"""What does `rtgauge monitor` cost the target? Its CPU time per wall second
(utime + stime of the monitor and of the probe processes it starts, from
/proc) while it measures TMR-P-LAT interval by interval, beside the same for
a plain cyclictest at the same period on the same CPUs, one after the other
in each round. Writes its section of bench/RESULTS.md. A benchmark, never a
test: nothing here passes or fails.

A process's CPU time is read from /proc/<pid>/stat: its utime + stime, plus
cutime + cstime (the children it has reaped: each interval's probe, the
probe's test process). Summed over the monitor and its live descendants at
an instant, it is everything the tree has used until then. The monitor is
measured from its first closed interval (its start-up, scipy loaded for the
analysis, is counted apart) over --seconds of wall time; cyclictest from 1 s
after its start over as long. The flight recorder's kernel-side cost (the
tracepoints) falls on whatever task is running and is not in these figures.

Usage: bench/monitor_cost.py [--rounds 3] [--seconds 30] [--interval 10s]
                             [--cpus 0-1] [--no-write]
(as root: both run SCHED_FIFO 95 with mlockall)
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from results_file import write_section

ROOT = Path(__file__).resolve().parents[1]
BEGIN = "<!-- monitor-cost: begin (bench/monitor_cost.py) -->"
END = "<!-- monitor-cost: end -->"
TICK = os.sysconf("SC_CLK_TCK")
PERIOD_US = 1000  # TMR-P-LAT's default period; cyclictest -i the same


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of the process and its reaped children)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()  # after the command name
    ppid = int(fields[1])
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return ppid, (utime + stime + cutime + cstime) / TICK


def tree_cpu(root: int) -> float:
    """CPU seconds used so far by root and every live descendant."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (s := _stat(int(entry))) is not None:
            stats[int(entry)] = s
    total, frontier = 0.0, [root]
    while frontier:
        pid = frontier.pop()
        if pid in stats:
            total += stats[pid][1]
            frontier += [p for p, (ppid, _) in stats.items() if ppid == pid]
    return total


@dataclass
class Rate:
    cpu_s: float
    wall_s: float

    @property
    def per_s(self) -> float:
        return self.cpu_s / self.wall_s


def monitor_rate(cpus: str, interval: str, seconds: float, store: Path) -> tuple[Rate, float]:
    """The monitor's CPU per wall second from its first closed interval on,
    and the CPU seconds it took until then (start-up, first interval)."""
    probe = os.environ.get("RTGAUGE_PROBE", str(ROOT / "build" / "rtgauge-probe"))
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "rtgauge.cli.main", "monitor", "--probe", probe,
            "--cpus", cpus, "--interval", interval, "--store", str(store),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )  # fmt: skip
    first = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("interval "):
                first.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if not first.wait(timeout=300):
            sys.exit("the monitor closed no interval within 300 s")
        t0, c0 = time.monotonic(), tree_cpu(proc.pid)
        time.sleep(seconds)  # the span measured
        t1, c1 = time.monotonic(), tree_cpu(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
        reader.join(timeout=10)
    return Rate(c1 - c0, t1 - t0), c0


def gaps_ms(store: Path) -> list[float]:
    """The gap before each interval the monitor kept but its first."""
    lines = [x for p in sorted(store.glob("intervals/*.jsonl")) for x in p.read_text().splitlines()]
    return [float(json.loads(x)["gap_ms"]) for x in lines[1:]]


def cyclictest_rate(cpus: str, seconds: float) -> Rate:
    proc = subprocess.Popen(
        ["cyclictest", "-m", "-p95", f"-i{PERIOD_US}", "-t", "-a", cpus, "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(1.0)  # its threads started
        t0, c0 = time.monotonic(), tree_cpu(proc.pid)
        time.sleep(seconds)
        t1, c1 = time.monotonic(), tree_cpu(proc.pid)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    return Rate(c1 - c0, t1 - t0)


def _spread(values: list[float], fmt: str) -> str:
    return " / ".join(format(v, fmt) for v in (min(values), statistics.mean(values), max(values)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--interval", default="10s")
    ap.add_argument("--cpus", default=f"0-{(os.cpu_count() or 1) - 1}")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    rows, ratios, mon, cyc, startup = [], [], [], [], []
    gaps: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(1, args.rounds + 1):
            m, start = monitor_rate(args.cpus, args.interval, args.seconds, Path(tmp) / str(n))
            gaps += gaps_ms(Path(tmp) / str(n))
            c = cyclictest_rate(args.cpus, args.seconds)
            mon.append(m.per_s)
            cyc.append(c.per_s)
            startup.append(start)
            ratios.append(m.per_s / c.per_s if c.per_s > 0 else float("inf"))
            rows.append(
                f"| {n} | {m.cpu_s:.2f} s / {m.wall_s:.1f} s = {1000 * m.per_s:.1f} ms/s "
                f"| {c.cpu_s:.2f} s / {c.wall_s:.1f} s = {1000 * c.per_s:.1f} ms/s "
                f"| {ratios[-1]:.2f} | {start:.2f} s |"
            )
            print(rows[-1], flush=True)
    summary = (
        f"| min / mean / max | {_spread([1000 * x for x in mon], '.1f')} ms/s "
        f"| {_spread([1000 * x for x in cyc], '.1f')} ms/s | {_spread(ratios, '.2f')} "
        f"| {_spread(startup, '.2f')} s |"
    )
    print(summary)
    gap = (
        f"The gap between intervals (gap_ms, {len(gaps)} intervals after each monitor's "
        f"first): min / mean / max {_spread(gaps, '.0f')} ms."
        if gaps
        else "No interval after a monitor's first: no gap measured."
    )
    print(gap)
    root = ", as root" if os.geteuid() == 0 else ""
    text = "\n".join(
        [
            BEGIN,
            "## What the monitor costs (bench/monitor_cost.py)",
            "",
            f"Measured {datetime.now(UTC):%Y-%m-%d} on {os.uname().nodename} "
            f"({os.cpu_count()} CPUs{root}): `rtgauge monitor` (TMR-P-LAT, period "
            f"{PERIOD_US} µs, intervals of {args.interval}, flight recorder on, no server) "
            f"beside `cyclictest -m -p95 -i{PERIOD_US} -t -a {args.cpus}`, both on CPUs "
            f"{args.cpus}, one after the other in each of {args.rounds} rounds of "
            f"{args.seconds:g} s. CPU time is utime + stime (+ reaped children's) from "
            "/proc/<pid>/stat of the process and its live descendants: for the monitor its "
            "Python process and every probe (and test process) it started, from its first "
            "closed interval on; its start-up until then (scipy loaded, the first interval) "
            "is the last column. Command:",
            "",
            "```sh",
            f"bench/monitor_cost.py --rounds {args.rounds} --seconds {args.seconds:g} "
            f"--interval {args.interval} --cpus {args.cpus}",
            "```",
            "",
            "| round | monitor CPU / wall | cyclictest CPU / wall | ratio | monitor start-up |",
            "|---|---|---|---|---|",
            *rows,
            summary,
            "",
            gap,
            "",
            "Each interval is a probe run of its own (docs/monitor.md): the probe's start (its",
            "system facts), the flight recorder's set-up and the host's explanation of each",
            "interval's worst come once per interval, so the monitor's cost per second falls",
            "as the interval grows (5 min by default). The recorder's kernel-side cost (its",
            "tracepoints) falls on whatever task runs and is in neither column.",
            END,
        ]
    )
    if not args.no_write:
        write_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, text + "\n")


if __name__ == "__main__":
    main()
