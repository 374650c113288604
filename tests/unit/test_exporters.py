"""Every format comes from one exporter interface over one Report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rtgauge.model import bundle_from_records
from rtgauge.report.document import Heading, Para, Report
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report
from rtgauge.run import Run


def test_each_format_renders_the_run_report(sample_records: list[dict[str, Any]]) -> None:
    bundle = bundle_from_records(sample_records, "x")
    report = bundle_report(bundle)
    assert set(EXPORTERS) == {
        "text",
        "html",
        "md",
        "json",
        "csv",
        "junit",
        "lava",
        "cyclictest-hist",
    }
    html = EXPORTERS["html"].render(report)
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html
    md = EXPORTERS["md"].render(report)
    assert "# rtgauge: vm" in md and "<svg" not in md
    data = json.loads(EXPORTERS["json"].render(report))
    assert data["schema"] == "rtgauge-analysis/1"
    assert [t["id"] for t in data["tests"]] == [t["id"] for t in bundle.tests]


def test_any_report_kind_gets_every_format(sample_records: list[dict[str, Any]]) -> None:
    """What a later comparison or rating report relies on: blocks in, text out."""
    a = Run.of(bundle_from_records(sample_records, "a"))
    report = Report("two runs", [Heading(1, "Two runs"), Para("a <b> c")], [a, a])
    assert "a &lt;b&gt; c" in EXPORTERS["html"].render(report)
    assert "a &lt;b&gt; c" in EXPORTERS["md"].render(report)
    assert len(json.loads(EXPORTERS["json"].render(report))) == 2


def test_csv_is_every_table_as_text_and_as_files(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    report = bundle_report(bundle_from_records(sample_records, "x"))
    text = EXPORTERS["csv"].render(report)
    assert "# Summary\n" in text and "TMR-P-LAT" in text
    written = EXPORTERS["csv"].write(report, tmp_path / "tables")
    assert (tmp_path / "tables" / "summary.csv") in written
