"""Text for the terminal: summary worst first, the store's listing, the probe's
catalogue; no string from a target reaches the terminal with control bytes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.errors import UsageError
from rtgauge.fmt import term
from rtgauge.model import bundle_from_records
from rtgauge.probe import parse_catalogue
from rtgauge.report.summary import summary_text
from rtgauge.store import RunWriter

ESC = "\x1b[2J\x1b]0;owned\x07"


def test_term_shows_control_bytes_instead_of_sending_them() -> None:
    assert term(f"host{ESC}") == "host\\x1b[2J\\x1b]0;owned\\x07"
    assert term("a\nb\tc") == "a b\\x09c"
    assert term("µs — ok") == "µs — ok"


def test_summary_puts_the_worst_test_and_figure_first(
    sample_records: list[dict[str, Any]],
) -> None:
    lines = summary_text(AnalysedRun.of(bundle_from_records(sample_records, "x"))).splitlines()
    firsts = [ln.split()[0] for ln in lines if ln[:3] in ("TMR", "CLK", "SEM")]
    assert firsts == ["TMR-P-LAT", "CLK-P-RES", "SEM-B-LCK"]  # 64 µs before 0.07 µs
    tmr = [ln for ln in lines if "timer.wakeup" in ln]
    maxes = [float(ln.split("timer.wakeup")[1].split()[1]) for ln in tmr]
    assert maxes == sorted(maxes, reverse=True)
    assert "(p99)" in tmr[0]  # 300 samples do not back p99.99: say which percentile
    assert sum("PASS" in ln for ln in lines) == 5


def test_summary_shows_failures_and_errors_with_reasons(
    sample_records: list[dict[str, Any]],
) -> None:
    recs = copy.deepcopy(sample_records)
    recs[3]["verdicts"][2]["pass"] = False
    recs[3]["status"] = "fail"
    recs[1].update(status="error", reason=f"watchdog: killed after 30 s{ESC}", metrics=[])
    text = summary_text(AnalysedRun.of(bundle_from_records(recs, "x")))
    assert "FAIL v_increments" in text
    assert "reason: watchdog: killed after 30 s\\x1b[2J" in text and "\x1b" not in text
    sem, clk = text.index("SEM-B-LCK"), text.index("CLK-P-RES")
    assert clk < sem  # no figures: troubles first, in run order


def test_hostile_hostname_in_summary_and_runs(
    sample_records: list[dict[str, Any]], tmp_path: Path, cli: Any
) -> None:
    recs = copy.deepcopy(sample_records)
    recs[0]["host"]["hostname"] = f"box{ESC}"
    assert "\x1b" not in summary_text(AnalysedRun.of(bundle_from_records(recs, "x")))
    w = RunWriter(tmp_path, ["rtgauge-probe"], {"kind": "local"})
    for r in recs:
        w.add(r)
    w.finish()
    code, out, _ = cli("runs", "--results-dir", str(tmp_path))
    assert code == 0 and "\x1b" not in out and "box\\x1b" in out and " ok " in out


def test_runs_says_incomplete(
    sample_records: list[dict[str, Any]], tmp_path: Path, cli: Any
) -> None:
    w = RunWriter(tmp_path, ["rtgauge-probe"], {"kind": "local"})
    for r in sample_records[:2]:
        w.add(r)
    w.finish()
    code, out, _ = cli("runs", "--results-dir", str(tmp_path))
    assert code == 0 and "incomplete" in out and "vm" in out


GOOD = {
    "record": "catalogue",
    "id": "TMR-P-LAT",
    "title": "Periodic wake-up latency per CPU",
    "kind": "P",
    "available": True,
    "reason": None,
    "options": [
        {"key": "period_us", "type": "int", "default": 1000, "min": 50, "max": 10**6, "help": "p"},
        {"key": "variant", "type": "enum", "choices": "clock_nanosleep", "help": "v"},
    ],
}


def test_catalogue_lines_are_checked() -> None:
    assert parse_catalogue(json.dumps(GOOD) + "\n\n", "probe")[0].id == "TMR-P-LAT"
    with pytest.raises(UsageError, match="probe line 1: not JSON"):
        parse_catalogue("{oops", "probe")
    bad = copy.deepcopy(GOOD)
    del bad["options"][0]["max"]
    with pytest.raises(UsageError, match="probe line 2: invalid catalogue entry at options/0"):
        parse_catalogue(json.dumps(GOOD) + "\n" + json.dumps(bad), "probe")


def test_an_unexpected_exception_is_one_line(
    monkeypatch: pytest.MonkeyPatch, cli: Any, tmp_path: Path
) -> None:
    import rtgauge.cli.runs as runs

    def boom(results: Path, label: str | None = None) -> list[dict[str, Any]]:
        raise KeyError("surprise")

    monkeypatch.setattr(runs, "list_runs", boom)
    monkeypatch.delenv("RTGAUGE_DEBUG", raising=False)
    code, _, err = cli("runs", "--results-dir", str(tmp_path))
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("rtgauge: error: internal error (KeyError")
