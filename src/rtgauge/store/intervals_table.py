"""Monitored intervals in the store (`rtgauge monitor` → POST /api/intervals):
written once per (host, label, test, start), read as a long view's series,
one interval with its figures, the histograms of a span, and dropped when
older than the server's retention. A label the monitor did not give is
kept as "" (schema.py) and read back as None."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, func, select, update

from rtgauge.store.index_row import now_utc
from rtgauge.store.merged_hist import MergedHistogram, merged
from rtgauge.store.schema import interval_days, interval_figures, intervals

Record = dict[str, Any]


def utc(text: str) -> datetime:
    """'2026-11-27T18:00:00.000Z' as a naive UTC datetime (as the store keeps time)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC).replace(tzinfo=None)


def stamp(when: datetime) -> str:
    """A naive UTC datetime as the interface writes it, to the millisecond."""
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


_PER_CPU = re.compile(r"^(?P<base>.+)\.cpu\d+$")


def counted(figures: list[Record]) -> list[bool]:
    """Which figures' samples make the interval's histogram: each sample
    once, so a per-CPU figure (`<name>.cpuN`) is left out when the interval
    also has its `<name>.all`, which holds the same samples."""
    names = {f["name"] for f in figures}
    out = []
    for f in figures:
        m = _PER_CPU.match(f["name"])
        out.append(not (m and f"{m['base']}.all" in names))
    return out


def label_key(label: str | None) -> str:
    return label or ""


def day_of(when: datetime) -> datetime:
    return when.replace(hour=0, minute=0, second=0, microsecond=0)


DAY = timedelta(days=1)


def figure_row(f: Record) -> Record:
    """An interval_figure's summary: p99.99 from its histogram when the count
    backs it, by the probe's rule (the views are loaded here, when intervals
    are written: a command that lists the store never needs them)."""
    from rtgauge.intervals import Merged
    from rtgauge.model import IntervalFigure

    merged = Merged(f["name"])
    merged.add(IntervalFigure.read(f))
    p9999 = merged.quantile(0.9999) if merged.count >= 10000 else None
    return {
        "name": f["name"],
        "count": f["count"],
        "min_ns": f["min"],
        "max_ns": f["max"],
        "p99_99_ns": p9999,
        "p99_9_ns": f["p99_9"],
        "p99_ns": f["p99"],
        "p90_ns": f["p90"],
        "p50_ns": f["p50"],
        "mean_ns": f["mean"],
        "hist": json.dumps(f["hist"], separators=(",", ":")),
    }


@dataclass(frozen=True)
class Point:
    """One interval on a long view: its id, start, maximum and real-time flag."""

    id: int
    start: datetime
    max_ns: float
    rt: bool


@dataclass(frozen=True)
class IntervalRow:
    id: int
    host: str
    label: str | None
    test: str
    start: datetime
    end: datetime
    gap_ms: float
    rt: bool
    max_ns: float | None
    worst: Record | None
    figures: list[Record]

    @property
    def culprit(self) -> str | None:
        return None if self.worst is None else self.worst.get("culprit")

    def as_pushed(self) -> Record:
        """The interval in the interface's format (as `rtgauge monitor` sent
        it), with its host and label: what rtgauge.openmetrics renders."""
        keys = (("min", "min_ns"), ("max", "max_ns"), ("mean", "mean_ns"), ("p50", "p50_ns"),
                ("p90", "p90_ns"), ("p99", "p99_ns"), ("p99_9", "p99_9_ns"))  # fmt: skip
        return {
            "host": self.host,
            "label": self.label,
            "start": stamp(self.start),
            "end": stamp(self.end),
            "test": self.test,
            "gap_ms": self.gap_ms,
            "rt": self.rt,
            "figures": [
                {
                    "name": f["name"],
                    "unit": "ns",
                    "count": f["count"],
                    **{k: f[c] for k, c in keys},
                    "hist": f["hist"],
                }
                for f in self.figures
            ],
            "worst": self.worst,
        }


class Intervals:
    """The intervals' part of a store (ResultStore.intervals)."""

    def __init__(
        self, engine: Engine, write_lock: AbstractContextManager[Any], insert: Callable[[Any], Any]
    ) -> None:
        self.engine = engine
        self._write_lock = write_lock
        self._insert = insert

    def add(
        self, host: str, label: str | None, pushed: list[Record], pushed_by: str | None
    ) -> list[int | None]:
        """Stores the intervals; per interval its new id, or None when it was
        stored before (the same host, label, test and start)."""
        out: list[int | None] = []
        received = now_utc()
        days: dict[tuple[str, datetime], tuple[int, MergedHistogram]] = {}
        with self._write_lock, self.engine.begin() as conn:
            for iv in pushed:
                maxima = [f["max"] for f in iv["figures"] if f["max"] is not None]
                worst = iv.get("worst")
                row = {
                    "host": host,
                    "label": label_key(label),
                    "test": iv["test"],
                    "start": utc(iv["start"]),
                    "end": utc(iv["end"]),
                    "gap_ms": float(iv["gap_ms"]),
                    "rt": bool(iv["rt"]),
                    "max_ns": max(maxima) if maxima else None,
                    "worst": None if worst is None else json.dumps(worst, separators=(",", ":")),
                    "received_at": received,
                    "pushed_by": pushed_by,
                }
                got = conn.execute(
                    self._insert(intervals)
                    .values(**row)
                    .on_conflict_do_nothing(index_elements=["host", "label", "test", "start"])
                    .returning(intervals.c.id)
                ).first()
                if got is None:
                    out.append(None)
                    continue
                new_id = int(got[0])
                key = (iv["test"], day_of(row["start"]))
                n, day = days.get(key, (0, MergedHistogram()))
                for f, kept in zip(iv["figures"], counted(iv["figures"]), strict=True):
                    if kept:
                        day.add(f["hist"])
                days[key] = (n + 1, day)
                if iv["figures"]:
                    conn.execute(
                        interval_figures.insert(),
                        [
                            dict(figure_row(f), interval_id=new_id, seq=i, counted=kept)
                            for i, (f, kept) in enumerate(
                                zip(iv["figures"], counted(iv["figures"]), strict=True)
                            )
                        ],
                    )
                out.append(new_id)
            for (test, day_start), (n, hist) in sorted(
                days.items(), key=lambda d: d[0]
            ):  # one lock order
                self._add_to_day(conn, host, label_key(label), test, day_start, n, hist)
        return out

    def _add_to_day(
        self,
        conn: Connection,
        host: str,
        label: str,
        test: str,
        day: datetime,
        n: int,
        hist: MergedHistogram,
    ) -> None:
        """Adds intervals to their day's row; the row is locked while it is
        read and written (FOR UPDATE on PostgreSQL; SQLite has one writer)."""
        key = and_(
            interval_days.c.host == host,
            interval_days.c.label == label,
            interval_days.c.test == test,
            interval_days.c.day == day,
        )
        conn.execute(
            self._insert(interval_days)
            .values(
                host=host,
                label=label,
                test=test,
                day=day,
                intervals=0,
                hist=MergedHistogram().to_json(),
            )
            .on_conflict_do_nothing(index_elements=["host", "label", "test", "day"])
        )
        found = conn.execute(
            select(interval_days.c.intervals, interval_days.c.hist).where(key).with_for_update()
        ).one()
        total = merged([str(found.hist)])
        total.merge(hist)
        conn.execute(
            update(interval_days)
            .where(key)
            .values(intervals=int(found.intervals) + n, hist=total.to_json())
        )

    def span_histogram(
        self,
        host: str,
        label: str | None,
        test: str,
        since: datetime | None,
        until: datetime | None,
    ) -> MergedHistogram:
        """Every figure's histogram of the span's intervals of `test`, merged:
        the whole days inside the span read as their day rows, the ends of the
        span interval by interval, so the cost grows with the days, not with
        the intervals."""
        if since is None or until is None:
            with self.engine.connect() as conn:
                first, last = conn.execute(
                    select(func.min(intervals.c.start), func.max(intervals.c.start)).where(
                        self._span(host, label, since, until), intervals.c.test == test
                    )
                ).one()
            if first is None:
                return MergedHistogram()
            since = since or first
            until = until or last + timedelta(seconds=1)
        assert since is not None and until is not None
        full_from = day_of(since) if day_of(since) == since else day_of(since) + DAY
        full_to = day_of(until)
        if full_from >= full_to:
            return merged(h for _, h in self.histograms(host, label, test, since, until))
        out = merged(h for _, h in self.histograms(host, label, test, since, full_from))
        out.merge(merged(h for _, h in self.histograms(host, label, test, full_to, until)))
        query = select(interval_days.c.hist).where(
            interval_days.c.host == host,
            interval_days.c.label == label_key(label),
            interval_days.c.test == test,
            interval_days.c.day >= full_from,
            interval_days.c.day < full_to,
        )
        with self.engine.connect() as conn:
            out.merge(merged(str(h) for h in conn.execute(query).scalars()))
        return out

    def points(
        self, host: str, label: str | None, since: datetime | None, until: datetime | None
    ) -> dict[str, list[Point]]:
        """Per test, its intervals with a sample, in time order."""
        query = (
            select(
                intervals.c.test,
                intervals.c.id,
                intervals.c.start,
                intervals.c.max_ns,
                intervals.c.rt,
            )
            .where(self._span(host, label, since, until), intervals.c.max_ns.is_not(None))
            .order_by(intervals.c.test, intervals.c.start)
        )
        out: dict[str, list[Point]] = {}
        with self.engine.connect() as conn:
            for test, id_, start, max_ns, rt in conn.execute(query):
                out.setdefault(str(test), []).append(
                    Point(int(id_), start, float(max_ns), bool(rt))
                )
        return out

    def shape(
        self, host: str, label: str | None, since: datetime | None, until: datetime | None
    ) -> tuple[tuple[str, int, int], ...]:
        """Per test, the span's count of intervals with a sample and the newest
        id: what a kept long view is keyed by (a new interval changes it)."""
        query = (
            select(intervals.c.test, func.count(), func.max(intervals.c.id))
            .where(self._span(host, label, since, until), intervals.c.max_ns.is_not(None))
            .group_by(intervals.c.test)
            .order_by(intervals.c.test)
        )
        with self.engine.connect() as conn:
            return tuple((str(t), int(n), int(i)) for t, n, i in conn.execute(query))

    def histograms(
        self,
        host: str,
        label: str | None,
        test: str,
        since: datetime | None,
        until: datetime | None,
    ) -> Iterator[tuple[str, str]]:
        """(figure name, histogram JSON) of the span's intervals of `test`: the
        figures that count, each sample once (`counted`)."""
        query = (
            select(interval_figures.c.name, interval_figures.c.hist)
            .join(intervals, intervals.c.id == interval_figures.c.interval_id)
            .where(
                self._span(host, label, since, until),
                intervals.c.test == test,
                interval_figures.c.counted,
            )
        )
        with self.engine.connect() as conn:
            for name, hist in conn.execute(query.execution_options(yield_per=2000)):
                yield str(name), str(hist)

    def _span(
        self, host: str, label: str | None, since: datetime | None, until: datetime | None
    ) -> Any:
        cond = [intervals.c.host == host, intervals.c.label == label_key(label)]
        if since is not None:
            cond.append(intervals.c.start >= since)
        if until is not None:
            cond.append(intervals.c.start < until)
        return and_(*cond)

    def get(self, interval_id: int) -> IntervalRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(intervals).where(intervals.c.id == interval_id)).first()
            if row is None:
                return None
            figs = conn.execute(
                select(interval_figures)
                .where(interval_figures.c.interval_id == interval_id)
                .order_by(interval_figures.c.seq)
            ).mappings()
            figures = [dict(f, hist=json.loads(f["hist"])) for f in figs]
        m = row._mapping
        return IntervalRow(
            id=int(m["id"]),
            host=str(m["host"]),
            label=m["label"] or None,
            test=str(m["test"]),
            start=m["start"],
            end=m["end"],
            gap_ms=float(m["gap_ms"]),
            rt=bool(m["rt"]),
            max_ns=m["max_ns"],
            worst=None if m["worst"] is None else json.loads(m["worst"]),
            figures=figures,
        )

    def newest(self) -> list[IntervalRow]:
        """The newest interval of each (host, label, test)."""
        newest = (
            select(
                intervals.c.host,
                intervals.c.label,
                intervals.c.test,
                func.max(intervals.c.start).label("start"),
            )
            .group_by(intervals.c.host, intervals.c.label, intervals.c.test)
            .subquery()
        )
        query = (
            select(intervals.c.id)
            .join(
                newest,
                and_(
                    intervals.c.host == newest.c.host,
                    intervals.c.label == newest.c.label,
                    intervals.c.test == newest.c.test,
                    intervals.c.start == newest.c.start,
                ),
            )
            .order_by(intervals.c.host, intervals.c.label, intervals.c.test)
        )
        with self.engine.connect() as conn:
            ids = [int(i) for i in conn.execute(query).scalars()]
        return [r for r in (self.get(i) for i in ids) if r is not None]

    def monitored(self) -> list[tuple[str, str | None]]:
        """Every (host, label) that has intervals."""
        query = (
            select(intervals.c.host, intervals.c.label)
            .distinct()
            .order_by(intervals.c.host, intervals.c.label)
        )
        with self.engine.connect() as conn:
            return [(str(h), str(lab) or None) for h, lab in conn.execute(query.limit(1000))]

    def has(self, host: str, label: str | None) -> bool:
        query = select(intervals.c.id).where(self._span(host, label, None, None)).limit(1)
        with self.engine.connect() as conn:
            return conn.execute(query).first() is not None

    def drop_before(self, cutoff: datetime) -> int:
        """Deletes the intervals that started before `cutoff` (retention); how
        many. The days before are dropped whole; the cutoff's own day is
        merged again from the intervals it keeps."""
        old = select(intervals.c.id).where(intervals.c.start < cutoff)
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(delete(interval_figures).where(interval_figures.c.interval_id.in_(old)))
            gone = int(
                conn.execute(delete(intervals).where(intervals.c.start < cutoff)).rowcount or 0
            )
            conn.execute(delete(interval_days).where(interval_days.c.day < day_of(cutoff)))
            if gone:
                self._remake_day(conn, day_of(cutoff))
        return gone

    def _remake_day(self, conn: Connection, day: datetime) -> None:
        cut = interval_days.c.day == day
        rows = conn.execute(
            select(interval_days.c.host, interval_days.c.label, interval_days.c.test).where(cut)
        )
        for host, label, test in list(rows):
            hists = conn.execute(
                select(interval_figures.c.hist, interval_figures.c.interval_id)
                .join(intervals, intervals.c.id == interval_figures.c.interval_id)
                .where(
                    intervals.c.host == host,
                    intervals.c.label == label,
                    intervals.c.test == test,
                    intervals.c.start >= day,
                    intervals.c.start < day + DAY,
                    interval_figures.c.counted,
                )
            ).all()
            total = merged(str(h) for h, _ in hists)
            count = len({i for _, i in hists})
            where = and_(
                cut,
                interval_days.c.host == host,
                interval_days.c.label == label,
                interval_days.c.test == test,
            )
            conn.execute(
                update(interval_days).where(where).values(intervals=count, hist=total.to_json())
            )
