"""A known stall must show at its full size. A SCHED_FIFO spinner above the
measured threads, pinned to the measured CPU, takes it 5 ms every 100 ms;
every wake-up figure must then report a maximum of most of the stall, and
count the periods it overran. This checks bookkeeping, not speed: a figure
measured from the wrong expiry (the latest after an overrun, or a schedule
restarted from the late wake time) shows the stall as at most one period.
Needs root (SCHED_FIFO for the probe and the spinner); skipped otherwise."""

from __future__ import annotations

import os
from typing import Any

import pytest
from probe_run import metric, rt, run_probe
from stall_injector import injected_stall

CPU = 0
PRIO = 90  # the probe's; the spinner runs one above it
STALL_MS = 5.0
EVERY_MS = 100.0
MEASURE_MS = 1000  # ten stalls
BOUND_S = 300  # the spinner's own time limit, should the test die first
SEEN = 0.6 * STALL_MS * 1e6  # most of the stall, in ns: more than any period here

VARIANTS = ["clock_nanosleep", "nanosleep", "posix_timer", "timerfd", "select", "poll"]


def _opts(test: str, **values: object) -> list[str]:
    """--tests TEST --opt TEST.key=value ..."""
    return ["--tests", test, *(a for k, v in values.items() for a in ("--opt", f"{test}.{k}={v}"))]


def _stalled(*args: str) -> dict[str, Any]:
    if os.geteuid() != 0:
        pytest.skip("the injected stall needs root: SCHED_FIFO for the spinner and the probe")
    # Stalls until the run is over (the bound only for a test that dies first)
    with injected_stall(CPU, PRIO + 1, BOUND_S, STALL_MS, EVERY_MS) as spinner:
        r = run_probe("--cpus", str(CPU), "--prio", str(PRIO), *args, timeout=BOUND_S)
        if spinner.poll() == 2:
            pytest.skip("the spinner could not obtain SCHED_FIFO")
    if not rt(r):
        pytest.skip("the probe could not obtain SCHED_FIFO")
    (t,) = r.tests.values()
    assert t["status"] == "ok", t["reason"]
    return t


@pytest.mark.parametrize("variant", VARIANTS)
def test_tmr_p_lat_shows_the_stall(variant: str) -> None:
    t = _stalled(*_opts("TMR-P-LAT", variant=variant, period_us=1000, duration_ms=MEASURE_MS))
    m = metric(t, f"timer.wakeup.{variant}.cpu{CPU}")
    assert m["max"] >= SEEN, (variant, m["max"])
    assert t["info"]["missed_periods"][f"cpu{CPU}"] > 0  # counted as well, not instead


def test_irq_p_lat_shows_the_stall() -> None:
    t = _stalled(*_opts("IRQ-P-LAT", period_us=1000, duration_ms=MEASURE_MS))
    for name in ("irq.service.signal_handler", "irq.task.sem_post_wake"):
        assert metric(t, name)["max"] >= SEEN, (name, metric(t, name)["max"])
    assert t["info"]["overruns"] > 0


def test_thr_schedules_stay_absolute() -> None:
    pre = _stalled(*_opts("THR-P-PRE", loops=10, period_us=500, timer_loops=MEASURE_MS * 2))
    assert metric(pre, "thread.preempt.timer")["max"] >= SEEN
    assert pre["info"]["timer_skipped_periods"] > 0
    bkg = _stalled(*_opts("THR-P-BKG", processes=1, period_us=500, loops=MEASURE_MS * 2))
    assert metric(bkg, "thread.wake.idle")["max"] >= SEEN
    assert bkg["info"]["skipped_periods"]["idle"] > 0
