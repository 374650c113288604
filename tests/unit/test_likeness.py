"""Like with like: how runs differ beside their system, one line each, in
compare and history; and runs named by label, time and kind."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from history_bundles import body, make, store

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.compare import labels_for
from rtgauge.analysis.likeness import run_name, unlike
from rtgauge.analysis.ratings import load_criteria
from rtgauge.model import bundle_from_records
from rtgauge.report.compare_report import compare_report
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import system_table
from rtgauge.report.summary import summary_text
from rtgauge.run import Run


def run(
    records: list[dict[str, Any]],
    when: str = "2026-11-27T12:03:00+00:00",
    label: str | None = "L",
    change: Any = None,
) -> Run:
    recs = copy.deepcopy(records)
    if change is not None:
        change(recs)
    b = bundle_from_records(recs, "x")
    b.created_at, b.run_label = when, label
    return Run.of(b)


def tmr(recs: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in recs if r.get("id") == "TMR-P-LAT")


def default_run(recs: list[dict[str, Any]]) -> None:
    recs[0]["run"]["quick"] = False


def new_probe(recs: list[dict[str, Any]]) -> None:
    recs[0]["probe"]["version"] = "0.2.0"


def longer(recs: list[dict[str, Any]]) -> None:
    t = tmr(recs)
    t["options"]["duration_ms"] = 3000
    t["duration_ms"] = 3001.0
    for m in t["metrics"]:
        m["count"] *= 10


def a_few_more_samples(recs: list[dict[str, Any]]) -> None:
    for m in tmr(recs)["metrics"]:
        m["count"] = int(m["count"] * 1.5)


def test_a_run_is_named_by_label_time_and_kind(sample_records: list[dict[str, Any]]) -> None:
    assert run_name(run(sample_records)) == "L, 2026-11-27 12:03, quick"
    assert run_name(run(sample_records, label=None, change=default_run)) == (
        "vm, 2026-11-27 12:03, default"
    )


def test_like_runs_say_nothing(sample_records: list[dict[str, Any]]) -> None:
    a = run(sample_records)
    assert unlike([a, run(sample_records, "2026-11-27T13:00:00+00:00")]) == []
    assert unlike([a, run(sample_records, change=a_few_more_samples)]) == []  # within 2×
    assert unlike([a]) == []


def test_each_difference_is_one_line(sample_records: list[dict[str, Any]]) -> None:
    a = run(sample_records)
    b = run(sample_records, "2026-11-27T13:00:00+00:00", change=longer)
    lines = unlike([a, b])
    assert len(lines) == 3
    assert lines[0] == (
        "runs differ in test duration by more than 2×: TMR-P-LAT 0.30 s (L, 2026-11-27 12:03, "
        "quick) against 3.00 s (L, 2026-11-27 13:00, quick) (10.0×)"
    )
    assert lines[1].startswith("runs differ in sample counts by more than 2×: TMR-P-LAT ")
    assert lines[1].endswith("(10.0×) (and 2 more)")  # three figures, the worst said
    assert lines[2] == (
        "runs differ in options: TMR-P-LAT duration_ms 300 (L, 2026-11-27 12:03, quick); "
        "3000 (L, 2026-11-27 13:00, quick)"
    )
    assert unlike([a, run(sample_records, change=default_run)]) == [
        "runs differ in quick/default: quick (L, 2026-11-27 12:03, quick); "
        "default (L, 2026-11-27 12:03, default)"
    ]
    (probe,) = unlike([a, run(sample_records, change=new_probe)], ["A", "B"])
    assert probe == "runs differ in probe version: 0.1.0 (A); 0.2.0 (B)"
    guest = run(sample_records)
    guest.bundle.target = {"kind": "qemu", "accel": "kvm"}
    (target,) = unlike([a, Run.of(guest.bundle)], ["A", "B"])
    assert target == "runs differ in target: local (A); qemu (kvm) (B)"


def firmware(profile: str | None) -> Any:
    def change(recs: list[dict[str, Any]]) -> None:
        recs[0]["rtos"] = {"name": "FreeRTOS"} | ({"profile": profile} if profile else {})

    return change


def test_firmware_built_with_another_profile_is_said(
    sample_records: list[dict[str, Any]],
) -> None:
    checked = run(sample_records, change=firmware("checked"))
    lean = run(sample_records, change=firmware("lean"))
    assert unlike([checked, lean], ["A", "B"]) == [
        "runs differ in firmware profile: checked (A); lean (B)"
    ]
    assert unlike([checked, run(sample_records, change=firmware("checked"))], ["A", "B"]) == []
    older = run(sample_records, change=firmware(None))  # a record from before profiles
    assert unlike([older, lean], ["A", "B"]) == [
        "runs differ in firmware profile: not recorded (A); lean (B)"
    ]
    assert unlike([run(sample_records), run(sample_records)]) == []  # Linux: none said
    report = compare_report([AnalysedRun.of(checked), AnalysedRun.of(lean)], load_criteria())
    for fmt in ("md", "text", "html"):
        assert "runs differ in firmware profile: checked" in EXPORTERS[fmt].render(report), fmt
    # The run's own header names it: the first line and the system table.
    assert "profile=lean" in summary_text(AnalysedRun.of(lean)).splitlines()[0]
    assert "profile=" not in summary_text(AnalysedRun.of(run(sample_records)))
    table = system_table(lean.system)
    assert ["firmware profile", "lean"] in [[c.text for c in row] for row in table.rows]


def test_compare_names_alike_runs_and_warns(sample_records: list[dict[str, Any]]) -> None:
    a = run(sample_records)
    b = run(sample_records, "2026-11-27T14:10:00+00:00", change=longer)
    assert labels_for([a, b]) == ["L, 2026-11-27 12:03, quick", "L, 2026-11-27 14:10, quick"]
    assert len(set(labels_for([a, a, a]))) == 3  # the same run thrice: still told apart
    report = compare_report([AnalysedRun.of(a), AnalysedRun.of(b)], load_criteria())
    for fmt in ("md", "text", "html"):
        out = EXPORTERS[fmt].render(report)
        assert out.count("runs differ in options: TMR-P-LAT duration_ms") == 1, fmt
        assert "runs differ in sample counts by more than 2×" in out, fmt
        assert "L, 2026-11-27 14:10, quick" in out, fmt  # the run by name, not by number


def test_history_warns_in_every_format(
    sample_records: list[dict[str, Any]], tmp_path: Path, cli: Any
) -> None:
    store(tmp_path, make(sample_records, "2026-01-01T00:00:00+00:00", body(500)))
    newer = make(sample_records, "2026-01-02T00:00:00+00:00", body(500))
    newer.system["probe"]["version"] = "0.2.0"
    store(tmp_path, newer)
    said = "runs differ in probe version: 0.1.0 (lab, 2026-01-01 00:00, quick); 0.2.0 (lab, "
    base = ("history", "--results-dir", str(tmp_path))
    code, out, _ = cli(*base)
    assert code == 0 and out.count(f"note: {said}") == 1
    code, out, _ = cli(*base, "--format", "md")
    assert out.count(said) == 1
    code, out, _ = cli(*base, "--format", "json")
    (h,) = json.loads(out)
    assert len(h["notes"]) == 1 and h["notes"][0].startswith(said)
    assert h["runs"][0]["name"] == "lab, 2026-01-01 00:00, quick"
    page = tmp_path / "h.html"
    assert cli(*base, "--format", "html", "--out", str(page))[0] == 0
    assert page.read_text().count("runs differ in probe version") == 1
