"""A pushed tune result (POST /api/tunes, from `rtgauge push` or `rtgauge
tune --server`), trusted in nothing: bounded in size as it is read
(intake.read_body), then a tune result the loader reads (rtgauge.tune.result,
every field of its type) whose host is a host name. Any fault is a 4xx with
one line, and nothing is stored. It needs a push token, as a run does."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from rtgauge.errors import UsageError
from rtgauge.server.access import require_push
from rtgauge.server.intake import check_host, read_body
from rtgauge.server.state import state
from rtgauge.tune.result import loads, name_of


def checked_tune(raw: bytes) -> tuple[str, str]:
    """The name a pushed result is kept under and its JSON text, or a 400."""
    try:
        result = loads(raw, "the body")
        check_host(result.host)
    except UsageError as exc:
        raise HTTPException(400, str(exc)) from None
    return name_of(result), raw.decode("utf-8")


async def store_tune(request: Request) -> JSONResponse:
    st = state(request)
    who = await run_in_threadpool(require_push, request, st.store)
    media = request.headers.get("content-type", "application/json").split(";")[0].strip()
    if media != "application/json":
        raise HTTPException(415, "send the tune result as application/json")
    raw = await read_body(request, st.settings.max_bundle_bytes)

    def store_it() -> tuple[str, bool]:
        name, body = checked_tune(raw)
        try:
            return st.store.add_tune(name, body, who)
        except UsageError as exc:
            raise HTTPException(422, str(exc)) from None

    name, new = await run_in_threadpool(store_it)
    return JSONResponse(
        {"name": name, "new": new, "url": f"/tune/{name}"}, status_code=201 if new else 200
    )
