"""What every handler shares: the store, the settings, the cache of runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.exceptions import HTTPException
from starlette.requests import Request

from rtgauge.server.settings import Settings
from rtgauge.server.views import AnswerCache, RunCache
from rtgauge.store import ResultStore, RunFilter
from rtgauge.store.query import FilterError

if TYPE_CHECKING:
    from rtgauge.server.alerting import Alerts


@dataclass
class State:
    store: ResultStore
    settings: Settings
    cache: RunCache
    answers: AnswerCache = field(default_factory=AnswerCache)
    alerts: Alerts | None = None  # --alerts: the rules, applied as intervals arrive

    @property
    def store_name(self) -> str:
        return str(self.store.location)


def state(request: Request) -> State:
    found: State = request.app.state.rtgauge
    return found


def filter_of(request: Request) -> RunFilter:
    """The runs filter in the query parameters, or 400 with why not."""
    try:
        return RunFilter.parse(dict(request.query_params))
    except FilterError as exc:
        raise HTTPException(400, str(exc)) from None


def run_number(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 12:  # not "²", not "١"
        raise HTTPException(400, f"run {text[:20]!r}: a run is named by its number")
    return int(text)


def name_param(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    if len(value) > 200 or not value.isprintable():
        raise HTTPException(400, "a name of up to 200 printable characters")
    return value
