"""Bringing a store's schema to the one this code reads, in place (Alembic,
migrations/versions/). A store from the release before the shared store
(one `runs` table keyed by bundle path) is upgraded the same way: revision
0002 adds the new tables, the paths the old index named are read, the later
revisions run (0003 drops the old table), and the store then indexes every
one of those bundles with the newest columns (the caller's `reindex`).

One process migrates at a time: a lock file beside a directory store's
index, an advisory lock on PostgreSQL.

A store already at HEAD is recognised by reading Alembic's version table
directly: Alembic itself is loaded only when there is a migration to run,
so a command that only reads the store does not pay for it.
"""

from __future__ import annotations

import fcntl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from rtgauge.store.location import Location

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"
HEAD = "0008"  # the newest revision; a unit test checks it is the scripts' head
V1_DONE = "0002"  # the new tables exist; the v1 index is still there
_LOCK_KEY = 0x72746761  # "rtga": PostgreSQL's advisory lock for migrations
VERSION_TABLE = "alembic_version"  # Alembic's default, which env.py keeps


def config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def script_head() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(config()).get_current_head()


def current(conn: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


def at_head(conn: Connection) -> bool:
    """Whether the store is at HEAD: its version table holds HEAD alone (what
    `current` would say, without loading Alembic)."""
    if not inspect(conn).has_table(VERSION_TABLE):
        return False
    rows = conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
    return [str(r) for r in rows] == [HEAD]


def _upgrade(engine: Engine, target: str) -> None:
    from alembic import command

    cfg = config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, target)


@contextmanager
def _lock(engine: Engine, location: Location) -> Iterator[None]:
    if location.root is not None:
        with (location.root / "index.lock").open("a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)
        return
    with engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _LOCK_KEY})
        conn.commit()
        try:
            yield
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _LOCK_KEY})
            conn.commit()


def v1_paths(engine: Engine) -> list[str]:
    """The bundle paths the v1 index named, when it is still there."""
    with engine.connect() as conn:
        if "runs" not in inspect(conn).get_table_names():
            return []
        return [str(r[0]) for r in conn.execute(text("SELECT path FROM runs ORDER BY path"))]


def upgrade(engine: Engine, location: Location, reindex: Callable[[list[str]], None]) -> bool:
    """Brings the schema to HEAD; True when it had to (a new or older store)."""
    with engine.connect() as conn:
        if at_head(conn):
            return False
    with _lock(engine, location):
        with engine.connect() as conn:
            if at_head(conn):  # another process did it meanwhile
                return False
        _upgrade(engine, V1_DONE)
        # the v1 index's paths are read, then every revision applied, then
        # the bundles indexed with the newest columns (a later revision's
        # column does not exist yet at V1_DONE)
        paths = v1_paths(engine)
        _upgrade(engine, HEAD)
        reindex(paths)
    return True
