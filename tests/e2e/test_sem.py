"""SEM family end to end: every metric and verdict present, the evidence
shaped as documented, and the negative control failing.
No timing thresholds: counts, names, statuses and evidence only."""

from __future__ import annotations

from pathlib import Path

import pytest
from probe_run import ProbeRun, assert_every_test_ran, counted, metric, run_probe, verdict

FAMILY = "SEM-*"
IDS = ["SEM-B-LCK", "SEM-B-REL", "SEM-P-NEW", "SEM-P-ARN", "SEM-P-ARC", "SEM-P-PNG"]
SHORT = ("--opt", "SEM-P-ARC.rounds=2", "--opt", "SEM-P-NEW.named_loops=50")


def test_every_test_ran(quick: ProbeRun) -> None:
    assert_every_test_ran(quick, IDS, "SCHED_FIFO")


def test_sem_lck_verdicts(quick: ProbeRun) -> None:
    t = quick.tests["SEM-B-LCK"]
    if t["status"] == "skipped":
        pytest.skip(t["reason"])
    names = [v["name"] for v in t["verdicts"]]
    assert names == [
        "p_on_positive_count_does_not_block", "p_on_zero_blocks", "v_increments",
        "v_wakes_higher_waiter_at_once", "v_wakes_lower_waiter_later",
    ]  # fmt: skip
    assert verdict(t, "v_wakes_higher_waiter_at_once")["evidence"]["events"] == "bpwr"
    assert verdict(t, "v_wakes_lower_waiter_later")["evidence"]["events"] == "bprw"


# Each SEM-B-LCK verdict and the hooks-build fault under which it must fail.
LCK_CONTROLS = {
    "p_on_positive_count_does_not_block": "drain",
    "p_on_zero_blocks": "skip_drain",
    "v_increments": "skip_post,post_twice",
    "v_wakes_higher_waiter_at_once": "invert",
    "v_wakes_lower_waiter_later": "invert",
}


@pytest.mark.parametrize("name", list(LCK_CONTROLS))
def test_sem_lck_each_verdict_fails_under_its_fault(name: str) -> None:
    """The fault perturbs the condition (the count, the V, the waiter's
    priority), never the verdict: the verdict must fail."""
    for fault in LCK_CONTROLS[name].split(","):
        run = run_probe(
            "--quick", "--tests", "SEM-B-LCK", "--opt", f"SEM-B-LCK.fault={fault}", hooks=True
        )
        t = run.tests["SEM-B-LCK"]
        if t["status"] == "skipped":
            pytest.skip(t["reason"])
        assert run.code == 1 and t["status"] == "fail"
        assert not verdict(t, name)["pass"], (fault, verdict(t, name))
        assert any(f"fault={fault}" in n for n in t["notes"])


def test_sem_lck_decided_from_what_was_seen(quick: ProbeRun) -> None:
    t = quick.tests["SEM-B-LCK"]
    if t["status"] == "skipped":
        pytest.skip(t["reason"])
    free = verdict(t, "p_on_positive_count_does_not_block")["evidence"]
    blocked = verdict(t, "p_on_zero_blocks")["evidence"]
    assert free["p"]["acquired"] and free["blocking_p_took_ns"] == blocked["waited_ns"]
    inc = verdict(t, "v_increments")["evidence"]
    assert [p["acquired"] for p in inc["p_after"]] == [True, True, False]


def test_sem_rel_evidence(quick: ProbeRun) -> None:
    t = quick.tests["SEM-B-REL"]
    if t["status"] == "skipped":
        pytest.skip(t["reason"])
    ev = verdict(t, "release_highest_priority_first")["evidence"]
    assert len(ev["blocked_prio"]) == 8  # --quick: 8 waiters
    assert ev["released_prio"] == sorted(ev["blocked_prio"], reverse=True)
    assert ev["blocked_prio"] != ev["released_prio"]  # scrambled


def test_sem_figures(quick: ProbeRun) -> None:
    new = quick.tests["SEM-P-NEW"]
    for op in ("create", "delete"):
        for cond in ("unnamed_unused", "unnamed_used", "named_unused", "named_used"):
            m = metric(new, f"sem.{op}.{cond}")
            counted(m)
            assert m["count"] == (2000 if cond.startswith("unnamed") else 50)
    assert new["info"]["names_left_removed_at_end"] == 0
    arn = quick.tests["SEM-P-ARN"]
    for name in ("sem.acquire.uncontended", "sem.release.uncontended"):
        assert metric(arn, name)["count"] == 20000
    png = quick.tests["SEM-P-PNG"]
    assert metric(png, "sem.handover.pingpong")["count"] == 10000
    counted(metric(png, "sem.handover.a_to_b"))


def test_no_named_semaphore_left_behind(quick: ProbeRun) -> None:
    shm = Path("/dev/shm")
    if shm.is_dir():
        pid_names = [p.name for p in shm.glob("sem.rtg-*")]
        live = [n for n in pid_names if Path(f"/proc/{n.split('-')[1]}").exists()]
        assert live == [], live


def test_sem_arc_per_waiter_figures(quick: ProbeRun) -> None:
    t = quick.tests["SEM-P-ARC"]
    if t["status"] == "skipped":
        pytest.skip(t["reason"])
    info = t["info"]
    assert info["timeouts"] == 0 and info["out_of_order_releases"] == 0
    assert len(info["acquire_mean_ns_by_waiters"]) == 128
    assert len(info["release_mean_ns_by_waiters"]) == 128
    # 128 waiters, --prio 95, creator at 1: 94 distinct levels, 34 pairs share one
    assert info["distinct_levels"] == 94 and info["waiters_sharing_a_level"] == 68
    for d in ("acquire", "release"):
        assert metric(t, f"sem.{d}.contended")["count"] == 2 * 128
        groups = [m for m in t["metrics"] if m["name"].startswith(f"sem.{d}.contended.w")]
        assert len(groups) == 8
        covered = []
        for m in groups:
            p = m["params"]
            assert p["waiters_min"] <= p["waiters"] <= p["waiters_max"]
            assert m["count"] == 2 * (p["waiters_max"] - p["waiters_min"] + 1)
            covered += list(range(p["waiters_min"], p["waiters_max"] + 1))
        assert covered == list(range(1, 129))


def test_sem_arc_group_option() -> None:
    run = run_probe(
        "--quick", "--tests", "SEM-P-ARC",
        "--opt", "SEM-P-ARC.waiters=10", "--opt", "SEM-P-ARC.group=1",
        "--opt", "SEM-P-ARC.rounds=1",
    )  # fmt: skip
    t = run.tests["SEM-P-ARC"]
    if t["status"] == "skipped":
        pytest.skip(t["reason"])
    m = metric(t, "sem.release.contended.w007_007")
    assert m["params"] == {"waiters": 7, "waiters_min": 7, "waiters_max": 7} and m["count"] == 1
    assert t["info"]["waiters_sharing_a_level"] == 0


def test_sem_rel_verdict_fails_under_sched_other() -> None:
    """SCHED_OTHER has no priorities: waiters are released in the order they
    blocked, which is scrambled, so release in priority order must fail."""
    run = run_probe("--quick", "--tests", "SEM-B-REL", "--opt", "SEM-B-REL.policy=other")
    rel = run.tests["SEM-B-REL"]
    assert rel["status"] == "fail", rel["reason"]
    ev = verdict(rel, "release_highest_priority_first")["evidence"]
    assert ev["policy"] == "SCHED_OTHER" and ev["first_wrong_release"] == 0
    assert run.code == 1


def test_unprivileged_run_skips_priority_tests() -> None:
    run = run_probe("--no-rt", "--quick", "--tests", "SEM-B-*,SEM-P-ARC")
    for tid, t in run.tests.items():
        assert t["status"] == "skipped" and "SCHED_FIFO" in t["reason"], tid
    arn = run_probe("--no-rt", "--quick", "--tests", "SEM-P-ARN").tests["SEM-P-ARN"]
    assert arn["status"] == "ok" and any("SCHED_OTHER" in n for n in arn["notes"])
