"""MUT family end to end: every metric and verdict present, the evidence
shaped as documented (inversion prevented by inheritance, shown without it),
and the negative control failing.
No timing thresholds: counts, names, statuses and evidence only."""

from __future__ import annotations

import pytest
from probe_run import ProbeRun, assert_every_test_ran, counted, metric, run_probe, verdict

FAMILY = "MUT-*"
IDS = ["MUT-B-ARC", "MUT-P-ARN", "MUT-P-ARC", "MUT-P-PIR"]
SHORT = ("--opt", "MUT-P-PIR.loops=200", "--opt", "MUT-P-ARC.loops=500")


def test_every_test_ran(quick: ProbeRun) -> None:
    assert_every_test_ran(quick, IDS, "SCHED_FIFO")


def test_mut_arc_protocols(quick: ProbeRun) -> None:
    t = quick.tests["MUT-B-ARC"]
    if t["status"] == "skipped":
        pytest.skip(t["reason"])
    assert t["info"]["protocols_offered"]["PTHREAD_PRIO_INHERIT"] is True
    assert t["info"]["protocols_preventing_inversion"]["PTHREAD_PRIO_INHERIT"] is True
    assert t["info"]["protocols_preventing_inversion"]["PTHREAD_PRIO_NONE"] is False
    inh = verdict(t, "inherit.prevents_inversion")
    assert inh["pass"] and all(r["outcome"] == "no_inversion" for r in inh["evidence"]["rounds"])
    ctl = verdict(t, "none.control_shows_inversion")
    assert ctl["pass"]
    for r in ctl["evidence"]["rounds"]:
        assert r["outcome"] == "inversion"
        assert r["h_request"] <= r["m_start"] <= r["m_end"] <= r["h_acquire"]
    if t["info"]["protocols_offered"]["PTHREAD_PRIO_PROTECT"]:
        verdict(t, "protect.prevents_inversion")
    else:  # said so, never a failed verdict
        assert "PTHREAD_PRIO_PROTECT: not offered by this OS, no verdict" in t["notes"]


def test_mut_figures(quick: ProbeRun) -> None:
    arn = quick.tests["MUT-P-ARN"]
    for kind in ("default", "inherit"):
        assert metric(arn, f"mutex.lock.uncontended_{kind}")["count"] == 20000
        assert metric(arn, f"mutex.unlock.uncontended_{kind}")["count"] == 20000
    arc = quick.tests["MUT-P-ARC"]
    if arc["status"] != "skipped":
        counted(metric(arc, "mutex.acquire.contended_inherit"))
        counted(metric(arc, "mutex.release.contended_inherit"))
        assert arc["info"]["rounds_without_request"] == 0
    pir = quick.tests["MUT-P-PIR"]
    if pir["status"] != "skipped":
        m = metric(pir, "mutex.lock_wait.inherit")
        assert m["count"] == 200 and m["params"]["cs_us"] == 50


def test_negative_control_fails() -> None:
    """Without a protocol, the inversion the test provokes must happen."""
    run = run_probe("--quick", "--tests", "MUT-B-ARC", "--opt", "MUT-B-ARC.protocol=none")
    arc = run.tests["MUT-B-ARC"]
    if arc["status"] == "skipped":
        pytest.skip(arc["reason"])
    assert arc["status"] == "fail"
    v = verdict(arc, "none.prevents_inversion")
    assert not v["pass"] and all(r["outcome"] == "inversion" for r in v["evidence"]["rounds"])
    assert run.code == 1


def test_each_verdict_fails_with_the_protocols_swapped() -> None:
    """Hooks build, fault=swap: inherit and protect rounds get a mutex
    without protocol, the control's rounds one with inheritance: each of
    the three verdicts must fail."""
    run = run_probe("--quick", "--tests", "MUT-B-ARC", "--opt", "MUT-B-ARC.fault=swap", hooks=True)
    arc = run.tests["MUT-B-ARC"]
    if arc["status"] == "skipped":
        pytest.skip(arc["reason"])
    assert run.code == 1 and arc["status"] == "fail"
    for name in ("inherit.prevents_inversion", "protect.prevents_inversion"):
        v = verdict(arc, name)
        assert not v["pass"] and any(r["outcome"] == "inversion" for r in v["evidence"]["rounds"])
    ctl = verdict(arc, "none.control_shows_inversion")
    assert not ctl["pass"] and all(r["outcome"] != "inversion" for r in ctl["evidence"]["rounds"])


def test_only_rounds_where_h_waited_count(quick: ProbeRun) -> None:
    t = quick.tests["MUT-B-ARC"]
    if t["status"] == "skipped":
        pytest.skip(t["reason"])
    for v in t["verdicts"]:
        rounds = v["evidence"]["rounds"]
        free = [r for r in rounds if r["outcome"] == "uncontended"]
        assert v["evidence"]["rounds_uncontended"] == len(free)
        for r in free:
            assert r["h_request"] >= r["l_release"]
        for r in rounds:
            if r["outcome"] in ("inversion", "no_inversion"):
                assert r["h_request"] < r["l_release"]  # H asked while L held it


def test_unprivileged_run_skips_priority_tests() -> None:
    run = run_probe("--no-rt", "--quick", "--tests", "MUT-B-ARC,MUT-P-PIR")
    for tid, t in run.tests.items():
        assert t["status"] == "skipped" and "SCHED_FIFO" in t["reason"], tid
