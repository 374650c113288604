"""What the run report says: the trust warnings, 2-decimal µs tables, tests that
did not run, verdict evidence; and that no target string becomes markup."""

from __future__ import annotations

import copy
import csv
from pathlib import Path
from typing import Any

import pytest

from rtgauge.model import Bundle, bundle_from_records, load_bundle
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report, trust_warnings
from rtgauge.run import Run


def _bundle(records: list[dict[str, Any]], edit: Any = None) -> Bundle:
    recs = copy.deepcopy(records)
    if edit:
        edit(recs)
    return bundle_from_records(recs, "test")


def _weak_system(recs: list[dict[str, Any]]) -> None:
    s = recs[0]
    s["warnings"] = []  # a probe that said nothing: the host still knows
    s["privileges"].update(
        sched_fifo=False, sched_fifo_reason="EPERM", mlockall=False, mlockall_reason="ENOMEM"
    )
    s["cpu"]["governor"] = "powersave"


def test_warnings_are_derived_from_the_facts(sample_records: list[dict[str, Any]]) -> None:
    text = " | ".join(trust_warnings(Run.of(_bundle(sample_records, _weak_system))))
    for expected in (
        "no SCHED_FIFO (EPERM)",
        "no mlockall (ENOMEM)",
        "hypervisor present (KVMKVMKVM)",
        "'powersave', not 'performance'",
    ):
        assert expected in text


def test_probe_warnings_are_not_repeated(sample_records: list[dict[str, Any]]) -> None:
    warnings = trust_warnings(Run.of(_bundle(sample_records)))
    assert sum("hypervisor" in w or "virtual machine" in w for w in warnings) == 1


def test_incomplete_and_interrupted_runs_are_flagged(sample_records: list[dict[str, Any]]) -> None:
    def cut(recs: list[dict[str, Any]]) -> None:
        recs[2]["status"] = "interrupted"
        recs[2]["reason"] = "stopped by SIGINT"
        recs.pop()  # no end record

    b = _bundle(sample_records, cut)
    warnings = trust_warnings(Run.of(b))
    assert any(w.startswith("incomplete run") for w in warnings)
    assert any("TMR-P-LAT" in w for w in warnings)
    html = EXPORTERS["html"].render(bundle_report(b))
    assert "Why these figures may be less trustworthy" in html
    assert "Errors, skipped and interrupted tests" in html and "stopped by SIGINT" in html


def test_metric_tables_are_in_microseconds_with_two_decimals(
    sample_records: list[dict[str, Any]],
) -> None:
    md = EXPORTERS["md"].render(bundle_report(_bundle(sample_records)))
    row = next(ln for ln in md.splitlines() if ln.startswith("| timer.wakeup.clock_nanosleep.all"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    m = sample_records[2]["metrics"][-1]
    assert cells[1] == f"{m['max'] / 1000:,.2f}"  # max first
    assert cells[2] == "—" and cells[3] == "—"  # p99.99 and p99.9: too few samples
    assert cells[-1] == str(m["count"])


def test_verdicts_and_evidence_are_shown(sample_records: list[dict[str, Any]]) -> None:
    def fail_one(recs: list[dict[str, Any]]) -> None:
        recs[3]["status"] = "fail"
        recs[3]["verdicts"][3]["pass"] = False
        recs[3]["verdicts"][3]["observed"] = "event order bprw"

    html = EXPORTERS["html"].render(bundle_report(_bundle(sample_records, fail_one)))
    verdicts = html[html.index('id="verdicts"') :]  # the audit's statuses come before
    verdicts = verdicts[: verdicts.index("<h2", 1)]
    assert verdicts.count(">PASS<") == 4 and verdicts.count(">FAIL<") == 1
    assert "evidence: SEM-B-LCK v_wakes_higher_waiter_at_once" in html


@pytest.mark.parametrize("field", ["hostname", "release", "version", "os_pretty_name"])
def test_a_script_in_any_host_string_is_escaped(
    sample_records: list[dict[str, Any]], field: str
) -> None:
    evil = "<script>alert(1)</script>"
    b = _bundle(sample_records, lambda r: r[0]["host"].update({field: evil}))
    html = EXPORTERS["html"].render(bundle_report(b))
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    md = EXPORTERS["md"].render(bundle_report(b))
    assert "<script>" not in md


def test_markdown_links_and_code_from_the_target_are_inert(
    sample_records: list[dict[str, Any]],
) -> None:
    def evil(recs: list[dict[str, Any]]) -> None:
        recs[0]["host"]["hostname"] = "[click](javascript:alert(1)) `x` **b**"
        recs[3]["verdicts"][0]["observed"] = "![img](http://evil/x.png) | cell"

    md = EXPORTERS["md"].render(bundle_report(_bundle(sample_records, evil)))
    assert "[click](" not in md and "![img](" not in md and "**b**" not in md
    assert "\\[click\\]" in md and "\\| cell" in md


def test_report_summary_table_is_worst_first(sample_records: list[dict[str, Any]]) -> None:
    md = EXPORTERS["md"].render(bundle_report(_bundle(sample_records)))
    start = md.index("## Summary")
    rows = [ln for ln in md[start:].splitlines() if ln.startswith("| ")][1:4]  # after headers
    assert [r.split("|")[1].strip() for r in rows] == ["TMR-P-LAT", "CLK-P-RES", "SEM-B-LCK"]


def test_csv_cells_from_the_target_cannot_be_formulas(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    def evil(recs: list[dict[str, Any]]) -> None:
        recs[3]["verdicts"][0]["observed"] = '=HYPERLINK("http://evil","x")'

    EXPORTERS["csv"].write(bundle_report(_bundle(sample_records, evil), None), tmp_path)
    rows = list(csv.reader((tmp_path / "behaviour-verdicts.csv").open(encoding="utf-8")))
    cells = [c for r in rows for c in r]
    assert '\'=HYPERLINK("http://evil","x")' in cells
    assert not any(c.startswith("=") for c in cells)


def test_negative_intervals_are_named_where_there_are_some(
    sample_records: list[dict[str, Any]],
) -> None:
    def early(recs: list[dict[str, Any]]) -> None:
        tmr = next(r for r in recs if r.get("id") == "TMR-P-LAT")
        tmr["metrics"][0]["negative"] = 3

    plain = EXPORTERS["md"].render(bundle_report(_bundle(sample_records)))
    assert "Negative intervals" not in plain
    text = EXPORTERS["md"].render(bundle_report(_bundle(sample_records, early)))
    assert "Negative intervals" in text and "timer.wakeup.clock_nanosleep.cpu0 3" in text
    views = _bundle(sample_records, early).test_views()
    assert next(t for t in views if t.id == "TMR-P-LAT").metrics[0].negative == 3


def test_the_worst_max_of_an_explained_test_leads_to_its_explanation() -> None:
    """In the HTML report the summary's worst max of a test whose worst
    samples were explained links to its "Why the worst case" section, which
    exists; a test without a kept window has no link (the control)."""
    data = Path(__file__).resolve().parents[1] / "data" / "explain"
    html = EXPORTERS["html"].render(bundle_report(load_bundle(data / "hog_run.json")))
    assert '<a href="#why-TMR-P-LAT">9,832.23</a>' in html
    assert 'id="why-TMR-P-LAT"' in html
    golden = Path(__file__).resolve().parents[1] / "golden"
    plain = EXPORTERS["html"].render(bundle_report(load_bundle(golden / "local-vm.json")))
    assert 'href="#why-' not in plain
