"""A report page of the dashboard: the document the report's HTML exporter
renders (the same as `rtgauge report` writes, every section of it), with
the dashboard's bar above it and its scripts below. The report itself is
never re-rendered here, so a section added to the report appears on the
server without a change of this module."""

from __future__ import annotations

import re

from rtgauge.report.document import Report, WindowLinks
from rtgauge.report.formats.html_page import render_html

_BODY_OPEN = re.compile(r"<body[^>]*>", re.IGNORECASE)
_HEAD_CLOSE = re.compile(r"</head>", re.IGNORECASE)


def framed(report: Report, top: str, bottom: str = "", links: WindowLinks | None = None) -> str:
    """The report as HTML with `top` (the bar, markup built from escaped text)
    first in its body and `bottom` (scripts) last; a kept window's files are
    where `links` says (the server's own addresses), none when it says nothing."""
    document = render_html(report.title, report.blocks, links or (lambda _: []))
    css = '<link rel="stylesheet" href="/static/dashboard.css"><link rel="icon" href="data:,">'
    head = _HEAD_CLOSE.search(document)
    if head:
        document = document[: head.start()] + css + document[head.start() :]
    opened = _BODY_OPEN.search(document)
    if opened is None:  # not a whole document: wrap it
        return f"<!DOCTYPE html><html><head>{css}</head><body>{top}{document}{bottom}</body></html>"
    document = document[: opened.end()] + top + document[opened.end() :]
    end = document.lower().rfind("</body>")
    if end < 0:
        return document + bottom
    return document[:end] + bottom + document[end:]
