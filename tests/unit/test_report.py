"""Reports: sections present, worst first, hostile strings escaped, deadlines."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from synthetic_metric import as_metric

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.model import bundle_from_records
from rtgauge.report import plots
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report
from rtgauge.report.summary import summary_text

HOSTILE = "<script>alert('x')</script>|`**"


def hostile_bundle(records: list[dict[str, Any]]) -> Any:
    recs = copy.deepcopy(records)
    recs[0]["host"]["hostname"] = HOSTILE
    recs[0]["host"]["version"] = "#1 <img src=x onerror=alert(1)> | SMP"
    recs[1]["reason"] = "</td><script>bad()</script>"
    return bundle_from_records(recs, "test")


def test_html_has_every_section_and_escapes_target_strings(
    sample_records: list[dict[str, Any]],
) -> None:
    html = EXPORTERS["html"].render(bundle_report(hostile_bundle(sample_records)))
    for section in (
        "System and how it was measured",
        "Summary",
        "Behaviour verdicts",
        "Performance, worst case first",
        "CLK — Clocks",
        "TMR — Timers",
    ):
        assert section in html
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert html.count("<svg") >= 2  # histograms inline, no external resource
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "virtual machine" in html or "hypervisor" in html


def test_markdown_escapes_and_keeps_tables(sample_records: list[dict[str, Any]]) -> None:
    md = EXPORTERS["md"].render(bundle_report(hostile_bundle(sample_records)))
    assert "<script>" not in md
    assert "\\|" in md  # a pipe from the target does not break a table
    assert "| figure (µs) | max | p99.99 |" in md


def test_summary_is_worst_first(sample_records: list[dict[str, Any]]) -> None:
    text = summary_text(AnalysedRun.of(bundle_from_records(sample_records, "x")))
    rows = [ln for ln in text.splitlines() if "timer.wakeup" in ln]
    maxes = [
        float(re.split(r"\s+", ln.split("timer.wakeup")[1])[1].replace(",", "")) for ln in rows
    ]
    assert maxes == sorted(maxes, reverse=True)


def test_histogram_svg_from_known_buckets() -> None:
    m = as_metric(
        {
            "name": "t.x",
            "hist": {
                "buckets": [[1000, 1008, 5], [2000, 2016, 50], [100000, 100800, 1]],
                "overflow": 2,
                "overflow_above": 1 << 35,
            },
        }
    )
    svg = plots.histogram_svg(m)
    assert svg.startswith("<svg") and svg.count("<rect") >= 4
    assert "5 samples" in svg and "50 samples" in svg and "1 samples" in svg
    assert "2 beyond" in svg


def test_csv_export_of_every_table(sample_records: list[dict[str, Any]], tmp_path: Path) -> None:
    written = EXPORTERS["csv"].write(
        bundle_report(bundle_from_records(sample_records, "x"), 100000.0), tmp_path
    )
    names = {p.name for p in written}
    assert "summary.csv" in names and any(n.startswith("deadline") for n in names)
    assert (tmp_path / "summary.json").exists()
