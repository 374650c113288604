"""One interface for every output format.

A report is decided once, as blocks (run_report.py today; comparisons,
ratings and series views build the same Report). An exporter only turns a
Report into text in its format, so a new report kind gets every format, and
a new format serves every report kind.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from rtgauge.model import Bundle
from rtgauge.report.document import Block
from rtgauge.report.render_html import render_html
from rtgauge.report.render_markdown import render_markdown


@dataclass
class Report:
    """What an exporter renders: a title, the blocks, and the runs behind them."""

    title: str
    blocks: list[Block]
    bundles: list[Bundle] = field(default_factory=list)
    # Numbers the report derived (e.g. a deadline claim), one entry per bundle,
    # for the formats that carry data rather than text.
    analysis: list[dict[str, Any]] = field(default_factory=list)


class Exporter(Protocol):
    name: str  # the --format value
    suffix: str  # the file name ending when written beside a bundle

    def render(self, report: Report) -> str: ...


class HtmlExporter:
    name, suffix = "html", ".html"

    def render(self, report: Report) -> str:
        return render_html(report.title, report.blocks)


class MarkdownExporter:
    name, suffix = "md", ".md"

    def render(self, report: Report) -> str:
        return render_markdown(report.title, report.blocks)


class JsonExporter:
    """The data itself: the bundle (a list of them for a multi-run report),
    with what the report derived from it under "analysis"."""

    name, suffix = "json", ".out.json"

    def render(self, report: Report) -> str:
        data = [b.to_json() for b in report.bundles]
        for d, extra in zip(data, report.analysis, strict=False):
            if extra:
                d["analysis"] = extra
        return json.dumps(data[0] if len(data) == 1 else data, indent=1) + "\n"


EXPORTERS: dict[str, Exporter] = {
    e.name: e for e in (HtmlExporter(), MarkdownExporter(), JsonExporter())
}
