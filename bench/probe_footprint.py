#!/usr/bin/env python3
"""The probe's footprint beside cyclictest's: the peak resident memory of a
default run, of each test run alone and of cyclictest, and the size of the
static probes (glibc and musl), for this tree and for a baseline commit
(by default the one before the probe was made lean). Writes its section of
bench/RESULTS.md. A benchmark, never a test: nothing here passes or fails.

Peak RSS is GNU time's %M: the ru_maxrss that wait4 returns for the
command, which Linux keeps as the largest resident set of the command's
process or of any descendant it reaped (the largest one, not a sum). The
probe runs each test in a child it reaps, and a test reaps the load
processes it forks, so the figure is the whole tree's largest process.

The baseline's sources come from `git archive`, built with its own Makefile
(probe, probe-static, probe-musl) in a temporary directory; this tree's
builds must exist (make probe probe-static probe-musl). As root: the tests
lock their memory and run SCHED_FIFO as they would in a real run, and
that locking is what makes stacks and buffers resident.

Usage: bench/probe_footprint.py [--before REV | --no-before] [--quick]
[--seconds S] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from results_file import write_section

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "e8fd55d"  # the last commit before the lean probe
BEGIN = "<!-- probe-footprint: begin (bench/probe_footprint.py) -->"
END = "<!-- probe-footprint: end -->"
BUILDS = ("build", "build-static", "build-musl")
# The memory load of TMR-P-LOAD maps memory_mib (32 by default) MiB per load process:
# the load, not the probe. Run once more with 1 MiB to see the probe apart.
SMALL_LOAD = ("--opt", "TMR-P-LOAD.memory_mib=1")


def peak_kib(cmd: list[str], timeout: float = 3600) -> int:
    """GNU time's %M of the command (KiB); its output is discarded."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        subprocess.run(
            ["/usr/bin/time", "-o", t.name, "-f", "%M", *cmd],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
        return int(t.read().strip().splitlines()[-1])


def test_ids(probe: Path) -> list[str]:
    out = subprocess.run([str(probe), "--list-json"], capture_output=True, text=True, check=True)
    return [json.loads(line)["id"] for line in out.stdout.splitlines() if line.strip()]


@dataclass
class Tree:
    """One tree's probes and what was measured of them."""

    name: str
    root: Path
    rev: str = ""
    default_run: int = -1
    default_run_small_load: int = -1
    per_test: dict[str, int] = field(default_factory=dict)
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)  # as built, stripped

    @property
    def probe(self) -> Path:
        return self.root / "build" / "rtgauge-probe"

    def measure(self, quick: bool) -> None:
        q = ["--quick"] if quick else []
        base = [str(self.probe), *q, "--out", "/dev/null"]
        self.default_run = peak_kib(base)
        print(f"footprint: {self.name}: default run {self.default_run} KiB", file=sys.stderr)
        for t in test_ids(self.probe):
            self.per_test[t] = peak_kib([*base, "--tests", t])
        self.default_run_small_load = peak_kib([*base, "--tests", "TMR-P-LOAD", *SMALL_LOAD])
        for b in BUILDS:
            p = self.root / b / "rtgauge-probe"
            if not p.exists():
                continue
            with tempfile.TemporaryDirectory() as d:
                s = Path(d) / "stripped"
                subprocess.run(["strip", "-o", str(s), str(p)], check=True)
                self.sizes[b] = (p.stat().st_size, s.stat().st_size)

    def probe_own_peak(self) -> tuple[int, str]:
        """The largest test with TMR-P-LOAD's memory load at 1 MiB: the probe
        without the buffer of the load it imposes."""
        rows = {**self.per_test, "TMR-P-LOAD": self.default_run_small_load}
        worst = max(rows, key=lambda t: rows[t])
        return rows[worst], worst


def build_baseline(rev: str, into: Path) -> Tree:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    subprocess.run(
        ["make", "-C", str(into), "probe", "probe-static", "probe-musl", "JOBS=2"],
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return Tree(f"before ({rev})", into, rev)


def mib(kib: int) -> str:
    return f"{kib / 1024:.1f}" if kib >= 0 else "—"


def section(before: Tree | None, after: Tree, cyclic: list[int], quick: bool, secs: int) -> str:
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    trees = [t for t in (before, after) if t]
    cmin = min(cyclic)
    run = "--quick run" if quick else "default run"
    lines = [
        BEGIN,
        "",
        "### The probe's footprint beside cyclictest's: peak RSS and static size",
        "",
        f"Run {now} on this machine ({os.cpu_count()} CPUs, a shared VM; load average "
        f"{load:.1f} at the end), as root. Peak RSS is GNU time's `%M`: the ru_maxrss wait4 "
        "returns for the command, the largest resident set of its process or of any "
        "descendant it reaped (the largest one, not a sum): the probe reaps the child "
        "each test runs in, a test the load processes it forks, so it covers the whole "
        "tree. Every test locks its memory (mlockall), so stacks and buffers count whole. "
        + (f"Before: commit {before.rev} (`git archive`, its own Makefile). " if before else "")
        + f"cyclictest: `cyclictest -m -p95 -i1000 -d0 -D{secs} -q -S` (bench.py's), "
        f"{len(cyclic)} runs.",
        "",
        "| what | " + " | ".join(t.name for t in trees) + " |",
        "|---|" + "---|" * len(trees),
        f"| probe, {run} (`--out /dev/null`, every test), MiB | "
        + " | ".join(mib(t.default_run) for t in trees)
        + " |",
    ]
    heavy = {t.name: max(t.per_test, key=lambda k: t.per_test[k]) for t in trees}
    lines.append(
        "| heaviest test alone, MiB | "
        + " | ".join(f"{mib(t.per_test[heavy[t.name]])} ({heavy[t.name]})" for t in trees)
        + " |"
    )
    own = {t.name: t.probe_own_peak() for t in trees}
    lines.append(
        "| heaviest test, TMR-P-LOAD's memory load at 1 MiB, MiB | "
        + " | ".join(f"{mib(own[t.name][0])} ({own[t.name][1]})" for t in trees)
        + " |"
    )
    lines.append(
        f"| cyclictest, MiB (of {len(cyclic)} runs: least, most) | "
        + " | ".join(f"{mib(cmin)}, {mib(max(cyclic))}" for _ in trees)
        + " |"
    )
    lines.append(
        "| probe ÷ cyclictest (default run; heaviest without the load's buffer) | "
        + " | ".join(f"{t.default_run / cmin:.2f}; {own[t.name][0] / cmin:.2f}" for t in trees)
        + " |"
    )
    for b in BUILDS:
        lines.append(
            f"| `{b}/rtgauge-probe` bytes, as built (stripped) | "
            + " | ".join(
                f"{t.sizes[b][0]:,} ({t.sizes[b][1]:,})" if b in t.sizes else "—" for t in trees
            )
            + " |"
        )
    lines += [
        "",
        "Each test alone (`--tests ID`, its default options), the largest first, MiB:",
        "",
    ]
    names = sorted(
        after.per_test,
        key=lambda k: -max(after.per_test[k], before.per_test.get(k, -1) if before else -1),
    )
    lines += ["| test | " + " | ".join(t.name for t in trees) + " |", "|---|" + "---|" * len(trees)]
    shown = names[:12]
    for n in shown:
        lines.append(f"| {n} | " + " | ".join(mib(t.per_test.get(n, -1)) for t in trees) + " |")
    if len(names) > len(shown):
        lines.append(
            f"| the {len(names) - len(shown)} others, at most | "
            + " | ".join(mib(max(t.per_test.get(n, -1) for n in names[12:])) for t in trees)
            + " |"
        )
    lines += [
        "",
        "TMR-P-LOAD's figure is its memory load: one process per CPU maps `memory_mib` "
        "(32 by default; 64 before) MiB and touches every page, the load the test measures under (the built-in "
        "counterpart of stress-ng --vm), not the probe's own memory; the first "
        "table's third row runs TMR-P-LOAD with `--opt TMR-P-LOAD.memory_mib=1` to show "
        "the probe without that buffer. The static sizes are the files as `make "
        "probe-static probe-musl` builds them, stripped beside them.",
        "",
        END,
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--before", default=BASELINE, help=f"baseline commit (default {BASELINE})")
    ap.add_argument("--no-before", action="store_true", help="measure this tree only")
    ap.add_argument("--quick", action="store_true", help="--quick runs instead of default ones")
    ap.add_argument("--seconds", type=int, default=10, help="cyclictest's duration (10)")
    ap.add_argument("--no-write", action="store_true", help="print the section, leave RESULTS.md")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("probe_footprint: run as root (the tests lock their memory)", file=sys.stderr)
        return 2
    if not shutil.which("cyclictest") or not os.path.exists("/usr/bin/time"):
        print("probe_footprint: needs cyclictest (rt-tests) and GNU time", file=sys.stderr)
        return 2
    after = Tree("after (this tree)", ROOT)
    if not after.probe.exists():
        print(f"probe_footprint: {after.probe} is not built (make probe)", file=sys.stderr)
        return 2
    cyclic_cmd = ["cyclictest", "-m", "-p95", "-i1000", "-d0", f"-D{a.seconds}", "-q", "-S"]
    with tempfile.TemporaryDirectory(prefix="rtgauge-footprint-") as tmp:
        before = None if a.no_before else build_baseline(a.before, Path(tmp))
        cyclic = [peak_kib(cyclic_cmd)]
        for tree in (before, after):
            if tree:
                tree.measure(a.quick)
                cyclic.append(peak_kib(cyclic_cmd))
        text = section(before, after, cyclic, a.quick, a.seconds)
    if a.no_write:
        print(text)
        return 0
    out = ROOT / "bench" / "RESULTS.md"
    write_section(out, BEGIN, END, text)
    print(f"probe_footprint: wrote its section of {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
