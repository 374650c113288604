"""RWL family end to end: the uncontended and contended figure sets and the
favoured side recorded as a property (no verdict).
No timing thresholds: counts, names, statuses and evidence only."""

from __future__ import annotations

from probe_run import ProbeRun, assert_every_test_ran, counted, metric, ran

FAMILY = "RWL-*"
IDS = ["RWL-P-ARC"]


def test_every_test_ran(quick: ProbeRun) -> None:
    assert_every_test_ran(quick, IDS)


def test_figure_sets_and_property(quick: ProbeRun) -> None:
    t = ran(quick, "RWL-P-ARC")
    assert [m["name"] for m in t["metrics"]] == [
        "rwlock.rdlock.uncontended",
        "rwlock.rdunlock.uncontended",
        "rwlock.wrlock.uncontended",
        "rwlock.wrunlock.uncontended",
        "rwlock.writer_wake.last_reader",
    ]
    for m in t["metrics"]:
        counted(m)
    assert metric(t, "rwlock.writer_wake.last_reader")["params"] == {
        "readers": t["info"]["readers"]
    }
    assert t["verdicts"] == []
    assert t["info"]["favours"] in ("readers", "writers")
    assert t["info"]["waiting_writer_blocks_new_readers"] == (t["info"]["favours"] == "writers")
