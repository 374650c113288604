"""The probe built with the second OSAL (core/osal/c11: ISO C11 threads and
nothing from POSIX) runs the whole catalogue: what the port can do is
measured, what it lacks is skipped with the reason, never faked."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What ISO C11 cannot offer, as the tests declare it in their .needs.
NEEDS_WHAT_C11_LACKS = {
    "TMR-P-LOAD": "processes",
    "THR-P-BKG": "processes",
    "PRC-P-NEW": "processes",
    "MSG-P-SND": "message queues",
    "MSG-P-LAT": "message queues",
    "MSG-P-RTT": "message queues",
    "MSG-P-FIL": "message queues",
    "MSG-P-ALT": "message queues",
    "SIG-P-LAT": "queued signals",
    "TMR-S-SUS": "timers",
    "IRQ-P-LAT": "timers",
    "MEM-P-FLT": "fresh page mappings",
    "RWL-P-ARC": "reader-writer locks",
    "BAR-P-LAT": "barriers",
    "SMP-B-MIG": "thread affinity to a set of CPUs",
    "DLN-B-ADM": "a deadline scheduler",
    "DLN-P-LAT": "a deadline scheduler",
}
# Tests that need nothing beyond threads, semaphores, plain mutexes and time.
RUNS_ON_C11 = {
    "CLK-P-RES", "TMR-P-LAT", "SEM-P-ARN", "SEM-P-PNG", "MUT-P-ARN", "MEM-P-CPY",
    "CND-P-LAT", "TMO-P-ACC",
}  # fmt: skip


@pytest.fixture(scope="module")
def c11_probe() -> Path:
    chosen = os.environ.get("RTGAUGE_PROBE_C11")
    probe = Path(chosen) if chosen else ROOT / "build-c11" / "rtgauge-probe"
    if not probe.exists():
        if chosen:
            pytest.fail(f"RTGAUGE_PROBE_C11={chosen} does not exist")
        pytest.skip("no c11 build (make probe-c11)")
    return probe


def run(probe: Path, *args: str) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [str(probe), "--quick", "--out", "-", *args], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_the_whole_catalogue_runs_or_says_why_not(c11_probe: Path) -> None:
    records = run(c11_probe)
    system, tests, end = records[0], records[1:-1], records[-1]
    assert system["probe"]["build"]["osal"] == "c11"
    assert system["privileges"]["sched_fifo"] is False
    assert system["privileges"]["mlockall"] is False
    assert end["record"] == "end"
    by_id = {r["id"]: r for r in tests}
    for test_id, lack in NEEDS_WHAT_C11_LACKS.items():
        r = by_id[test_id]
        assert r["status"] == "skipped"
        assert r["reason"] == f"needs {lack}, which the c11 OSAL does not offer"
    for test_id in RUNS_ON_C11:
        r = by_id[test_id]
        assert r["status"] == "ok", (test_id, r.get("reason"))
        assert r["conditions"]["policy"] == "SCHED_OTHER"
        assert any(m["count"] > 0 for m in r["metrics"]), test_id
    # Nothing else fails: the rest is skipped for want of priorities.
    for r in tests:
        if r["id"] not in RUNS_ON_C11 and r["status"] == "skipped":
            assert r["reason"], r["id"]
        assert r["status"] in ("ok", "pass", "skipped"), (r["id"], r["status"], r.get("reason"))


def test_a_timer_variant_the_port_lacks_is_skipped(c11_probe: Path) -> None:
    (r,) = run(c11_probe, "--tests", "TMR-P-LAT", "--opt", "TMR-P-LAT.variant=timerfd")[1:-1]
    assert r["status"] == "skipped"
    assert "is not offered by this OS" in r["reason"]


def test_clocks_the_port_lacks_are_reported_not_measured(c11_probe: Path) -> None:
    (r,) = run(c11_probe, "--tests", "CLK-P-RES")[1:-1]
    assert r["info"]["monotonic_raw"] == {"offered": False}
    assert r["info"]["realtime"]["smallest_step_ns"] > 0
    names = {m["name"] for m in r["metrics"]}
    assert "clock.read_pair.realtime" in names and "clock.read_pair.monotonic_raw" not in names


def test_priorities_are_refused_with_a_clear_message(c11_probe: Path) -> None:
    proc = subprocess.run(
        [str(c11_probe), "--prio", "50", "--list"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("offers no real-time priorities")


def test_timed_waits_without_a_timed_receive(c11_probe: Path) -> None:
    """ISO C11 has timed mutexes and condition variables, no message queues:
    TMO-P-ACC measures the three it has and says the queue is not offered."""
    (r,) = run(c11_probe, "--tests", "TMO-P-ACC")[1:-1]
    names = [m["name"] for m in r["metrics"]]
    assert names == ["timeout.late.sem", "timeout.late.mutex", "timeout.late.cond"]
    assert any("queue: not offered" in n for n in r["notes"])


def test_a_test_the_port_cannot_end_ends_the_run_and_says_so(c11_probe: Path) -> None:
    """ISO C cannot kill a thread: a test deaf to the stop request is
    recorded as a watchdog error, the tests after it never run, and the end
    record says the run is not complete (exit 3)."""
    hooks = c11_probe.with_name("rtgauge-probe-hooks")
    if not hooks.exists():
        pytest.skip("no c11 hooks build")
    proc = subprocess.run(
        [
            str(hooks),
            "--quick",
            "--out",
            "-",
            "--tests",
            "DBG-P-HANG,DBG-P-CRASH",
            "--opt",
            "DBG-P-HANG.mode=deaf",
            "--opt",
            "DBG-P-HANG.bound_s=0.2",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 3, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    hang = [r for r in records if r.get("id") == "DBG-P-HANG"]
    assert len(hang) == 1 and hang[0]["status"] == "error"
    assert "watchdog" in hang[0]["reason"] and "cannot end" in hang[0]["reason"]
    assert not [r for r in records if r.get("id") == "DBG-P-CRASH"]
    end = records[-1]
    assert end["record"] == "end" and end["status"] == "interrupted"
    assert end["exit_code"] == 3
