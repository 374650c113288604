"""Markdown: the same blocks; charts are left to the HTML report."""

from __future__ import annotations

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

# Characters that would start markup (links, emphasis, code, raw HTML) when a
# string from the target lands in Markdown. One pass, so escapes never double.
_MARKUP = str.maketrans({c: "\\" + c for c in "\\`*[]"} | {"<": "&lt;", ">": "&gt;"})


def _text(text: str) -> str:
    return text.translate(_MARKUP).replace("\n", " ")


def _cell(text: str) -> str:
    # Also: a pipe must not end the cell.
    return _text(text).replace("|", "\\|")


def _block(b: Block, out: list[str]) -> None:
    if isinstance(b, Heading):
        out.append(f"{'#' * b.level} {_text(b.text)}\n")
    elif isinstance(b, Para):
        prefix = "> **Warning:** " if b.kind == "warn" else ""
        if b.kind == "answer":  # the report's first line: what a reader asked
            out.append(f"**{_text(b.text)}**\n")
        else:
            out.append(f"{prefix}{_text(b.text)}\n")
    elif isinstance(b, Table):
        out.append("| " + " | ".join(_cell(h) for h in b.headers) + " |")
        out.append("|" + "---|" * len(b.headers))
        for row in b.rows:
            marks = {"better": "**", "pass": "**", "fail": "**", "differs": "*"}
            out.append(
                "| "
                + " | ".join(
                    f"{marks.get(c.kind, '')}{_cell(c.text)}{marks.get(c.kind, '')}" for c in row
                )
                + " |"
            )
        out.append("")
    elif isinstance(b, Chart):
        if b.caption:
            out.append(f"*Chart: {_text(b.caption)} (in the HTML report)*\n")
    elif isinstance(b, Pre):
        fence = "````" if "```" in b.text else "```"
        out.append(f"{fence}\n{b.text}\n{fence}\n")
    elif isinstance(b, Notice):
        out.append(f"> **{_text(b.title)}**")
        out += [f"> - {_text(i).replace(chr(10), ' ')}" for i in b.items]
        out.append("")
    elif isinstance(b, Details):
        out.append(f"**{_text(b.summary)}**\n")
        for x in b.blocks:
            _block(x, out)


def render_markdown(title: str, blocks: list[Block]) -> str:
    out = [f"<!-- {_text(title).replace('--', '- -')} -->"]
    for b in blocks:
        _block(b, out)
    return "\n".join(out) + "\n"


class MarkdownExporter(TextExporter):
    name, suffix = "md", ".md"

    def render(self, report: Report) -> str:
        return render_markdown(report.title, report.blocks)
