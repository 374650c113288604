"""Calibrated limits: the order statistic and its false-alarm rate, the runs
a rate needs, the limits of stored runs, a run checked against them, the
limits file against its schema, and `history --calibrate` / `--check`."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from history_bundles import body, make, store

from rtgauge.analysis.history import build
from rtgauge.analysis.limits import (
    best_rate,
    calibrate,
    check_run,
    order_limit,
    rank_for,
    runs_needed,
)
from rtgauge.analysis.limits_json import dumps, load, loads, to_dict
from rtgauge.cli.history_limits import parse_false_alarm
from rtgauge.errors import UsageError
from rtgauge.run import Run

ROOT = Path(__file__).resolve().parents[2]
TMR = "timer.wakeup.clock_nanosleep.all"


def runs(records: list[dict[str, Any]], fars: list[int], **kw: Any) -> list[Run]:
    """One run a day, each with one sample at `far` µs (its max)."""
    return [
        Run.of(make(records, f"2026-01-{i + 1:02d}T00:00:00+00:00", body(5000, far=f), **kw))
        for i, f in enumerate(fars)
    ]


def test_the_rank_and_the_runs_a_rate_needs() -> None:
    assert rank_for(0.01, 99) == 1 and rank_for(0.01, 98) == 0
    assert rank_for(0.05, 199) == 10 and rank_for(0.1, 10) == 1 and rank_for(0.1, 8) == 0
    assert runs_needed(0.01) == 99 and runs_needed(0.1) == 9 and runs_needed(0.05) == 19
    assert best_rate(10) == pytest.approx(1 / 11)
    # the rate a number of runs supports is supported by exactly that many
    for n in (9, 19, 99, 199):
        assert rank_for(best_rate(n), n) == 1 and rank_for(best_rate(n), n - 1) == 0


def test_a_new_run_exceeds_the_limit_at_the_stated_rate() -> None:
    """Distribution-free: exchangeable draws from a heavy-tailed law (a
    log-normal bulk with rare large stalls) exceed the k-th largest of n in
    k/(n+1) of the trials."""
    rng = random.Random(7)

    def draw() -> float:
        v = rng.lognormvariate(3, 0.4)
        return v * 50 if rng.random() < 0.03 else v

    for n, rate in ((19, 0.1), (39, 0.05)):
        trials, above = 20000, 0
        for _ in range(trials):
            values = [draw() for _ in range(n)]
            got = order_limit(values, rate)
            assert got is not None
            above += draw() > got[0]
        k = rank_for(rate, n)
        assert above / trials == pytest.approx(k / (n + 1), abs=0.01)
    assert order_limit([1.0] * 5, 0.1) is None  # 5 runs cannot support 10 %


def test_limits_of_stored_runs(sample_records: list[dict[str, Any]]) -> None:
    fars = [60 + 3 * i for i in range(19)]  # maxima 60..114 µs, all different
    lim = calibrate(runs(sample_records, fars), "lab", "vm", 0.1, "now")
    assert (
        lim.runs == 19 and lim.first.startswith("2026-01-01") and lim.last.startswith("2026-01-19")
    )
    mx = next(x for x in lim.limits if x.test == "TMR-P-LAT" and x.stat == "max")
    # k = floor(0.1 × 20) = 2: the second largest maximum
    assert (mx.rank, mx.runs) == (2, 19) and mx.false_alarm == pytest.approx(0.1)
    assert mx.limit_ns == pytest.approx((60 + 3 * 17) * 1000 + 999)
    assert mx.options["period_us"] == 1000 and mx.conditions["policy"] == "SCHED_FIFO"
    # 5,000 samples do not back a p99.99: said, never made up
    p = [u for u in lim.uncalibrated if u.test == "TMR-P-LAT" and u.stat == "p99.99"]
    assert p and "back its p99.99" in p[0].why


def test_too_few_runs_say_what_they_support(sample_records: list[dict[str, Any]]) -> None:
    lim = calibrate(runs(sample_records, [60, 61, 62]), "lab", "vm", 0.01, "now")
    assert not lim.limits
    why = next(u.why for u in lim.uncalibrated if u.stat == "max")
    assert why == "3 runs support a false-alarm rate of 25 % at best; 1 % needs at least 99 runs"


def test_runs_with_other_options_are_left_out(sample_records: list[dict[str, Any]]) -> None:
    rs = runs(sample_records, [500, 600]) + runs(sample_records, [60, 61, 62, 63], period_us=500)
    rs = sorted(rs, key=lambda r: r.created_at)
    lim = calibrate(rs, "lab", "vm", 0.2, "now")
    mx = next(x for x in lim.limits if x.test == "TMR-P-LAT" and x.stat == "max")
    assert mx.runs == 4 and mx.options["period_us"] == 500 and mx.limit_ns < 100_000
    assert any("2 of 6 runs left out" in n for n in lim.notes)


def test_a_run_against_the_limits(sample_records: list[dict[str, Any]]) -> None:
    lim = calibrate(runs(sample_records, [60 + i for i in range(9)]), "lab", "vm", 0.1, "now")
    (hot,) = runs(sample_records, [400])
    checks = {(c.limit.test, c.name): c for c in check_run(lim, hot)}
    over = checks[("TMR-P-LAT", f"{TMR} max")]
    assert over.exceeded and over.evidence() == (
        "max 401.00 µs: above the calibrated limit 69.00 µs (false-alarm rate 10 %, from 9 runs)"
    )
    (calm,) = runs(sample_records, [61])
    assert not any(c.exceeded for c in check_run(lim, calm))
    (other,) = runs(sample_records, [400], period_us=200)  # another measurement: not checked
    c = next(c for c in check_run(lim, other) if c.limit.test == "TMR-P-LAT")
    assert not c.checked and not c.exceeded and "other options" in c.why


def test_history_judges_only_runs_after_the_calibration(
    sample_records: list[dict[str, Any]],
) -> None:
    rs = runs(sample_records, [60 + i for i in range(9)] + [400])
    lim = calibrate(rs[:9], "lab", "vm", 0.1, "now")
    (h,) = build(rs, {"lab": lim})
    assert h.limits is lim and [e.regressed for e in h.runs] == [False] * 9 + [True]
    f = next(f for f in h.runs[-1].findings if f.kind == "limit")
    assert f.name == f"{TMR} max" and "above the calibrated limit 69.00 µs" in f.evidence
    # its max is judged against the limit, not left as "a single extreme value"
    assert not [x for x in h.runs[-1].findings if x.kind == "max" and x.test == "TMR-P-LAT"]
    # another system's limits say nothing of this one
    lim.system = "board-7"
    assert not any(e.regressed for e in build(rs, {"lab": lim})[0].runs)


def test_the_file_round_trips_and_fits_its_schema(sample_records: list[dict[str, Any]]) -> None:
    import jsonschema

    lim = calibrate(runs(sample_records, [60 + i for i in range(9)]), "lab", "vm", 0.1, "now")
    schema = json.loads((ROOT / "schema" / "limits-v1.json").read_text())
    packaged = ROOT / "src" / "rtgauge" / "data" / "limits-v1.json"
    assert packaged.read_text() == (ROOT / "schema" / "limits-v1.json").read_text()
    jsonschema.Draft202012Validator(schema).validate(to_dict(lim))
    back = loads(dumps(lim), "limits.json")
    assert back.limits == lim.limits and back.uncalibrated == lim.uncalibrated
    assert (back.runs, back.last, back.asked) == (lim.runs, lim.last, lim.asked)


@pytest.mark.parametrize(
    "text, said",
    [
        ("{", "not JSON"),
        ("[]", "not a limits file: at top level"),
        ('{"limits_version": 2}', "unsupported limits_version 2"),
        ('{"limits_version": 1, "label": "x"}', "not a limits file: at top level: 'system'"),
    ],
)
def test_a_bad_file_is_one_line(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "limits.json"
    path.write_text(text)
    with pytest.raises(UsageError) as exc:
        load(path)
    assert said in str(exc.value) and "\n" not in str(exc.value)
    with pytest.raises(UsageError, match="cannot read"):
        load(tmp_path / "missing.json")


def test_false_alarm_rates_are_read() -> None:
    assert parse_false_alarm("1%") == pytest.approx(0.01)
    assert parse_false_alarm("9.1 %") == pytest.approx(0.091)
    assert parse_false_alarm("0.05") == pytest.approx(0.05)
    for bad in ("0", "100%", "1.5", "often", ""):
        with pytest.raises(UsageError, match="--false-alarm"):
            parse_false_alarm(bad)


def test_calibrate_and_check_from_the_command_line(
    sample_records: list[dict[str, Any]], tmp_path: Path, cli: Any
) -> None:
    results, out = tmp_path / "store", tmp_path / "limits.json"
    for i in range(10):
        when = f"2026-01-{i + 1:02d}T00:00:00+00:00"
        store(results, make(sample_records, when, body(5000, far=60 + i)))
    base = ("history", "--results-dir", str(results), "--label", "lab")
    code, _, err = cli(*base, "--calibrate")  # 1 % by default: 10 runs are too few
    assert code == 2 and err.strip() == (
        "rtgauge: error: 10 runs of label lab support a false-alarm rate of 9.1 % per figure "
        "at best; 1 % needs at least 99 runs: store more runs, or ask --false-alarm 9.1% or more"
    )
    code, said, _ = cli(*base, "--calibrate", "--false-alarm", "9.1%", "--out", str(out))
    assert code == 0, said
    assert "10 runs: enough for 9.1 %" in said and f"limits: {out}" in said
    assert f"{TMR} max: limit 70.00 µs, the 1st largest of 10 runs" in said
    assert load(out).label == "lab"
    code, said, _ = cli(*base, "--check")
    assert code == 0 and "the runs after 2026-01-10T00:00:00+00:00 are checked" in said
    store(results, make(sample_records, "2026-01-11T00:00:00+00:00", body(5000, far=65)))
    assert cli(*base, "--check")[0] == 0
    store(results, make(sample_records, "2026-01-12T00:00:00+00:00", body(5000, far=900)))
    code, said, err = cli(*base, "--check")
    assert code == 1 and "newest run regressed" in err
    assert (
        f"REGRESSION 2026-01-12T00:00:00+00:00 TMR-P-LAT {TMR} max: max 901.00 µs: above the "
        "calibrated limit 70.00 µs (false-alarm rate 9.1 %, from 10 runs)"
    ) in said
    code, doc, _ = cli(*base, "--format", "json")
    assert json.loads(doc)[0]["limits"]["runs"]["count"] == 10


@pytest.mark.parametrize(
    "extra, said",
    [
        ((), "--calibrate needs --label"),
        (("--label", "lab", "--format", "json"), "leave out --format"),
        (("--label", "none"), "no stored runs of label 'none'"),
        (("--label", "lab", "--false-alarm", "2"), "--false-alarm '2'"),
    ],
)
def test_calibrate_bad_input(
    sample_records: list[dict[str, Any]],
    tmp_path: Path,
    cli: Any,
    extra: tuple[str, ...],
    said: str,
) -> None:
    store(tmp_path, make(sample_records, "2026-01-01T00:00:00+00:00", body(500)))
    code, _, err = cli("history", "--results-dir", str(tmp_path), "--calibrate", *extra)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1


def test_false_alarm_without_calibrate_is_bad_input(tmp_path: Path, cli: Any) -> None:
    code, _, err = cli("history", "--results-dir", str(tmp_path), "--false-alarm", "5%")
    assert code == 2 and "--false-alarm goes with --calibrate" in err


@pytest.mark.parametrize("command, option", [("history", "--false-alarm"), ("run", "--limits")])
def test_the_help_names_the_new_options(
    capsys: pytest.CaptureFixture[str], command: str, option: str
) -> None:
    from rtgauge.cli.main import main

    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0 and option in capsys.readouterr().out
