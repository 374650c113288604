"""One interface for every output format.

A report is decided once, as blocks (run_report.py, compare_report.py). An
exporter only turns a Report into its format and writes it, so a new report
kind gets every format, and a new format serves every report kind. A format
is one class here plus its entry in EXPORTERS.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

from rtgauge.errors import UsageError
from rtgauge.report.document import Report
from rtgauge.report.export_cyclictest import cyclictest_hist_text
from rtgauge.report.export_junit import junit_xml
from rtgauge.report.export_lava import lava_text
from rtgauge.report.render_html import render_html
from rtgauge.report.render_markdown import render_markdown
from rtgauge.report.tables import tables_csv, write_tables


class Exporter(Protocol):
    name: str  # the --format value
    suffix: str  # appended to the output path's stem when written beside a bundle

    def render(self, report: Report) -> str:
        """The report as one text (a CSV export: its tables one after another)."""
        ...

    def write(self, report: Report, path: Path) -> list[Path]:
        """The report written at path; returns what was written."""
        ...


def write_text(path: Path, text: str) -> Path:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from exc
    return path


class _TextExporter:
    name = suffix = ""

    def render(self, report: Report) -> str:
        raise NotImplementedError

    def write(self, report: Report, path: Path) -> list[Path]:
        return [write_text(path, self.render(report))]


class HtmlExporter(_TextExporter):
    name, suffix = "html", ".html"

    def render(self, report: Report) -> str:
        return render_html(report.title, report.blocks)


class MarkdownExporter(_TextExporter):
    name, suffix = "md", ".md"

    def render(self, report: Report) -> str:
        return render_markdown(report.title, report.blocks)


class JsonExporter(_TextExporter):
    """The data itself: the bundle (a list of them for a multi-run report)."""

    name, suffix = "json", ".out.json"

    def render(self, report: Report) -> str:
        data = [b.to_json() for b in report.bundles]
        return json.dumps(data[0] if len(data) == 1 else data, indent=1) + "\n"


class CsvExporter:
    """Every table of the report, one CSV file (and its JSON twin) each, in a folder."""

    name, suffix = "csv", ".tables"

    def render(self, report: Report) -> str:
        return tables_csv(report.blocks)

    def write(self, report: Report, path: Path) -> list[Path]:
        return write_tables(report.blocks, path)


class JunitExporter(_TextExporter):
    """Behaviour and deadline verdicts as JUnit XML, for CI systems."""

    name, suffix = "junit", ".junit.xml"

    def render(self, report: Report) -> str:
        return junit_xml(report)


class LavaExporter(_TextExporter):
    """lava-test-case lines, for a LAVA job's test shell."""

    name, suffix = "lava", ".lava.sh"

    def render(self, report: Report) -> str:
        return lava_text(report)


class CyclictestHistExporter(_TextExporter):
    """Latency histograms in cyclictest's -h layout (OSADL's plots read it)."""

    name, suffix = "cyclictest-hist", ".hist.txt"

    def render(self, report: Report) -> str:
        return cyclictest_hist_text(report)


EXPORTERS: dict[str, Exporter] = {
    e.name: e
    for e in (
        HtmlExporter(),
        MarkdownExporter(),
        JsonExporter(),
        CsvExporter(),
        JunitExporter(),
        LavaExporter(),
        CyclictestHistExporter(),
    )
}
