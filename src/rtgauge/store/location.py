"""Where a result store is: a directory (SQLite index and bundle files, the
default) or a PostgreSQL database, named on the command line by --store or
the RTGAUGE_STORE variable."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rtgauge.errors import UsageError

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

DEFAULT_DIR = "rtgauge-results"
INDEX = "index.sqlite"
ENV = "RTGAUGE_STORE"
_PG_SCHEMES = ("postgresql://", "postgres://", "postgresql+psycopg://")


@dataclass(frozen=True)
class Location:
    """A store: `root` for a directory store, `url` for a database."""

    root: Path | None
    url: URL

    @classmethod
    def parse(cls, text: str) -> Location:
        # SQLAlchemy is loaded here, by the commands that take --store, not by
        # every command that imports this module for its defaults.
        from sqlalchemy.engine import URL, make_url
        from sqlalchemy.exc import ArgumentError

        if text.startswith(_PG_SCHEMES):
            try:
                url = make_url(text)
            except ArgumentError as exc:
                raise UsageError(f"--store: not a database URL ({exc})") from None
            return cls(None, url.set(drivername="postgresql+psycopg"))
        if "://" in text:
            raise UsageError(f"--store {text!r}: give a directory or a postgresql:// URL")
        root = Path(text)
        return cls(root, URL.create("sqlite", database=str(root / INDEX)))

    @classmethod
    def directory(cls, root: Path) -> Location:
        from sqlalchemy.engine import URL

        return cls(root, URL.create("sqlite", database=str(root / INDEX)))

    @property
    def is_directory(self) -> bool:
        return self.root is not None

    def __str__(self) -> str:
        """For messages: the directory, or the URL without its password."""
        if self.root is not None:
            return str(self.root)
        return self.url.set(drivername="postgresql").render_as_string(hide_password=True)


def default_store() -> str:
    """--store's default: $RTGAUGE_STORE, else ./rtgauge-results."""
    return os.environ.get(ENV) or DEFAULT_DIR
