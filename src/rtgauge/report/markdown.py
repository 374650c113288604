"""The run report as Markdown: the HTML report's content without the charts."""

from __future__ import annotations

from rtgauge.model import Bundle
from rtgauge.report.exporters import EXPORTERS
from rtgauge.report.run_report import run_report


def markdown_text(bundle: Bundle, deadline_ns: float | None = None, rate: float = 1e-6) -> str:
    return EXPORTERS["md"].render(run_report(bundle, deadline_ns, rate))
