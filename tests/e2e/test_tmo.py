"""TMO family end to end: one lateness figure set per primitive, no early
return, the clock each wait used recorded.
No timing thresholds: counts, names, statuses and evidence only."""

from __future__ import annotations

from probe_run import ProbeRun, assert_every_test_ran, counted, ran

FAMILY = "TMO-*"
IDS = ["TMO-P-ACC"]
SHORT = ("--opt", "TMO-P-ACC.loops=20")
PRIMITIVES = ["sem", "mutex", "queue", "cond"]


def test_every_test_ran(quick: ProbeRun) -> None:
    assert_every_test_ran(quick, IDS)


def test_lateness_per_primitive(quick: ProbeRun) -> None:
    t = ran(quick, "TMO-P-ACC")
    assert [m["name"] for m in t["metrics"]] == [f"timeout.late.{p}" for p in PRIMITIVES]
    early = t["info"]["early"]
    for p, m in zip(PRIMITIVES, t["metrics"], strict=True):
        assert early[p] == 0, p  # a wait that returns before its deadline is broken
        counted(m)
        assert m["count"] == 20
    assert t["info"]["clocks"]["sem"] == "CLOCK_MONOTONIC"
    assert t["info"]["clocks"]["queue"] == "CLOCK_REALTIME"
