"""--format and --out, declared and honoured the same way by every command
that writes output.

- `--out FILE` writes there, `--out -` (or no --out) writes to stdout; html
  alone goes to a file by default, ./NAME.html in the current directory
  (NAME: the input bundle's name, run-ID for a stored run, the command's
  name otherwise), never beside a bundle inside a store.
- Without --format, a --out FILE whose extension names a format the command
  offers (.txt .md .json .html .xml .csv .dat) takes it; otherwise the default is
  text when stdout is a terminal, and the command's piped default when it is
  not (md for the documents report, explain and compare; text or json as the
  command says).

Light on purpose: commands that only list (runs, list) import it too.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rtgauge.errors import UsageError

if TYPE_CHECKING:
    from rtgauge.report.document import Report

STDOUT = "-"
FILE_FORMATS = {"html": ".html"}  # written to ./NAME.html unless --out says otherwise
_BY_SUFFIX = {
    ".txt": "text",
    ".md": "md",
    ".json": "json",
    ".html": "html",
    ".htm": "html",
    ".xml": "junit",
    ".csv": "csv",
    ".dat": "trace-dat",
}


def add_output(
    p: argparse.ArgumentParser,
    formats: Sequence[str],
    piped: str = "text",
    html_name: str = "NAME.html",
) -> None:
    """--format (one of formats) and --out, with the defaults above;
    html_name says in the help where html goes without --out."""
    formats = tuple(formats)
    assert piped in formats
    terminal = "text" if "text" in formats else piped
    default = (
        terminal
        if terminal == piped
        else f"{terminal} when stdout is a terminal, {piped} when it is not"
    )
    p.add_argument(
        "--format",
        choices=formats,
        help=f"default: {default}; with --out FILE, the format its extension names",
    )
    where = f"stdout; html: ./{html_name}" if "html" in formats else "stdout"
    p.add_argument(
        "--out",
        metavar="FILE|-",
        help=f"where the output goes: a file, or - for stdout (default: {where})",
    )
    p.set_defaults(output_formats=formats, output_piped=piped)


def chosen_format(args: argparse.Namespace) -> str:
    """The format args ask for, or the default that applies."""
    formats: tuple[str, ...] = args.output_formats
    if args.format:
        return str(args.format)
    out = args.out
    if out and out != STDOUT:
        named = _BY_SUFFIX.get(Path(out).suffix.lower())
        return named if named in formats else str(args.output_piped)
    if "text" in formats and sys.stdout.isatty():
        return "text"
    return str(args.output_piped)


def destination(args: argparse.Namespace, fmt: str, name: str) -> Path | None:
    """The file to write, or None for stdout."""
    if args.out == STDOUT:
        return None
    if args.out:
        return Path(args.out)
    if fmt in FILE_FORMATS:
        return Path(f"{name}{FILE_FORMATS[fmt]}")
    return None


def refuse_inputs(path: Path | None, inputs: Sequence[Path | None]) -> None:
    """An output never overwrites what the command read."""
    if path is None:
        return
    for p in inputs:
        if p is not None and path.resolve() == p.resolve():
            raise UsageError(f"--out {path}: refusing to overwrite the input {p}")


def emit(
    args: argparse.Namespace, text: str, fmt: str, name: str, inputs: Sequence[Path | None] = ()
) -> Path | None:
    """Writes text where args say; a file written is named on stdout."""
    path = destination(args, fmt, name)
    refuse_inputs(path, inputs)
    if path is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return None
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    print(path)
    return path


def emit_report(
    args: argparse.Namespace,
    report: Report,
    fmt: str,
    name: str,
    inputs: Sequence[Path | None] = (),
) -> list[Path]:
    """A report in fmt where args say: stdout, a file, or for csv given a
    path without the .csv extension, a folder of tables (one CSV and one
    JSON file each)."""
    from rtgauge.report.formats import EXPORTERS

    if fmt == "html" and report.window_links is None:  # a file carries its windows' files
        from rtgauge.traces.window_files import embedded_links

        report.window_links = embedded_links(report)
    exporter = EXPORTERS[fmt]
    path = destination(args, fmt, name)
    refuse_inputs(path, inputs)
    if path is not None and fmt == "csv" and path.suffix.lower() != ".csv":
        written = exporter.write(report, path)
        print(path)
        return written
    done = emit(args, exporter.render(report), fmt, name, inputs)
    return [done] if done else []


def note(message: str) -> None:
    """A one-line note on stderr (an old spelling, a choice made for the user)."""
    print(f"rtgauge: note: {message}", file=sys.stderr)
