"""The result store: bundles and their index behind one interface, on SQLite
(a directory, the default) or PostgreSQL (result_store.py); a run written as
it arrives (writer.py); the schema and its migrations (schema.py,
migrate.py, migrations/).

The names below are imported on first use: `rtgauge.store.location` (what
--store means, needed by every command that takes it) costs nothing, and
SQLAlchemy is loaded only by a command that opens a store.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rtgauge.model import Bundle
    from rtgauge.store.index_row import target_name
    from rtgauge.store.location import DEFAULT_DIR, INDEX, Location, default_store
    from rtgauge.store.query import RunFilter, RunPage, RunRow
    from rtgauge.store.result_store import ResultStore, Stored, open_store
    from rtgauge.store.writer import RunWriter, safe_name, utc_stamp

_HOME = {
    "target_name": "index_row",
    "DEFAULT_DIR": "location",
    "INDEX": "location",
    "Location": "location",
    "default_store": "location",
    "RunFilter": "query",
    "RunPage": "query",
    "RunRow": "query",
    "ResultStore": "result_store",
    "Stored": "result_store",
    "open_store": "result_store",
    "RunWriter": "writer",
    "safe_name": "writer",
    "utc_stamp": "writer",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'rtgauge.store' has no attribute {name!r}")
    return getattr(importlib.import_module(f"rtgauge.store.{home}"), name)


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
    from rtgauge.store.result_store import open_store

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
    from rtgauge.store.query import RunFilter
    from rtgauge.store.result_store import open_store

    if isinstance(results, Path) and not results.is_dir():
        return []
    with open_store(results) as store:
        return [row_dict(r) for r in store.all_runs(RunFilter(label=label))]
