"""Each family rated by its own criterion: condition variables, timed waits
and deadline scheduling on their figures, a behaviour-only family (SMP) by
its verdicts, a failing admission verdict capping DLN; a family not in the
run is not listed."""

from __future__ import annotations

import copy
from typing import Any

from rtgauge.analysis.ratings import criteria_lines, load_criteria, rate
from rtgauge.model import bundle_from_records
from rtgauge.run import Run


def _test(
    template: dict[str, Any], tid: str, metrics: list[str], passes: list[bool]
) -> dict[str, Any]:
    rec = copy.deepcopy(template)
    rec["id"] = tid
    m0 = template["metrics"][0] if template["metrics"] else None
    rec["metrics"] = []
    for name in metrics:
        assert m0 is not None
        m = copy.deepcopy(m0)
        m["name"] = name
        m["max"] = 30000
        rec["metrics"].append(m)
    rec["verdicts"] = [
        {"name": f"v{i}", "pass": p, "expected": "e", "observed": "o", "evidence": None}
        for i, p in enumerate(passes)
    ]
    return rec


def _run(sample: list[dict[str, Any]], smp_pass: bool, dln_pass: bool) -> Run:
    template = next(r for r in sample[1:-1] if r["metrics"])
    extra = [
        _test(template, "CND-P-LAT", ["cond.signal.handover"], []),
        _test(template, "TMO-P-ACC", ["timeout.late.sem"], []),
        _test(template, "SMP-B-MIG", [], [smp_pass]),
        _test(template, "DLN-B-ADM", [], [dln_pass]),
        _test(template, "DLN-P-LAT", ["deadline.activation.sched_deadline"], []),
    ]
    return Run.of(bundle_from_records([sample[0], *extra, sample[-1]], "x"))


def test_new_families_are_rated(sample_records: list[dict[str, Any]]) -> None:
    r = {x.family: x for x in rate(_run(sample_records, True, True), load_criteria())}
    assert r["CND"].stars == 4 and r["CND"].figure_ns == 30000  # ≤ 100 µs
    assert r["TMO"].stars == 5 and r["DLN"].stars == 5
    assert r["SMP"].stars == 5 and "every verdict holds" in r["SMP"].why
    assert "RWL" not in r and "BAR" not in r  # not in the run: not listed


def test_failing_verdicts_rate_and_cap(sample_records: list[dict[str, Any]]) -> None:
    r = {x.family: x for x in rate(_run(sample_records, False, False), load_criteria())}
    assert r["SMP"].stars == 1 and "1 of 1 verdicts fail" in r["SMP"].why
    assert r["DLN"].stars == 2 and "capped" in r["DLN"].why


def test_verdict_families_are_explained() -> None:
    lines = dict(criteria_lines(load_criteria()))
    assert "every verdict holds" in lines["SMP"]
    assert "timed wait" in lines["TMO"]
