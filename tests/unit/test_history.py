"""Regressions are decided by pure functions: literal cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from history_bundles import body, latency, make, store
from synthetic_metric import as_metric

from rtgauge.analysis.history import build, compare_runs
from rtgauge.analysis.tail import tail_test
from rtgauge.model import Metric
from rtgauge.run import Run


def figure(values_us: dict[int, int]) -> Metric:
    return as_metric(latency(values_us))


def run(*args: Any, **kwargs: Any) -> Run:
    """A stored run with a chosen latency histogram (history_bundles.make)."""
    return Run.of(make(*args, **kwargs))


def test_a_worse_tail_is_flagged() -> None:
    tt = tail_test(figure(body(10000, above=10)), figure(body(10000, above=200)))
    assert tt.worse and tt.threshold_ns is not None
    assert tt.rank_p is not None and tt.rank_p < 1e-6
    # the threshold is the tail line the history draws: the highest percentile backed
    assert tt.threshold_name == "p99.99" and "the older run's p99.99" in tt.evidence


def test_noise_is_not_flagged() -> None:
    tt = tail_test(figure(body(10000, above=12)), figure(body(10000, above=20)))
    assert tt.tested and not tt.worse and tt.rank_p is not None and tt.fisher_p is not None


def test_a_better_tail_is_not_flagged() -> None:
    assert not tail_test(figure(body(10000, above=200)), figure(body(10000, above=10))).worse


def test_a_single_higher_maximum_alone_is_not_a_regression(
    sample_records: list[dict[str, Any]],
) -> None:
    old = run(sample_records, "2026-01-01T00:00:00+00:00", body(5000, above=10))
    new = run(sample_records, "2026-01-02T00:00:00+00:00", body(5000, above=10, far=5000))
    findings = compare_runs(old, new, "TMR-P-LAT")
    assert not any(f.regression for f in findings)
    maxes = [f for f in findings if f.kind == "max"]
    assert maxes and "single extreme value, not tested" in maxes[0].evidence


def test_a_verdict_from_pass_to_fail_is_flagged_with_its_evidence(
    sample_records: list[dict[str, Any]],
) -> None:
    old = run(sample_records, "2026-01-01T00:00:00+00:00", body(5000))
    new = run(sample_records, "2026-01-02T00:00:00+00:00", body(5000), verdict_pass=False)
    findings = compare_runs(old, new, "SEM-B-LCK")
    flagged = [f for f in findings if f.regression]
    assert len(flagged) == 1 and flagged[0].kind == "verdict"
    assert "the waiter ran late" in flagged[0].evidence
    # and back to pass is a change, not a regression
    back = compare_runs(new, old, "SEM-B-LCK")
    assert back and not any(f.regression for f in back)


def test_too_few_samples_are_not_tested() -> None:
    tt = tail_test(figure(body(50)), figure(body(50, above=40)))
    assert not tt.tested and not tt.worse and "too few full blocks" in tt.evidence


def test_a_record_without_blocks_is_not_testable(sample_records: list[dict[str, Any]]) -> None:
    """Older records carry no block maxima: said so, never tested on samples."""
    old = run(sample_records, "2026-01-01T00:00:00+00:00", body(5000, above=5), blocks=False)
    new = run(sample_records, "2026-01-02T00:00:00+00:00", body(5000, above=400))
    findings = compare_runs(old, new, "TMR-P-LAT")
    assert findings and not any(f.regression for f in findings)
    untested = [f for f in findings if f.kind == "untested"]
    assert untested and untested[0].evidence == "not testable: no block maxima"
    assert not [f for f in findings if f.kind == "tail"]


def test_build_compares_only_comparable_runs(sample_records: list[dict[str, Any]]) -> None:
    runs = [
        run(sample_records, "2026-01-01T00:00:00+00:00", body(5000, above=5)),
        run(sample_records, "2026-01-02T00:00:00+00:00", body(5000, above=5)),
        # other options: not compared with the runs before
        run(sample_records, "2026-01-03T00:00:00+00:00", body(5000, above=300), period_us=200),
        # another label: its own history
        run(sample_records, "2026-01-04T00:00:00+00:00", body(5000, above=300), label="other"),
        # compared with 01-02 (same options), not with 01-03: a regression
        run(sample_records, "2026-01-05T00:00:00+00:00", body(5000, above=300)),
    ]
    hs = {h.label: h for h in build(runs)}
    assert set(hs) == {"lab", "other"}
    lab = hs["lab"].runs
    assert [e.regressed for e in lab] == [False, False, False, True]
    tmr = [f for f in lab[3].findings if f.test == "TMR-P-LAT"]
    assert tmr and all(f.older == "2026-01-02T00:00:00+00:00" for f in tmr)
    assert not hs["other"].runs[0].regressed


def test_history_filters(sample_records: list[dict[str, Any]], tmp_path: Path, cli: Any) -> None:
    for day, label in ((1, "a"), (2, "a"), (3, "b")):
        store(
            tmp_path, make(sample_records, f"2026-01-0{day}T00:00:00+00:00", body(500), label=label)
        )
    code, out, _ = cli("history", "--results-dir", str(tmp_path))
    assert code == 0 and "vm — label a: 2 runs" in out and "vm — label b: 1 runs" in out
    code, out, _ = cli("history", "--results-dir", str(tmp_path), "--label", "b")
    assert "label a" not in out and "label b: 1 runs" in out
    code, out, _ = cli("history", "--results-dir", str(tmp_path), "--since", "2026-01-02")
    assert "label a: 1 runs" in out
    code, out, _ = cli("history", "--results-dir", str(tmp_path), "--system", "other*")
    assert code == 0 and "no runs" in out
    code, out, _ = cli("history", "--results-dir", str(tmp_path), "--test", "SEM-*")
    assert "SEM-B-LCK" in out and "TMR-P-LAT" not in out


def test_history_says_a_tail_without_blocks_is_not_testable(
    sample_records: list[dict[str, Any]], tmp_path: Path, cli: Any
) -> None:
    for day, above in ((1, 5), (2, 400)):
        when = f"2026-01-0{day}T00:00:00+00:00"
        store(tmp_path, make(sample_records, when, body(5000, above), blocks=False))
    code, out, _ = cli("history", "--results-dir", str(tmp_path), "--check")
    assert code == 0 and "REGRESSION" not in out
    assert "TMR-P-LAT timer.wakeup.clock_nanosleep.all: not testable: no block maxima" in out
