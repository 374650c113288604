"""`rtgauge run --limits FILE` against a stand-in probe replaying the sample
run: each figure checked against a limit made from the sample's own
figures, so every expected pass and fail is known; exit code 1 when one is
exceeded, 2 (nothing run) when the file is bad."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from test_run_fake_probe import fake_probe

from rtgauge.analysis.limits import Limit, Limits, conditions_of
from rtgauge.analysis.limits_json import dumps
from rtgauge.model import bundle_from_records
from rtgauge.run import Run

ALL = "timer.wakeup.clock_nanosleep.all"
CPU0 = "timer.wakeup.clock_nanosleep.cpu0"


def limits_file(records: list[dict[str, Any]], path: Path, factors: dict[str, float]) -> Path:
    """Limits on TMR-P-LAT's maxima: each metric's own max times its factor."""
    r = Run.of(bundle_from_records(copy.deepcopy(records), "sample"))
    t = r.test("TMR-P-LAT")
    assert t is not None
    lim = Limits("lab", "vm", "2026-01-02T00:00:00+00:00", 0.1, 9, "a", "b")
    for name, factor in factors.items():
        m = t.metric(name)
        assert m is not None and m.max is not None
        lim.limits.append(
            Limit(
                "TMR-P-LAT", name, "max", m.max * factor, 9, 1, dict(t.options), conditions_of(r, t)
            )
        )
    other = dict(t.options, period_us=200)  # another measurement: never checked against this run
    lim.limits.append(Limit("TMR-P-LAT", ALL, "p99.99", 1.0, 9, 1, other, conditions_of(r, t)))
    path.write_text(dumps(lim))
    return path


def run(cli: Any, tmp: Path, records: list[dict[str, Any]], limits: Path) -> tuple[int, str, str]:
    probe = fake_probe(tmp, [json.dumps(r) for r in records])
    results = tmp / "results"
    return cli("run", "--probe", str(probe), "--results-dir", str(results), "--limits", str(limits))


def test_a_figure_above_its_limit_fails_the_run(
    cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    path = limits_file(sample_records, tmp_path / "limits.json", {ALL: 2.0, CPU0: 0.5})
    code, out, err = run(cli, tmp_path, sample_records, path)
    assert code == 1, err
    assert f"pass TMR-P-LAT {ALL} max" in out and "within the calibrated limit" in out
    assert f"FAIL TMR-P-LAT {CPU0} max" in out and "above the calibrated limit" in out
    assert "----" in out and "other options" in out
    assert out.rstrip().endswith("limits: 1 of 2 exceeded")


def test_a_run_within_its_limits_passes(
    cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    path = limits_file(sample_records, tmp_path / "limits.json", {ALL: 1.0, CPU0: 3.0})
    code, out, err = run(cli, tmp_path, sample_records, path)
    assert code == 0, err  # a max equal to its limit does not exceed it
    assert out.rstrip().endswith("limits: all 2 checked within their limits")


def test_a_failed_verdict_and_an_exceeded_limit_are_both_exit_1(
    cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    records = copy.deepcopy(sample_records)
    for r in records:
        if r.get("id") == "SEM-B-LCK":
            r["verdicts"][0]["pass"], r["status"] = False, "fail"
    records[-1]["failed"], records[-1]["passed"], records[-1]["exit_code"] = 1, 2, 1
    path = limits_file(sample_records, tmp_path / "limits.json", {ALL: 0.5})
    probe = fake_probe(tmp_path, [json.dumps(r) for r in records], code=1)
    code, out, _ = cli("run", "--probe", str(probe), "--results-dir", str(tmp_path / "r"),
                       "--limits", str(path))  # fmt: skip
    assert code == 1 and "limits: 1 of 1 exceeded" in out


@pytest.mark.parametrize(
    "content, said",
    [
        (None, "cannot read"),
        ("not json", "not JSON"),
        ('{"limits_version": 1}', "not a limits file"),
    ],
)
def test_a_bad_limits_file_runs_nothing(
    cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path, content: str | None, said: str
) -> None:
    path = tmp_path / "limits.json"
    if content is not None:
        path.write_text(content)
    code, out, err = run(cli, tmp_path, sample_records, path)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "results").exists()  # nothing run, nothing stored
