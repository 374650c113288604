#!/usr/bin/env python3
"""Where the kernel's SCHED_DEADLINE period grid lies against the grid
DLN-P-LAT times its activations on (due = t_set + k x period, t_set read
just before the sched_setattr call: core/catalogue/dln/dln_common.c),
measured: the kernel's activation instant is its deadline timer's
`expires`, which no test can read without tracing.

Each run of DLN-P-LAT (and, with --peer, of cyclicdeadline, interleaved) is
traced in a tracefs instance of this script's own, trace_clock mono (the
probe's CLOCK_MONOTONIC): the task's sched_setattr entry (t_set, to the
trace's µs; the probe reads its own just before, by the syscall entry),
each start of its replenishment timer (dl_task_timer, `expires` in
CLOCK_MONOTONIC ns), the timer's expiry and the task's switch-in; --long S
adds one run of 100 ms periods over S s, for the drift. Per run:
the grid origin (expires_1 - period - t_set), due - expires over the
periods up to the first skipped one (min/mean/max), its drift (median
slope, ppm), the kernel's own latency expires -> switch-in beside
DLN-P-LAT's figure; for cyclicdeadline, its grid rebuilt from the
instants it gave up its periods, against the kernel's.

tracefs is mounted at a private folder for the run (never touching the
mount at /sys/kernel/tracing, if any); the instance is removed and the
folder unmounted on every way out (an error, Ctrl-C, SIGTERM, SIGHUP; not
SIGKILL). The traced program runs under a name of its own (a link), so the
filters keep the machine's other runs of it out. Runs as root.
Usage: bench/dln_grid_origin.py [--runs R] [--long S] [--periods N] [--period-us P]
           [--runtime-us R] [--peer] [--seconds S] [--save-trace PREFIX] [--write]
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType

from results_file import write_section

ROOT = Path(__file__).resolve().parents[1]
PROBE = Path(os.environ.get("RTGAUGE_PROBE", ROOT / "build" / "rtgauge-probe"))
BEGIN = "<!-- dln-grid-origin: begin (bench/dln_grid_origin.py) -->"
END = "<!-- dln-grid-origin: end -->"
LINE = re.compile(
    r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?"
    r"(?P<s>\d+)\.(?P<frac>\d+):\s+(?P<event>\w+)(?::\s*|(?=\())(?P<body>.*)$"
)
KV = re.compile(r"(\w+)=(\S+)")


@dataclass
class Event:
    ts: int  # ns, CLOCK_MONOTONIC (printed by tracefs to the µs)
    pid: int
    event: str
    body: str
    kv: dict[str, str] = field(default_factory=dict)


def _stop(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through every finally below


def _write(path: Path, text: str) -> None:
    path.write_text(text)


@contextmanager
def tracefs_instance(name: str) -> Iterator[Path]:
    """A tracefs instance in a private mount of tracefs; both gone after."""
    mnt = Path(tempfile.mkdtemp(prefix="dln-grid-origin."))
    mounted = False
    inst = mnt / "instances" / name
    try:
        subprocess.run(
            ["mount", "-t", "tracefs", "-o", "nosuid,nodev,noexec", "tracefs", str(mnt)],
            check=True,
        )
        mounted = True
        inst.mkdir(mode=0o700)
        yield inst
    finally:
        if inst.exists():
            try:
                _write(inst / "tracing_on", "0")
            except OSError:
                pass
            for _ in range(100):  # a reader being closed may hold the buffer a moment
                try:
                    inst.rmdir()
                    break
                except OSError:
                    time.sleep(0.02)
            else:
                print(f"dln_grid_origin: could not remove {inst}", file=sys.stderr)
        if mounted and subprocess.run(["umount", str(mnt)]).returncode != 0:
            subprocess.run(["umount", "-l", str(mnt)])
        try:
            mnt.rmdir()
        except OSError:
            print(f"dln_grid_origin: {mnt} left behind", file=sys.stderr)


def dl_timer_address() -> str | None:
    for line in Path("/proc/kallsyms").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[2] == "dl_task_timer" and int(parts[0], 16):
            return "0x" + parts[0]
    return None


def arm(inst: Path, comm: str) -> None:
    """trace_clock mono and the events, filtered to the deadline timer and
    to the switches of threads named comm (sched_setattr is rare: all)."""
    _write(inst / "trace_clock", "mono")
    _write(inst / "buffer_size_kb", "4096")
    _write(inst / "options" / "overwrite", "0")  # a full buffer stops, it loses no start
    ev = inst / "events"
    addr = dl_timer_address()
    for e in ("hrtimer_start", "hrtimer_expire_entry"):
        if addr:
            try:
                _write(ev / "timer" / e / "filter", f"function == {addr}")
            except OSError:
                pass  # unfiltered: the parser keeps function=dl_task_timer only
        _write(ev / "timer" / e / "enable", "1")
    either = f'prev_comm == "{comm}" || next_comm == "{comm}"'
    _write(ev / "sched" / "sched_switch" / "filter", either)
    _write(ev / "sched" / "sched_switch" / "enable", "1")
    setattr_ev = ev / "syscalls" / "sys_enter_sched_setattr"
    if setattr_ev.exists():
        _write(setattr_ev / "enable", "1")
    elif platform.machine() == "x86_64":  # its number, without per-call syscall events
        _write(ev / "raw_syscalls" / "sys_enter" / "filter", "id == 314")
        _write(ev / "raw_syscalls" / "sys_enter" / "enable", "1")
    else:
        raise ValueError("no sched_setattr event to trace (CONFIG_FTRACE_SYSCALLS)")


def dropped(inst: Path) -> int:
    n = 0
    for stats in (inst / "per_cpu").glob("cpu*/stats"):
        for line in stats.read_text().splitlines():
            key, _, val = line.partition(":")
            if key.strip() in ("overrun", "dropped events"):
                n += int(val.split()[0])
    return n


def parse(text: str) -> list[Event]:
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        ts = int(m["s"]) * 1_000_000_000 + int(m["frac"].ljust(9, "0")[:9])
        body = m["body"]
        out.append(Event(ts, int(m["pid"]), m["event"], body, dict(KV.findall(body))))
    return out


@dataclass
class Grid:
    """One deadline task's activations from the trace, up to the first gap
    (a skipped period: after it the kernel may start a new grid, and
    DLN-P-LAT no longer times against its own)."""

    t_set: int  # the task's sched_setattr entry (to the trace's µs)
    expires: list[int]  # the kernel's activation instants, one per period
    fired: list[int]  # the timer handled (its `now`)
    switch_in: list[int | None]  # the task switched in; None: not recorded
    yielded: list[int | None]  # the task's next timer start (it ran by then)
    traced: int  # activations in the trace, the first grid's and after


def extract(events: list[Event], period: int) -> Grid:
    starts = [
        e for e in events if e.event == "hrtimer_start" and e.kv.get("function") == "dl_task_timer"
    ]
    setattrs = [
        e
        for e in events
        if e.event == "sys_sched_setattr" or (e.event == "sys_enter" and "NR 314 " in e.body)
    ]
    # the task: a thread that called sched_setattr and then started a deadline timer
    candidates = {e.pid for e in setattrs} & {e.pid for e in starts}
    if not candidates:
        raise ValueError("no deadline task in the trace (sched_setattr, then dl_task_timer)")
    pid = max(candidates, key=lambda p: sum(1 for e in starts if e.pid == p))
    t_set = min(e.ts for e in setattrs if e.pid == pid)
    # its own timer: one only this thread starts (the CPUs' fair servers'
    # deadline timers run dl_task_timer too, started from any thread)
    others = {e.kv["hrtimer"] for e in starts if e.pid != pid}
    mine = [e for e in starts if e.pid == pid and e.ts > t_set and e.kv["hrtimer"] not in others]
    if not mine:
        raise ValueError(f"thread {pid} started no deadline timer of its own")
    timer = mine[0].kv["hrtimer"]
    mine = [e for e in mine if e.kv["hrtimer"] == timer]
    fired_at = sorted(
        int(e.kv["now"])
        for e in events
        if e.event == "hrtimer_expire_entry" and e.kv.get("hrtimer") == timer and e.ts > t_set
    )
    ins = sorted(
        e.ts
        for e in events
        if e.event == "sched_switch" and e.kv.get("next_pid") == str(pid) and e.ts > t_set
    )
    g = Grid(t_set, [], [], [], [], 0)
    gap = False
    for i, e in enumerate(mine):
        x = int(e.kv["expires"])
        j = bisect.bisect_left(fired_at, x)
        if j == len(fired_at) or fired_at[j] >= x + period:
            continue  # the last start (cancelled when the task ended) or one the trace lost
        g.traced += 1
        gap = gap or bool(g.expires and round((x - g.expires[-1]) / period) != 1)
        if gap:
            continue
        until = mine[i + 1].ts if i + 1 < len(mine) else 2**63
        k = bisect.bisect_left(ins, fired_at[j] - 1000)  # the trace's µs against `now`'s ns
        g.expires.append(x)
        g.fired.append(fired_at[j])
        # None where this kernel records no switch-in (seen: out of idle on one CPU)
        g.switch_in.append(ins[k] if k < len(ins) and ins[k] < until else None)
        g.yielded.append(until if i + 1 < len(mine) else None)
    return g


def drift_ppm(ys: list[int], period: int) -> float:
    """How fast ys (the kernel's activation - k x period) moves, in ppm of
    elapsed time: the median of the slopes between activation i and i + n/2
    (one late timer start moves it not at all)."""
    h = len(ys) // 2
    if h < 1:
        return 0.0
    return statistics.median((ys[i + h] - ys[i]) / (h * period) for i in range(h)) * 1e6


def us(ns: float) -> str:
    return f"{ns / 1e3:.2f}"


def three(xs: list[int]) -> str:
    return f"{us(min(xs))} · {us(statistics.fmean(xs))} · {us(max(xs))}"


def trace_run(cmd: list[str], save: str | None) -> tuple[list[Event], int, str]:
    """Runs cmd under a name of its own (a link to it: threads inherit the
    name, so the filters keep other runs of the same tool out) and traces it."""
    with tempfile.TemporaryDirectory(prefix="dln-grid-origin.") as tmp:
        comm = f"dgo{os.getpid()}-{len(cmd)}"[:15]
        exe = Path(tmp) / comm
        exe.symlink_to(shutil.which(cmd[0]) or cmd[0])
        with tracefs_instance(f"dln-grid-origin-{os.getpid()}") as inst:
            arm(inst, comm)
            _write(inst / "tracing_on", "1")
            proc = subprocess.Popen(
                [str(exe), *cmd[1:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            try:
                out, _ = proc.communicate(timeout=3600)
            finally:
                if proc.poll() is None:  # interrupted: the probe ends its tests itself
                    proc.terminate()
                    try:
                        proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
            _write(inst / "tracing_on", "0")
            lost = dropped(inst)
            text = (inst / "trace").read_text()
    if save:
        Path(save).write_text(text)
    return parse(text), lost, out


def probe_metric(out: str) -> dict[str, float]:
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("id") == "DLN-P-LAT":
            for m in r.get("metrics", []):
                if m["name"] == "deadline.activation.sched_deadline" and m["count"]:
                    return {"min": m["min"], "mean": m["mean"], "max": m["max"]}
    raise ValueError("no DLN-P-LAT activation figures in the probe's output")


OURS_HEAD = [
    "| run | period µs × periods | activations on the first grid / traced "
    "| origin: expires₁ − period − t_set µs | due − expires min · mean · max µs "
    "| drift ppm (µs over the run) | expires → switch-in min · mean µs "
    "| DLN-P-LAT's own min · mean µs | events lost |",
    "|---|---|---|---|---|---|---|---|---|",
]


def ours(a: argparse.Namespace, run: str, period_us: int, periods: int) -> str:
    period = period_us * 1000
    cmd = [
        str(PROBE), "--tests", "DLN-P-LAT", "--no-explain", "--prio", "95",
        "--opt", f"DLN-P-LAT.period_us={period_us}",
        "--opt", f"DLN-P-LAT.runtime_us={a.runtime_us}",
        "--opt", f"DLN-P-LAT.periods={periods}",
        "--out", "-",
    ]  # fmt: skip
    save = a.save_trace and f"{a.save_trace}.probe{run}"
    events, lost, out = trace_run(cmd, save)
    g = extract(events, period)
    fig = probe_metric(out)
    if len(g.expires) < 2:
        raise ValueError("fewer than 2 activations traced")
    # activation k of the kernel's (k = 1 at the first timer) against due_k = t_set + k P
    k1 = round((g.expires[0] - g.t_set) / period)
    ks = range(k1, k1 + len(g.expires))
    diff = [g.t_set + k * period - x for k, x in zip(ks, g.expires, strict=True)]
    ppm = drift_ppm([x - k * period for k, x in zip(ks, g.expires, strict=True)], period)
    span = (g.expires[-1] - g.expires[0]) / 1e9
    ran = [s - x for s, x in zip(g.switch_in, g.expires, strict=True) if s is not None]
    return (
        f"| {run} | {period_us} × {periods} | {len(g.expires)} / {g.traced} | {us(-diff[0])} | "
        f"{three(diff)} | {ppm:+.3f} ({ppm * span:+.2f}) | "
        f"{us(min(ran))} · {us(statistics.fmean(ran))} | "
        f"{us(fig['min'])} · {us(fig['mean'])} | {lost} |"
    )


PEER_HEAD = [
    "| run | its anchor − the kernel's activation µs | moved earlier | its grid at the end − "
    "the kernel's µs | rebuilt min · mean µs | the same instants from the kernel's grid "
    "min · mean µs | it printed Min · Avg µs | events lost |",
    "|---|---|---|---|---|---|---|---|",
]


def peer(a: argparse.Namespace, run: int) -> str:
    """cyclicdeadline anchors at its first wake-up (CLOCK_MONOTONIC_RAW,
    after a first sched_yield) and moves its grid to any wake-up earlier
    than it. Its grid is rebuilt here from the instants it next gave up its
    period (its next timer start: recorded for every activation, a few µs
    after it read its clock, the same few each time)."""
    period = a.period_us * 1000
    cmd = ["cyclicdeadline", "-q", "-t", "1", "-i", str(a.period_us), "-D", str(a.seconds)]
    events, lost, out = trace_run(cmd, a.save_trace and f"{a.save_trace}.peer{run}")
    g = extract(events, period)
    ran = [(y, x) for y, x in zip(g.yielded, g.expires, strict=True) if y is not None]
    if len(ran) < 3:
        raise ValueError("fewer than 3 cyclicdeadline wake-ups traced")
    grid = ran[0][0]  # `sched_yield(); period = get_time_us();`
    diffs: list[int] = []
    moved = 0
    for y, _ in ran[1:]:
        grid += period
        if y < grid:
            grid, moved = y, moved + 1
        diffs.append(y - grid)
    late = [y - x for y, x in ran]
    m = re.search(r"Min:\s*(\d+).*?Avg:\s*(\d+)", out)
    said = f"{m[1]} · {m[2]}" if m else "—"
    return (
        f"| {run} | {us(late[0])} | {moved} | {us(grid - ran[-1][1])} | "
        f"{us(min(diffs))} · {us(statistics.fmean(diffs))} | "
        f"{us(min(late))} · {us(statistics.fmean(late))} | {said} | {lost} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--periods", type=int, default=300)
    ap.add_argument("--period-us", type=int, default=10000)
    ap.add_argument("--runtime-us", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--long", type=int, default=0, metavar="S", help="and one S s run (drift)")
    ap.add_argument("--peer", action="store_true", help="trace cyclicdeadline the same way")
    ap.add_argument("--seconds", type=int, default=3, help="cyclicdeadline's run")
    ap.add_argument("--save-trace", metavar="PREFIX", help="keep the traces (PREFIX.probe/.peer)")
    ap.add_argument("--write", action="store_true", help="write the section of bench/RESULTS.md")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("dln_grid_origin: needs root (tracefs, SCHED_DEADLINE)", file=sys.stderr)
        return 2
    if not PROBE.exists():
        print(f"dln_grid_origin: {PROBE} is not built (make build)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"DLN-P-LAT, runtime {a.runtime_us} µs; t_set here is the traced sched_setattr "
        "entry (to the µs), due = t_set + k × period, expires = the kernel's activation k.\n",
        *OURS_HEAD,
    ]
    peer_rows: list[str] = []
    try:
        for run in range(1, a.runs + 1):  # A B A B, as the pairs
            lines.append(ours(a, str(run), a.period_us, a.periods))
            print(lines[-1], file=sys.stderr)
            if a.peer and shutil.which("cyclicdeadline"):
                peer_rows.append(peer(a, run))
                print(peer_rows[-1], file=sys.stderr)
    except (ValueError, subprocess.CalledProcessError, OSError) as exc:
        print(f"dln_grid_origin: {exc}", file=sys.stderr)
        return 1
    if a.long:  # the drift needs time: periods of 100 ms
        try:
            lines.append(ours(a, "long", 100_000, a.long * 10))
        except (ValueError, subprocess.CalledProcessError, OSError) as exc:
            print(f"dln_grid_origin: {exc}", file=sys.stderr)
            return 1
    if a.peer:
        lines += [
            "",
            f"cyclicdeadline -t 1 -i {a.period_us} -D {a.seconds} (its runtime: 60 % of the "
            "period), traced the same way; its instants are those it next gave up its period "
            "(a few µs after it read its clock, the same few each time), its grid rebuilt "
            "from them:\n",
            *(PEER_HEAD + peer_rows if peer_rows else ["cyclicdeadline is not installed."]),
        ]
    lines.append("")
    print("\n".join(lines))
    if a.write:
        new = "\n".join(
            [
                BEGIN,
                "",
                "### DLN-P-LAT: the kernel's period grid against t_set + k × period\n",
                f"Run {when} by bench/dln_grid_origin.py (trace_clock mono; the kernel's "
                "activation is its deadline timer's `expires`, CLOCK_MONOTONIC ns).\n",
                *lines,
                END,
                "",
            ]
        )
        write_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
