"""Every table of a report as CSV and JSON files, for spreadsheets and scripts."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import IO

from rtgauge.errors import UsageError
from rtgauge.report.document import Block, Details, Heading, Report, Table


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "table"


_NUMBER = re.compile(r"^[-+]?[0-9][0-9,]*(\.[0-9]+)?(e[-+]?[0-9]+)?$")


def csv_safe(text: str) -> str:
    """A spreadsheet runs a cell starting with = + - @ (or a tab/CR) as a formula:
    a target's string must stay text, so such a cell gets a leading quote.
    Numbers, negative ones included, stay numbers."""
    if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _NUMBER.match(text):
        return "'" + text
    return text


def tables_of(blocks: list[Block]) -> list[tuple[str, Table]]:
    out: list[tuple[str, Table]] = []
    heading = "report"
    for b in blocks:
        if isinstance(b, Heading):
            heading = b.text
        elif isinstance(b, Table):
            out.append((heading, b))
        elif isinstance(b, Details):
            out += tables_of(b.blocks)
    return out


def _write_csv(fh: IO[str], table: Table) -> None:
    w = csv.writer(fh)
    w.writerow([csv_safe(h) for h in table.headers])
    w.writerows([[csv_safe(c.text) for c in r] for r in table.rows])


def tables_csv(blocks: list[Block]) -> str:
    """Every table as CSV, each after a line naming it, a blank line between."""
    out = io.StringIO()
    for heading, table in tables_of(blocks):
        out.write(f"# {heading}\n")
        _write_csv(out, table)
        out.write("\n")
    return out.getvalue()


def write_tables(blocks: list[Block], folder: Path) -> list[Path]:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        seen: dict[str, int] = {}
        for heading, table in tables_of(blocks):
            name = _slug(heading)
            seen[name] = seen.get(name, 0) + 1
            if seen[name] > 1:
                name = f"{name}-{seen[name]}"
            rows = [[c.text for c in r] for r in table.rows]
            with (folder / f"{name}.csv").open("w", newline="", encoding="utf-8") as fh:
                _write_csv(fh, table)
            (folder / f"{name}.json").write_text(
                json.dumps({"title": heading, "headers": table.headers, "rows": rows}, indent=1)
            )
            written.append(folder / f"{name}.csv")
        return written
    except OSError as exc:
        raise UsageError(f"cannot write tables to {folder}: {exc.strerror}") from exc


class CsvExporter:
    """Every table of the report, one CSV file (and its JSON twin) each, in a folder."""

    name, suffix = "csv", ".tables"

    def render(self, report: Report) -> str:
        return tables_csv(report.blocks)

    def write(self, report: Report, path: Path) -> list[Path]:
        return write_tables(report.blocks, path)
