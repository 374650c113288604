"""What a run's length proves, both ways round: the samples a miss-rate claim
needs (exact at the boundary), and the rate a run's own samples back at its
budget, which must be the deadline verdict's bound."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from synthetic_metric import metric

from rtgauge.analysis.analysed_run import AnalysedRun, Judging
from rtgauge.analysis.binomial import samples_needed, upper_bound
from rtgauge.analysis.run_length import DEFAULT_MISSES, headline_judged, plan, proofs
from rtgauge.model import bundle_from_records, load_bundle
from rtgauge.report.run_length_report import duration_text, proof_line, rate_text
from rtgauge.run import Run

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
US = 1000.0


def _closed_form(rate: float, confidence: float) -> int:
    """n = ceil(ln(1 - C) / ln(1 - R)), with log1p: ln(1 - 1e-9) written as
    log(1 - 1e-9) loses digits to rounding and gives 84 samples too many."""
    return math.ceil(math.log1p(-confidence) / math.log1p(-rate))


def test_one_in_a_billion_at_95_percent_needs_2_995_732_273_samples() -> None:
    """The figure quoted in docs/methodology.md and docs/plan.md: about 35 days at 1 kHz."""
    p = plan(100 * US, 1e-9, 0.95, 1e6)
    zero = p.rows[0]
    assert zero.misses == 0 and zero.samples == _closed_form(1e-9, 0.95) == 2_995_732_273
    assert duration_text(zero.duration_ns) == "34.7 days"
    assert zero.duration_ns == pytest.approx(zero.samples * 1e6)


@pytest.mark.parametrize("misses", DEFAULT_MISSES + (50,))
@pytest.mark.parametrize("rate", [1e-9, 1e-6, 1e-3, 0.05])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.999])
def test_the_count_is_exact_at_the_boundary(misses: int, rate: float, confidence: float) -> None:
    """n backs the rate with k misses among its samples, n - 1 does not."""
    n = samples_needed(misses, rate, confidence)
    assert n is not None and n > misses
    assert upper_bound(misses, n, confidence) <= rate
    assert upper_bound(misses, n - 1, confidence) > rate


def test_zero_misses_agree_with_the_closed_form() -> None:
    for rate in (1e-9, 3.3e-7, 1e-4, 0.01):
        for confidence in (0.9, 0.95, 0.99):
            assert samples_needed(0, rate, confidence) == _closed_form(rate, confidence)


def test_each_miss_costs_more_samples_and_the_table_is_ordered() -> None:
    p = plan(100 * US, 1e-6, 0.95, 2e5, misses=(10, 0, 2, 2, 1))
    assert [r.misses for r in p.rows] == [0, 1, 2, 10]
    counts = [r.samples for r in p.rows]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)
    assert all(r.duration_ns == r.samples * 2e5 for r in p.rows)
    assert p.to_json()["needed"][3] == {
        "misses": 10,
        "samples": counts[3],
        "duration_ns": counts[3] * 2e5,
    }


@pytest.mark.parametrize(
    "args",
    [
        (100 * US, 0.0, 0.95, 1e6),
        (100 * US, 1.0, 0.95, 1e6),
        (100 * US, -1e-9, 0.95, 1e6),
        (100 * US, 1e-9, 0.4, 1e6),
        (100 * US, 1e-9, 1.0, 1e6),
        (100 * US, 1e-9, 0.95, 0.0),
        (-1.0, 1e-9, 0.95, 1e6),
    ],
)
def test_a_plan_refuses_what_no_run_can_answer(args: tuple[float, float, float, float]) -> None:
    with pytest.raises(ValueError):
        plan(*args)
    with pytest.raises(ValueError):
        plan(100 * US, 1e-9, 0.95, 1e6, misses=(0, -1))


@pytest.mark.parametrize(
    ("ns", "text"),
    [
        (4.2e9, "4.2 s"),
        (3000e9, "50 min"),
        (5 * 3600e9, "5 h"),
        (95 * 365.25 * 86400e9, "95 years"),
    ],
)
def test_run_lengths_read_in_a_unit_that_suits_them(ns: float, text: str) -> None:
    assert duration_text(ns) == text


def test_small_rates_read_in_scientific_notation() -> None:
    assert rate_text(2.9957e-4) == "3.0e-4"
    assert rate_text(0.1512) == "0.15" and rate_text(1.0) == "1"


def _sample_run(values: list[float], **info: Any) -> Run:
    """The sample run with TMR-P-LAT's figure replaced by these samples."""
    lines = (DATA / "sample_run.jsonl").read_text().splitlines()
    recs = [json.loads(x) for x in lines]
    tmr = next(r for r in recs if r.get("id") == "TMR-P-LAT")
    tmr["metrics"] = [metric("timer.wakeup.clock_nanosleep.all", values)]
    tmr["options"]["period_us"] = 1000
    tmr["info"] = info
    return Run.of(bundle_from_records(copy.deepcopy(recs), "x"))


def test_ten_thousand_clean_samples_prove_a_rate_of_3e_4() -> None:
    run = _sample_run([20 * US] * 10_000)
    p = next(p for p in proofs(run, 100 * US, 0.95) if p.test == "TMR-P-LAT")
    assert (p.count.samples, p.count.misses) == (10_000, 0)
    assert p.upper == pytest.approx(1 - 0.05 ** (1 / 10_000), rel=1e-12)
    line = proof_line(p)
    assert "10,000 samples with 0 above 100 µs: miss rate ≤ 3.0e-4 at 95 %" in line
    assert line.startswith("TMR-P-LAT timer.wakeup.clock_nanosleep.all: ")


def test_missed_periods_count_as_misses_and_are_named() -> None:
    run = _sample_run([20 * US] * 998 + [500 * US] * 2, missed_periods={"cpu0": 5})
    p = next(p for p in proofs(run, 100 * US, 0.95) if p.test == "TMR-P-LAT")
    assert (p.count.activations, p.count.misses) == (1005, 7)
    assert p.upper == upper_bound(7, 1005, 0.95)
    assert "1,005 activations with 7 misses (2 above 100 µs, 5 missed periods)" in proof_line(p)


@pytest.mark.parametrize("path", ["tests/golden/local-vm.json", "tests/data/explain/hog_run.json"])
def test_the_proof_is_the_deadline_verdicts_bound(path: str) -> None:
    """With a deadline, each proof is that figure's verdict: same count, same bound."""
    a = AnalysedRun.of(load_bundle(ROOT / path), Judging(100 * US, 1e-6, 0.99))
    assert a.claim is not None and a.proved
    verdicts = {(v.test, v.metric): v for v in a.claim.verdicts}
    for p in a.proved:
        v = verdicts[(p.test, p.metric)]
        assert (p.count, p.upper, p.confidence, p.budget_ns) == (v.count, v.upper, 0.99, 100 * US)
        assert p.limit == v.green_withheld


def test_without_a_deadline_the_audits_budget_is_used() -> None:
    bundle = load_bundle(ROOT / "tests/data/explain/hog_run.json")
    plain = AnalysedRun.of(bundle)
    assert plain.claim is None and plain.proved
    assert {p.budget_ns for p in plain.proved} == {plain.judging.budget_ns} == {100 * US}
    strict = AnalysedRun.of(bundle, Judging(20 * US))
    assert strict.proved[0].count.above > plain.proved[0].count.above


def test_one_proof_per_latency_test_its_merged_figure() -> None:
    run = Run.of(load_bundle(ROOT / "tests/data/explain/freertos_run.json"))
    ps = proofs(run, 100 * US, 0.95)
    assert len({p.test for p in ps}) == len(ps)
    for p in ps:
        t = run.test(p.test)
        assert t is not None and headline_judged(t) is not None
        assert p.metric == headline_judged(t).name  # type: ignore[union-attr]
        merged = [m.name for m in t.metrics if m.name.endswith(".all") and m.count]
        assert not merged or p.metric == merged[0]


def test_an_emulated_run_proves_nothing_it_may_claim() -> None:
    a = AnalysedRun.of(load_bundle(ROOT / "tests/golden/qemu-tcg.json"))
    assert a.proved and all(p.limit and "emulated" in p.limit for p in a.proved)
    assert all("(not claimed: emulated" in proof_line(p) for p in a.proved)
    assert all(not p["claimed"] for p in a.to_json()["proved"])
