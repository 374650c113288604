"""The web application: routes, who may reach them, and how errors read.

Every error is a 4xx (or, when the store itself fails, a 503) with one line
saying why: JSON {"error": …} under /api/, plain text on pages; never a
traceback. Every answer carries a Content-Security-Policy that lets pages
run only the dashboard's own scripts, served from the package."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rtgauge.server import api, interval_api, interval_pages, pages, tune_api
from rtgauge.server.access import require_read
from rtgauge.server.alert_rules import LabelRules
from rtgauge.server.alerting import Alerts
from rtgauge.server.housekeeping import Housekeeping
from rtgauge.server.settings import Settings
from rtgauge.server.state import State, state
from rtgauge.server.views import RunCache
from rtgauge.server.webhook import Webhooks
from rtgauge.store import ResultStore

log = logging.getLogger("rtgauge.server")
STATIC = Path(__file__).parent / "static"
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        b"img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
        b"form-action 'self'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


Handler = Callable[[Request], Response | Awaitable[Response]]


def reading(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """A handler that shows what the store holds: open or token-bound (access.py)."""

    async def guarded(request: Request) -> Response:
        st = state(request)
        await run_in_threadpool(require_read, request, st.store, st.settings)
        got = handler(request)
        if isinstance(got, Response):
            return got
        return await got

    return guarded


def sync(handler: Callable[[Request], Response]) -> Callable[[Request], Awaitable[Response]]:
    """A blocking handler (it reads the database) run off the event loop."""

    async def threaded(request: Request) -> Response:
        return await run_in_threadpool(handler, request)

    return threaded


def plotly_js(request: Request) -> Response:
    """plotly.js as the plotly package ships it: served from here, never a CDN."""
    path = resources.files("plotly").joinpath("package_data/plotly.min.js")
    return FileResponse(
        str(path), media_type="text/javascript", headers={"Cache-Control": "max-age=86400"}
    )


def static(request: Request) -> Response:
    name = request.path_params["name"]
    files = {
        "dashboard.js": "text/javascript",
        "long.js": "text/javascript",
        "dashboard.css": "text/css",
    }
    if name not in files:  # a fixed list: no path is built from the request
        raise HTTPException(404, "no such file")
    return FileResponse(STATIC / name, media_type=files[name])


def _error(
    request: Request, code: int, reason: str, headers: Mapping[str, str] | None = None
) -> Response:
    reason = " ".join(reason.split())[:300] or "bad request"
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": reason}, status_code=code, headers=headers)
    return PlainTextResponse(reason + "\n", status_code=code, headers=headers)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error(request, exc.status_code, str(exc.detail), exc.headers)


async def store_error(request: Request, exc: Exception) -> Response:
    log.error("store error on %s: %s", request.url.path, exc)
    return _error(request, 503, "the result store is not available")


async def unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error on %s", request.url.path)
    return _error(request, 500, f"internal error ({type(exc).__name__})")


def make_app(
    store: ResultStore, settings: Settings, rules: Mapping[str, LabelRules] | None = None
) -> Starlette:
    webhooks = Webhooks() if rules else None
    alerts = Alerts(dict(rules), store, webhooks) if rules and webhooks else None
    keeper = Housekeeping(store, settings.interval_retention)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        keeper.start()
        try:
            yield
        finally:
            keeper.stop()
            if webhooks is not None:
                webhooks.close()

    routes = [
        Route("/", reading(sync(pages.runs_page))),
        Route("/runs/{run_id}", reading(sync(pages.run_page))),
        Route("/runs/{run_id}/windows/{test_id}/{name}", reading(sync(pages.window_file))),
        Route("/tune", reading(sync(pages.tunes_page))),
        Route("/tune/{name}", reading(sync(pages.tune_page))),
        Route("/compare", reading(sync(pages.compare_page))),
        Route("/history", reading(sync(pages.history_page))),
        Route("/api/runs", reading(sync(api.list_runs)), methods=["GET"]),
        Route("/api/runs", api.store_run, methods=["POST"]),
        Route("/api/runs/{run_id}", reading(sync(api.one_run))),
        Route("/api/tunes", tune_api.store_tune, methods=["POST"]),
        Route("/api/runs/{run_id}/bundle", reading(sync(api.bundle))),
        Route("/api/runs/{run_id}/series", reading(sync(api.series))),
        Route("/api/history", reading(sync(api.history))),
        Route("/api/facets", reading(sync(api.facets))),
        Route("/api/health", api.health),
        Route("/long", reading(sync(interval_pages.long_page))),
        Route("/intervals/{interval_id}", reading(sync(interval_pages.interval_page))),
        Route("/api/intervals", interval_api.store_intervals, methods=["POST"]),
        Route("/api/intervals/{interval_id}", reading(sync(interval_api.one_interval))),
        Route("/api/long", reading(sync(interval_api.long_json))),
        Route("/metrics", reading(sync(interval_api.metrics))),
        Route("/static/plotly.min.js", plotly_js),
        Route("/static/{name}", static),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers={
            HTTPException: http_error,
            SQLAlchemyError: store_error,
            Exception: unexpected,
        },
    )
    app.state.rtgauge = State(store, settings, RunCache(), alerts=alerts)
    return app
