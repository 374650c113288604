"""The deadline section in every format: verdicts with their bound, the pWCET
with its curve, the caveats; a green verdict only where conditions allow it."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import lomax
from synthetic_metric import metric

from rtgauge.analysis import pwcet
from rtgauge.analysis.analysed_run import AnalysedRun, Judging
from rtgauge.analysis.compare import compare
from rtgauge.analysis.ratings import load_criteria
from rtgauge.model import bundle_from_records
from rtgauge.report.compare_report import compare_blocks
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.formats.html_page import render_html
from rtgauge.report.run_report import bundle_report
from rtgauge.validate import check_record

DEADLINE, RATE = 50_000.0, 1e-5  # about 1.5e-4 of this Pareto tail lies above 50 µs


def latency_records(sample_records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sample run with TMR-P-LAT replaced by 20,000 seeded samples (a
    Pareto tail, per-block maxima recorded) and two missed periods."""
    recs = copy.deepcopy(sample_records)
    rng = np.random.default_rng(5)
    values = 10_000 + lomax.rvs(4.0, scale=5_000, size=20_000, random_state=rng)
    tmr = next(r for r in recs if r.get("id") == "TMR-P-LAT")
    tmr["metrics"] = [metric("timer.wakeup.clock_nanosleep.all", values, period_ms=1.0)]
    tmr["options"]["period_us"] = 1000
    tmr["info"] = {"missed_periods": {"cpu0": 2, "cpu1": 0}}
    check_record(tmr, "synthetic TMR-P-LAT")  # the block record is valid schema v1
    return recs


@pytest.fixture(scope="module", autouse=True)
def fewer_refits() -> Any:
    """The report's wiring is under test here, not the interval (test_pwcet.py)."""
    saved, pwcet.BOOTSTRAP = pwcet.BOOTSTRAP, 30
    yield
    pwcet.BOOTSTRAP = saved


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    data = Path(__file__).parents[1] / "data" / "sample_run.jsonl"
    return latency_records([json.loads(x) for x in data.read_text().splitlines()])


@pytest.fixture(scope="module")
def report(records: list[dict[str, Any]]) -> Any:
    return bundle_report(bundle_from_records(records, "x"), DEADLINE, RATE)


def test_markdown_carries_verdict_bound_and_pwcet(report: Any) -> None:
    md = EXPORTERS["md"].render(report)
    assert "Deadline 50.0 µs at a miss rate of 1e-05 (95 % confidence)" in md
    assert "upper bound (95 %)" in md and "Probabilistic worst case" in md
    row = next(ln for ln in md.splitlines() if ln.startswith("| TMR-P-LAT | timer.wakeup"))
    assert "misses" in row
    assert "latency at 1e-06" in md and "latency at 1e-09" in md
    assert "no finite bound" in md and "not a bound" in md  # a Pareto tail is heavy
    assert "stationarity (KPSS)" in md and "holds" in md


def test_json_carries_the_same_numbers(report: Any) -> None:
    data = json.loads(EXPORTERS["json"].render(report))
    claim = data["deadline"]
    v = next(x for x in claim["verdicts"] if x["test"] == "TMR-P-LAT")
    assert v["missed_periods"] == 2 and v["activations"] == 20_002
    assert v["verdict"] == "misses" and v["upper_bound_per_activation"] > RATE
    assert v["upper_bound_per_hour"] == pytest.approx(v["upper_bound_per_activation"] * 3.6e6)
    p = next(x for x in claim["pwcet"] if x["test"] == "TMR-P-LAT")
    assert p["status"] == "estimated" and p["heavy_tail"] is True
    assert set(p["latency_at_probability"]) == {"1e-06", "1e-09"}
    at = p["latency_at_probability"]["1e-06"]
    assert at["low"] <= at["estimate"] <= at["high"]
    assert p["deadline_exceedance_probability"]["estimate"] > 0


def test_html_draws_the_curve_with_deadline(report: Any) -> None:
    html = EXPORTERS["html"].render(report)
    assert "pWCET of TMR-P-LAT" in html and "deadline 50 µs" in html
    assert "<polygon" in html  # the band
    assert "tolerated 1e-05" in html


def test_csv_tables_carry_verdicts_and_pwcet(report: Any, tmp_path: Path) -> None:
    from rtgauge.report.formats.csv_tables import write_tables

    written = {p.name for p in write_tables(report.blocks, tmp_path)}
    dl = next(n for n in written if n.startswith("deadline"))
    rows = list(csv.reader((tmp_path / dl).open()))
    assert "upper bound (95 %)" in rows[0]
    pw = next(n for n in written if n.startswith("probabilistic"))
    assert any("TMR-P-LAT" in r for r in csv.reader((tmp_path / pw).open()))


def test_no_green_without_sched_fifo(records: list[dict[str, Any]]) -> None:
    recs = copy.deepcopy(records)
    recs[0]["privileges"]["sched_fifo"] = False
    md = EXPORTERS["md"].render(bundle_report(bundle_from_records(recs, "x"), 2e6, 0.5))
    assert "No green verdict for this run: ran without SCHED_FIFO" in md
    assert "meets, not claimed" in md and "**meets**" not in md


def test_compare_puts_systems_on_one_curve(records: list[dict[str, Any]]) -> None:
    judging = Judging(DEADLINE, RATE, 0.99)
    a = AnalysedRun.of(bundle_from_records(records, "a"), judging)
    b = AnalysedRun.of(bundle_from_records(copy.deepcopy(records), "b"), judging)
    blocks = compare_blocks(compare([a.run, b.run]), load_criteria(None), [a, b])
    html = render_html("c", blocks)
    assert "(99 % confidence)" in html and html.count("pWCET of TMR-P-LAT") == 1
    assert "worst figure" in html


def test_confidence_is_checked(cli: Any, records: list[dict[str, Any]], tmp_path: Path) -> None:
    src = tmp_path / "run.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    code, _, err = cli("report", str(src), "--deadline", "100us", "--confidence", "1.5")
    assert code == 2 and "--confidence '1.5'" in err and len(err.strip().splitlines()) == 1


def test_partial_figures_claim_nothing_and_are_not_extrapolated(
    records: list[dict[str, Any]],
) -> None:
    recs = copy.deepcopy(records)
    tmr = next(r for r in recs if r.get("id") == "TMR-P-LAT")
    tmr["status"], tmr["reason"] = "error", "watchdog: overran, partial results kept"
    report = bundle_report(bundle_from_records(recs, "x"), 2e9, 0.5)
    claim = json.loads(EXPORTERS["json"].render(report))["deadline"]
    (v,) = claim["verdicts"]
    assert v["verdict"] == "meets" and v["claim"] == "not claimed"
    assert v["green_withheld"] == "partial figures (TMR-P-LAT error)"
    assert claim["pwcet"] == []
