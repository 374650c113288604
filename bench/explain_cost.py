#!/usr/bin/env python3
"""What the flight recorder costs: TMR-P-LAT on one CPU with the recorder
and without (--no-explain), beside cyclictest on that CPU, in interleaved
rounds (A B C A B C …) so the machine's drift hits all three alike; min,
mean, p99 and max per round, the ratios of the means, and each one's own
round-to-round spread. Writes its section of bench/RESULTS.md.

The rule the docs state (docs/recorder.md, "Its cost"): if the
recorder moves p99 by more than cyclictest's own round-to-round spread of
p99, it is off by default. Usage: bench/explain_cost.py [--seconds S]
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


def cyclictest(secs: int, cpu: int) -> Figures:
    """One thread on cpu, 1 ms, SCHED_FIFO 95, its 1 µs histogram for p99."""
    out = sh(["cyclictest", "-m", "-p95", "-i1000", f"-a{cpu}", "-t1", f"-D{secs}", "-q",
              "-h", "100000"])  # fmt: skip
    buckets = [
        (int(m.group(1)), int(m.group(2)))
        for m in re.finditer(r"^(\d{6})\s+(\d+)", out, re.MULTILINE)
        if int(m.group(2))
    ]
    if not buckets:
        raise ValueError("no histogram from cyclictest")
    total = sum(n for _, n in buckets)
    seen, p99 = 0, float(buckets[-1][0])
    for us, n in buckets:
        seen += n
        if seen >= 0.99 * total:
            p99 = float(us)
            break
    grab = {k: re.search(rf"# {k} Latencies: (\d+)", out) for k in ("Min", "Avg", "Max")}
    if not all(grab.values()):
        raise ValueError("no summary from cyclictest")
    return {
        "min": float(grab["Min"].group(1)),  # type: ignore[union-attr]
        "mean": float(grab["Avg"].group(1)),  # type: ignore[union-attr]
        "p99": p99,
        "max": float(grab["Max"].group(1)),  # type: ignore[union-attr]
    }


def rtgauge(secs: int, cpu: int, explain: bool) -> Figures:
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
    for line in sh(args, timeout=secs * 3 + 60).splitlines():
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
        "interleaved (cyclictest, rtgauge --no-explain, rtgauge with the recorder). cyclictest's "
        "p99 from its 1 µs histogram; its figures are truncated to whole µs.\n",
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
    moved = abs(on["p99"] - off["p99"])
    limit = spread[who[0]]["p99"]
    verdict = (
        "within cyclictest's own round-to-round spread of p99: the recorder stays on by default"
        if moved <= max(limit, 1.0)
        else "BEYOND cyclictest's own round-to-round spread of p99: the recorder must be off by "
        "default"
    )
    lines += [
        "",
        f"The recorder moved p99 by {moved:.2f} µs (mean of the rounds, on − off); cyclictest's "
        f"own p99 spread over the rounds: {limit:.2f} µs (its resolution: 1 µs): {verdict}.",
        "",
        END,
        "",
    ]
    return lines


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
