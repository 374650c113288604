"""CND family end to end: the wake-order verdicts with their evidence, the
negative control (equal priorities) failing, the hand-over figure sets.
No timing thresholds: counts, names, statuses and evidence only."""

from __future__ import annotations

from probe_run import ProbeRun, assert_every_test_ran, counted, metric, ran, run_probe, verdict

FAMILY = "CND-*"
IDS = ["CND-B-ORD", "CND-P-LAT"]
VERDICTS = ["signal_wakes_highest_first", "broadcast_releases_highest_first"]


def test_every_test_ran(quick: ProbeRun) -> None:
    assert_every_test_ran(quick, IDS)


def test_order_evidence(quick: ProbeRun) -> None:
    t = ran(quick, "CND-B-ORD")
    assert [v["name"] for v in t["verdicts"]] == VERDICTS
    n = t["info"]["waiters"]
    for name in VERDICTS:
        runs = verdict(t, name)["evidence"]["runs"]
        assert len(runs) == t["info"]["repeats"]
        assert all(r == list(range(n)) for r in runs)


def test_equal_priorities_control_fails() -> None:
    run = run_probe("--quick", "--tests", "CND-B-ORD", "--opt", "CND-B-ORD.priorities=equal")
    t = ran(run, "CND-B-ORD")
    assert t["status"] == "fail" and run.code == 1
    for name in VERDICTS:
        v = verdict(t, name)
        assert v["pass"] is False
        assert v["evidence"]["priorities"] == "equal (control)"


def test_handover_figure_sets(quick: ProbeRun) -> None:
    t = ran(quick, "CND-P-LAT")
    assert [m["name"] for m in t["metrics"]] == [
        "cond.signal.handover",
        "cond.broadcast.last_released",
    ]
    for m in t["metrics"]:
        counted(m)
    assert metric(t, "cond.broadcast.last_released")["params"] == {
        "waiters": t["info"]["broadcast_waiters"]
    }
    assert t["info"]["timeouts"] == 0
