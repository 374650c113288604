"""The run report as HTML, and writing a report to a file."""

from __future__ import annotations

from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.model import Bundle
from rtgauge.report.exporters import EXPORTERS
from rtgauge.report.markdown import markdown_text as markdown_text  # its old home
from rtgauge.report.run_report import report_title as report_title
from rtgauge.report.run_report import run_report


def html_text(bundle: Bundle, deadline_ns: float | None = None, rate: float = 1e-6) -> str:
    return EXPORTERS["html"].render(run_report(bundle, deadline_ns, rate))


def write_text(path: Path, text: str) -> Path:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from exc
    return path


def write_html(bundle: Bundle, path: Path) -> Path:
    return write_text(path, html_text(bundle))
