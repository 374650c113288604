"""`rtgauge run` end to end on this machine: stored, indexed, reported; and
what happens when the run is cut short."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from live_probe import children, wait_for_wakeups
from probe_run import validate

from rtgauge.model import load_bundle

ARGS = ["--quick", "--tests", "CLK-P-RES,TMR-P-LAT", "--opt", "TMR-P-LAT.duration_ms=300"]


@pytest.fixture(autouse=True)
def _probe(host_probe: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every rtgauge started here finds the probe under test through the environment."""
    monkeypatch.setenv("RTGAUGE_PROBE", str(host_probe))


def rtgauge(*argv: str, **kw: object) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-m", "rtgauge.cli.main", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        **kw,  # type: ignore[arg-type]
    )


def test_run_stores_indexes_and_reports(tmp_path: Path) -> None:
    proc = rtgauge("run", *ARGS, "--results-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    bundles = list(tmp_path.glob("*/*.json"))
    assert len(bundles) == 1 and not list(tmp_path.glob("*/*.partial.jsonl"))
    b = load_bundle(bundles[0])
    assert b.complete and [t["id"] for t in b.tests] == ["CLK-P-RES", "TMR-P-LAT"]
    for r in [b.system, *b.tests, b.end]:
        validate(r)  # type: ignore[arg-type]
    assert bundles[0].with_suffix(".html").read_text().startswith("<!DOCTYPE html>")
    assert "timer.wakeup.clock_nanosleep.all" in proc.stdout  # the summary
    assert "[2/2] TMR-P-LAT ok" in proc.stderr  # progress, one line per test off a tty
    runs = rtgauge("runs", "--results-dir", str(tmp_path))
    assert runs.returncode == 0 and bundles[0].name in runs.stdout
    md = rtgauge("report", str(bundles[0]), "--format", "md")  # to stdout, nothing into the store
    assert md.returncode == 0 and md.stdout.count("| figure (µs)") == 2
    assert sorted(p.suffix for p in bundles[0].parent.iterdir()) == [".html", ".json"]


def test_bad_probe_arguments_are_relayed_and_nothing_is_stored(tmp_path: Path) -> None:
    proc = rtgauge("run", "--tests", "NOPE-*", "--results-dir", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.strip() == "rtgauge: error: --tests: no test matches 'NOPE-*' (see --list)"
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def _start(tmp_path: Path, lat_ms: int = 600000) -> subprocess.Popen[str]:
    """rtgauge run of CLK-P-RES and a TMR-P-LAT longer than any wait here."""
    env = dict(os.environ)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rtgauge.cli.main",
            "run",
            "--quick",
            "--tests",
            "CLK-P-RES,TMR-P-LAT,SEM-B-LCK",  # the last never runs when TMR-P-LAT is stopped
            "--opt",
            f"TMR-P-LAT.duration_ms={lat_ms}",
            "--results-dir",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _wait_for_partial(tmp_path: Path, timeout: float = 120) -> Path:
    """The run's partial file, once it holds the system and CLK-P-RES records."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        parts = list(tmp_path.glob("*/*.partial.jsonl"))
        if parts and len(parts[0].read_text().splitlines()) >= 2:  # system + CLK-P-RES
            return parts[0]
        time.sleep(0.05)  # a polling interval
    raise AssertionError(f"no partial file with two records within {timeout} s")


def test_sigint_keeps_partial_samples_and_marks_the_run(tmp_path: Path) -> None:
    proc = _start(tmp_path)
    partial = _wait_for_partial(tmp_path)
    system = json.loads(partial.read_text().splitlines()[0])
    (probe,) = children(proc.pid)  # the host's one child: the local probe
    cpus, fifo = system["cpu"]["selected"], system["privileges"]["sched_fifo"]
    wait_for_wakeups(probe, cpus, fifo)  # TMR-P-LAT has samples
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    b = load_bundle(next(tmp_path.glob("*/*.json")))
    assert not b.complete and b.end and b.end["status"] == "interrupted"
    lat = b.tests[-1]
    assert lat["id"] == "TMR-P-LAT" and lat["status"] == "interrupted"
    assert lat["metrics"][-1]["count"] > 0
    # The count line counts the test cut short and the one never started.
    assert "\n3 tests: 1 passed, 0 failed, 0 errors, 0 skipped, 1 interrupted, 1 not run (" in out
    report = rtgauge(
        "report", str(next(tmp_path.glob("*/*.json"))), "--format", "html", "--out", "-"
    )
    assert "incomplete run" in report.stdout


def test_killed_probe_keeps_every_record_written_before(tmp_path: Path) -> None:
    proc = _start(tmp_path)
    partial = _wait_for_partial(tmp_path)
    probes = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
    for pid in probes.stdout.split():
        os.kill(int(pid), signal.SIGKILL)  # the probe, not the host
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3
    b = load_bundle(next(tmp_path.glob("*/*.json")))
    assert not b.complete and b.end is None
    assert [t["id"] for t in b.tests] == ["CLK-P-RES"]
    assert not partial.exists()
    report = rtgauge(
        "report", str(next(tmp_path.glob("*/*.json"))), "--format", "html", "--out", "-"
    )
    assert report.returncode == 0 and "INCOMPLETE" in report.stdout


def test_killed_host_leaves_the_partial_records(tmp_path: Path) -> None:
    proc = _start(tmp_path, lat_ms=30000)  # the orphan stops with its test
    partial = _wait_for_partial(tmp_path)
    proc.kill()
    proc.communicate(timeout=60)
    records = [json.loads(x) for x in partial.read_text().splitlines()]
    assert [r["record"] for r in records][:2] == ["system", "test"]
    report = rtgauge("report", str(partial), "--format", "html", "--out", "-")
    assert report.returncode == 0 and "INCOMPLETE" in report.stdout
    # The orphaned probe sees its output pipe closed and stops with its test.
    end = time.monotonic() + 120
    while time.monotonic() < end:
        left = subprocess.run(
            ["pgrep", "-f", f"{os.environ['RTGAUGE_PROBE']} --quick --tests CLK-P-RES,TMR-P-LAT"],
            capture_output=True,
            text=True,
        ).stdout.split()
        if not left:
            break
        time.sleep(0.1)
    assert not left, "the probe outlived its host"
