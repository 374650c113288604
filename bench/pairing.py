"""One rtgauge figure beside its peer tool's: a pair names the rtgauge test
and metric, the peer's command and how the two intervals differ; both run
interleaved A B A B so the machine's drift hits both alike, and the pair
writes its section of bench/RESULTS.md. bench.py and dln_tmo_smp.py list
the pairs; this module runs them."""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = Path(os.environ.get("RTGAUGE_PROBE", ROOT / "build" / "rtgauge-probe"))
Figures = dict[str, float]


def sh(cmd: list[str], timeout: float = 600) -> str:
    # By full path: svsematest calls ftok() on its own argv[0].
    exe = shutil.which(cmd[0]) or cmd[0]
    return subprocess.run([exe, *cmd[1:]], capture_output=True, text=True, timeout=timeout).stdout


def rt_tests_pairs(text: str) -> Figures:
    """ptsematest / svsematest / pmqtest / sigwaittest summary lines (µs)."""
    rows = [
        tuple(int(x) for x in m.groups())
        for m in re.finditer(r"Min\s+(\d+), Cur\s+\d+, Avg\s+(\d+), Max\s+(\d+)", text)
    ]
    if not rows:
        raise ValueError("no summary line from the peer")
    return {
        "min": min(r[0] for r in rows),
        "avg": statistics.mean(r[1] for r in rows),
        "max": max(r[2] for r in rows),
        "p99": float("nan"),
    }


def cyclictest_out(text: str) -> Figures:
    rows = [
        tuple(int(x) for x in m.groups())
        for m in re.finditer(r"C:\s*(\d+).*?Min:\s*(\d+).*?Avg:\s*(\d+).*?Max:\s*(\d+)", text)
    ]
    if not rows:
        raise ValueError("no summary line from cyclictest")
    n = sum(r[0] for r in rows)
    return {
        "min": min(r[1] for r in rows),
        "avg": sum(r[0] * r[2] for r in rows) / n,
        "max": max(r[3] for r in rows),
        "p99": float("nan"),
    }


def oslat_out(text: str) -> Figures:
    def grab(key: str) -> float:
        m = re.search(rf"{key}:\s*([\d.]+)", text)
        if not m:
            raise ValueError(f"no {key} from oslat")
        return float(m.group(1))

    return {
        "min": grab("Minimum"),
        "avg": grab("Average"),
        "max": grab("Maximum"),
        "p99": float("nan"),
    }


@dataclass
class Pair:
    name: str
    test: str
    metric: str  # regex on metric names; matching ones are merged by worst/mean
    probe_opts: Callable[[int], list[str]]
    peer: Callable[[int], list[str]]
    parse: Callable[[str], Figures]
    difference: str
    peer_load: list[str] | None = None  # runs in the background during the peer
    ours_load: list[str] | None = None  # and during rtgauge


class Background:
    """A load process for the length of one measured run."""

    def __init__(self, cmd: list[str] | None) -> None:
        self.proc = (
            subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if cmd
            else None
        )

    def __enter__(self) -> Background:
        time.sleep(0.5 if self.proc else 0)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def probe_ids() -> set[str]:
    out = sh([str(PROBE), "--list-json"])
    return {json.loads(line)["id"] for line in out.splitlines()}


# Extra probe arguments for every pair (bench.py --probe-arg, e.g.
# --no-explain to measure without the flight recorder); a section run
# with them is named apart, so both stand side by side in RESULTS.md.
PROBE_ARGS: list[str] = []


def section_name(pair: Pair) -> str:
    return f"{pair.name} (probe {' '.join(PROBE_ARGS)})" if PROBE_ARGS else pair.name


def ours(pair: Pair, secs: int) -> Figures:
    out = sh(
        [str(PROBE), "--tests", pair.test, "--prio", "95", *pair.probe_opts(secs), *PROBE_ARGS]
    )
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("id") == pair.test:
            ms = [m for m in r["metrics"] if re.search(pair.metric, m["name"]) and m["count"]]
            if not ms:
                raise ValueError(f"{pair.test}: no metric matching {pair.metric}")
            n = sum(m["count"] for m in ms)
            return {
                "min": min(m["min"] for m in ms) / 1e3,
                "avg": sum(m["mean"] * m["count"] for m in ms) / n / 1e3,
                "max": max(m["max"] for m in ms) / 1e3,
                "p99": max((m["p99"] or 0) for m in ms) / 1e3,
            }
    raise ValueError(f"no {pair.test} record")


def fmt(x: float) -> str:
    return "—" if x != x else f"{x:.2f}"


def bench_pair(pair: Pair, secs: int, repeats: int) -> list[str]:
    if not shutil.which(pair.peer(secs)[0]):
        return [f"### {section_name(pair)}\n", f"skipped: {pair.peer(secs)[0]} is not installed\n"]
    runs: dict[str, list[Figures]] = {"peer": [], "rtgauge": []}
    for _ in range(repeats):  # A B A B
        with Background(pair.peer_load):
            try:
                runs["peer"].append(pair.parse(sh(pair.peer(secs))))
            except ValueError:  # a peer that failed to start once gets one more try
                runs["peer"].append(pair.parse(sh(pair.peer(secs))))
        with Background(pair.ours_load):
            runs["rtgauge"].append(ours(pair, secs))
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"### {section_name(pair)}\n",
        f"{pair.difference}\n",
        f"Run {when}: {secs} s per run, {repeats} runs each, interleaved.\n",
        "| run | min µs | avg µs | max µs | p99 µs |",
        "|---|---|---|---|---|",
    ]
    for who in ("peer", "rtgauge"):
        for i, f in enumerate(runs[who]):
            label = pair.peer(secs)[0] if who == "peer" else "rtgauge"
            lines.append(
                f"| {label} #{i + 1} | {fmt(f['min'])} | {fmt(f['avg'])} | "
                f"{fmt(f['max'])} | {fmt(f['p99'])} |"
            )
    mean = {
        w: {k: statistics.mean(f[k] for f in runs[w]) for k in ("min", "avg", "max")} for w in runs
    }
    spread = {
        k: max(f[k] for f in runs["peer"]) - min(f[k] for f in runs["peer"])
        for k in ("min", "avg", "max")
    }
    ratio = " · ".join(
        f"{k} {mean['rtgauge'][k] / mean['peer'][k]:.2f}" if mean["peer"][k] else f"{k} —"
        for k in ("min", "avg", "max")
    )
    lines += [
        "",
        f"ratio rtgauge/peer: {ratio}. Peer's own spread over {repeats} runs: "
        + ", ".join(f"{k} {spread[k]:.2f} µs" for k in ("min", "avg", "max"))
        + ". "
        + " ".join(noise_word(k, mean, spread) for k in ("min", "avg", "max")),
        "",
    ]
    return lines


def noise_word(k: str, mean: dict[str, dict[str, float]], spread: dict[str, float]) -> str:
    """Whether the difference of one figure lies within the peer's own spread
    (or its 1 µs resolution): beyond it, the text above must explain it."""
    diff = abs(mean["rtgauge"][k] - mean["peer"][k])
    where = "within" if diff <= max(spread[k], 1.0) else "BEYOND"
    return f"{k} difference {diff:.2f} µs: {where} the noise."
