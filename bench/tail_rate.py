"""How much a disturbance moved the tail, read from stored runs: for each
run against the one before it, the share of its samples above the older
run's p99.9, as a multiple of the 0.1 % an unchanged system gives.

It checks that bench/regression_power.py's hog does what it is meant to do
(double the rate above the old p99.9) and that clean reruns stay near 1.
Counts come from the stored histograms: a bucket counts as above when its
lower edge is at or above the threshold (a bucket straddling it does not),
so the multiples are slightly low, on both sides alike.

Usage: bench/tail_rate.py STORE N K   (N clean runs, then K hog/clean pairs,
the order bench/regression_power.py makes them in; RTGAUGE_BENCH_STORE)
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

FIGURE = "timer.wakeup.clock_nanosleep.all"


def figure(path: Path) -> dict[str, object]:
    bundle = json.loads(path.read_text())
    for test in bundle["tests"]:
        for m in test["metrics"]:
            if m["name"] == FIGURE:
                return dict(m)
    raise SystemExit(f"{path}: no {FIGURE}")


def above(m: dict[str, object], threshold: float) -> int:
    hist = m["hist"]
    assert isinstance(hist, dict)
    n = sum(c for lo, _hi, c in hist["buckets"] if lo >= threshold)
    return int(n) + int(hist.get("overflow") or 0)


def multiple(older: dict[str, object], newer: dict[str, object]) -> float:
    """The newer run's share above the older one's p99.9, over 0.1 %."""
    threshold = float(older["p99_9"])  # type: ignore[arg-type]
    return above(newer, threshold) / int(newer["count"]) / 0.001  # type: ignore[call-overload]


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    if not (sys.argv[2].isdigit() and sys.argv[3].isdigit() and Path(sys.argv[1]).is_dir()):
        print(f"tail_rate: give a store directory and two counts: {sys.argv[1:]}", file=sys.stderr)
        return 2
    store, n, k = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    runs = sorted(p for p in store.rglob("*.json") if not p.name.endswith(".partial.jsonl"))
    if len(runs) != n + 2 * k:
        print(f"{store}: {len(runs)} runs stored, expected {n} + 2 × {k}", file=sys.stderr)
        return 2
    figs = [figure(p) for p in runs]
    clean = [multiple(figs[i - 1], figs[i]) for i in range(1, n)]
    hog = [multiple(figs[n + 2 * j - 1], figs[n + 2 * j]) for j in range(k)]
    for name, xs in (("clean after clean", clean), ("hog after clean", hog)):
        print(
            f"{name}: {len(xs)} pairs, samples above the older run's p99.9 as a multiple of "
            f"0.1 %: min {min(xs):.2f}, median {statistics.median(xs):.2f}, max {max(xs):.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
