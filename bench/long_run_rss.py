#!/usr/bin/env python3
"""Does the probe's memory grow with the length of a run? The peak resident
set of a TMR-P-LAT run at a 1 ms period, for runs of different lengths, with
interval records on. The figures are fixed-size (histogram, block maxima
bounded at RTG_BLOCKS_MAX, two interval buffers per figure), so the peaks
should match. Writes its section of bench/RESULTS.md. A benchmark, never a
test: nothing here passes or fails.

Peak RSS is GNU time's %M: the ru_maxrss wait4 returns for the probe, the
largest resident set of the probe or of the test process it forks and reaps.
As root the test locks its memory (mlockall), so what it allocated is resident.

Usage: bench/long_run_rss.py [--minutes 1,5] [--interval-ms 10000] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from results_file import write_section

ROOT = Path(__file__).resolve().parents[1]
BEGIN = "<!-- long-run-rss: begin (bench/long_run_rss.py) -->"
END = "<!-- long-run-rss: end -->"


def peak_rss(probe: Path, minutes: float, interval_ms: int) -> tuple[int, int, int]:
    """(peak RSS in KiB, samples of the .all figure, interval records) of one run."""
    if not shutil.which("/usr/bin/time"):
        sys.exit("GNU time (/usr/bin/time) is missing")
    argv = [
        str(probe), "--tests", "TMR-P-LAT", "--no-explain",
        "--duration-ms", str(int(minutes * 60_000)), "--interval-ms", str(interval_ms),
        "--opt", "TMR-P-LAT.period_us=1000",
    ]  # fmt: skip
    with tempfile.NamedTemporaryFile("r") as rss:
        out = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", rss.name, *argv],
            capture_output=True,
            text=True,
            check=False,
        )
        kib = int(rss.read().split()[-1])
    records = [json.loads(x) for x in out.stdout.splitlines() if x.strip()]
    test = next(r for r in records if r["record"] == "test")
    count = next(m["count"] for m in test["metrics"] if m["name"].endswith(".all"))
    return kib, count, sum(r["record"] == "interval" for r in records)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", default="1,5")
    ap.add_argument("--interval-ms", type=int, default=10_000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    probe = Path(os.environ.get("RTGAUGE_PROBE", ROOT / "build" / "rtgauge-probe"))
    rows = []
    for m in (float(x) for x in args.minutes.split(",")):
        kib, count, intervals = peak_rss(probe, m, args.interval_ms)
        rows.append(f"| {m:g} min | {count:,} | {intervals} | {kib:,} KiB |")
        print(rows[-1], flush=True)
    text = "\n".join(
        [
            BEGIN,
            "## Memory over a long run (bench/long_run_rss.py)",
            "",
            f"Measured {datetime.now(UTC):%Y-%m-%d} on {os.uname().nodename} "
            f"({os.cpu_count()} CPUs{', as root' if os.geteuid() == 0 else ''}): "
            "TMR-P-LAT at a 1 ms period on every CPU, interval records every "
            f"{args.interval_ms / 1000:g} s, peak RSS (GNU time's %M) of the probe and its test "
            "process. Command:",
            "",
            "```sh",
            f"bench/long_run_rss.py --minutes {args.minutes} --interval-ms {args.interval_ms}",
            "# each run: /usr/bin/time -f %M build/rtgauge-probe --tests TMR-P-LAT --no-explain \\",
            "#   --duration-ms <minutes × 60000> --interval-ms "
            f"{args.interval_ms} --opt TMR-P-LAT.period_us=1000",
            "```",
            "",
            "| run | samples (all CPUs) | interval records | peak RSS |",
            "|---|---|---|---|",
            *rows,
            "",
            "A figure's memory is fixed: its histogram, at most RTG_BLOCKS_MAX (1024) block",
            "maxima (neighbours merged and the span doubled when a run outgrows them), and",
            "two interval buffers; the peak does not grow with the run's length.",
            END,
        ]
    )
    if not args.no_write:
        write_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, text + "\n")


if __name__ == "__main__":
    main()
