"""A label's calibrated limits in the store: the JSON of the limits file,
the newest per label. The store keeps the text; what it means is the
analysis's (rtgauge.analysis.limits_json reads it)."""

from __future__ import annotations

from sqlalchemy import Engine, delete, select

from rtgauge.store.index_row import now_utc
from rtgauge.store.schema import label_limits


def put(engine: Engine, label: str, body: str) -> None:
    """Replaces the label's limits (a new calibration supersedes the last)."""
    with engine.begin() as conn:
        conn.execute(delete(label_limits).where(label_limits.c.label == label))
        conn.execute(label_limits.insert().values(label=label, body=body, calibrated_at=now_utc()))


def get(engine: Engine, label: str) -> str | None:
    with engine.connect() as conn:
        body = conn.execute(
            select(label_limits.c.body).where(label_limits.c.label == label)
        ).scalar_one_or_none()
    return None if body is None else str(body)
