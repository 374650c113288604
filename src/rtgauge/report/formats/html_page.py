"""HTML renderer: one self-contained file, styles inline, charts inline SVG,
a kept window's files where the report's window_links say."""

from __future__ import annotations

import re
from html import escape

from rtgauge.report.document import (
    Block,
    Cell,
    Chart,
    Heading,
    Link,
    Notice,
    Para,
    Pre,
    Report,
    Table,
    WindowFiles,
    WindowLinks,
)
from rtgauge.report.formats.exporter import TextExporter

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;
max-width:1100px;padding:24px;color:#1f2328}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin-top:32px;border-bottom:1px solid #d0d7de}
h3{font-size:16px;margin-top:22px}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right}td:first-child{white-space:nowrap}
.warn{background:#fff8c5;border:1px solid #d4a72c;padding:8px 12px;border-radius:6px}
.note{color:#57606a}.lead{font-size:15px}
.answer{font-size:16px;font-weight:600;border-left:4px solid #0969da;padding:4px 10px;
background:#f6f8fa}
.tw{overflow-x:auto;max-width:100%}td{overflow-wrap:anywhere}
.better{background:#dafbe1;font-weight:600}.worse{color:#57606a}
.pass{background:#dafbe1;font-weight:600}.fail{background:#ffebe9;font-weight:600;color:#a40e26}
.differs{background:#ddf4ff;font-weight:600;color:#0550ae}
.muted{color:#8c959f}.files{font-size:13px;margin-top:0}
svg.chart{width:100%;max-width:660px;display:block;margin:6px 0}
svg .tk{font-size:10px;fill:#57606a}svg .ax{font-size:11px;fill:#24292f}svg .lg{font-size:11px}
pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:320px;font-size:12px}
details{margin:6px 0}summary{cursor:pointer;color:#0969da}
figure{margin:8px 0}figcaption{color:#57606a;font-size:12px}
"""


_NUMBER = re.compile(r"^[-+]?[\d,]*\.?\d+$|^—$")


def _td(c: Cell) -> str:
    """A cell: numbers right-aligned so columns of figures line up."""
    classes = " ".join(x for x in (c.kind, "n" if _NUMBER.match(c.text) else "") if x)
    attr = f' class="{classes}"' if classes else ""
    text = escape(c.text)
    if c.href.startswith("#"):  # a link within the page only
        text = f'<a href="{escape(c.href)}">{text}</a>'
    return f"<td{attr}>{text}</td>"


def _block(b: Block, links: WindowLinks) -> str:
    if isinstance(b, Heading):
        anchor = f' id="{escape(b.anchor)}"' if b.anchor else ""
        return f"<h{b.level}{anchor}>{escape(b.text)}</h{b.level}>"
    if isinstance(b, Para):
        cls = f' class="{b.kind}"' if b.kind else ""
        return f"<p{cls}>{escape(b.text)}</p>"
    if isinstance(b, Table):
        head = "".join(f"<th>{escape(h)}</th>" for h in b.headers)
        rows = "".join("<tr>" + "".join(_td(c) for c in row) + "</tr>" for row in b.rows)
        cap = f"<caption>{escape(b.caption)}</caption>" if b.caption else ""
        thead = f"<thead><tr>{head}</tr></thead>" if any(b.headers) else ""  # key/value tables
        # wide tables (three runs side by side) scroll in their own box
        return f'<div class="tw"><table>{cap}{thead}<tbody>{rows}</tbody></table></div>'
    if isinstance(b, Chart):
        cap = f"<figcaption>{escape(b.caption)}</figcaption>" if b.caption else ""
        return f'<figure class="chart">{b.svg}{cap}</figure>'  # svg built with escaped text
    if isinstance(b, Pre):
        return f"<pre>{escape(b.text)}</pre>"
    if isinstance(b, Notice):
        items = "".join(f"<li>{escape(i)}</li>" for i in b.items)
        return f'<div class="{escape(b.kind)}"><strong>{escape(b.title)}</strong><ul>{items}</ul></div>'
    if isinstance(b, WindowFiles):
        found = links(b)
        if not found:
            return ""
        items = " · ".join(
            f'<a href="{escape(href)}" download="{escape(name)}">{escape(text)}</a>'
            for text, href, name in found
        )
        return f'<p class="files">This window as a file: {items}</p>'
    inner = "".join(_block(x, links) for x in b.blocks)
    return f"<details><summary>{escape(b.summary)}</summary>{inner}</details>"


def _no_links(_: WindowFiles) -> list[Link]:
    return []


def render_html(title: str, blocks: list[Block], links: WindowLinks = _no_links) -> str:
    body = "\n".join(_block(b, links) for b in blocks)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head>"
        f"<body>\n{body}\n</body></html>\n"
    )


class HtmlExporter(TextExporter):
    name, suffix = "html", ".html"

    def render(self, report: Report) -> str:
        return render_html(report.title, report.blocks, report.window_links or _no_links)
