#!/usr/bin/env python3
"""Is every headline explained? Runs rtgauge (or reads runs already
stored) and counts, per test, the figure maxima — the numbers a reader
sees first — held by a complete kept window, against every figure of the
test; says why each other one is not; and gives the recorder's capture
rate (windows cut against samples that entered the kept set: the rest are
`uncaptured`), the windows that came out complete, the events lost, and
the recorder's set-up time (it delays each explained test's first sample).
Writes its section of bench/RESULTS.md.

Usage, as root:
    bench/explain_capture.py run NAME N [rtgauge run options…]
    bench/explain_capture.py read NAME STORE_DIR…
e.g. `run default 20 --tests 'TMR-P-LAT,TMR-P-LOAD,IRQ-P-LAT,THR-P-PRE,TMO-P-ACC,DLN-P-LAT'`,
`run quick-catalogue 5 --quick`, `run hackbench 5 --quick --tests …` with
hackbench running beside it (the caller starts it).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from results_file import write_section

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.model import load_bundle

ROOT = Path(__file__).resolve().parents[1]
RTGAUGE = str(ROOT / ".venv" / "bin" / "rtgauge")
PROBE = os.environ.get("RTGAUGE_PROBE", str(ROOT / "build" / "rtgauge-probe"))


@dataclass
class Tally:
    """One test over every run."""

    runs: int = 0
    figures: int = 0  # figure maxima (a merged ….all one not counted; one without samples neither)
    explained: int = 0  # held by a complete kept window
    incomplete: int = 0  # held by a window that is not complete
    why_not: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    offered: int = 0
    cut: int = 0
    uncaptured: int = 0
    windows: int = 0
    complete: int = 0
    lost: int = 0
    setup_ms: list[float] = field(default_factory=list)


def tally(paths: list[Path]) -> dict[str, Tally]:
    out: dict[str, Tally] = defaultdict(Tally)
    for path in paths:
        a = AnalysedRun.of(load_bundle(path))
        for test in a.run.tests:
            # a finished test with figures: a performance test (ok) or a
            # behaviour verdict with figures of its own (pass, fail)
            if test.status not in ("ok", "pass", "fail") or not test.metrics:
                continue
            t = out[test.id]
            t.runs += 1
            figures = [m for m in test.metrics if not m.name.endswith(".all") and m.max is not None]
            t.figures += len(figures)
            e = a.test_explained(test)
            if e is None or e.why_not:
                why = e.why_not if e else "no recorder in this test"
                t.why_not[why or "not explained"] += len(figures)
                continue
            rec = e.record
            t.offered += rec.offered
            t.cut += rec.freezes
            t.uncaptured += rec.uncaptured
            t.lost += rec.lost_events
            t.windows += len(e.windows)
            t.complete += sum(w.explanation.complete for w in e.windows)
            if rec.setup_ns:
                t.setup_ms.append(rec.setup_ns / 1e6)
            covered = {f.metric: f for f in e.figures}
            for m in figures:
                f = covered.get(m.name)
                if f is None:
                    t.why_not["not offered to the recorder, no reason given"] += 1
                elif f.window is None:
                    t.why_not[f.why_not or "not kept"] += 1
                elif f.window.explanation.complete:
                    t.explained += 1
                else:
                    t.incomplete += 1
    return out


def table(name: str, n_runs: int, tallies: dict[str, Tally]) -> str:
    rows = [
        "| test | runs | figure maxima explained | incomplete | not explained (why) "
        "| cut / entered | windows complete | events lost | set-up ms (mean / max) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for tid in sorted(tallies):
        t = tallies[tid]
        whys = "; ".join(f"{n}: {w}" for w, n in sorted(t.why_not.items())) or "—"
        entered = t.cut + t.uncaptured
        setup = f"{statistics.mean(t.setup_ms):.1f} / {max(t.setup_ms):.1f}" if t.setup_ms else "—"
        rows.append(
            f"| {tid} | {t.runs} | {t.explained} of {t.figures} | {t.incomplete} | {whys} "
            f"| {t.cut} / {entered} | {t.complete} of {t.windows} | {t.lost} | {setup} |"
        )
    return f"### {name}: {n_runs} runs\n\n" + "\n".join(rows) + "\n"


def run(n: int, args: list[str]) -> list[Path]:
    store = Path(tempfile.mkdtemp(prefix="explain-capture-"))
    print(f"store: {store}", file=sys.stderr, flush=True)
    for i in range(n):
        cmd = [RTGAUGE, "run", "--probe", PROBE, "--store", str(store), "--no-report", *args]
        done = subprocess.run(cmd, capture_output=True, text=True)
        print(f"run {i + 1}/{n}: exit {done.returncode}", file=sys.stderr, flush=True)
    return sorted(store.glob("*/*.json"))


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in ("run", "read"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, name = argv[0], argv[1]
    if mode == "run":
        paths = run(int(argv[2]), argv[3:])
        how = "`bench/explain_capture.py run " + " ".join([name, *argv[2:]]) + "`"
    else:
        paths = sorted(p for d in argv[2:] for p in Path(d).glob("*/*.json"))
        how = f"`bench/explain_capture.py read {name} …` ({len(paths)} stored runs)"
    tallies = tally(paths)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    begin = f"<!-- explain-capture {name}: begin (bench/explain_capture.py) -->"
    end = f"<!-- explain-capture {name}: end -->"
    body = f"{table(name, len(paths), tallies)}\n{when}, {how}.\n"
    print(body)
    write_section(ROOT / "bench" / "RESULTS.md", begin, end, f"{begin}\n{body}{end}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
