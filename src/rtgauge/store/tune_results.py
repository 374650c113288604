"""Tune results in a store, by name (tune-<time>): a directory store keeps
each as the file `rtgauge tune` writes beside the runs (tune-<time>.json),
a database store as a row of tune_results holding its JSON. The same JSON
is one result, however often it arrives; another result of the same name
(two hosts tuned in the same second) is kept as <name>-2, -3…"""

from __future__ import annotations

import datetime
import hashlib
import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select

from rtgauge.errors import UsageError
from rtgauge.store.index_row import now_utc
from rtgauge.store.schema import tune_results
from rtgauge.tune import result as tune_result

TuneRow = tuple[str, datetime.datetime, str]  # name, created_at (naive UTC), host
_TRIES = 1000  # names <name>-2 … tried before giving up


class TuneResults:
    def __init__(
        self,
        engine: Engine,
        root: Path | None,
        write_lock: AbstractContextManager[Any],
        insert: Callable[[Any], Any],
    ) -> None:
        self.engine = engine
        self.root = root
        self._write_lock = write_lock
        self._insert = insert

    def add(self, name: str, body: str, pushed_by: str | None = None) -> tuple[str, bool]:
        """Stores a tune result's JSON (checked first) under `name` or the
        next free <name>-N; returns the name it is kept under and whether
        it is new (False: the same JSON was stored before)."""
        _check_name(name)
        result = tune_result.loads(body.encode("utf-8"))
        with self._write_lock:
            if self.root is not None:
                return self._add_file(name, body)
            return self._add_row(name, body, result, pushed_by)

    def _add_file(self, name: str, body: str) -> tuple[str, bool]:
        assert self.root is not None
        raw = body.encode("utf-8")
        for path in tune_result.stored(self.root):
            if path.stat().st_size == len(raw) and path.read_bytes() == raw:
                return path.stem, False
        tmp = self.root / f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            tmp.write_bytes(raw)
            for candidate in _names(name):
                path = self.root / f"{candidate}.json"
                try:
                    os.link(tmp, path)  # whole at once, and never over another result
                except FileExistsError:
                    continue
                return candidate, True
        except OSError as exc:
            raise UsageError(f"cannot write {exc.filename}: {exc.strerror}") from None
        finally:
            tmp.unlink(missing_ok=True)
        raise UsageError(f"no free name for tune result {name} in {self.root}")

    def _add_row(
        self, name: str, body: str, result: tune_result.TuneResult, pushed_by: str | None
    ) -> tuple[str, bool]:
        sha = hashlib.sha256(body.encode("utf-8")).hexdigest()
        values = {
            "sha256": sha,
            "created_at": tune_result.when(result),
            "host": result.host,
            "target": result.target,
            "body": body,
            "received_at": now_utc(),
            "pushed_by": pushed_by,
        }
        for candidate in _names(name):
            known = self._by_sha(sha)
            if known is not None:
                return known, False
            with self.engine.begin() as conn:
                got = conn.execute(
                    self._insert(tune_results)
                    .values(name=candidate, **values)
                    .on_conflict_do_nothing()
                    .returning(tune_results.c.name)
                ).first()
            if got is not None:
                return str(got[0]), True
        raise UsageError(f"no free name for tune result {name} in the store")

    def _by_sha(self, sha: str) -> str | None:
        with self.engine.connect() as conn:
            name = conn.execute(
                select(tune_results.c.name).where(tune_results.c.sha256 == sha)
            ).scalar_one_or_none()
        return None if name is None else str(name)

    def get(self, name: str) -> str | None:
        """The result's JSON as stored, or None."""
        if not tune_result.NAME.fullmatch(name):
            return None
        if self.root is not None:
            path = self.root / f"{name}.json"
            try:
                return path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
        with self.engine.connect() as conn:
            body = conn.execute(
                select(tune_results.c.body).where(tune_results.c.name == name)
            ).scalar_one_or_none()
        return None if body is None else str(body)

    def listed(self, limit: int) -> list[TuneRow]:
        """The newest `limit` results: name, when it started, host."""
        if self.root is not None:
            out: list[TuneRow] = []
            for path in tune_result.stored(self.root):  # newest first by name
                if len(out) >= limit:
                    break
                try:
                    got = tune_result.load(path)
                except UsageError:
                    continue  # a damaged file is left out, as a damaged bundle is
                out.append((path.stem, tune_result.when(got), got.host))
            return out
        query = (
            select(tune_results.c.name, tune_results.c.created_at, tune_results.c.host)
            .order_by(tune_results.c.created_at.desc(), tune_results.c.name.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [(str(n), when, str(h)) for n, when, h in conn.execute(query)]


def _check_name(name: str) -> None:
    if not tune_result.NAME.fullmatch(name):
        raise UsageError(f"{name[:80]!r} is not a tune result's name (tune-<time>)")


def _names(name: str) -> list[str]:
    return [name] + [f"{name}-{n}" for n in range(2, _TRIES + 1)]
