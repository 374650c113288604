#!/usr/bin/env python3
"""What each of the flight recorder's events costs on TMR-P-LAT's wake-up:
TMR-P-LAT on one CPU without the recorder, with it, and with it less some
events (the recorder's development switch RTGAUGE_TRACE_OMIT) or on another
trace clock (RTGAUGE_TRACE_CLOCK: its windows are misplaced, only its cost
is of interest), or with events the default leaves off (RTGAUGE_TRACE_ADD), in interleaved rounds (A B C … A B C …) so the machine's
drift hits every variant alike. Per variant: the mean over the rounds of
min, mean and p99 and their difference to the recorder off; and, from the
windows of the default recorder's rounds, which events lie on the kept
samples' wake-ups (from the release to the sample's end). Writes its
section of bench/RESULTS.md.

Usage: bench/recorder_events.py [--seconds S] [--rounds R] [--cpu C]
[--variants NAME,…]; as root. A benchmark, never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from explain_cost import KEYS, Figures
from pairing import PROBE, ROOT
from results_file import write_section

BEGIN = "<!-- recorder-events: begin (bench/recorder_events.py) -->"
END = "<!-- recorder-events: end -->"
# spare: events no rule needs (sched_wakeup follows sched_waking; raises and sends
# are seen again at their entry)
SPARE = "sched_waking,softirq_raise,ipi_send_cpu,ipi_send_cpumask,ipi_raise"
TIMERS = "hrtimer_expire_entry,hrtimer_expire_exit"
# name: None for --no-explain, else the recorder's development switches. Each
# variant names its whole event set, so it means the same whatever the default.
VARIANTS: dict[str, dict[str, str] | None] = {
    "off": None,
    "all": {"RTGAUGE_TRACE_ADD": SPARE},
    "default": {},
    "all − spare": {"RTGAUGE_TRACE_OMIT": SPARE},
    "all − spare − sched_wakeup": {"RTGAUGE_TRACE_OMIT": SPARE + ",sched_wakeup"},
    "all − spare − hrtimer_expire": {"RTGAUGE_TRACE_OMIT": SPARE + "," + TIMERS},
    "all − spare on clock local": {"RTGAUGE_TRACE_OMIT": SPARE, "RTGAUGE_TRACE_CLOCK": "local"},
    "all − spare on clock x86-tsc": {"RTGAUGE_TRACE_OMIT": SPARE, "RTGAUGE_TRACE_CLOCK": "x86-tsc"},
}
FULL = "default"  # the variant whose windows say which events lie on the wake-up


def run(secs: int, cpu: int, env: dict[str, str] | None) -> tuple[Figures, Counter[str], int]:
    """One TMR-P-LAT run: its figures (µs), the kinds of event on its kept
    windows' wake-ups, and how many windows."""
    args = [str(PROBE), "--tests", "TMR-P-LAT", "--cpus", str(cpu), "--prio", "95",
            "--opt", f"TMR-P-LAT.duration_ms={secs * 1000}", "--opt", "TMR-P-LAT.period_us=1000"]  # fmt: skip
    if env is None:
        args.append("--no-explain")
    out = subprocess.run(args, capture_output=True, text=True, timeout=secs * 3 + 60,
                         env={**os.environ, **(env or {})}).stdout  # fmt: skip
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("id") != "TMR-P-LAT":
            continue
        ex = r.get("explain") or {}
        if env is not None and ex.get("state") != "on":
            raise ValueError(f"the recorder did not run: {ex}")
        (m,) = [m for m in r["metrics"] if m["name"].endswith(f".cpu{cpu}")]
        kinds: Counter[str] = Counter()
        wins = ex.get("windows") or []
        for w in wins:
            kinds.update(e["k"] for e in w["events"] if 0 <= e["t"] <= w["sample_ns"])
        figs = {"min": m["min"], "mean": m["mean"], "p99": m["p99"] or m["max"], "max": m["max"]}
        return {k: v / 1e3 for k, v in figs.items()}, kinds, len(wins)
    raise ValueError("no TMR-P-LAT record")


def section(secs: int, rounds: int, cpu: int, names: list[str]) -> list[str]:
    runs: dict[str, list[Figures]] = {n: [] for n in names}
    kinds: Counter[str] = Counter()
    n_windows = 0
    for _ in range(rounds):
        for n in names:
            figs, k, nw = run(secs, cpu, VARIANTS[n])
            runs[n].append(figs)
            if n == FULL:
                kinds += k
                n_windows += nw
    mean = {n: {k: statistics.mean(f[k] for f in runs[n]) for k in KEYS} for n in names}
    spread = {n: {k: max(f[k] for f in runs[n]) - min(f[k] for f in runs[n]) for k in KEYS}
              for n in names}  # fmt: skip
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        BEGIN,
        "",
        "### What each of the recorder's events costs on TMR-P-LAT's wake-up\n",
        f"Run {when}: CPU {cpu}, 1 ms period, SCHED_FIFO 95, {secs} s per run, {rounds} rounds "
        f"interleaved over {len(names)} variants, `bench/recorder_events.py --seconds {secs} "
        f"--rounds {rounds} --cpu {cpu}`. A variant adds events the default leaves off "
        "(RTGAUGE_TRACE_ADD), leaves some off (RTGAUGE_TRACE_OMIT) or records on another "
        "trace clock (RTGAUGE_TRACE_CLOCK); "
        "µs, the mean over the rounds, and on − off.\n",
        "| variant | min | mean | p99 | max | min − off | mean − off | p99 − off | spread of "
        "min | spread of p99 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    off = mean[names[0]]
    for n in names:
        f = mean[n]
        lines.append(
            f"| {n} | "
            + " | ".join(f"{f[k]:.2f}" for k in KEYS)
            + " | "
            + " | ".join(f"{f[k] - off[k]:+.2f}" for k in ("min", "mean", "p99"))
            + f" | {spread[n]['min']:.2f} | {spread[n]['p99']:.2f} |"
        )
    if n_windows:
        lines += [
            "",
            f"Events from the release to the sample's end in the {n_windows} kept windows of the "
            "default recorder's rounds (its worst samples), per window: "
            + ", ".join(f"{k} {v / n_windows:.1f}" for k, v in kinds.most_common())
            + ".",
        ]
    lines += ["", END, ""]
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--cpu", type=int, default=1 if (os.cpu_count() or 1) > 1 else 0)
    ap.add_argument("--variants", default=",".join(VARIANTS), help="names, comma-separated")
    ap.add_argument("--out", default=str(ROOT / "bench" / "RESULTS.md"))
    a = ap.parse_args()
    names = ["off", *(n for n in a.variants.split(",") if n and n != "off")]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        print(f"bench: no such variant: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if not PROBE.exists():
        print(f"bench: {PROBE} is not built (make probe)", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("bench: the recorder and SCHED_FIFO need root", file=sys.stderr)
        return 2
    try:
        new = "\n".join(section(a.seconds, a.rounds, a.cpu, names))
    except (ValueError, subprocess.TimeoutExpired) as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 3
    print(new)
    write_section(Path(a.out), BEGIN, END, new)
    print(f"bench: wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
