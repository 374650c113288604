"""One decision of what a run's figures may be used for, from the probe's
record and the host's knowledge of the target, used by ratings, deadline
verdicts, the run report and the comparison alike."""

from __future__ import annotations

import copy
from typing import Any

from rtgauge.analysis.compare import compare, points
from rtgauge.analysis.ratings import load_criteria, rate
from rtgauge.analysis.requirements import deadline_verdicts
from rtgauge.model import bundle_from_records
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report
from rtgauge.run import Run

DEADLINE_NS = 1e9  # far above every latency of the sample: met on a trusted run


def _run(records: list[dict[str, Any]], target: dict[str, Any] | None = None) -> Run:
    b = bundle_from_records(copy.deepcopy(records), "x")
    if target is not None:
        b.target = target
    return Run.of(b)


def _tmr(b: Run) -> Any:
    return next(r for r in rate(b, load_criteria()) if r.family == "TMR")


def test_a_trusted_run_is_rated_and_its_deadline_claimed(
    sample_records: list[dict[str, Any]],
) -> None:
    b = _run(sample_records)
    cond = b.conditions
    assert cond.timing_rateable and cond.deadline_verdict_allowed
    assert cond.virtualised  # the sample ran in a VM: said, not barred
    assert _tmr(b).stars is not None
    vs = deadline_verdicts(b, DEADLINE_NS, 0.5)
    assert vs and all(v.claim == "met" for v in vs)
    html = EXPORTERS["html"].render(bundle_report(b.bundle, DEADLINE_NS, 0.5))
    assert 'class="pass">meets' in html  # what the untrusted runs below must not show


def test_emulation_known_only_to_the_host_voids_timing(
    sample_records: list[dict[str, Any]],
) -> None:
    """The probe saw no emulation (its record says emulated false, no note), the
    host knows it booted the guest under TCG: not rated on timing, and the
    report says so."""
    records = copy.deepcopy(sample_records)
    assert records[0]["virtualization"]["emulated"] is False
    b = _run(records, {"kind": "qemu", "accel": "tcg", "emulated": True})
    cond = b.conditions
    assert cond.emulated and cond.emulated_known_by == ("host",)
    assert not cond.timing_meaningful and not cond.timing_rateable
    tmr = _tmr(b)
    assert tmr.stars is None and "emulated" in tmr.why
    assert all(r.stars is None for r in rate(b, load_criteria()) if r.figure_ns is not None)
    md = EXPORTERS["md"].render(bundle_report(b.bundle, DEADLINE_NS, 0.5))
    assert "emulated (known to the host): timings are not meaningful" in md
    assert all(v.claim == "not claimed" for v in deadline_verdicts(b, DEADLINE_NS, 0.5))
    assert any(x.startswith("emulated") for x in points(compare([b, b]))[0][1])


def test_emulation_said_by_the_probe_in_a_test_note_counts(
    sample_records: list[dict[str, Any]],
) -> None:
    records = copy.deepcopy(sample_records)
    records[2]["notes"] = ["emulated: timings are not meaningful; behaviour verdicts are"]
    cond = _run(records).conditions
    assert cond.emulated and cond.emulated_known_by == ("probe",)


def _without(privilege: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    recs = copy.deepcopy(records)
    recs[0]["privileges"][privilege] = False
    recs[0]["privileges"][f"{privilege}_reason"] = "EPERM"
    for t in recs[1:-1]:
        if privilege == "sched_fifo":
            t["conditions"]["policy"] = "SCHED_OTHER"
        else:
            t["conditions"]["mlockall"] = False
    return recs


def test_no_sched_fifo_or_no_mlockall_is_not_rated_and_no_green_deadline(
    sample_records: list[dict[str, Any]],
) -> None:
    for privilege, words in (("sched_fifo", "SCHED_FIFO"), ("mlockall", "mlockall")):
        b = _run(_without(privilege, sample_records))
        cond = b.conditions
        assert not cond.timing_rateable and not cond.deadline_verdict_allowed
        assert cond.timing_meaningful  # real figures, just not real-time ones
        tmr = _tmr(b)
        assert tmr.stars is None and words in tmr.why
        vs = deadline_verdicts(b, DEADLINE_NS, 0.5)
        assert vs and all(v.meets and v.claim == "not claimed" for v in vs)
        html = EXPORTERS["html"].render(bundle_report(b.bundle, DEADLINE_NS, 0.5))
        assert 'class="pass">meets' not in html and "not claimed" in html


def test_one_test_without_sched_fifo_is_enough(sample_records: list[dict[str, Any]]) -> None:
    """The run obtained SCHED_FIFO but a test that measured ran SCHED_OTHER."""
    recs = copy.deepcopy(sample_records)
    recs[2]["conditions"]["policy"] = "SCHED_OTHER"
    cond = _run(recs).conditions
    assert not cond.rt_policy_ok and not cond.timing_rateable


def _errored(records: list[dict[str, Any]], tid: str, status: str) -> list[dict[str, Any]]:
    recs = copy.deepcopy(records)
    for t in recs[1:-1]:
        if t["id"] == tid:
            t["status"], t["reason"] = status, "watchdog: overran, partial results kept"
    return recs


def test_partial_figures_are_shown_and_used_for_nothing(
    sample_records: list[dict[str, Any]],
) -> None:
    for status in ("error", "interrupted"):
        b = _run(_errored(sample_records, "TMR-P-LAT", status))
        cond = b.conditions
        assert cond.partial_tests == ("TMR-P-LAT",) and not cond.figures_usable("TMR-P-LAT")
        tmr = _tmr(b)
        assert tmr.stars is None and "partial" in tmr.why
        vs = [v for v in deadline_verdicts(b, DEADLINE_NS, 0.5) if v.test == "TMR-P-LAT"]
        assert vs and all(v.claim == "not claimed" and "partial" in str(v.limit) for v in vs)
        other = _run(sample_records)
        rows = [r for r in compare([b, other]).rows if r.test == "TMR-P-LAT"]
        assert rows and all(r.partial[0] and r.best_max is None for r in rows)
        md = EXPORTERS["md"].render(bundle_report(b.bundle, DEADLINE_NS, 0.5))
        assert "partial figures" in md and "(partial)" in md


def _unmet(records: list[dict[str, Any]], tid: str, names: set[str]) -> list[dict[str, Any]]:
    recs = copy.deepcopy(records)
    for t in recs[1:-1]:
        for m in t["metrics"] if t["id"] == tid else []:
            if m["name"] in names:
                m["condition_unmet"] = "the load it is under did not run while it was measured"
    return recs


def test_a_figure_whose_condition_did_not_hold_is_shown_and_used_for_nothing(
    sample_records: list[dict[str, Any]],
) -> None:
    lat = next(t for t in sample_records if t.get("id") == "TMR-P-LAT")
    names = {m["name"] for m in lat["metrics"]}
    b = _run(_unmet(sample_records, "TMR-P-LAT", names))
    cond = b.conditions
    assert cond.partial_tests == () and cond.figures_usable("TMR-P-LAT")
    for n in names:
        assert not cond.figures_usable("TMR-P-LAT", n)
        assert "did not run" in str(cond.figure_unmet("TMR-P-LAT", n))
    tmr = _tmr(b)
    assert tmr.stars is None and tmr.figure_ns is None
    assert "measured without their condition" in tmr.why and "TMR-P-LAT" in tmr.why
    vs = [v for v in deadline_verdicts(b, DEADLINE_NS, 0.5) if v.test == "TMR-P-LAT"]
    assert vs and all(v.claim == "not claimed" and "condition unmet" in str(v.limit) for v in vs)
    rows = [r for r in compare([b, _run(sample_records)]).rows if r.test == "TMR-P-LAT"]
    assert rows and all(r.unmet[0] and r.best_max is None and not r.tails for r in rows)
    md = EXPORTERS["md"].render(bundle_report(b.bundle, DEADLINE_NS, 0.5))
    assert "without the condition its name promises" in md


def test_only_the_figures_whose_condition_did_not_hold_are_left_out(
    sample_records: list[dict[str, Any]],
) -> None:
    """The worst CPU's figure (and the merged one, which holds it) unmet: the
    rating comes from the rest, the test's other figures stay usable."""
    lat = next(t for t in sample_records if t.get("id") == "TMR-P-LAT")
    top = max(m["max"] for m in lat["metrics"])
    unmet = {m["name"] for m in lat["metrics"] if m["max"] == top}
    rest = {m["name"]: m["max"] for m in lat["metrics"] if m["name"] not in unmet}
    assert rest  # the sample has a figure below the worst
    b = _run(_unmet(sample_records, "TMR-P-LAT", unmet))
    assert all(b.conditions.figures_usable("TMR-P-LAT", n) for n in rest)
    tmr = _tmr(b)
    assert tmr.stars is not None and tmr.figure_ns == max(rest.values())
    assert "left out, measured without their condition" in tmr.why
    assert _tmr(_run(sample_records)).figure_ns == top


def test_a_family_whose_behaviour_was_not_judged_is_not_rated(
    sample_records: list[dict[str, Any]],
) -> None:
    crit = {
        "families": {
            "SEM": {"metric": "^clock", "stat": "max", "reduce": "max", "stars": [[1e12, 5]]}
        }
    }
    recs = copy.deepcopy(sample_records)
    for t in recs[1:-1]:  # a rated figure in the family of the behaviour test
        if t["id"] == "CLK-P-RES":
            t["id"] = "SEM-P-XXX"
    assert next(iter(rate(_run(recs), crit))).stars == 5  # SEM-B-LCK passed
    for status in ("error", "skipped", "interrupted"):
        b = _run(_errored(recs, "SEM-B-LCK", status))
        assert "SEM" in b.conditions.behaviour_unjudged
        r = next(iter(rate(b, crit)))
        assert r.stars is None and f"SEM-B-LCK {status}" in r.why
