"""The monitored intervals' pages: /long (a host and label's interval maxima
over days, OSADL-style, with the span's histogram and the alerts'
incidents; the plots are drawn by long.js from /api/long) and
/intervals/{id} (one interval: its figures and its worst sample's
explanation)."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse

from rtgauge.server.interval_api import host_label, incident_json, interval_row, when_param
from rtgauge.server.pages import templates
from rtgauge.server.state import state
from rtgauge.store.intervals_table import stamp


def long_page(request: Request) -> HTMLResponse:
    st = state(request)
    host, label = host_label(request)
    q = request.query_params
    since, until = when_param(q.get("since"), "since"), when_param(q.get("until"), "until")
    if not st.store.intervals.has(host, label):
        raise HTTPException(404, "no intervals for this host and label")
    query = {"host": host, **({"label": label} if label else {})}
    if since:
        query["since"] = stamp(since)
    if until:
        query["until"] = stamp(until)
    incidents = [incident_json(i) for i in st.store.incidents.of(host, label)]
    page = templates.get_template("long.html").render(
        title=f"long view {host}" + (f" {label}" if label else ""),
        store=st.store_name,
        host=host,
        label=label,
        query=urlencode(query),
        incidents=incidents,
    )
    return HTMLResponse(page)


def interval_page(request: Request) -> HTMLResponse:
    st = state(request)
    row = interval_row(request)
    window = None if row.worst is None else row.worst.get("window")
    page = templates.get_template("interval.html").render(
        title=f"interval {row.id}",
        store=st.store_name,
        row=row,
        back=urlencode({"host": row.host, **({"label": row.label} if row.label else {})}),
        window_text=None if window is None else _pretty(window),
    )
    return HTMLResponse(page)


def _pretty(value: object) -> str:
    import json

    return json.dumps(value, indent=2, ensure_ascii=False)
