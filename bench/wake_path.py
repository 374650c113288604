#!/usr/bin/env python3
"""Where a timer wake-up's latency goes, rtgauge beside cyclictest: both
run the same wake-ups (1 ms period, every CPU, aligned: TMR-P-LAT
align=same, cyclictest -S -d0 -A 0) in interleaved rounds under a tracefs
instance of this script's own (`mono` clock), which splits each wake-up of
each tool's measuring threads into

  irq     the programmed expiry (hrtimer_start's `expires`, ns) to the
          timer interrupt handling it (hrtimer_expire_entry's `now`, ns);
  switch  that interrupt to the thread switched in (sched_switch);
  return  the switch to clock_nanosleep's return to user space (sys_exit);
  kernel  the three together, per wake-up: expiry to the return;

the tool's own latency is those plus the read of the clock in user space.
The kernel parts are the same code for both tools: if their minima agree
and the tools' minima do not, the difference lies in user space. A
benchmark, never a test. As root; the instance is removed and tracefs
unmounted (if this script mounted it) on every path out.

Usage: bench/wake_path.py [--seconds S] [--rounds R] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pairing import PROBE, ROOT, cyclictest_out
from results_file import write_section

BEGIN = "<!-- wake-path: begin (bench/wake_path.py) -->"
END = "<!-- wake-path: end -->"
TRACEFS = Path("/sys/kernel/tracing")
CLOCK_NANOSLEEP = 230  # x86-64 syscall number
EVENTS = ("timer/hrtimer_start", "timer/hrtimer_expire_entry", "sched/sched_switch")
LINE = re.compile(
    r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\].*?\s(?P<ts>\d+\.\d+): (?P<ev>\w+): (?P<rest>.*)$"
)
PARTS = ("irq", "switch", "return", "kernel")


@contextmanager
def instance(name: str) -> Iterator[Path]:
    mounted = False
    if not (TRACEFS / "events").exists():
        subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], check=True)
        mounted = True
    inst = TRACEFS / "instances" / name
    try:
        inst.mkdir()
        (inst / "trace_clock").write_text("mono")
        (inst / "buffer_size_kb").write_text("16384")
        for ev in EVENTS:
            (inst / "events" / ev / "enable").write_text("1")
        sys_exit = inst / "events" / "raw_syscalls" / "sys_exit"
        (sys_exit / "filter").write_text(f"id == {CLOCK_NANOSLEEP}")
        (sys_exit / "enable").write_text("1")
        yield inst
    finally:
        if inst.exists():
            (inst / "tracing_on").write_text("0")
            inst.rmdir()
        if mounted:
            subprocess.run(["umount", str(TRACEFS)], check=False)


def field(rest: str, key: str) -> str:
    m = re.search(rf"\b{key}=(\S+)", rest)
    return m.group(1) if m else ""


def split(trace: str, tids: set[int]) -> dict[str, list[float]]:
    """Per wake-up of a thread in tids: its parts, in µs."""
    armed: dict[str, tuple[int, int]] = {}  # hrtimer -> (tid, expires ns)
    fired: dict[int, tuple[int, int]] = {}  # tid -> (expiry ns, irq now ns)
    switched: dict[int, float] = {}  # tid -> switch-in ts (ns)
    parts: dict[str, list[float]] = defaultdict(list)
    for line in trace.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        pid, ev, rest = int(m["pid"]), m["ev"], m["rest"]
        ts = float(m["ts"]) * 1e9
        if ev == "hrtimer_start" and pid in tids and "hrtimer_wakeup" in rest:
            armed[field(rest, "hrtimer")] = (pid, int(field(rest, "expires")))
        elif ev == "hrtimer_expire_entry":
            a = armed.pop(field(rest, "hrtimer"), None)
            now = int(field(rest, "now") or 0)
            # A timer never fires before its expiry: an earlier "now" is
            # another arming of the same (stack) hrtimer, not this one.
            if a and now >= a[1]:
                fired[a[0]] = (a[1], now)
        elif ev == "sched_switch":
            nxt = int(field(rest, "next_pid") or -1)
            if nxt in fired and ts >= fired[nxt][1] - 1e3:  # µs print precision
                switched[nxt] = ts
        elif ev == "sys_exit" and pid in fired:
            expires, fired_at = fired.pop(pid)
            sw = switched.pop(pid, None)
            if sw is None or ts < sw:
                continue
            parts["irq"].append((fired_at - expires) / 1e3)
            parts["switch"].append(max(sw - fired_at, 0.0) / 1e3)
            parts["return"].append((ts - sw) / 1e3)
            parts["kernel"].append((ts - expires) / 1e3)
    return parts


def threads_of(pid: int) -> set[int]:
    return {int(t) for t in os.listdir(f"/proc/{pid}/task")}


def traced_run(inst: Path, cmd: list[str], secs: int) -> tuple[dict[str, list[float]], str]:
    """Runs cmd under the instance; the wake-ups of its threads that sleep on
    a timer, and its own output."""
    (inst / "trace").write_text("")
    (inst / "tracing_on").write_text("1")
    tids: set[int] = set()
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as p:
        for _ in range(secs * 10):  # its threads, as they come
            try:
                tids |= threads_of(p.pid)
                for t in list(tids):
                    for c in Path(f"/proc/{p.pid}/task/{t}/children").read_text().split():
                        tids |= threads_of(int(c))
            except OSError:
                pass
            if p.poll() is not None:
                break
            subprocess.run(["sleep", "0.1"], check=False)
        out, _ = p.communicate(timeout=secs + 60)
    (inst / "tracing_on").write_text("0")
    return split((inst / "trace").read_text(), tids), out


def figures(xs: list[float]) -> str:
    if not xs:
        return "— | — | —"
    return f"{min(xs):.2f} | {statistics.mean(xs):.2f} | {statistics.median(xs):.2f}"


def probe_min_mean(out: str) -> tuple[float, float]:
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("id") == "TMR-P-LAT":
            ms = [m for m in r["metrics"] if m["name"].endswith(".all") and m["count"]]
            n = sum(m["count"] for m in ms)
            return min(m["min"] for m in ms) / 1e3, sum(
                m["mean"] * m["count"] for m in ms
            ) / n / 1e3
    raise ValueError("no TMR-P-LAT record")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("wake_path: needs root (tracefs, SCHED_FIFO)", file=sys.stderr)
        return 2
    tools = {
        "cyclictest": ["cyclictest", "-m", "-p95", "-i1000", "-d0", f"-D{a.seconds}", "-q", "-S", "-A", "0"],
        "rtgauge": [
            str(PROBE), "--tests", "TMR-P-LAT", "--prio", "95", "--no-explain",
            "--opt", f"TMR-P-LAT.duration_ms={a.seconds * 1000}", "--opt", "TMR-P-LAT.period_us=1000",
            "--opt", "TMR-P-LAT.align=same",
        ],
    }  # fmt: skip
    parts: dict[str, dict[str, list[float]]] = {t: defaultdict(list) for t in tools}
    own: dict[str, list[tuple[float, float]]] = {t: [] for t in tools}
    with instance(f"rtgauge-bench-wake-path-{os.getpid()}") as inst:
        for _ in range(a.rounds):
            for tool, cmd in tools.items():
                p, out = traced_run(inst, cmd, a.seconds)
                for k in PARTS:
                    parts[tool][k] += p[k]
                if tool == "cyclictest":
                    f = cyclictest_out(out)
                    own[tool].append((f["min"], f["avg"]))
                else:
                    own[tool].append(probe_min_mean(out))
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        BEGIN,
        "",
        "### Where a wake-up's latency goes: rtgauge beside cyclictest, traced",
        "",
        f"Run {now}: `bench/wake_path.py --seconds {a.seconds} --rounds {a.rounds}`, "
        "TMR-P-LAT align=same `--no-explain` and `cyclictest -m -p95 -i1000 -d0 -q -S -A 0`, "
        "interleaved, each under a tracefs instance (`mono` clock) of the script's own. "
        "Parts per wake-up of the tools' measuring threads, µs (min | mean | median); "
        "irq from ns fields, switch and return at the trace's µs print precision.",
        "",
        "| part | cyclictest min | mean | median | rtgauge min | mean | median |",
        "|---|---|---|---|---|---|---|",
    ]
    for k in PARTS:
        lines.append(
            f"| {k} | {figures(parts['cyclictest'][k])} | {figures(parts['rtgauge'][k])} |"
        )
    n = {t: len(parts[t]["irq"]) for t in tools}
    lines += [
        "",
        f"Wake-ups split: cyclictest {n['cyclictest']}, rtgauge {n['rtgauge']}.",
        "",
        "| the tool's own latency per round, µs | cyclictest | rtgauge |",
        "|---|---|---|",
    ]
    for what, pick in (("min", 0), ("mean", 1)):
        per = {t: ", ".join(f"{r[pick]:.2f}" for r in own[t]) for t in tools}
        lines.append(f"| {what} | {per['cyclictest']} | {per['rtgauge']} |")
    lines += ["", END]
    text = "\n".join(lines)
    print(text)
    if not a.no_write:
        write_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
