#!/usr/bin/env python3
"""Does a long run's memory stay flat, and does a run killed part-way keep
what it measured? Runs `rtgauge run --tests TMR-P-LAT --duration D` in a
session of its own, samples the resident set (VmRSS) of the host (the
Python process) and of the probe (rtgauge-probe and the test process it
forks) every --every seconds, and compares the first ten minutes (after
the first, its start-up) with the last ten. With --kill-after SPAN the whole session (host and probe) is
SIGKILLed then, as a power cut would stop it, and the intervals left in the
store are counted. A benchmark, never a test: nothing here passes or fails.

Usage: bench/long_run_memory.py --duration 2h [--kill-after 90m]
       [--interval 5m] [--every 30] [--store DIR] [--csv FILE] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from results_file import write_section

ROOT = Path(__file__).resolve().parents[1]
MARK = "<!-- long-run-memory{}: {} -->"
UNITS = {"s": 1, "m": 60, "h": 3600}


def seconds(span: str) -> float:
    return float(span[:-1]) * UNITS[span[-1]]


def session_rss(sid: int) -> tuple[int, int]:
    """(host KiB, probe KiB): the summed VmRSS of the session's processes."""
    host = probe = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getsid(int(pid)) != sid:
                continue
            status = Path(f"/proc/{pid}/status").read_text()
        except (OSError, ProcessLookupError):
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        kib = int(fields.get("VmRSS", "0 kB").split()[0])
        if "rtgauge-probe" in fields.get("Name", "") or "rtgauge-probe" in _cmdline(pid):
            probe += kib
        elif "python" in fields.get("Name", "") or "rtgauge" in fields.get("Name", ""):
            host += kib
    return host, probe


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def window(rows: list[tuple[float, int, int]], lo: float, hi: float) -> tuple[float, float]:
    """Mean (host, probe) KiB of the samples in [lo, hi) taken while the probe
    measured: its start and the host's work after it ended are not the run."""
    picked = [r for r in rows if lo <= r[0] < hi and r[2] > 0]
    if not picked:
        return 0.0, 0.0
    return (sum(r[1] for r in picked) / len(picked), sum(r[2] for r in picked) / len(picked))


def intervals_in(store: Path) -> tuple[int, list[str]]:
    """Interval records in the store's runs, finished (.json) or cut (.partial.jsonl)."""
    count, files = 0, []
    for path in sorted(store.rglob("*.json*")):
        if path.name.endswith(".partial.jsonl"):
            lines = path.read_text().splitlines()
            count += sum(json.loads(x).get("record") == "interval" for x in lines if x.strip())
            files.append(str(path.relative_to(store)))
        elif path.suffix == ".json" and path.parent != store:
            count += len(json.loads(path.read_text()).get("intervals", []))
            files.append(str(path.relative_to(store)))
    return count, files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", default="2h")
    ap.add_argument("--kill-after")
    ap.add_argument("--interval", default="5m")
    ap.add_argument("--every", type=float, default=30.0)
    ap.add_argument("--cpus", help="CPUs to measure on (default: all)")
    ap.add_argument("--store")
    ap.add_argument("--csv")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    store = Path(args.store or tempfile.mkdtemp(prefix="rtgauge-long-"))
    rtgauge = ROOT / ".venv" / "bin" / "rtgauge"
    argv = [str(rtgauge), "run", "--tests", "TMR-P-LAT", "--duration", args.duration,
            "--interval", args.interval, "--store", str(store), "--no-report"]  # fmt: skip
    if args.cpus:
        argv += ["--cpus", args.cpus]
    log = (store / "run.log").open("w")
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    kill_at = seconds(args.kill_after) if args.kill_after else None
    rows: list[tuple[float, int, int]] = []
    start = time.monotonic()
    csv = Path(args.csv) if args.csv else store / "rss.csv"
    with csv.open("w") as out:
        out.write("elapsed_s,host_kib,probe_kib\n")
        while proc.poll() is None:
            now = time.monotonic() - start
            if kill_at is not None and now >= kill_at:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
            host, probe = session_rss(proc.pid)
            if host or probe:
                rows.append((now, host, probe))
                out.write(f"{now:.0f},{host},{probe}\n")
                out.flush()
            time.sleep(args.every)
    measuring = [r for r in rows if r[2] > 0]
    end = measuring[-1][0] if measuring else 0.0
    first = window(rows, 60, 660)  # its first ten minutes once started (imports, mlockall)
    last = window(rows, end - 600, end + 1)
    count, files = intervals_in(store)
    ended = "SIGKILLed" if kill_at is not None else f"exit {proc.returncode}"
    lines = [
        f"store {store}: {ended} after {end / 60:.1f} min, {count} interval records in {files}",
        f"host  RSS first 10 min {first[0]:,.0f} KiB, last 10 min {last[0]:,.0f} KiB "
        f"({(last[0] / first[0] - 1) * 100 if first[0] else 0:+.1f} %)",
        f"probe RSS first 10 min {first[1]:,.0f} KiB, last 10 min {last[1]:,.0f} KiB "
        f"({(last[1] / first[1] - 1) * 100 if first[1] else 0:+.1f} %)",
    ]
    print("\n".join(lines), flush=True)
    if args.no_write:
        return
    kind = "-killed" if kill_at is not None else ""
    begin, end_mark = (
        MARK.format(kind, "begin (bench/long_run_memory.py)"),
        MARK.format(kind, "end"),
    )
    text = "\n".join(
        [
            begin,
            "## Memory of a long run, and a run killed part-way (bench/long_run_memory.py)",
            "",
            f"Measured {datetime.now(UTC):%Y-%m-%d} on {os.uname().nodename} "
            f"({os.cpu_count()} CPUs). Command:",
            "",
            "```sh",
            f"bench/long_run_memory.py --duration {args.duration} --interval {args.interval}"
            + (f" --kill-after {args.kill_after}" if args.kill_after else "")
            + (f" --cpus {args.cpus}" if args.cpus else ""),
            f"# runs: rtgauge run --tests TMR-P-LAT --duration {args.duration} "
            f"--interval {args.interval} --no-report",
            "```",
            "",
            "Resident set (VmRSS) sampled every "
            f"{args.every:g} s, mean of the first ten minutes after the first one (start-up: "
            "imports, the probe's mlockall) and of the last ten:",
            "",
            *(f"    {x}" for x in lines),
            end_mark,
        ]
    )
    write_section(ROOT / "bench" / "RESULTS.md", begin, end_mark, text + "\n")
    sys.exit(0)


if __name__ == "__main__":
    main()
