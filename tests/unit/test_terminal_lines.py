"""Lines for a terminal: cut with a visible mark and never inside a number;
the count line counts every planned test; a run with a failed verdict says
which and what exit code 1 means."""

from __future__ import annotations

import copy
import io
import re
from pathlib import Path
from typing import Any

import pytest

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.cli.lab import _table
from rtgauge.cli.lab_file import LabEntry
from rtgauge.cli.lab_pool import Outcome
from rtgauge.fmt import CLIP_MARK, clip
from rtgauge.model import bundle_from_records
from rtgauge.report.progress import Progress
from rtgauge.report.summary import count_line, summary_text, verdict_line


@pytest.mark.parametrize(
    "text, width, expected",
    [
        ("short", 10, "short"),
        ("worst wait 20459 ns, then 3 more waits", 17, "worst wait…"),
        ("worst wait 20459 ns", 18, "worst wait…"),  # not "worst wait 20459" without its unit
        ("worst wait 20459 ns", 19, "worst wait 20459 ns"),
        ("FreeRTOS V11.2.0 (QEMU board mps2-an385)", 24, "FreeRTOS V11.2.0 (QEMU…"),
        ("timer.wakeup.clock_nanosleep.cpu12", 33, "timer.wakeup.clock_nanosleep.cpu…"),
        ("1234567890", 5, CLIP_MARK),
    ],
)
def test_clip(text: str, width: int, expected: str) -> None:
    got = clip(text, width)
    assert got == expected and len(got) <= width


def test_a_clipped_line_never_ends_inside_a_number() -> None:
    text = "count 2: P acquired in 40 ns; a blocking P took 20024835 ns and 123456 more"
    for width in range(1, len(text)):
        got = clip(text, width)
        assert len(got) <= width and got.endswith(CLIP_MARK)
        head = got.removesuffix(CLIP_MARK)
        number = re.search(r"[0-9]+$", head)
        if number:  # a number at the end is whole in the text, and has no unit cut off
            rest = text[len(head) :]
            assert not rest[:1].isdigit() and not rest.startswith(" ns")


def _with_end(records: list[dict[str, Any]], **end: Any) -> list[dict[str, Any]]:
    out = copy.deepcopy(records)
    out[-1].update(end)
    return out


def test_the_count_line_counts_the_interrupted_test_and_those_never_run(
    sample_records: list[dict[str, Any]],
) -> None:
    # SIGINT during the second of three planned tests: one ran, one was cut
    # short, one never started.
    recs = copy.deepcopy(sample_records[:3])
    recs[2]["status"] = "interrupted"
    recs.append(
        {
            **sample_records[-1],
            "status": "interrupted",
            "tests": 2,
            "passed": 1,
            "interrupted": 1,
            "exit_code": 3,
        }
    )
    line = count_line(bundle_from_records(recs, "x"))
    assert line.startswith("3 tests: 1 passed, 0 failed, 0 errors, 0 skipped, ")
    assert "1 interrupted, 1 not run (" in line


def test_the_count_line_without_an_end_record(sample_records: list[dict[str, Any]]) -> None:
    """The host lost the target: counted from the test records."""
    line = count_line(bundle_from_records(sample_records[:2], "x"))
    assert line == "3 tests: 1 passed, 0 failed, 0 errors, 0 skipped, 2 not run"


def test_a_complete_run_counts_as_before(sample_records: list[dict[str, Any]]) -> None:
    line = count_line(bundle_from_records(sample_records, "x"))
    assert line == "3 tests: 3 passed, 0 failed, 0 errors, 0 skipped (0.7 s)"


def test_a_failed_verdict_is_named_at_the_end(sample_records: list[dict[str, Any]]) -> None:
    recs = _with_end(sample_records, passed=2, failed=1, exit_code=1)
    recs[3]["status"] = "fail"
    recs[3]["verdicts"][0]["pass"] = False
    bundle = bundle_from_records(recs, "x")
    name = recs[3]["verdicts"][0]["name"]
    line = verdict_line(bundle)
    assert line is not None and f"SEM-B-LCK {name}" in line and "exit code 1" in line
    assert summary_text(AnalysedRun.of(bundle)).splitlines()[-1] == line
    assert verdict_line(bundle_from_records(sample_records, "x")) is None


def test_a_long_observation_is_cut_with_a_mark(sample_records: list[dict[str, Any]]) -> None:
    recs = copy.deepcopy(sample_records)
    recs[3]["verdicts"][0]["observed"] = "worst wait " + "20459 ns, " * 20
    text = summary_text(AnalysedRun.of(bundle_from_records(recs, "x")))
    (line,) = [ln for ln in text.splitlines() if "worst wait" in ln]
    assert line.endswith(CLIP_MARK) and re.search(r"20459 ns…$|ns,…$", line)


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_fits_the_terminal(
    sample_records: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    out = Tty()
    p = Progress(out)
    for r in sample_records:
        p.update(r)
    shown = [s.removeprefix("\x1b[K") for s in out.getvalue().split("\r") if s]
    assert shown and all(len(s) <= 39 for s in shown)
    assert any(s.endswith(CLIP_MARK) for s in shown)


def test_lab_names_targets_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    name = "FreeRTOS V11.2.0 (QEMU board mps2-an385, icount)"
    entry = LabEntry(name=name, target="freertos-qemu", machine="this machine, a long key")
    _table([Outcome(entry, 0, Path("store/x.json"), None)])
    err = capsys.readouterr().err
    assert name in err and "store/x.json" in err
