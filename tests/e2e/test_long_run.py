"""Long runs end to end: a duration test writes its figures interval by
interval as it runs, the intervals add up to the test, and a run whose probe
is killed mid-test keeps the intervals written and reports the test from them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from live_probe import WAIT_S, children
from probe_run import validate

from rtgauge.model import load_bundle

PER_CPU = "timer.wakeup.clock_nanosleep.cpu"
ALL = "timer.wakeup.clock_nanosleep.all"


@pytest.fixture(autouse=True)
def _probe(host_probe: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RTGAUGE_PROBE", str(host_probe))


def rtgauge(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rtgauge.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_intervals_add_up_to_the_test(tmp_path: Path) -> None:
    proc = rtgauge(
        "run", "--tests", "TMR-P-LAT", "--duration", "10s", "--interval", "1s",
        "--no-report", "--results-dir", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    b = load_bundle(next(tmp_path.glob("*/*.json")))
    (test,) = b.tests
    assert test["options"]["duration_ms"] == 10000
    assert len(b.intervals) >= 8
    for r in b.intervals:
        validate(r)
    assert [r["seq"] for r in b.intervals] == list(range(len(b.intervals)))
    assert all(r["planned_ms"] == 10000 and r["interval_ms"] == 1000 for r in b.intervals)
    figures = {m["name"]: m for m in test["metrics"]}
    per_cpu = [n for n in figures if n.startswith(PER_CPU)]
    assert per_cpu
    for name in per_cpu:
        parts = [f for r in b.intervals for f in r["figures"] if f["name"] == name]
        assert sum(f["count"] for f in parts) == figures[name]["count"] > 0
        assert max(f["max"] for f in parts if f["count"]) == figures[name]["max"]
        assert min(f["min"] for f in parts if f["count"]) == figures[name]["min"]
    every = [f for r in b.intervals for f in r["figures"]]
    assert sum(f["count"] for f in every) == figures[ALL]["count"]
    assert max(f["max"] for f in every if f["count"]) == figures[ALL]["max"]


def _interval_lines(partial: Path) -> int:
    """Interval records in full lines (a line being written, or cut by a kill, is not one)."""
    count = 0
    for line in partial.read_text().splitlines():
        try:
            count += json.loads(line)["record"] == "interval"
        except json.JSONDecodeError:
            pass
    return count


def _partial_with(store: Path, intervals: int) -> Path:
    """The run's partial file once it holds that many interval records."""
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        found = list(store.glob("*/*.partial.jsonl"))
        if found and _interval_lines(found[0]) >= intervals:
            return found[0]
        time.sleep(0.05)  # a polling interval, not a wait for the run
    raise AssertionError(f"no {intervals} interval records within {WAIT_S} s")


def test_a_killed_probe_leaves_its_intervals_and_the_report_says_so(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "rtgauge.cli.main", "run", "--tests", "TMR-P-LAT",
            "--duration", "1h", "--interval", "1s", "--no-report", "--results-dir", str(tmp_path),
            "--no-explain",  # a probe killed with SIGKILL cannot put tracefs back itself
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        _partial_with(tmp_path, 3)  # the stream as stored, line by line: its 3rd interval
        (probe,) = children(proc.pid)  # the host's one child: the probe it started
        os.kill(probe, signal.SIGKILL)
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 3, err
    assert "\n1 tests: 0 passed, 0 failed, 0 errors, 0 skipped, 1 interrupted" in out
    bundle = next(tmp_path.glob("*/*.json"))
    b = load_bundle(bundle)
    assert not b.complete and b.tests == [] and len(b.intervals) >= 3
    n = len(b.intervals)
    count = sum(f["count"] for r in b.intervals for f in r["figures"])
    worst = max(f["max"] for r in b.intervals for f in r["figures"] if f["count"])
    report = rtgauge("report", str(bundle), "--format", "json")
    assert report.returncode == 0, report.stderr
    assert "stopped after " in report.stdout and " of 1 h: its figures are those of the " in (
        report.stdout
    )
    assert f"those of the {n} intervals recorded" in report.stdout
    md = rtgauge("report", str(bundle), "--format", "md")
    assert md.returncode == 0 and f"those of the {n} intervals recorded" in md.stdout
    from rtgauge.run import Run

    (test,) = Run.of(b).tests
    assert test.status == "interrupted"
    all_cpus = test.metric(ALL)
    assert all_cpus is not None and all_cpus.count == count and all_cpus.max == worst


def test_a_killed_host_leaves_a_run_the_next_command_stores(tmp_path: Path) -> None:
    """Host and probe SIGKILLed together, as a power cut stops both: the
    partial file's writer is gone, so the next command seals it as a run."""
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "rtgauge.cli.main", "run", "--tests", "TMR-P-LAT",
            "--duration", "1h", "--interval", "1s", "--no-report", "--results-dir", str(tmp_path),
            "--no-explain",  # a probe killed with SIGKILL cannot put tracefs back itself
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        partial = _partial_with(tmp_path, 2)
        alive = rtgauge("runs", "--results-dir", str(tmp_path), "--format", "json")
        assert alive.returncode == 0 and json.loads(alive.stdout) == []  # still being written
        assert partial.exists()
        os.killpg(proc.pid, signal.SIGKILL)  # the host and its probe at once
        proc.wait(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    kept = _interval_lines(partial)
    runs = rtgauge("runs", "--results-dir", str(tmp_path), "--format", "json")
    assert runs.returncode == 0, runs.stderr
    assert "a run cut short was kept as" in runs.stderr
    assert len(json.loads(runs.stdout)) == 1 and not partial.exists()
    bundle = next(tmp_path.glob("*/*.json"))
    b = load_bundle(bundle)
    assert not b.complete and len(b.intervals) == kept
    md = rtgauge("report", str(bundle), "--format", "md")
    assert md.returncode == 0 and f"those of the {kept} intervals recorded" in md.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--duration", "10"], "rtgauge: error: --duration '10': give a number and a unit"),
        (["--duration", "8d"], "rtgauge: error: --duration '8d': give a span from 100 ms to 7 d"),
        (["--interval", "1x"], "rtgauge: error: --interval '1x': give a number and a unit"),
        (["--interval", "10ms"], "rtgauge: error: --interval '10ms': give a span from 100 ms"),
    ],
)
def test_bad_spans_exit_2_with_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    proc = rtgauge("run", "--tests", "TMR-P-LAT", *args, "--results-dir", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.startswith(says) and proc.stderr.count("\n") == 1
    assert not tmp_path.exists() or not any(tmp_path.iterdir())  # nothing ran
