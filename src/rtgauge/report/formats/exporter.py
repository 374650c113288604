"""The one interface every output format implements.

A report is decided once, as blocks (run_report.py, compare_report.py,
history_report.py); an exporter only turns a Report into its format and
writes it, so a new report kind gets every format, and a new format serves
every report kind. A format is one module of this folder, its exporter
class, and its entry in EXPORTERS (formats/__init__.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from rtgauge.errors import UsageError
from rtgauge.report.document import Report


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


class TextExporter:
    """A format that is one text file."""

    name = suffix = ""

    def render(self, report: Report) -> str:
        raise NotImplementedError

    def write(self, report: Report, path: Path) -> list[Path]:
        return [write_text(path, self.render(report))]
