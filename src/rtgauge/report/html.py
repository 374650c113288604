"""The run report as HTML (and the writers behind `rtgauge report`)."""

from __future__ import annotations

from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.model import Bundle
from rtgauge.report.render_html import render_html
from rtgauge.report.render_markdown import render_markdown
from rtgauge.report.run_report import run_blocks


def report_title(bundle: Bundle) -> str:
    return f"rtgauge: {bundle.host} {bundle.system['host']['release']}"


def html_text(bundle: Bundle, deadline_ns: float | None = None, rate: float = 1e-6) -> str:
    return render_html(report_title(bundle), run_blocks(bundle, deadline_ns, rate))


def markdown_text(bundle: Bundle, deadline_ns: float | None = None, rate: float = 1e-6) -> str:
    return render_markdown(report_title(bundle), run_blocks(bundle, deadline_ns, rate))


def write_text(path: Path, text: str) -> Path:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from exc
    return path


def write_html(bundle: Bundle, path: Path) -> Path:
    return write_text(path, html_text(bundle))
