#!/usr/bin/env python3
"""How soon the host tool answers: the wall time of `rtgauge --help`,
`list`, `runs`, `report --format md` and `report --format md --deadline
100us` on a stored default run's bundle, for this tree and for a baseline
commit (by default the one before the commands were made lazy and the pWCET
refits batched), in interleaved rounds (before, after, before, after …) so
the machine's drift hits both alike; min, mean and max per command. Writes
its section of bench/RESULTS.md. A benchmark, never a test: nothing here
passes or fails on a time (tests/unit/test_import_cost.py checks what the
commands import).

Both trees run with this checkout's virtual environment (.venv, the same
libraries), each by its own PYTHONPATH; the baseline's sources come from
`git archive`. Without --store, a default run is made first (as root, a few
minutes) into a temporary store.

Usage: bench/host_speed.py [--store DIR] [--rounds N] [--before REV | --no-before]
[--no-write]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from results_file import write_section

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv" / "bin"
PROBE = Path(os.environ.get("RTGAUGE_PROBE", ROOT / "build" / "rtgauge-probe"))
BASELINE = "e8fd55d"  # the last commit before the host answered at once
BEGIN = "<!-- host-speed: begin (bench/host_speed.py) -->"
END = "<!-- host-speed: end -->"
TARGETS = {  # what the change aimed at, per command (seconds)
    "--help": 0.3,
    "list": 0.3,
    "runs": 0.3,
    "report --format md": 1.5,
    "report --format md --deadline 100us": 3.0,
}


def commands(store: Path, bundle: Path, out: Path) -> dict[str, list[str]]:
    report = ["report", str(bundle), "--format", "md", "--out", str(out)]
    return {
        "--help": ["--help"],
        "list": ["list", "--probe", str(PROBE)],
        "runs": ["runs", "--store", str(store)],
        "report --format md": report,
        "report --format md --deadline 100us": [*report, "--deadline", "100us"],
    }


def timed(src: Path, argv: Sequence[str]) -> float:
    """Seconds from starting `rtgauge argv` (the console script) to its exit."""
    env = dict(os.environ, PYTHONPATH=str(src))
    start = time.perf_counter()
    proc = subprocess.run(
        [str(VENV / "rtgauge"), *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"rtgauge {' '.join(argv)} ({src}): {proc.stderr.strip()}")
    return took


def default_run(store: Path) -> None:
    if os.geteuid() != 0:
        raise RuntimeError("a default run needs root (SCHED_FIFO, mlockall); or give --store")
    print(f"bench: a default run into {store} (a few minutes)", file=sys.stderr)
    argv = ["run", "--probe", str(PROBE), "--store", str(store), "--no-report"]
    subprocess.run([str(VENV / "rtgauge"), *argv], check=True, stdout=subprocess.DEVNULL)


def newest_bundle(store: Path) -> Path:
    found = [p for p in store.rglob("*.json") if not p.name.startswith(".")]
    if not found:
        raise RuntimeError(f"no bundle in {store}")
    return max(found, key=lambda p: p.stat().st_mtime)


def baseline_sources(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def measure(
    trees: dict[str, Path], cmds: dict[str, list[str]], rounds: int
) -> dict[str, dict[str, list[float]]]:
    """{tree: {command: seconds per round}}, the trees interleaved per round."""
    times: dict[str, dict[str, list[float]]] = {t: {c: [] for c in cmds} for t in trees}
    for name, argv in cmds.items():
        for src in trees.values():
            timed(src, argv)  # once to warm the page cache, not counted
        for _ in range(rounds):
            for tree, src in trees.items():
                times[tree][name].append(timed(src, argv))
    return times


def row(values: list[float]) -> str:
    if not values:
        return "— | — | —"
    return f"{min(values):.2f} | {statistics.mean(values):.2f} | {max(values):.2f}"


def section(
    times: dict[str, dict[str, list[float]]],
    rev: str | None,
    bundle: Path,
    rounds: int,
    load: tuple[float, float],
) -> list[str]:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    size = bundle.stat().st_size / 1e6
    before = times.get("before", {})
    after = times["after"]
    lines = [
        BEGIN,
        "",
        "### How soon the host answers: rtgauge's commands, before and after lazy imports",
        "",
        f"Run {when} on this machine ({os.cpu_count()} CPUs, a shared VM; load average "
        f"{load[0]:.1f} before, {load[1]:.1f} after). Wall time of the console script "
        "`.venv/bin/rtgauge` from start to exit, output to /dev/null, "
        f"{rounds} rounds per command after one unrecorded run, the two trees interleaved "
        "(before, after, before, …) so the machine's drift hits both alike; seconds. "
        f"The bundle is a default `rtgauge run` on this machine ({size:.1f} MB); `list` "
        "runs the probe's `--list-json`; `runs` lists a store holding that run. "
        + (
            f"Before: commit {rev} (`git archive`), with the same virtual environment."
            if rev
            else "No baseline was measured."
        ),
        "",
        "| command | before min | mean | max | after min | mean | max | aim |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, values in after.items():
        lines.append(
            f"| `rtgauge {name}` | {row(before.get(name, []))} | {row(values)} | "
            f"≤ {TARGETS[name]:g} |"
        )
    lines += [
        "",
        "On a machine shared with other work (the load average above; other "
        "tests' probes at SCHED_FIFO priorities take a CPU whole) the means and "
        "maxima move with that work; the minima are the figures to compare.",
        "",
        "Before, every command imported every other command's module at start, "
        "and with them SciPy, statsmodels (and pandas), numpy, SQLAlchemy and Alembic. "
        "Now a command's module is imported only when it is chosen, the analysis "
        "loads its libraries in the functions that compute, and a store at the "
        "current schema is listed with SQLAlchemy's core alone (no Alembic, no "
        "bundle views). Reading the bundle, most of `report` once the imports were "
        "gone, checked every number of every histogram bucket through jsonschema; "
        "arrays of numeric tuples are now checked first in plain Python "
        "(src/rtgauge/validate_tuples.py, jsonschema still deciding anything in "
        "doubt). A report with a deadline also spent most of its time in the pWCET "
        "bootstrap's 100 refits per latency figure, one scipy minimize each; they "
        "are now made together as array operations "
        "(src/rtgauge/analysis/gpd_refit.py), with the same draws and scipy's own "
        "steps, so the figures agree to a relative 1e-15 and the report's pWCET "
        "tables read the same. What remains of a report with a deadline is mostly "
        "SciPy's and statsmodels' import (pandas with it), the EVT checks and the "
        "point fits.",
        "",
        END,
        "",
    ]
    return lines


def write(lines: list[str], out: Path) -> None:
    write_section(out, BEGIN, END, "\n".join(lines))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, help="a store holding a default run (else one is made)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--before", default=BASELINE, help=f"the baseline commit (default {BASELINE})")
    ap.add_argument("--no-before", action="store_true", help="measure this tree alone")
    ap.add_argument("--no-write", action="store_true", help="print, do not write RESULTS.md")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    a = ap.parse_args()
    if not PROBE.exists():
        print(f"bench: {PROBE} is not built (make probe)", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="host-speed-"))
    try:
        store = a.store
        if store is None:
            store = work / "store"
            default_run(store)
        bundle = newest_bundle(store)
        trees = {"after": ROOT / "src"}
        rev = None if a.no_before else a.before
        if rev:
            trees = {"before": baseline_sources(rev, work), **trees}
        load_before = os.getloadavg()[0]
        times = measure(trees, commands(store, bundle, work / "report.md"), a.rounds)
        lines = section(times, rev, bundle, a.rounds, (load_before, os.getloadavg()[0]))
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 3
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if a.no_write:
        print("\n".join(lines))
    else:
        write(lines, a.out)
        print(f"bench: wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
