#!/usr/bin/env python3
"""rtgauge next to its peers (rt-tests, stress-ng), interleaved A B A B so the
machine's drift hits both alike; writes bench/RESULTS.md.

Each pair names the rtgauge test and metric, the peer command, and how the
two intervals differ. A pair whose rtgauge test is not in the probe yet is
listed as "not landed". Usage: bench/bench.py [--seconds S] [--repeats R]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import dln_tmo_smp
import pairing
from pairing import (
    PROBE,
    ROOT,
    Pair,
    bench_pair,
    cyclictest_out,
    oslat_out,
    probe_ids,
    rt_tests_pairs,
    sh,
)


def tmr_lat_opts(align: str) -> Callable[[int], list[str]]:
    """TMR-P-LAT as cyclictest -i1000 runs it, for s seconds, CPUs aligned or not."""
    return lambda s: [
        *("--opt", f"TMR-P-LAT.duration_ms={s * 1000}", "--opt", "TMR-P-LAT.period_us=1000"),
        *("--opt", f"TMR-P-LAT.align={align}"),
    ]


TRUNCATION = (
    "cyclictest truncates every sample to whole µs, so its min/avg read ≈0.5 µs lower "
    "than the same latencies in ns."
)
PAIRS = [
    Pair(
        "TMR-P-LAT ↔ cyclictest",
        "TMR-P-LAT",
        r"timer\.wakeup\.clock_nanosleep\.all$",
        tmr_lat_opts("staggered"),
        lambda s: ["cyclictest", "-m", "-p95", "-i1000", "-d0", f"-D{s}", "-q", "-S"],
        cyclictest_out,
        "same interval (programmed expiry → clock_gettime after clock_nanosleep returns), "
        "one thread per CPU, same interval on every CPU (-d0), starts apart: cyclictest "
        "without -A starts each thread's timer when that thread starts, TMR-P-LAT "
        "align=staggered spreads the CPUs' expiries over one period. " + TRUNCATION,
    ),
    Pair(
        "TMR-P-LAT align=same ↔ cyclictest -A 0",
        "TMR-P-LAT",
        r"timer\.wakeup\.clock_nanosleep\.all$",
        tmr_lat_opts("same"),
        lambda s: ["cyclictest", "-m", "-p95", "-i1000", "-d0", f"-D{s}", "-q", "-S", "-A", "0"],
        cyclictest_out,
        "the same, with every CPU's timer expiring at the same instant on both sides "
        "(cyclictest -A 0: aligned wake-ups, no offset between threads). " + TRUNCATION,
    ),
    Pair(
        "CLK-P-DUR ↔ oslat",
        "CLK-P-DUR",
        r"^clock\.gap\.loop$",
        lambda s: [],
        lambda s: ["oslat", "-c", "1", "-D", str(s), "-f", "95", "-q"],
        oslat_out,
        "oslat reports every loop iteration (min ≈ the loop cost); CLK-P-DUR only gaps "
        "above its threshold, so compare max, not min or avg; oslat's max includes RT "
        "throttling stalls (~50 ms) which CLK-P-DUR reports apart.",
    ),
    Pair(
        "MUT-P-ARC ↔ ptsematest",
        "MUT-P-ARC",
        r"^mutex\.release\.contended_inherit$",
        lambda s: [],
        lambda s: ["ptsematest", "-a", "-t", "-p95", "-i1000", "-d0", f"-D{s}", "-q"],
        rt_tests_pairs,
        "ptsematest times unlock → the waiter returns from lock (one switch, threads on "
        "one CPU each pair); MUT-P-ARC's release figure is the same hand-over.",
    ),
    Pair(
        "SEM-P-PNG ↔ svsematest",
        "SEM-P-PNG",
        r"^sem\.handover\.(a_to_b|b_to_a)$",
        lambda s: [],
        lambda s: ["svsematest", "-a", "-t", "-p95", "-i1000", "-d0", f"-D{s}", "-q"],
        rt_tests_pairs,
        "svsematest uses System V semaphores between threads; SEM-P-PNG uses POSIX "
        "semaphores: the same hand-over, another primitive.",
    ),
    Pair(
        "MSG-P-LAT ↔ pmqtest",
        "MSG-P-LAT",
        r"msg\.latency\.mq\.s16$",
        lambda s: [],
        lambda s: ["pmqtest", "-a", "-t", "-p95", "-i1000", "-d0", f"-D{s}", "-q"],
        rt_tests_pairs,
        "both time mq_send → the blocked receiver's mq_receive returns, 16-byte-class messages.",
    ),
    Pair(
        "SIG-P-LAT ↔ sigwaittest",
        "SIG-P-LAT",
        r"^sig\.latency\.rt$",
        lambda s: [],
        lambda s: ["sigwaittest", "-a", "-t", "-p95", "-i1000", "-d0", f"-D{s}", "-q"],
        rt_tests_pairs,
        "sigwaittest uses kill() of SIGUSR1; SIG-P-LAT sigqueue() of SIGRTMIN.",
    ),
]


HACKBENCH = ["hackbench", "-g", "4", "-l", "100000000"]
PAIRS += [
    Pair(
        "TMR-P-LOAD cpu phase ↔ cyclictest under stress-ng --cpu",
        "TMR-P-LOAD",
        r"^timer\.wakeup\.load\.cpu$",
        lambda s: ["--opt", f"TMR-P-LOAD.phase_ms={s * 1000}"],
        lambda s: ["cyclictest", "-m", "-p95", "-i1000", "-d0", f"-D{s}", "-q", "-S"],
        cyclictest_out,
        "the same wake-up latency under a CPU load on every CPU: rtgauge's built-in "
        "arithmetic load against stress-ng --cpu; TMR-P-LOAD runs all nine phases, the "
        "cpu phase is compared.",
        peer_load=["stress-ng", "--cpu", "0", "--quiet"],
    ),
    Pair(
        "TMR-P-LAT ↔ cyclictest, both under hackbench",
        "TMR-P-LAT",
        r"timer\.wakeup\.clock_nanosleep\.all$",
        lambda s: ["--opt", f"TMR-P-LAT.duration_ms={s * 1000}"],
        lambda s: ["cyclictest", "-m", "-p95", "-i1000", "-d0", f"-D{s}", "-q", "-S"],
        cyclictest_out,
        "the same interval with the same scheduler load (hackbench, 4 groups) around both.",
        peer_load=HACKBENCH,
        ours_load=HACKBENCH,
    ),
]


def pi_stress_agreement(secs: int) -> list[str]:
    """MUT-B-ARC ↔ pi_stress: do the two agree that PI prevents inversion?"""
    head = ["### MUT-B-ARC ↔ pi_stress (verdicts)\n"]
    if not shutil.which("pi_stress"):
        return head + ["skipped: pi_stress is not installed\n"]
    peer = subprocess.run(
        ["pi_stress", f"--duration={secs}", "--mlockall", "--quiet"],
        capture_output=True,
        text=True,
        timeout=secs + 60,
    )
    ours = sh([str(PROBE), "--tests", "MUT-B-ARC"])
    verdicts = {}
    for line in ours.splitlines():
        r = json.loads(line)
        if r.get("id") == "MUT-B-ARC":
            verdicts = {v["name"]: v["pass"] for v in r["verdicts"]}
    peer_ok = peer.returncode == 0
    ours_ok = bool(verdicts.get("inherit.prevents_inversion"))
    return head + [
        "pi_stress runs inversion groups with PI mutexes and exits non-zero when it "
        "detects an inversion; MUT-B-ARC checks PTHREAD_PRIO_INHERIT with a bounded "
        "medium thread and shows PTHREAD_PRIO_NONE's inversion as the control.\n",
        "| tool | PI prevents inversion | detail |",
        "|---|---|---|",
        f"| pi_stress ({secs} s) | {'yes' if peer_ok else 'no'} | exit {peer.returncode} |",
        f"| rtgauge MUT-B-ARC | {'yes' if ours_ok else 'no'} | "
        + ", ".join(f"{k}: {'pass' if v else 'FAIL'}" for k, v in verdicts.items())
        + " |",
        "",
        f"The verdicts {'agree' if peer_ok == ours_ok else 'DISAGREE'}.",
        "",
    ]


def summary(lines: list[str]) -> list[str]:
    """One line per pair: within or beyond the peer's own noise, from the
    verdict sentence each pair wrote."""
    out = [
        "### Summary\n",
        "| pair | min | avg | max (against the peer's own noise) |",
        "|---|---|---|---|",
    ]
    pair = ""
    for line in lines:
        if line.startswith("### "):
            pair = line[4:].strip()
        elif words := re.findall(r"(min|avg|max) difference [\d.]+ µs: (within|BEYOND)", line):
            out.append(f"| {pair} | " + " | ".join(w for _, w in words) + " |")
        elif "is within the noise" in line or "is beyond the noise" in line:  # older wording
            out.append(f"| {pair} | | {'within' if 'within' in line else 'BEYOND'} | |")
        elif line.startswith("The verdicts "):
            out.append(f"| {pair} | verdicts {line.split()[2].rstrip('.')} |")
    out += [
        "",
        "A pair beyond the noise says why in its first line (the two tools measure "
        "different quantities or under different loads).",
        "",
    ]
    return out


def resummarise(text: str) -> str:
    """The Summary section's table from the pairs in text; the prose after
    the old table (the explanations written for that run) is kept."""
    table = [x for x in summary(text.splitlines()) if x.startswith(("###", "|"))]
    old = text.split("### Summary", 1)[1].split("\n### ", 1)[0] if "### Summary" in text else ""
    prose = [x for x in old.splitlines() if x.strip() and not x.startswith("|")]
    return "\n".join(table + [""] + (prose or summary([])[-2:-1]) + [""])


def splice(old: str, new_sections: list[str]) -> str:
    """old with each '### name' section replaced by the new one of that name;
    one old lacks goes after the last one replaced (at the end if none was),
    the rest kept as it was."""
    new = {s.split("\n", 1)[0]: s for s in new_sections}
    parts = old.split("\n### ")
    out = [parts[0]]
    last = len(out)
    for part in parts[1:]:
        head = "### " + part.split("\n", 1)[0]
        if head in new:
            last = len(out) + 1
        out.append(new.pop(head, "### " + part).rstrip("\n") + "\n")
    if last == 1:
        last = len(out)
    return "\n".join(out[:last] + [s.rstrip("\n") + "\n" for s in new.values()] + out[last:])


def clock_floor() -> list[str]:
    src = ROOT / "bench" / "rawclock.c"
    exe = ROOT / "bench" / "out" / "rawclock"
    exe.parent.mkdir(exist_ok=True)
    subprocess.run(["cc", "-O2", "-o", str(exe), str(src)], check=True)
    raw = json.loads(sh([str(exe)]))
    out = sh([str(PROBE), "--tests", "CLK-P-RES", "--quick"])
    recs = [json.loads(x) for x in out.splitlines()]
    sysrec = recs[0]
    res = next(r for r in recs if r.get("id") == "CLK-P-RES")
    floor = sysrec["clock"]["floor_ns"]
    info = res["info"]
    return [
        "### The probe's floor against the raw cost of a clock read\n",
        "| what | ns |",
        "|---|---|",
        f"| raw rdtsc (lfence; rdtsc), mean of 10⁶ | {raw['rdtsc_ns']:.1f} |",
        f"| raw clock_gettime(CLOCK_MONOTONIC), mean of 10⁶ | {raw['clock_gettime_ns']:.1f} |",
        f"| probe floor: two back-to-back reads, min / mean | {floor['min']} / {floor['mean']:.1f} |",
        f"| CLK-P-RES read cost: {info['probe_clock']['source']} / monotonic | "
        f"{info['probe_clock']['read_cost_ns']:.1f} / {info['monotonic']['read_cost_ns']:.1f} |",
        "",
        f"floor mean / raw rdtsc = {floor['mean'] / raw['rdtsc_ns']:.2f}: the gap "
        "between two back-to-back reads is the cost of one read, so 1.0 means the probe "
        "adds nothing of its own to the floor.",
        "",
    ]


def timed(cmd: list[str]) -> tuple[float, int]:
    """Wall seconds and the peak RSS (KiB) of the command and its children."""
    # GNU time: a small process forks the command, so the peak is the
    # command's own (Python's fork would count Python's pages before exec).
    gnu_time = "/usr/bin/time"
    t0 = time.monotonic()
    if not os.path.exists(gnu_time):
        subprocess.run(cmd, capture_output=True, timeout=1800)
        return time.monotonic() - t0, -1
    proc = subprocess.run(
        [gnu_time, "-f", "%M", *cmd], capture_output=True, text=True, timeout=1800
    )
    return time.monotonic() - t0, int(proc.stderr.strip().splitlines()[-1])


def costs(quick_only: bool) -> list[str]:
    lines = ["### Cost of a run\n", "| what | wall s | peak RSS KiB |", "|---|---|---|"]
    wall, rss = timed([str(PROBE), "--quick"])
    lines.append(f"| rtgauge-probe --quick (every test) | {wall:.1f} | {rss} |")
    if not quick_only:
        wall, rss = timed([str(PROBE)])
        lines.append(f"| rtgauge-probe (default run) | {wall:.1f} | {rss} |")
    wall, rss = timed(["cyclictest", "-m", "-p95", "-i1000", "-D10", "-q", "-S"])
    lines.append(f"| cyclictest -m -p95 -i1000 -D10 -S | {wall:.1f} | {rss} |")
    lines += [
        "",
        "peak RSS: GNU time's %M (ru_maxrss of the command, its reaped children "
        "included; the probe runs each test in a child, so it is the largest test).",
        "",
    ]
    sizes = ["### Probe size (stripped)\n", "| build | bytes |", "|---|---|"]
    for build in ("build-static", "build-musl", "build"):
        p = ROOT / build / "rtgauge-probe"
        if p.exists():
            tmp = ROOT / "bench" / "out" / f"{build}.stripped"
            subprocess.run(["strip", "-o", str(tmp), str(p)], check=True)
            sizes.append(f"| {build} | {tmp.stat().st_size} |")
    cyc = shutil.which("cyclictest")
    if cyc:
        sizes.append(f"| cyclictest (Debian, dynamic) | {Path(cyc).stat().st_size} |")
    return lines + sizes + [""]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="skip the default-run timing")
    ap.add_argument("--out", default=str(ROOT / "bench" / "RESULTS.md"))
    ap.add_argument(
        "--only",
        metavar="REGEX",
        help="run only the pairs whose name matches; their "
        "sections of --out are replaced, the rest kept",
    )
    ap.add_argument(
        "--probe-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="pass ARG to every probe run of a pair (e.g. --probe-arg=--no-explain); "
        "the sections are named with it",
    )
    a = ap.parse_args()
    pairing.PROBE_ARGS[:] = a.probe_arg
    if not PROBE.exists():
        print(f"bench: {PROBE} is not built (make probe)", file=sys.stderr)
        return 2
    have = probe_ids()
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    cpu = next(
        (x.split(":", 1)[1].strip() for x in open("/proc/cpuinfo") if x.startswith("model name")),
        "?",
    )
    lines = [
        "# rtgauge against its peers\n",
        f"Machine: {platform.node()}, {platform.release()}, {os.cpu_count()} CPUs, {cpu}. "
        f"Date: {now}. Each side {a.seconds} s per run, {a.repeats} runs each, interleaved "
        "peer, rtgauge, peer, rtgauge. Figures in µs. Ratios are what to read: this "
        "machine is a shared VM and absolute times are noisy.\n",
    ]
    if a.only:
        chosen = [p for p in PAIRS if re.search(a.only, p.name)]
        if not chosen:
            print(f"bench: no pair matches {a.only}", file=sys.stderr)
            return 2
        sections = ["\n".join(bench_pair(p, a.seconds, a.repeats)) for p in chosen]
        out = Path(a.out)
        text = splice(out.read_text() if out.exists() else "", sections)
        text = splice(text, [resummarise(text)])
        out.write_text(text)
        print(f"bench: updated {a.out}", file=sys.stderr)
        return 0
    for pair in PAIRS:
        if pair.test not in have:
            lines += [f"### {pair.name}\n", f"not landed: the probe has no {pair.test} yet\n"]
            continue
        try:
            lines += bench_pair(pair, a.seconds, a.repeats)
        except (ValueError, subprocess.TimeoutExpired) as exc:
            lines += [f"### {pair.name}\n", f"failed: {exc}\n"]
        print(f"bench: {pair.name} done", file=sys.stderr)
    if "MUT-B-ARC" in have:
        lines += pi_stress_agreement(a.seconds)
    lines += dln_tmo_smp.sections(a.seconds, a.repeats, have)
    lines += summary(lines)
    lines += clock_floor()
    lines += costs(a.quick)
    Path(a.out).write_text("\n".join(lines))
    print(f"bench: wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
