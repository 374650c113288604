"""The result store: bundles and their index behind one interface, on SQLite
(a directory, the default) or PostgreSQL (result_store.py); a run written as
it arrives (writer.py); the schema and its migrations (schema.py,
migrate.py, migrations/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rtgauge.model import Bundle
from rtgauge.store.index_row import target_name
from rtgauge.store.location import DEFAULT_DIR, INDEX, Location, default_store
from rtgauge.store.query import RunFilter, RunPage, RunRow
from rtgauge.store.result_store import ResultStore, Stored, open_store
from rtgauge.store.writer import RunWriter, safe_name, utc_stamp

__all__ = [
    "DEFAULT_DIR",
    "INDEX",
    "Location",
    "ResultStore",
    "RunFilter",
    "RunPage",
    "RunRow",
    "RunWriter",
    "Stored",
    "default_store",
    "index_run",
    "list_runs",
    "open_store",
    "row_dict",
    "safe_name",
    "target_name",
    "utc_stamp",
]


def index_run(results: Path, bundle: Bundle) -> Stored:
    """A bundle file of a directory store, indexed where it lies."""
    assert bundle.path is not None
    with open_store(results) as store:
        return store.add_file(bundle.path, bundle=bundle)


def row_dict(row: RunRow) -> dict[str, Any]:
    """A run as `rtgauge runs` and `history` read it (the v1 index's keys, and the id)."""
    return {
        "id": row.id,
        "path": row.path,
        "host": row.host,
        "created_at": row.created_at,
        "target": row.target,
        "kernel": row.kernel,
        "preempt": row.preempt,
        "tests": row.tests,
        "passed": row.passed,
        "failed": row.failed,
        "errors": row.errors,
        "complete": int(row.complete),
        "label": row.label,
        "status": row.status,
        "sha256": row.sha256,
    }


def list_runs(results: Path | Location | str, label: str | None = None) -> list[dict[str, Any]]:
    """The index, newest first (only the runs with `label` when given); a
    directory store without an index has it rebuilt from its bundles."""
    if isinstance(results, Path) and not results.is_dir():
        return []
    with open_store(results) as store:
        return [row_dict(r) for r in store.all_runs(RunFilter(label=label))]
