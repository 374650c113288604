"""TMR family end to end: wake-up latency for every sleeping call, under
every load phase (built in, or stress-ng when asked), and the shortest
sustainable period. No timing thresholds: counts, presence of every figure
set, statuses and the shape of the series and info the report relies on."""

from __future__ import annotations

import os

import pytest
from probe_run import live_processes, metric, run_probe

VARIANTS = ["clock_nanosleep", "nanosleep", "posix_timer", "timerfd", "select", "poll"]
PHASES = ["idle", "cpu", "memory", "fileio", "fork", "syscall", "proc", "net", "timer"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_tmr_p_lat_variants(variant: str) -> None:
    r = run_probe(
        "--tests",
        "TMR-P-LAT",
        "--quick",
        "--cpus",
        "0",
        "--opt",
        f"TMR-P-LAT.variant={variant}",
        "--opt",
        "TMR-P-LAT.duration_ms=200",
    )
    t = r.tests["TMR-P-LAT"]
    assert t["status"] == "ok", t["reason"]
    assert t["info"]["variant"] == variant
    m = metric(t, f"timer.wakeup.{variant}.cpu0")
    assert m["count"] + t["info"]["missed_periods"]["cpu0"] >= 150
    assert metric(t, f"timer.wakeup.{variant}.all")["count"] == m["count"]


def _load_run(tmp_path, *extra: str):
    env = dict(os.environ, TMPDIR=str(tmp_path))  # the scratch directories go there
    return run_probe(
        "--tests",
        "TMR-P-LOAD",
        "--quick",
        "--opt",
        "TMR-P-LOAD.phase_ms=300",
        "--opt",
        "TMR-P-LOAD.memory_mib=16",
        *extra,
        env=env,
    )


def test_tmr_p_load_phases_series_and_ops(tmp_path) -> None:
    r = _load_run(tmp_path)
    t = r.tests["TMR-P-LOAD"]
    assert t["status"] == "ok", t["reason"]
    for p in PHASES:
        m = metric(t, f"timer.wakeup.load.{p}")
        assert m["params"] == {"phase": p}
        assert m["count"] > 0
    (s,) = t["series"]
    assert s["unit"] == "ns" and s["window_ms"] == 100
    assert [p["name"] for p in s["phases"]] == PHASES
    assert s["points"] and all(len(pt) == 2 for pt in s["points"])
    for a, b in zip(s["phases"], s["phases"][1:], strict=False):
        assert a["start_ms"] < a["end_ms"] <= b["start_ms"]
    # every load did measurable work: "under load" is a measured condition
    for p in s["phases"][1:]:
        assert p["ops_per_s"] and p["ops_per_s"] > 0, p
    info = {p["name"]: p for p in t["info"]["phases"]}
    assert set(info) == set(PHASES)
    # no load process and no scratch directory outlives the test
    assert list(tmp_path.iterdir()) == []
    # this run's processes only (other tests' janitors may still be ending)
    probe = str(os.environ.get("RTGAUGE_PROBE", "rtgauge-probe"))
    assert live_processes(f"{probe} --tests TMR-P-LOAD") == []


def test_tmr_p_load_stress_ng_delegation_or_honest_skip(tmp_path) -> None:
    r = _load_run(tmp_path, "--opt", "TMR-P-LOAD.load_tool=stress-ng")
    t = r.tests["TMR-P-LOAD"]
    if t["status"] == "skipped":
        assert "stress-ng" in t["reason"]
        return
    assert t["status"] == "ok", t["reason"]
    assert t["info"]["load_tool"] == "stress-ng"
    assert [p["name"] for p in t["series"][0]["phases"]] == PHASES
    assert list(tmp_path.iterdir()) == []


def test_tmr_s_sus_tries_and_misses() -> None:
    r = run_probe("--tests", "TMR-S-SUS", "--quick", "--opt", "TMR-S-SUS.expirations=300")
    t = r.tests["TMR-S-SUS"]
    assert t["status"] == "ok", t["reason"]
    tries = t["info"]["tries"]
    assert tries and tries[0]["period_ns"] == 1_000_000
    periods = [x["period_ns"] for x in tries]
    assert periods == sorted(periods, reverse=True)
    assert all("misses" in x for x in tries)
    passed = [x["period_ns"] for x in tries if x["passed"]]
    assert t["info"]["shortest_period_ns"] == (min(passed) if passed else None)
    # only the last try may fail: the search stops there
    assert all(x["passed"] for x in tries[:-1])
    for x in tries:
        metric(t, f"timer.expiry_late.period_{x['period_ns']}ns")
