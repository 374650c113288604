"""Plain text: the report's blocks for a terminal or a log. No markup of any
kind (no Markdown escapes, no HTML entities): a "<" stays "<". Strings from
the target still pass through fmt.term, so none can send escape sequences to
the terminal. Charts are left to the HTML report, as in Markdown."""

from __future__ import annotations

import textwrap

from rtgauge.fmt import term
from rtgauge.report.document import (
    Block,
    Chart,
    Details,
    Heading,
    Notice,
    Para,
    Pre,
    Report,
    Table,
)
from rtgauge.report.formats.exporter import TextExporter

WIDTH = 100  # columns of a paragraph
TABLE_WIDTH = 120  # a wider table is shown row by row
_RULES = {1: "=", 2: "-"}  # the underline of a heading; deeper levels have none


def _wrap(text: str, indent: str = "", first: str = "") -> list[str]:
    """Lines of at most WIDTH columns, broken between words only (a number,
    a path or a name is never cut)."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=first or indent,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def _table(t: Table, out: list[str]) -> None:
    """Aligned columns when a row fits in TABLE_WIDTH; otherwise each row as a
    record: its first cell, then a line per other column (header: cell)."""
    headers = [term(h) for h in t.headers]
    rows = [[term(c.text) for c in r] for r in t.rows]
    widths = [
        max([len(headers[i])] + [len(r[i]) for r in rows if i < len(r)])
        for i in range(len(headers))
    ]
    if t.caption:
        out += _wrap(term(t.caption))
    if sum(widths) + 2 * (len(widths) - 1) <= TABLE_WIDTH:
        shown = [headers, *rows] if any(headers) else rows
        for n, row in enumerate(shown):
            out.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)).rstrip())
            if n == 0 and any(headers):
                out.append("  ".join("-" * w for w in widths))
    else:
        for row in rows:
            out += _wrap(row[0] if row else "", "  ", "- ")
            for h, c in zip(headers[1:], row[1:], strict=False):
                if c:
                    out += _wrap(f"{h}: {c}" if h else c, "      ", "    ")
    out.append("")


def _block(b: Block, out: list[str]) -> None:
    if isinstance(b, Heading):
        text = term(b.text)
        out.append(text)
        if b.level in _RULES:
            out.append(_RULES[b.level] * len(text))
        out.append("")
    elif isinstance(b, Para):
        prefix = "Warning: " if b.kind == "warn" else ""
        out += [*_wrap(f"{prefix}{term(b.text)}"), ""]
    elif isinstance(b, Table):
        _table(b, out)
    elif isinstance(b, Chart):
        if b.caption:
            out += [f"[chart: {term(b.caption)} (in the HTML report)]", ""]
    elif isinstance(b, Pre):
        out += [term(line) for line in b.text.split("\n")] + [""]
    elif isinstance(b, Notice):
        out.append(f"{term(b.title)}:")
        for i in b.items:
            out += _wrap(term(i), "    ", "  - ")
        out.append("")
    elif isinstance(b, Details):
        out += [term(b.summary), ""]
        for x in b.blocks:
            _block(x, out)


def render_text(blocks: list[Block]) -> str:
    out: list[str] = []
    for b in blocks:
        _block(b, out)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


class PlainTextExporter(TextExporter):
    name, suffix = "text", ".txt"

    def render(self, report: Report) -> str:
        return render_text(report.blocks)
