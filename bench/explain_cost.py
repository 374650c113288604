#!/usr/bin/env python3
"""What the flight recorder costs: TMR-P-LAT on one CPU with the recorder
and without (--no-explain), beside cyclictest on that CPU, in interleaved
rounds (A B C A B C …) so the machine's drift hits all three alike; min,
mean, p99 and max per round, the ratios of the means, and each one's own
round-to-round spread. Writes its section of bench/RESULTS.md.

The rule the docs state (docs/recorder.md, "Its cost"): if the
recorder moves p99 by more than cyclictest's own round-to-round spread of
p99, it is off by default; its aim, min, mean and p99 all within that
spread, cyclictest read in ns (-N) so the spread is not floored at 1 µs. Usage: bench/explain_cost.py [--seconds S]
[--rounds R] [--cpu C]; as root.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from pairing import PROBE, ROOT, sh
from results_file import write_section

BEGIN = "<!-- explain-cost: begin (bench/explain_cost.py) -->"
END = "<!-- explain-cost: end -->"
Figures = dict[str, float]
KEYS = ("min", "mean", "p99", "max")


# cyclictest's histogram in ns (-N makes its buckets 1 ns wide): 200 µs.
HIST_NS = 200_000


def cyclictest(secs: int, cpu: int) -> Figures:
    """One thread on cpu, 1 ms, SCHED_FIFO 95, in ns (-N: its summary and
    its histogram's buckets both count ns), its histogram for p99; µs out."""
    out = sh(["cyclictest", "-m", "-N", "-p95", "-i1000", f"-a{cpu}", "-t1", f"-D{secs}", "-q",
              "-h", str(HIST_NS)])  # fmt: skip
    buckets = [
        (int(m.group(1)), int(m.group(2)))
        for m in re.finditer(r"^(\d{6})\s+(\d+)", out, re.MULTILINE)
        if int(m.group(2))
    ]
    over = re.search(r"# Histogram Overflows: (\d+)", out)
    grab = {k: re.search(rf"# {k} Latencies: (\d+)", out) for k in ("Min", "Avg", "Max")}
    if not buckets or not over or not all(grab.values()):
        raise ValueError("no histogram or summary from cyclictest")
    total = sum(n for _, n in buckets) + int(over.group(1))
    biggest = float(grab["Max"].group(1))  # type: ignore[union-attr]
    seen, p99 = 0, biggest  # beyond the histogram: its max bounds p99
    for ns, n in buckets:
        seen += n
        if seen >= 0.99 * total:
            p99 = float(ns)
            break
    return {
        "min": float(grab["Min"].group(1)) / 1e3,  # type: ignore[union-attr]
        "mean": float(grab["Avg"].group(1)) / 1e3,  # type: ignore[union-attr]
        "p99": p99 / 1e3,
        "max": biggest / 1e3,
    }


def rtgauge(secs: int, cpu: int, explain: bool, env: dict[str, str] | None = None) -> Figures:
    """TMR-P-LAT on cpu, µs; env: the recorder's development switches."""
    args = [
        str(PROBE),
        "--tests",
        "TMR-P-LAT",
        "--cpus",
        str(cpu),
        "--prio",
        "95",
        "--opt",
        f"TMR-P-LAT.duration_ms={secs * 1000}",
        "--opt",
        "TMR-P-LAT.period_us=1000",
    ]
    if not explain:
        args.append("--no-explain")
    run = subprocess.run(args, capture_output=True, text=True, timeout=secs * 3 + 60,
                         env={**os.environ, **(env or {})})  # fmt: skip
    for line in run.stdout.splitlines():
        r = json.loads(line)
        if r.get("id") != "TMR-P-LAT":
            continue
        if explain and (r.get("explain") or {}).get("state") != "on":
            raise ValueError(f"the recorder did not run: {r.get('explain')}")
        (m,) = [m for m in r["metrics"] if m["name"].endswith(f".cpu{cpu}")]
        return {
            "min": m["min"] / 1e3,
            "mean": m["mean"] / 1e3,
            "p99": (m["p99"] or m["max"]) / 1e3,
            "max": m["max"] / 1e3,
        }
    raise ValueError("no TMR-P-LAT record")


def section(secs: int, rounds: int, cpu: int) -> list[str]:
    who = ("cyclictest", "rtgauge --no-explain", "rtgauge (recorder on)")
    runs: dict[str, list[Figures]] = {w: [] for w in who}
    for _ in range(rounds):
        runs[who[0]].append(cyclictest(secs, cpu))
        runs[who[1]].append(rtgauge(secs, cpu, explain=False))
        runs[who[2]].append(rtgauge(secs, cpu, explain=True))
    mean = {w: {k: statistics.mean(f[k] for f in runs[w]) for k in KEYS} for w in who}
    spread = {w: {k: max(f[k] for f in runs[w]) - min(f[k] for f in runs[w]) for k in KEYS}
              for w in who}  # fmt: skip
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        BEGIN,
        "",
        "### The flight recorder's cost: TMR-P-LAT with and without it, beside cyclictest\n",
        f"Run {when}: CPU {cpu}, 1 ms period, SCHED_FIFO 95, {secs} s per run, {rounds} rounds "
        "interleaved (cyclictest, rtgauge --no-explain, rtgauge with the recorder), "
        f"`bench/explain_cost.py --seconds {secs} --rounds {rounds} --cpu {cpu}`. cyclictest "
        f"in ns (`-N`; its mean truncated to whole ns), its p99 from its 1 ns histogram "
        f"(`-h {HIST_NS}`).\n",
        "| run | min µs | mean µs | p99 µs | max µs |",
        "|---|---|---|---|---|",
    ]
    for w in who:
        for i, f in enumerate(runs[w]):
            lines.append(f"| {w} #{i + 1} | " + " | ".join(f"{f[k]:.2f}" for k in KEYS) + " |")
    lines += ["", "| figure | " + " | ".join(KEYS) + " |", "|---|---|---|---|---|"]
    for w in who:
        lines.append(f"| mean of {w} | " + " | ".join(f"{mean[w][k]:.2f}" for k in KEYS) + " |")
        lines.append(f"| spread of {w} | " + " | ".join(f"{spread[w][k]:.2f}" for k in KEYS) + " |")
    on, off, peer = mean[who[2]], mean[who[1]], mean[who[0]]
    lines.append(
        "| ratio on / off | " + " | ".join(f"{on[k] / off[k]:.2f}" if off[k] else "—" for k in KEYS)
        + " |"
    )  # fmt: skip
    lines.append(
        "| ratio on / cyclictest | "
        + " | ".join(f"{on[k] / peer[k]:.2f}" if peer[k] else "—" for k in KEYS)
        + " |"
    )
    limit = spread[who[0]]
    moved = {k: on[k] - off[k] for k in KEYS}
    lines.append("| on − off | " + " | ".join(f"{moved[k]:+.2f}" for k in KEYS) + " |")
    lines += ["", verdict(moved, limit), "", END, ""]
    return lines


def verdict(moved: Figures, limit: Figures) -> str:
    """The concluding sentence, from the numbers: each of min, mean and p99
    of on − off against cyclictest's own round-to-round spread of it."""
    said = []
    for k in ("min", "mean", "p99"):
        d = moved[k]
        if abs(d) <= limit[k]:
            said.append(f"{k} {d:+.2f} µs, within its {limit[k]:.2f} µs")
        else:
            said.append(
                f"{k} {d:+.2f} µs, OUTSIDE its {limit[k]:.2f} µs by {abs(d) - limit[k]:.2f} µs"
            )
    rule = (
        "within cyclictest's spread of p99: by the rule the recorder stays on by default"
        if abs(moved["p99"]) <= limit["p99"]
        else "beyond cyclictest's spread of p99: by the rule the recorder must be off by default"
    )
    return (
        "The recorder on against off (mean of the rounds), against cyclictest's own "
        f"round-to-round spread: {'; '.join(said)}. p99 {rule}."
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpu", type=int, default=1 if (os.cpu_count() or 1) > 1 else 0)
    ap.add_argument("--out", default=str(ROOT / "bench" / "RESULTS.md"))
    a = ap.parse_args()
    if not PROBE.exists():
        print(f"bench: {PROBE} is not built (make probe)", file=sys.stderr)
        return 2
    if not shutil.which("cyclictest"):
        print("bench: cyclictest is not installed (Debian's rt-tests)", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("bench: the recorder and SCHED_FIFO need root", file=sys.stderr)
        return 2
    try:
        new = "\n".join(section(a.seconds, a.rounds, a.cpu))
    except (ValueError, subprocess.TimeoutExpired) as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 3
    out = Path(a.out)
    write_section(out, BEGIN, END, new)
    print(f"bench: wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
