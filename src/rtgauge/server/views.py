"""What the pages and the API read from the store: a run (its views read
once and kept, since a stored run never changes), a history per label, and
the figures the interactive charts draw."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from starlette.exceptions import HTTPException

from rtgauge.analysis.history import History, build, headline, tail_value
from rtgauge.errors import UsageError
from rtgauge.run import Run
from rtgauge.store import ResultStore, RunFilter, RunRow
from rtgauge.store.index_row import finite

HISTORY_RUNS = 1000  # the newest runs a history page follows
CACHED_RUNS = 2000


class AnswerCache:
    """Whole answers (a history page, its chart's data) by what they were made
    of: the same runs give the same answer, and a new run changes the key."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._answers: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> Any:
        with self._lock:
            found = self._answers.get(key)
            if found is not None:
                self._answers.move_to_end(key)
            return found

    def put(self, key: tuple[Any, ...], answer: Any) -> None:
        with self._lock:
            self._answers[key] = answer
            while len(self._answers) > self.size:
                self._answers.popitem(last=False)


def answer_key(kind: str, rows: list[RunRow], *names: str | None) -> tuple[Any, ...]:
    return (kind, *names, tuple(r.sha256 for r in rows))


class RunCache:
    """Runs read from the store, by content hash (the same bytes, the same run)."""

    def __init__(self, size: int = CACHED_RUNS) -> None:
        self.size = size
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, store: ResultStore, row: RunRow) -> Run:
        return self.many(store, [row])[0]

    def many(self, store: ResultStore, rows: list[RunRow]) -> list[Run]:
        """The runs of rows, in order: the ones not kept yet read in one go."""
        with self._lock:
            found = {r.sha256: self._runs[r.sha256] for r in rows if r.sha256 in self._runs}
            for sha in found:
                self._runs.move_to_end(sha)
        todo = [r for r in rows if r.sha256 not in found]
        try:
            for row, bundle in zip(todo, store.bundles(todo), strict=True):
                found[row.sha256] = Run.of(bundle)
        except UsageError as exc:
            raise HTTPException(409, f"a run cannot be read: {exc}") from None
        with self._lock:
            for row in todo:
                self._runs[row.sha256] = found[row.sha256]
            while len(self._runs) > self.size:
                self._runs.popitem(last=False)
        return [found[r.sha256] for r in rows]


def run_row(store: ResultStore, run_id: int) -> RunRow:
    row = store.get(run_id)
    if row is None:
        raise HTTPException(404, f"no run {run_id}")
    return row


@dataclass(frozen=True)
class HistoryView:
    label: str | None
    host: str | None
    test: str | None
    rows: list[RunRow]  # oldest first, as the histories hold them
    histories: list[History]
    ids: dict[int, int]  # id() of each Run → its run id

    def run_id(self, run: Run) -> int:
        return self.ids[id(run)]


def history_rows(
    store: ResultStore, label: str | None, host: str | None, test: str | None
) -> list[RunRow]:
    """The runs a history follows: the newest HISTORY_RUNS, oldest first."""
    if not label and not host:
        raise HTTPException(400, "a history needs a label or a host")
    page = store.runs(RunFilter(label=label, host=host, test=test, per_page=HISTORY_RUNS))
    return list(reversed(page.rows))


def history(
    store: ResultStore,
    cache: RunCache,
    label: str | None,
    host: str | None,
    test: str | None,
    rows: list[RunRow] | None = None,
) -> HistoryView:
    """A label's (or a host's) newest runs, oldest first, with their regressions."""
    if rows is None:
        rows = history_rows(store, label, host, test)
    runs: list[Run] = []
    ids: dict[int, int] = {}
    for row, run in zip(rows, cache.many(store, rows), strict=True):
        if test:
            run = replace(run, tests=[t for t in run.tests if t.id == test])
        runs.append(run)
        ids[id(run)] = row.id
    return HistoryView(label, host, test, rows, build(runs) if runs else [], ids)


def history_points(view: HistoryView) -> list[dict[str, Any]]:
    """Per history and test, each run's headline maximum and tail: the
    interactive chart's points, each naming its run."""
    out = []
    for h in view.histories:
        tests = sorted({t.id for e in h.runs for t in e.run.tests})
        for test_id in tests:
            points = []
            for e in h.runs:
                t = e.run.test(test_id)
                m = headline(t) if t else None
                if t is None or m is None or m.max is None:
                    continue
                tail_name, tail = tail_value(m)
                points.append(
                    {
                        "run": view.run_id(e.run),
                        "time": e.run.created_at,
                        "kernel": e.run.system.host.release,
                        "metric": m.name,
                        "max_us": finite(m.max / 1e3),
                        "tail_us": finite(tail / 1e3) if tail is not None else None,
                        "tail": tail_name,
                        "samples": m.count,
                        "regressed": any(f.regression and f.test == test_id for f in e.findings),
                    }
                )
            out.append({"system": h.system, "label": h.label, "test": test_id, "points": points})
    return out


def run_series(run: Run) -> list[dict[str, Any]]:
    """A run's figures over time, for the zoomable chart: each test's series
    (max per window, with its load phases), else its block maxima."""
    out = []
    for t in run.tests:
        for s in t.series:
            out.append(
                {
                    "test": t.id,
                    "name": s.name,
                    "what": f"max per {s.window_ms:g} ms window",
                    "t_s": [finite(p[0] / 1e3) for p in s.points],
                    "us": [finite(p[1] / 1e3) for p in s.points],
                    "phases": [
                        {"name": p.name, "start_s": p.start_ms / 1e3, "end_s": p.end_ms / 1e3}
                        for p in s.phases
                    ],
                }
            )
        if t.series:
            continue
        for m in t.metrics:
            if m.blocks is not None and m.blocks.start_ms:
                out.append(
                    {
                        "test": t.id,
                        "name": m.name,
                        "what": f"max per {m.blocks.span_ms:g} ms block",
                        "t_s": [finite(v / 1e3) for v in m.blocks.start_ms],
                        "us": [finite(v / 1e3) for v in m.blocks.maxima],
                        "phases": [],
                    }
                )
    return out
