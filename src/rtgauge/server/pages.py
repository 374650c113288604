"""The dashboard's pages: the runs table, one run, a comparison, a history.
A run, a comparison and a history are the reports the command line writes
(run_report, compare_report, history_report, rendered by the HTML
exporter), framed by the dashboard's bar and interactive charts."""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import jinja2
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.ratings import load_criteria
from rtgauge.errors import UsageError
from rtgauge.report.compare_report import bundles_report
from rtgauge.report.document import Link, WindowFiles, WindowLinks
from rtgauge.report.history_report import history_report
from rtgauge.report.run_report import bundle_report
from rtgauge.report.tune_report import tune_report
from rtgauge.server import views
from rtgauge.server.frame import framed
from rtgauge.server.state import filter_of, name_param, run_number, state
from rtgauge.store.index_row import STATUSES
from rtgauge.traces.window_files import BY_KEY, KINDS, file_name, window, window_bytes
from rtgauge.tune.result import loads

COLUMNS = [
    ("time", "time"),
    ("host", "host"),
    ("target", "target"),
    ("label", "label"),
    ("kernel", "kernel"),
    ("preempt", "preemption"),
    ("tests", "tests"),
    ("status", "status"),
    ("worst", "worst latency µs"),
]

templates = jinja2.Environment(
    loader=jinja2.PackageLoader("rtgauge.server", "templates"),
    autoescape=True,  # every string a page shows is escaped
    undefined=jinja2.StrictUndefined,
)


def _page(name: str, **values: object) -> str:
    return templates.get_template(name).render(**values)


def runs_page(request: Request) -> HTMLResponse:
    st = state(request)
    f = filter_of(request)
    page = st.store.runs(f)

    def link(**changes: object) -> str:
        return "/?" + urlencode(f.params(**changes))

    def sort_link(key: str) -> str:
        descending = not f.descending if f.sort == key else key in ("time", "worst", "tests")
        return link(sort=key, descending=descending, page=1)

    return HTMLResponse(
        _page(
            "runs.html",
            title="runs",
            store=st.store_name,
            f=f,
            page=page,
            facets=st.store.facets(),
            statuses=list(STATUSES),
            columns=COLUMNS,
            since=f.since.date().isoformat() if f.since else "",
            until=f.until.date().isoformat() if f.until else "",
            sort_link=sort_link,
            page_link=lambda n: link(page=n),
            monitored=[
                (host, label, urlencode({"host": host, **({"label": label} if label else {})}))
                for host, label in st.store.intervals.monitored()
            ],
        )
    )


def run_page(request: Request) -> HTMLResponse:
    st = state(request)
    row = views.run_row(st.store, run_number(request.path_params["run_id"]))
    run = st.cache.get(st.store, row)
    top = _page("run_top.html", row=row, store=st.store_name)
    page = framed(bundle_report(run.bundle), top, _page("scripts.html"), window_links(row.id))
    return HTMLResponse(page)


TUNES_LISTED = 200  # the tune results page: the newest these many


def tune_page(request: Request) -> HTMLResponse:
    """/tune/NAME: a tune result of the store (a directory store's
    tune-<time>.json, a database store's row), the report `rtgauge report`
    renders for it, and the store's other newest results linked above it."""
    st = state(request)
    name = request.path_params["name"].removesuffix(".json")
    body = st.store.tune(name)
    if body is None:
        raise HTTPException(404, f"no tune result {name[:80]} in this store")
    try:
        result = loads(body, name)
    except UsageError as exc:
        raise HTTPException(404, str(exc)) from None
    others = [n for n, _, _ in st.store.tunes(11) if n != name][:10]
    top = _page("tune_top.html", tune=name, others=others, store=st.store_name)
    return HTMLResponse(framed(tune_report(result), top))


def tunes_page(request: Request) -> HTMLResponse:
    """/tune: the store's tune results, newest first, each linked."""
    st = state(request)
    return HTMLResponse(
        _page(
            "tunes.html",
            title="tune results",
            store=st.store_name,
            tunes=st.store.tunes(TUNES_LISTED),
            limit=TUNES_LISTED,
        )
    )


def window_links(run_id: int) -> WindowLinks:
    """A kept window's files on the run's page: the server's addresses."""

    def links(f: WindowFiles) -> list[Link]:
        base = f"/runs/{run_id}/windows/{quote(f.test, safe='')}/{f.index + 1}"
        return [(k.label, f"{base}.{k.key}", file_name(f.test, f.index, k)) for k in KINDS]

    return links


_WINDOW_FILE = re.compile(r"^([1-9][0-9]{0,3})\.([a-z]+)$")


def window_file(request: Request) -> Response:
    """/runs/ID/windows/TEST/N.json or N.dat: the test's N-th kept window
    (worst first) as a Perfetto trace or a trace.dat (docs/traces.md)."""
    st = state(request)
    row = views.run_row(st.store, run_number(request.path_params["run_id"]))
    test = name_param(request.path_params["test_id"]) or ""
    m = _WINDOW_FILE.match(request.path_params["name"])
    if m is None or m[2] not in BY_KEY:
        raise HTTPException(404, "a window's file is N.json or N.dat")
    kind, index = BY_KEY[m[2]], int(m[1]) - 1
    w = window(AnalysedRun.of(st.cache.get(st.store, row).bundle), test, index)
    if w is None:
        raise HTTPException(404, f"run {row.id} keeps no window {index + 1} of {test}")
    name = file_name(test, index, kind)
    return Response(
        window_bytes(w, kind),
        media_type=kind.media_type,
        headers={"Content-Disposition": f'attachment; filename="{quote(name)}"'},
    )


def compare_page(request: Request) -> HTMLResponse:
    st = state(request)
    ids = request.query_params.getlist("run")
    if not 2 <= len(ids) <= 4:
        raise HTTPException(400, f"compare needs 2 to 4 runs, {len(ids)} picked")
    rows = [views.run_row(st.store, run_number(i)) for i in ids]
    if len({r.id for r in rows}) != len(rows):
        raise HTTPException(400, "compare needs different runs")
    bundles = [st.cache.get(st.store, r).bundle for r in rows]
    report = bundles_report(bundles, load_criteria(None), None, 1e-6, 0.95)
    top = _page("compare_top.html", rows=rows, store=st.store_name)
    return HTMLResponse(framed(report, top))


def history_page(request: Request) -> HTMLResponse:
    st = state(request)
    q = request.query_params
    label, host, test = (name_param(q.get(k)) for k in ("label", "host", "test"))
    if not label and not host:
        return HTMLResponse(
            _page(
                "histories.html", title="histories", store=st.store_name, facets=st.store.facets()
            )
        )
    rows = views.history_rows(st.store, label, host, test)
    if not rows:
        raise HTTPException(404, "no runs in this history")
    key = views.answer_key("page", rows, label, host, test)
    page = st.answers.get(key)
    if page is None:
        view = views.history(st.store, st.cache, label, host, test, rows)
        query = urlencode(
            {k: v for k, v in (("label", label), ("host", host), ("test", test)) if v}
        )
        top = _page(
            "history_top.html",
            view=view,
            query=query,
            limit=views.HISTORY_RUNS,
            store=st.store_name,
        )
        page = framed(history_report(view.histories), top, _page("scripts.html"))
        st.answers.put(key, page)
    return HTMLResponse(page)
