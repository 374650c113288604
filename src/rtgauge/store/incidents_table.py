"""The alerts' incidents in the store: one row per incident, open until its
rule saw clear_after clean intervals in a row. The row carries the count of
clean intervals so that a restarted server goes on where it stopped."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, select, update

from rtgauge.store.intervals_table import label_key
from rtgauge.store.schema import incidents


@dataclass(frozen=True)
class Incident:
    id: int
    rule: str
    host: str
    label: str | None
    test: str
    fired_interval: int
    fired_at: datetime
    value: float
    detail: dict[str, Any]
    clean: int
    last_interval: int
    cleared_at: datetime | None

    @property
    def shown(self) -> str:
        """The value as a reader takes it: a maximum in µs, a tail as its share."""
        if self.rule == "max_above":
            return f"{self.value / 1e3:,.1f} µs"
        return f"{self.value:.3%} of samples above the reference's edge"

    @classmethod
    def of(cls, m: Any) -> Incident:
        return cls(
            id=int(m["id"]),
            rule=str(m["rule"]),
            host=str(m["host"]),
            label=m["label"] or None,
            test=str(m["test"]),
            fired_interval=int(m["fired_interval"]),
            fired_at=m["fired_at"],
            value=float(m["value"]),
            detail=json.loads(m["detail"]),
            clean=int(m["clean"]),
            last_interval=int(m["last_interval"]),
            cleared_at=m["cleared_at"],
        )


class Incidents:
    def __init__(self, engine: Engine, write_lock: AbstractContextManager[Any]) -> None:
        self.engine = engine
        self._write_lock = write_lock

    def open_one(self, rule: str, host: str, label: str | None, test: str) -> Incident | None:
        query = select(incidents).where(
            incidents.c.rule == rule,
            incidents.c.host == host,
            incidents.c.label == label_key(label),
            incidents.c.test == test,
            incidents.c.cleared_at.is_(None),
        )
        with self.engine.connect() as conn:
            row = conn.execute(query.order_by(incidents.c.id.desc()).limit(1)).mappings().first()
        return None if row is None else Incident.of(row)

    def fire(
        self,
        rule: str,
        host: str,
        label: str | None,
        test: str,
        interval_id: int,
        at: datetime,
        value: float,
        detail: dict[str, Any],
    ) -> int:
        values = {
            "rule": rule,
            "host": host,
            "label": label_key(label),
            "test": test,
            "fired_interval": interval_id,
            "fired_at": at,
            "value": value,
            "detail": json.dumps(detail, separators=(",", ":")),
            "clean": 0,
            "last_interval": interval_id,
            "cleared_at": None,
        }
        with self._write_lock, self.engine.begin() as conn:
            got = conn.execute(
                incidents.insert().values(**values).returning(incidents.c.id)
            ).first()
        assert got is not None
        return int(got[0])

    def note(
        self, incident_id: int, clean: int, interval_id: int, cleared: datetime | None
    ) -> None:
        """An open incident's next interval: clean ones counted, cleared when enough."""
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(
                update(incidents)
                .where(incidents.c.id == incident_id)
                .values(clean=clean, last_interval=interval_id, cleared_at=cleared)
            )

    def of(self, host: str, label: str | None, limit: int = 200) -> list[Incident]:
        """A host and label's incidents, newest first."""
        query = (
            select(incidents)
            .where(incidents.c.host == host, incidents.c.label == label_key(label))
            .order_by(incidents.c.fired_at.desc(), incidents.c.id.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [Incident.of(m) for m in conn.execute(query).mappings()]
