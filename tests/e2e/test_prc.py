"""PRC family end to end: every way of creating a process gives a full
figure set (or, without the exec helper, the ones that need no exec).
No timing thresholds: counts, names and statuses only."""

from __future__ import annotations

from probe_run import ProbeRun, assert_every_test_ran, counted, metric, ran

FAMILY = "PRC-*"
IDS = ["PRC-P-NEW"]
METRICS = [
    "proc.create.fork", "proc.delete.fork", "proc.create.fork_exit", "proc.exit.fork_exit",
    "proc.create.vfork_exec", "proc.delete.vfork_exec",
    "proc.create.posix_spawn", "proc.delete.posix_spawn",
    "proc.create.clone", "proc.delete.clone",
]  # fmt: skip
SHORT = ("--opt", "PRC-P-NEW.loops=20", "--opt", "PRC-P-NEW.exec_loops=10")


def test_every_test_ran(quick: ProbeRun) -> None:
    assert_every_test_ran(quick, IDS)


def test_full_figure_set(quick: ProbeRun) -> None:
    t = ran(quick, "PRC-P-NEW")
    expected = METRICS
    if "none" in t["info"]["helper"]:
        expected = [n for n in expected if "exec" not in n and "spawn" not in n]
    assert [m["name"] for m in t["metrics"]] == expected
    for n in expected:
        counted(metric(t, n))
