"""Selecting runs from the index: the filters every page, the API and
`rtgauge runs` share, sorting on a fixed list of columns, and pages. Every
value reaches the database as a bound parameter; a sort key is looked up in
SORTS, never pasted into SQL."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, exists, func, select

from rtgauge.store.index_row import STATUSES, utc_naive
from rtgauge.store.schema import run_tests, runs

SORTS: dict[str, Any] = {
    "time": runs.c.run_time,
    "host": runs.c.host,
    "target": runs.c.target,
    "label": runs.c.label,
    "kernel": runs.c.kernel,
    "preempt": runs.c.preempt,
    "tests": runs.c.tests,
    "status": runs.c.status,
    "worst": runs.c.worst_ns,
    "id": runs.c.id,
}
MAX_PER_PAGE = 500
TEXT_FILTERS = ("host", "target", "place", "label", "kernel", "preempt", "test")


class FilterError(ValueError):
    """A filter value that is not one: the message is the one-line reason."""


@dataclass(frozen=True)
class RunFilter:
    host: str | None = None
    target: str | None = None  # the kind (local, qemu, ssh, labgrid, ...) or kind:place
    place: str | None = None
    label: str | None = None
    kernel: str | None = None
    preempt: str | None = None
    status: str | None = None
    test: str | None = None  # runs that ran this test
    since: datetime | None = None
    until: datetime | None = None
    sort: str = "time"
    descending: bool = True
    page: int = 1
    per_page: int = 50

    @classmethod
    def parse(cls, params: dict[str, str]) -> RunFilter:
        """From query parameters (or the command line); unknown keys are ignored
        by the caller, bad values raise FilterError."""
        kw: dict[str, Any] = {}
        for key in TEXT_FILTERS:
            value = params.get(key)
            if value:
                if len(value) > 200 or not value.isprintable():
                    raise FilterError(f"{key}: give up to 200 printable characters")
                kw[key] = value
        status = params.get("status")
        if status:
            if status not in STATUSES:
                raise FilterError(f"status {status!r}: one of {', '.join(STATUSES)}")
            kw["status"] = status
        for key in ("since", "until"):
            value = params.get(key)
            if value:
                when = utc_naive(value) if len(value) <= 40 else None
                if when is None:
                    raise FilterError(f"{key} {value[:40]!r}: give a date, e.g. 2026-11-01")
                if key == "until" and len(value) == 10:  # a day: up to its end
                    when += timedelta(days=1) - timedelta(microseconds=1)
                kw[key] = when
        sort = params.get("sort") or "time"
        if sort not in SORTS:
            raise FilterError(f"sort {sort[:40]!r}: one of {', '.join(SORTS)}")
        kw["sort"] = sort
        order = params.get("order") or "desc"
        if order not in ("asc", "desc"):
            raise FilterError(f"order {order[:40]!r}: asc or desc")
        kw["descending"] = order == "desc"
        kw["page"] = _int(params, "page", 1, 1, 1_000_000)
        kw["per_page"] = _int(params, "per_page", 50, 1, MAX_PER_PAGE)
        return cls(**kw)

    def params(self, **changes: Any) -> dict[str, str]:
        """As query parameters again (for links: the next page, a sort)."""
        out: dict[str, str] = {}
        for f in fields(self):
            value = changes.get(f.name, getattr(self, f.name))
            if value is None:
                continue
            if f.name == "descending":
                out["order"] = "desc" if value else "asc"
            elif isinstance(value, datetime):
                out[f.name] = value.isoformat()
            else:
                out[f.name] = str(value)
        return out

    def where(self) -> ColumnElement[bool]:
        conds: list[ColumnElement[bool]] = []
        for key in ("host", "place", "label", "kernel", "preempt", "status"):
            value = getattr(self, key)
            if value is not None:
                conds.append(runs.c[key] == value)
        if self.target is not None:
            column = runs.c.target if ":" in self.target else runs.c.target_kind
            conds.append(column == self.target)
        if self.test is not None:
            conds.append(
                exists().where(
                    and_(run_tests.c.run_id == runs.c.id, run_tests.c.test_id == self.test)
                )
            )
        if self.since is not None:
            conds.append(runs.c.run_time >= self.since)
        if self.until is not None:
            conds.append(runs.c.run_time <= self.until)
        return and_(True, *conds)

    def select(self) -> Select[Any]:
        column = SORTS[self.sort]
        order = [column.desc() if self.descending else column.asc()]
        if self.sort != "id":  # a stable order between equal keys
            order.append(runs.c.id.desc() if self.descending else runs.c.id.asc())
        return (
            select(runs)
            .where(self.where())
            .order_by(*order)
            .limit(self.per_page)
            .offset((self.page - 1) * self.per_page)
        )

    def count(self) -> Select[Any]:
        return select(func.count()).select_from(runs).where(self.where())


def _int(params: dict[str, str], key: str, default: int, low: int, high: int) -> int:
    text = params.get(key)
    if not text:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 9 or not low <= int(text) <= high:
        raise FilterError(f"{key} {text[:40]!r}: a whole number from {low} to {high}")
    return int(text)


@dataclass(frozen=True)
class RunRow:
    """One run as the index holds it."""

    id: int
    sha256: str
    size: int
    path: str | None
    source: str
    pushed_by: str | None
    received_at: datetime
    created_at: str
    run_time: datetime
    host: str
    target: str
    target_kind: str
    place: str | None
    label: str | None
    kernel: str | None
    preempt: str | None
    tests: int
    passed: int
    failed: int
    errors: int
    skipped: int
    complete: bool
    status: str
    worst_ns: float | None
    probe_version: str | None
    timing: str | None  # "virtual", "emulated"; None: real time

    @classmethod
    def of(cls, row: Any) -> RunRow:
        return cls(**{f.name: getattr(row, f.name) for f in fields(cls)})

    def to_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in ("received_at", "run_time"):
            out[key] = getattr(self, key).isoformat() + "Z"
        return out


@dataclass(frozen=True)
class RunPage:
    rows: list[RunRow]
    total: int
    filter: RunFilter = field(default_factory=RunFilter)

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.filter.per_page))
