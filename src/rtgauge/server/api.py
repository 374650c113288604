"""The JSON API under /api/ (docs/server.md): the runs with the runs page's
filters, one run, its bundle, the figures the charts draw, and storing a
pushed bundle."""

from __future__ import annotations

import hashlib
from dataclasses import asdict

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from rtgauge.errors import UsageError
from rtgauge.server import views
from rtgauge.server.access import require_push
from rtgauge.server.intake import checked_bundle, read_body
from rtgauge.server.state import filter_of, name_param, run_number, state


def list_runs(request: Request) -> JSONResponse:
    st = state(request)
    f = filter_of(request)
    page = st.store.runs(f)
    return JSONResponse(
        {
            "total": page.total,
            "page": f.page,
            "per_page": f.per_page,
            "pages": page.pages,
            "runs": [dict(r.to_json(), url=f"/runs/{r.id}") for r in page.rows],
        }
    )


async def store_run(request: Request) -> JSONResponse:
    st = state(request)
    who = await run_in_threadpool(require_push, request, st.store)
    media = request.headers.get("content-type", "application/json").split(";")[0].strip()
    if media != "application/json":
        raise HTTPException(415, "send the bundle as application/json")
    raw = await read_body(request, st.settings.max_bundle_bytes)

    def store_it() -> tuple[int, str, bool]:
        known = st.store.by_sha(_sha(raw))
        if known is not None:
            return known.id, known.sha256, False
        bundle = checked_bundle(raw)
        try:
            stored = st.store.add(raw, "push", who, bundle)
        except UsageError as exc:
            raise HTTPException(422, str(exc)) from None
        return stored.id, stored.sha256, stored.new

    run_id, sha, new = await run_in_threadpool(store_it)
    return JSONResponse(
        {"id": run_id, "sha256": sha, "new": new, "url": f"/runs/{run_id}"},
        status_code=201 if new else 200,
    )


def _sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def one_run(request: Request) -> JSONResponse:
    st = state(request)
    row = views.run_row(st.store, run_number(request.path_params["run_id"]))
    run = st.cache.get(st.store, row)
    tests = [
        {
            "id": t.id,
            "title": t.title,
            "status": t.status,
            "verdicts": [
                {"name": v.name, "pass": v.passed, "outcome": v.outcome} for v in t.verdicts
            ],
        }
        for t in run.tests
    ]
    return JSONResponse(dict(row.to_json(), url=f"/runs/{row.id}", test_records=tests))


def bundle(request: Request) -> Response:
    st = state(request)
    row = views.run_row(st.store, run_number(request.path_params["run_id"]))
    try:
        raw = st.store.raw(row)
    except UsageError as exc:
        raise HTTPException(409, str(exc)) from None
    return Response(
        raw,
        media_type="application/json",
        headers={"ETag": f'"{row.sha256}"', "X-Content-SHA256": row.sha256},
    )


def series(request: Request) -> JSONResponse:
    st = state(request)
    row = views.run_row(st.store, run_number(request.path_params["run_id"]))
    return JSONResponse({"run": row.id, "series": views.run_series(st.cache.get(st.store, row))})


def history(request: Request) -> JSONResponse:
    st = state(request)
    q = request.query_params
    label, host, test = (name_param(q.get(k)) for k in ("label", "host", "test"))
    rows = views.history_rows(st.store, label, host, test)
    key = views.answer_key("points", rows, label, host, test)
    charts = st.answers.get(key)
    if charts is None:
        charts = views.history_points(views.history(st.store, st.cache, label, host, test, rows))
        st.answers.put(key, charts)
    return JSONResponse({"runs": len(rows), "charts": charts})


def facets(request: Request) -> JSONResponse:
    return JSONResponse(asdict(state(request).store.facets()))


def health(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})
