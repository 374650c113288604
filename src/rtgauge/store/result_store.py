"""The result store: bundles, kept whole and content-hashed, and their index,
behind one interface on either engine.

- A directory store (the default, `rtgauge-results/`): the index in
  `index.sqlite`; bundles are files: a run's where `rtgauge run` or
  `import` wrote it (`<host>/<time>.json`), a pushed one as
  `received/<sha256>.json`, a name made of the hash alone, never of the
  bundle's content.
- A database store (`postgresql://…`): the index and the bundles' bytes in
  the database.

Tune results (`rtgauge tune`) are kept beside the runs: a directory store's
as its tune-<time>.json files, a database store's in its tune_results table
(tune_results.py).

The same bytes are one run, however often they arrive. A bundle is checked
against the schema before anything is stored.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, select
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from rtgauge.errors import UsageError
from rtgauge.store import limits_table, migrate, tokens
from rtgauge.store.incidents_table import Incidents
from rtgauge.store.index_row import index_values, now_utc, parse_bundle, stored_bundle
from rtgauge.store.intervals_table import Intervals
from rtgauge.store.location import Location
from rtgauge.store.orphans import seal_orphans
from rtgauge.store.query import RunFilter, RunPage, RunRow
from rtgauge.store.schema import bundle_blobs, run_tests, runs
from rtgauge.store.tune_results import TuneResults, TuneRow

if TYPE_CHECKING:  # the views are loaded to write or read a bundle, not to list the index
    from rtgauge.model import Bundle

RECEIVED = "received"


@dataclass(frozen=True)
class Stored:
    id: int
    sha256: str
    new: bool  # False: the same bytes were stored before


@dataclass(frozen=True)
class Facets:
    """The values the filters offer."""

    hosts: list[str]
    targets: list[str]
    labels: list[str]
    kernels: list[str]
    preempts: list[str]


def _engine(location: Location) -> Engine:
    if location.root is None:
        return create_engine(location.url, pool_size=8, max_overflow=16, pool_pre_ping=True)
    engine = create_engine(
        location.url, poolclass=NullPool, connect_args={"timeout": 60, "check_same_thread": False}
    )

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi: Any, record: Any) -> None:
        cur = dbapi.cursor()
        cur.execute("PRAGMA journal_mode=WAL")  # readers go on while one writes
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    return engine


class ResultStore:
    def __init__(self, location: Location) -> None:
        self.location = location
        self.root = location.root
        fresh = False
        if self.root is not None:
            fresh = not (self.root / "index.sqlite").exists()
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UsageError(f"cannot create the store {self.root}: {exc.strerror}") from None
        self.engine = _engine(location)
        # SQLite takes one writer at a time: writers of this process queue here
        # rather than in SQLite's busy loop.
        self._write_lock: AbstractContextManager[Any] = (
            threading.Lock() if self.root is not None else nullcontext()
        )
        try:
            migrate.upgrade(self.engine, location, self._reindex_paths)
        except OperationalError as exc:
            raise UsageError(f"cannot open the store {location}: {_reason(exc)}") from None
        if fresh and self.root is not None:
            self._rebuild()
        if self.root is not None:
            for sealed in seal_orphans(self.root):
                self._index_quietly(sealed)
        self.intervals = Intervals(self.engine, self._write_lock, self._insert)
        self.incidents = Incidents(self.engine, self._write_lock)
        self._tunes = TuneResults(self.engine, self.root, self._write_lock, self._insert)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- storing --------------------------------------------------------------

    def add(
        self,
        raw: bytes,
        source: str = "push",
        pushed_by: str | None = None,
        bundle: Bundle | None = None,
        path: str | None = None,
    ) -> Stored:
        """Stores a bundle's exact bytes (checked first) and indexes it."""
        sha = hashlib.sha256(raw).hexdigest()
        known = self.by_sha(sha)
        if known is not None:
            return Stored(known.id, sha, False)
        if bundle is None:
            bundle = parse_bundle(raw, "bundle")
        row, test_rows = index_values(bundle)
        with self._write_lock:
            if self.root is not None and path is None:
                path = f"{RECEIVED}/{sha}.json"
                _write_atomic(self.root / path, raw)
            row.update(
                sha256=sha,
                size=len(raw),
                path=path,
                source=source,
                pushed_by=pushed_by,
                received_at=now_utc(),
            )
            with self.engine.begin() as conn:
                if self.root is None:
                    conn.execute(
                        self._insert(bundle_blobs)
                        .values(sha256=sha, body=raw)
                        .on_conflict_do_nothing(index_elements=["sha256"])
                    )
                got = conn.execute(
                    self._insert(runs)
                    .values(**row)
                    .on_conflict_do_nothing(index_elements=["sha256"])
                    .returning(runs.c.id)
                ).first()
                if got is not None:
                    run_id = int(got[0])
                    if test_rows:
                        conn.execute(
                            run_tests.insert(), [dict(t, run_id=run_id) for t in test_rows]
                        )
                    return Stored(run_id, sha, True)
        known = self.by_sha(sha)  # stored by another writer meanwhile
        assert known is not None
        return Stored(known.id, sha, False)

    def add_file(self, path: Path, source: str = "run", bundle: Bundle | None = None) -> Stored:
        """A bundle file: indexed where it is when it lies in a directory store,
        its bytes copied into a database store."""
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror}") from None
        if bundle is None:
            from rtgauge.model import load_bundle

            bundle = load_bundle(path)
        rel = None
        if self.root is not None:
            try:
                rel = path.resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                rel = None  # elsewhere: kept as received/<sha256>.json
        return self.add(raw, source, bundle=bundle, path=rel)

    def _insert(self, table: Any) -> Any:
        # The dialects are loaded by the first write (PostgreSQL's pulls in
        # asyncio): `rtgauge runs` only reads.
        from sqlalchemy.dialects import postgresql, sqlite

        dialect = postgresql if self.root is None else sqlite
        return dialect.insert(table)

    def _reindex_paths(self, paths: list[str]) -> None:
        """The bundles a v1 index named, indexed anew (a missing or damaged
        file is left out: the bundles are the authority)."""
        assert self.root is not None or not paths
        for rel in paths:
            if self.root is not None:
                self._index_quietly(self.root / rel)

    def _rebuild(self) -> None:
        """A directory store without an index: every bundle in it, indexed."""
        assert self.root is not None
        for path in sorted(self.root.glob("*/*.json")):
            self._index_quietly(path)

    def _index_quietly(self, path: Path) -> None:
        try:
            self.add_file(path, "import" if path.stem.endswith("-import") else "run")
        except UsageError:
            pass

    # -- reading --------------------------------------------------------------

    def runs(self, f: RunFilter | None = None) -> RunPage:
        f = f or RunFilter()
        with self.engine.connect() as conn:
            total = int(conn.execute(f.count()).scalar_one())
            rows = [RunRow.of(r) for r in conn.execute(f.select())]
        return RunPage(rows, total, f)

    def all_runs(self, f: RunFilter) -> Iterator[RunRow]:
        """Every run the filter selects, in its order, page after page."""
        page = 1
        while True:
            got = self.runs(RunFilter(**{**f.__dict__, "page": page, "per_page": 500}))
            yield from got.rows
            if page >= got.pages:
                return
            page += 1

    def get(self, run_id: int) -> RunRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(runs).where(runs.c.id == run_id)).first()
        return RunRow.of(row) if row is not None else None

    def by_sha(self, sha: str) -> RunRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(runs).where(runs.c.sha256 == sha)).first()
        return RunRow.of(row) if row is not None else None

    def raw(self, row: RunRow) -> bytes:
        """The bundle's bytes, exactly as received."""
        if self.root is not None and row.path is not None:
            try:
                return (self.root / row.path).read_bytes()
            except OSError as exc:
                raise UsageError(f"run {row.id}: cannot read {row.path}: {exc.strerror}") from None
        with self.engine.connect() as conn:
            body = conn.execute(
                select(bundle_blobs.c.body).where(bundle_blobs.c.sha256 == row.sha256)
            ).scalar_one_or_none()
        if body is None:
            raise UsageError(f"run {row.id}: its bundle is missing from the store")
        return bytes(body)

    def raws(self, rows: list[RunRow]) -> dict[str, bytes]:
        """Many bundles' bytes by hash, a database's in one query (a history
        reads a thousand)."""
        out: dict[str, bytes] = {}
        in_db = [r.sha256 for r in rows if self.root is None or r.path is None]
        for r in rows:
            if r.sha256 not in in_db:
                out[r.sha256] = self.raw(r)
        for start in range(0, len(in_db), 500):
            with self.engine.connect() as conn:
                query = select(bundle_blobs.c.sha256, bundle_blobs.c.body).where(
                    bundle_blobs.c.sha256.in_(in_db[start : start + 500])
                )
                out.update((str(sha), bytes(body)) for sha, body in conn.execute(query))
        missing = [r.id for r in rows if r.sha256 not in out]
        if missing:
            raise UsageError(f"run {missing[0]}: its bundle is missing from the store")
        return out

    def bundles(self, rows: list[RunRow]) -> list[Bundle]:
        raws = self.raws(rows)
        out = []
        for row in rows:
            bundle = stored_bundle(raws[row.sha256], row.sha256, f"run {row.id}")
            if self.root is not None and row.path is not None:
                bundle.path = self.root / row.path
            out.append(bundle)
        return out

    def bundle(self, row: RunRow) -> Bundle:
        bundle = stored_bundle(self.raw(row), row.sha256, f"run {row.id}")
        if self.root is not None and row.path is not None:
            bundle.path = self.root / row.path
        return bundle

    def test_ids(self, run_ids: list[int]) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {i: [] for i in run_ids}
        if not run_ids:
            return out
        with self.engine.connect() as conn:
            for run_id, test_id in conn.execute(
                select(run_tests.c.run_id, run_tests.c.test_id)
                .where(run_tests.c.run_id.in_(run_ids))
                .order_by(run_tests.c.run_id, run_tests.c.seq)
            ):
                out[int(run_id)].append(str(test_id))
        return out

    def facets(self) -> Facets:
        def values(column: Any) -> list[str]:
            with self.engine.connect() as conn:
                query = select(column).where(column.is_not(None)).distinct().order_by(column)
                return [str(v) for v in conn.execute(query.limit(1000)).scalars()]

        return Facets(
            values(runs.c.host),
            values(runs.c.target_kind),
            values(runs.c.label),
            values(runs.c.kernel),
            values(runs.c.preempt),
        )

    # -- calibrated limits ----------------------------------------------------

    def set_limits(self, label: str, body: str) -> None:
        """A label's calibrated limits (the limits file's JSON), replacing any before."""
        with self._write_lock:
            limits_table.put(self.engine, label, body)

    def limits(self, label: str) -> str | None:
        """The label's calibrated limits as stored, or None."""
        return limits_table.get(self.engine, label)

    # -- tune results ---------------------------------------------------------

    def add_tune(self, name: str, body: str, pushed_by: str | None = None) -> tuple[str, bool]:
        """A tune result's JSON (checked first), kept under `name` (tune-<time>)
        or the next free <name>-N: the name it is kept under, and whether it is
        new (False: the same JSON is stored already, under that name)."""
        return self._tunes.add(name, body, pushed_by)

    def tune(self, name: str) -> str | None:
        """The tune result's JSON as stored, or None."""
        return self._tunes.get(name)

    def tunes(self, limit: int = 50) -> list[TuneRow]:
        """The newest tune results: (name, created_at in UTC, host)."""
        return self._tunes.listed(limit)

    # -- tokens ---------------------------------------------------------------

    def add_token(self, name: str, role: str) -> str:
        return tokens.add(self.engine, name, role)

    def token_list(self) -> list[tokens.TokenInfo]:
        return tokens.listed(self.engine)

    def revoke_token(self, name: str) -> None:
        tokens.revoke(self.engine, name)

    def token_role(self, token: str) -> tuple[str, str] | None:
        return tokens.role_of(self.engine, token)


def _write_atomic(path: Path, raw: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_bytes(raw)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None


def _reason(exc: SQLAlchemyError) -> str:
    """The database's own first line, without SQLAlchemy's wrapping."""
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def open_store(spec: str | Path | Location) -> ResultStore:
    """A store from --store's text (a directory or a postgresql:// URL)."""
    if isinstance(spec, Location):
        return ResultStore(spec)
    if isinstance(spec, Path):
        return ResultStore(Location.directory(spec))
    return ResultStore(Location.parse(spec))
