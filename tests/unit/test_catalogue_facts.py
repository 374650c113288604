"""What the host knows of a test comes from the test's own record: its
family's title and which figures are latencies from a release instant. A new
latency test gets its deadline verdicts and a new family its heading with no
host change; records written before the probe said it read as they always did."""

from __future__ import annotations

import copy
import json
from typing import Any

from rtgauge.analysis.deadline_claim import claim
from rtgauge.analysis.ratings import load_criteria, rate
from rtgauge.model import bundle_from_records
from rtgauge.probe import parse_catalogue
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report
from rtgauge.run import Run

DEADLINE_NS = 1e9


def _with(records: list[dict[str, Any]], *tests: dict[str, Any]) -> list[dict[str, Any]]:
    return [records[0], *tests, records[-1]]


def _renamed(records: list[dict[str, Any]], tid: str, prefix: str, **facts: Any) -> dict[str, Any]:
    """TMR-P-LAT's record under another id, its figures named with another prefix."""
    rec = copy.deepcopy(next(r for r in records if r.get("id") == "TMR-P-LAT"))
    rec["id"] = tid
    for m in rec["metrics"]:
        m["name"] = prefix + m["name"].removeprefix("timer.wakeup.")
    return rec | facts


def test_a_new_latency_test_is_judged_by_its_own_word(
    sample_records: list[dict[str, Any]],
) -> None:
    new = _renamed(
        sample_records, "ABC-P-NEW", "abc.release.", family_title="Made-up family",
        release_latency="abc.release.",
    )  # fmt: skip
    run = Run.of(bundle_from_records(_with(sample_records, new), "x"))
    found = claim(run, DEADLINE_NS, 0.5)
    assert {v.test for v in found.verdicts} == {"ABC-P-NEW"}
    assert {p.test for p in found.pwcets} == {"ABC-P-NEW"}  # every figure is one: pWCET too
    md = EXPORTERS["md"].render(bundle_report(run.bundle, DEADLINE_NS, 0.5))
    assert "## ABC — Made-up family" in md


def test_a_test_that_says_none_is_not_judged(sample_records: list[dict[str, Any]]) -> None:
    """The record's word wins over the host's old list, which names TMR-P-LAT."""
    silent = _renamed(
        sample_records, "TMR-P-LAT", "timer.wakeup.", family_title="Timers", release_latency=None
    )
    run = Run.of(bundle_from_records(_with(sample_records, silent), "x"))
    assert claim(run, DEADLINE_NS, 0.5).verdicts == []
    assert run.family_title("TMR") == "Timers"


def test_some_figures_of_a_test_judged_none_extrapolated(
    sample_records: list[dict[str, Any]],
) -> None:
    """As THR-P-WKL: its THR-P-PRE part's figures beside hand-overs of others."""
    mixed = _renamed(
        sample_records, "THR-P-MIX", "thread.preempt.", family_title="Threads",
        release_latency="thread.preempt.",
    )  # fmt: skip
    other = copy.deepcopy(mixed["metrics"][0])
    other["name"] = "sem.handover.pingpong.idle"
    mixed["metrics"].append(other)
    run = Run.of(bundle_from_records(_with(sample_records, mixed), "x"))
    found = claim(run, DEADLINE_NS, 0.5)
    judged = {v.metric for v in found.verdicts}
    assert judged and all(name.startswith("thread.preempt.") for name in judged)
    assert found.pwcets == []


def test_records_from_before_read_as_they_always_did(
    sample_records: list[dict[str, Any]],
) -> None:
    assert all("release_latency" not in r for r in sample_records)
    run = Run.of(bundle_from_records(sample_records, "x"))
    found = claim(run, DEADLINE_NS, 0.5)
    assert found.verdicts and {v.test for v in found.verdicts} == {"TMR-P-LAT"}
    assert run.family_title("TMR") == "Timers and wake-up latency"


def test_a_rating_may_pick_the_figures_the_probe_calls_release_latencies(
    sample_records: list[dict[str, Any]],
) -> None:
    """The built-in TMR criterion names no figure: a TMR latency test whose
    figures have another name is rated all the same."""
    renamed = _renamed(
        sample_records, "TMR-P-LAT", "timer.fresh.", family_title="Timers",
        release_latency="timer.fresh.",
    )  # fmt: skip
    run = Run.of(bundle_from_records(_with(sample_records, renamed), "x"))
    tmr = next(r for r in rate(run, load_criteria()) if r.family == "TMR")
    assert tmr.stars is not None and tmr.figure_ns is not None


def test_the_catalogue_line_carries_the_facts() -> None:
    line = {
        "record": "catalogue",
        "id": "TMR-P-LAT",
        "title": "Periodic wake-up latency per CPU",
        "kind": "P",
        "family_title": "Timers and wake-up latency",
        "release_latency": "timer.wakeup.",
        "available": True,
        "reason": None,
        "options": [],
    }
    (entry,) = parse_catalogue(json.dumps(line), "probe")
    assert entry.family_title == "Timers and wake-up latency"
    assert entry.release_latency == "timer.wakeup."
    older = {k: v for k, v in line.items() if k not in ("family_title", "release_latency")}
    (old,) = parse_catalogue(json.dumps(older), "probe")
    assert old.family_title is None and old.release_latency is None
