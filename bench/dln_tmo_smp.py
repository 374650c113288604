#!/usr/bin/env python3
"""Deadline scheduling, timed waits and multiprocessor scheduling next to
their peers: DLN-P-LAT beside cyclicdeadline, TMO-P-ACC's semaphore timeout
beside cyclictest, and SMP-B-MIG's verdict beside rt-migrate-test's (global
and all pinned to one CPU). bench.py includes these sections; run alone,
this rewrites only its own part of bench/RESULTS.md (between the markers).
Usage: bench/dln_tmo_smp.py [--seconds S] [--repeats R]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from pairing import PROBE, ROOT, Pair, bench_pair, cyclictest_out, probe_ids, sh
from results_file import write_section

BEGIN = "<!-- deadline scheduling, timed waits, multiprocessor scheduling: bench/dln_tmo_smp.py -->"
END = "<!-- end of deadline scheduling, timed waits, multiprocessor scheduling -->"


PAIRS = [
    Pair(
        "DLN-P-LAT ↔ cyclicdeadline",
        "DLN-P-LAT",
        r"^deadline\.activation\.sched_deadline$",
        lambda s: [
            "--opt",
            "DLN-P-LAT.period_us=10000",
            "--opt",
            "DLN-P-LAT.runtime_us=1000",
            "--opt",
            f"DLN-P-LAT.periods={s * 100}",
        ],  # fmt: skip
        lambda s: ["cyclicdeadline", "-q", "-t", "1", "-i", "10000", "-D", str(s)],
        cyclictest_out,  # the same summary line (C:, Min:, Avg:, Max:)
        "one SCHED_DEADLINE task, 10 ms period = deadline, both waking after giving up the "
        "period; cyclicdeadline asks a 6 ms runtime (it needs ≥ 2 ms without HRTICK), "
        "DLN-P-LAT 1 ms; both time the period start → the task runs, cyclicdeadline in "
        "whole µs.",
    ),
    Pair(
        "TMO-P-ACC (semaphore) ↔ cyclictest",
        "TMO-P-ACC",
        r"^timeout\.late\.sem$",
        lambda s: ["--opt", "TMO-P-ACC.timeout_us=1000", "--opt", f"TMO-P-ACC.loops={s * 250}"],
        lambda s: ["cyclictest", "-m", "-p95", "-i1000", "-d0", f"-D{s}", "-q", "-S"],
        cyclictest_out,
        "cyclicdeadline has no timed-wait mode, so the peer is cyclictest: an expired "
        "sem_clockwait (1 ms) against an expired clock_nanosleep (1 ms), both measured as "
        "return time − deadline; the wait adds the semaphore's futex path.",
    ),
]


def migrate_agreement(secs: int) -> list[str]:
    """SMP-B-MIG ↔ rt-migrate-test, global and all pinned to CPU 0."""
    head = ["### SMP-B-MIG ↔ rt-migrate-test (verdicts)\n"]
    if not shutil.which("rt-migrate-test"):
        return head + ["skipped: rt-migrate-test is not installed\n"]
    rows = []
    for label, pin, opt in (
        ("global", [], "global"),
        ("all pinned to CPU 0", ["taskset", "-c", "0"], "one_cpu"),
    ):
        peer = subprocess.run(
            [*pin, "rt-migrate-test", "-c", "-l", str(max(5, secs * 2))],
            capture_output=True,
            text=True,
            timeout=secs * 10 + 60,
        )
        peer_ok = "Passed!" in peer.stdout and "Failed!" not in peer.stdout
        out = sh([str(PROBE), "--tests", "SMP-B-MIG", "--opt", f"SMP-B-MIG.placement={opt}"])
        ours = "?"
        for line in out.splitlines():
            r = json.loads(line)
            if r.get("id") == "SMP-B-MIG":
                v = r["verdicts"][0] if r["verdicts"] else None
                ours = (
                    f"{'pass' if v['pass'] else 'FAIL'} ({v['observed']})"
                    if v
                    else f"{r['status']}: {r['reason']}"
                )
        rows.append(f"| {label} | {'Passed' if peer_ok else 'Failed'} | {ours} |")
    return head + [
        "rt-migrate-test (-c) stops when a lower-priority task finishes its burst before "
        "a higher one; SMP-B-MIG checks at every instant that a waiting runnable thread has "
        "C higher-priority threads running (a CPU left idle while a thread waits fails it).\n",
        "| placement | rt-migrate-test -c | rtgauge SMP-B-MIG |",
        "|---|---|---|",
        *rows,
        "",
    ]


def sections(secs: int, repeats: int, have: set[str]) -> list[str]:
    lines = [BEGIN, "", "## Deadline scheduling, timed waits, multiprocessor scheduling\n"]
    for pair in PAIRS:
        if pair.test not in have:
            lines += [f"### {pair.name}\n", f"not landed: the probe has no {pair.test} yet\n"]
            continue
        try:
            lines += bench_pair(pair, secs, repeats)
        except (ValueError, subprocess.TimeoutExpired) as exc:
            lines += [f"### {pair.name}\n", f"failed: {exc}\n"]
        print(f"bench: {pair.name} done", file=sys.stderr)
    if "SMP-B-MIG" in have:
        lines += migrate_agreement(secs)
    return lines + [END, ""]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "bench" / "RESULTS.md"))
    a = ap.parse_args()
    if not PROBE.exists():
        print(f"bench: {PROBE} is not built (make probe)", file=sys.stderr)
        return 2
    new = "\n".join(sections(a.seconds, a.repeats, probe_ids()))
    out = Path(a.out)
    write_section(out, BEGIN, END, new)
    print(f"bench: wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
