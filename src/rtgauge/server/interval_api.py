"""The monitored intervals' API (docs/server.md): POST /api/intervals from
`rtgauge monitor`, GET /api/long (a host and label's long view, downsampled
on the server), GET /api/intervals/{id}."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from rtgauge.server.access import require_push
from rtgauge.server.intake import read_body
from rtgauge.server.interval_intake import checked_payload
from rtgauge.server.long_view import downsample, series_json
from rtgauge.server.state import name_param, state
from rtgauge.store.incidents_table import Incident
from rtgauge.store.intervals_table import IntervalRow, stamp


async def store_intervals(request: Request) -> JSONResponse:
    st = state(request)
    who = await run_in_threadpool(require_push, request, st.store)
    media = request.headers.get("content-type", "application/json").split(";")[0].strip()
    if media != "application/json":
        raise HTTPException(415, "send the intervals as application/json")
    raw = await read_body(request, st.settings.max_bundle_bytes)

    def store_them() -> tuple[int, int]:
        payload = checked_payload(raw)
        pushed = payload["intervals"]
        ids = st.store.intervals.add(payload["host"], payload["label"], pushed, who)
        new = [(i, iv) for i, iv in zip(ids, pushed, strict=True) if i is not None]
        if st.alerts is not None:
            st.alerts.judge(payload["host"], payload["label"], new)
        return len(new), len(ids) - len(new)

    stored, duplicates = await run_in_threadpool(store_them)
    return JSONResponse({"stored": stored, "duplicates": duplicates}, status_code=201)


def when_param(value: str | None, what: str) -> datetime | None:
    """A day (2026-11-27) or a UTC time (2026-11-27T18:00:00Z) in a query."""
    if value is None or value == "":
        return None
    try:
        found = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise HTTPException(400, f"{what}: a day (YYYY-MM-DD) or a UTC time") from None
    if found.tzinfo is not None:
        found = (found - found.utcoffset()).replace(tzinfo=None)  # type: ignore[operator]
    return found


def host_label(request: Request) -> tuple[str, str | None]:
    q = request.query_params
    host = name_param(q.get("host"))
    if host is None:
        raise HTTPException(400, "a long view needs host=")
    return host, name_param(q.get("label"))


def long_view(request: Request) -> dict[str, Any]:
    """The long view's data: per test and real-time state, the interval
    maxima downsampled; per test, the span's histogram; the incidents."""
    st = state(request)
    host, label = host_label(request)
    since = when_param(request.query_params.get("since"), "since")
    until = when_param(request.query_params.get("until"), "until")
    if since is not None and until is not None and until <= since:
        raise HTTPException(400, "until must be after since")
    key = ("long", host, label, since, until, st.store.intervals.shape(host, label, since, until))
    found: dict[str, Any] | None = st.answers.get(key)
    if found is not None:
        return found
    points = st.store.intervals.points(host, label, since, until)
    series = []
    histograms = []
    for test, pts in sorted(points.items()):
        for rt in (True, False):
            chosen = [p for p in pts if p.rt == rt]
            if chosen:
                shown = downsample(chosen)
                series.append(
                    {"test": test, "rt": rt, "intervals": len(chosen), **series_json(shown)}
                )
        hist = st.store.intervals.span_histogram(host, label, test, since, until)
        histograms.append(
            {"test": test, "count": hist.count, "buckets": hist.rows(), "overflow": hist.overflow,
             "overflow_above": hist.overflow_above}
        )  # fmt: skip
    first = min((p[0].start for p in points.values()), default=None)
    last = max((p[-1].start for p in points.values()), default=None)
    shown_since = since or first
    shown_until = until or (None if last is None else last + timedelta(seconds=1))
    found = {
        "host": host,
        "label": label,
        "since": None if shown_since is None else stamp(shown_since),
        "until": None if shown_until is None else stamp(shown_until),
        "series": series,
        "histograms": histograms,
        "incidents": [incident_json(i) for i in st.store.incidents.of(host, label)],
    }
    st.answers.put(key, found)
    return found


def long_json(request: Request) -> JSONResponse:
    return JSONResponse(long_view(request))


def incident_json(i: Incident) -> dict[str, Any]:
    return {
        "id": i.id,
        "rule": i.rule,
        "test": i.test,
        "fired_at": stamp(i.fired_at),
        "fired_interval": i.fired_interval,
        "value": i.value,
        "shown": i.shown,
        "culprit": i.detail.get("culprit"),
        "cleared_at": None if i.cleared_at is None else stamp(i.cleared_at),
        "open": i.cleared_at is None,
    }


def interval_number(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 12:
        raise HTTPException(400, f"interval {text[:20]!r}: an interval is named by its number")
    return int(text)


def interval_row(request: Request) -> IntervalRow:
    st = state(request)
    row = st.store.intervals.get(interval_number(request.path_params["interval_id"]))
    if row is None:
        raise HTTPException(404, "no such interval (or retention has dropped it)")
    return row


def interval_json(row: IntervalRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "host": row.host,
        "label": row.label,
        "test": row.test,
        "start": stamp(row.start),
        "end": stamp(row.end),
        "gap_ms": row.gap_ms,
        "rt": row.rt,
        "max_ns": row.max_ns,
        "figures": [
            {
                k: f[k]
                for k in (
                    "name",
                    "count",
                    "max_ns",
                    "p99_99_ns",
                    "p99_9_ns",
                    "p99_ns",
                    "mean_ns",
                    "hist",
                )
            }
            for f in row.figures
        ],
        "worst": row.worst,
    }


def one_interval(request: Request) -> JSONResponse:
    return JSONResponse(interval_json(interval_row(request)))


def metrics(request: Request) -> Response:
    """GET /metrics: the newest interval of each host, label and test as an
    OpenMetrics exposition (rtgauge.openmetrics), for a Prometheus to scrape."""
    from rtgauge import openmetrics

    newest = [row.as_pushed() for row in state(request).store.intervals.newest()]
    return Response(
        openmetrics.render(newest),
        media_type=None,
        headers={"Content-Type": openmetrics.CONTENT_TYPE},
    )
