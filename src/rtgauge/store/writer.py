"""A run written into a results directory as its records arrive.

Every record is appended, flushed and synced to `<host>/<time>.partial.jsonl`,
so a killed probe or host, or a power cut, loses nothing already received; at
the end the bundle `<host>/<time>.json` is written atomically, the partial
file removed (a writer that died leaves it, locked by nobody: the next
command that opens the store seals it, store/orphans.py), and the bundle put in the store (the same directory's, or a
database named by --store).
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from rtgauge.errors import UsageError
from rtgauge.model import Bundle, Record, System
from rtgauge.store.location import Location
from rtgauge.store.orphans import hold
from rtgauge.store.result_store import ResultStore, Stored


def safe_name(text: str) -> str:
    """A host name as a directory name: no path tricks, no control bytes."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "host"
    return name[:64]


def utc_stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


class RunWriter:
    """Writes one run into the store as its records arrive."""

    def __init__(
        self,
        results: Path,
        command: list[str],
        target: Record,
        label: str | None = None,
        store: Location | None = None,
    ) -> None:
        self.results = results
        self.store = store or Location.directory(results)
        self.stored: Stored | None = None
        self.label = label
        self.command = command
        self.target = target
        self.stamp = utc_stamp()
        self.created_at = datetime.now(UTC).isoformat(timespec="seconds")
        self.bundle: Bundle | None = None
        self.partial: Path | None = None
        self._fh: IO[str] | None = None
        self._rejected: list[str] = []  # lines that were not valid records
        self._intervals = 0  # interval records written to the partial file

    @property
    def rejected_path(self) -> Path | None:
        return self.partial.with_name(f"{self.stamp}.rejected.txt") if self.partial else None

    def reject(self, line: str) -> None:
        """Keeps a line that is not a valid record, verbatim, beside the run:
        nothing the target sent is dropped, even when it cannot be used."""
        self._rejected.append(line)
        self._write_rejected()

    def _write_rejected(self) -> None:
        path = self.rejected_path
        if path is None or not self._rejected:
            return  # before the system record there is no folder yet
        try:
            with path.open("a", encoding="utf-8") as fh:
                fh.writelines(line + "\n" for line in self._rejected)
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror}") from exc
        self._rejected.clear()

    def set_target(self, target: Record) -> None:
        """What the host knows about the target, complete once the run has ended."""
        self.target = target
        if self.bundle is not None:
            self.bundle.target = target

    def add(self, record: Record) -> None:
        try:
            if record["record"] == "system":
                self._open(record)
            elif self.bundle is None:
                raise UsageError("the probe sent a record before its system record")
            elif record["record"] == "test":
                self.bundle.tests.append(record)
            elif record["record"] == "interval":
                # kept on disk only, read back at the end: a day's intervals
                # held as objects would grow the host by megabytes an hour
                self._intervals += 1
            else:
                self.bundle.end = record
            assert self._fh is not None
            self._fh.write(json.dumps(record) + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())  # on disk, not only in the page cache: a power cut keeps it
        except OSError as exc:
            raise UsageError(f"cannot write results to {self.results}: {exc.strerror}") from exc

    def _open(self, system: Record) -> None:
        if self.bundle is not None:
            raise UsageError("the probe sent a second system record")
        folder = self.results / safe_name(System.read(system).host.hostname)
        folder.mkdir(parents=True, exist_ok=True)
        # Runs of one host name may start in the same second (boards of a
        # fleet often share one): each gets a name of its own, never another's.
        stamp = self.stamp
        for n in range(2, 1000):
            self.partial = folder / f"{stamp}.partial.jsonl"
            try:
                if not (folder / f"{stamp}.json").exists():
                    self._fh = self.partial.open("x", encoding="utf-8")
                    hold(self._fh.fileno())  # others know a live writer by it
                    break
            except FileExistsError:
                pass
            stamp = f"{self.stamp}-{n}"
        self.stamp = stamp
        self._write_rejected()
        self.bundle = Bundle(
            system=system,
            command=self.command,
            created_at=self.created_at,
            target=self.target,
            run_label=self.label,
        )

    def finish(self) -> Path | None:
        """Writes the bundle; returns its path (None if nothing arrived)."""
        if self.bundle is None or self.partial is None:
            if self._fh:
                self._fh.close()
            return None
        path = self.partial.with_name(f"{self.stamp}.json")
        tmp = path.with_suffix(".json.tmp")
        try:
            if self._intervals:
                self.bundle.intervals = _intervals_in(self.partial)
            tmp.write_text(json.dumps(self.bundle.to_json(), indent=1), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise UsageError(
                f"cannot write {path}: {exc.strerror}; the records are kept in {self.partial}"
            ) from exc
        self.partial.unlink()
        if self._fh:  # closed (and its lock let go) only once the partial file is gone
            self._fh.close()
        self.bundle.path = path
        with ResultStore(self.store) as store:
            self.stored = store.add_file(path, "run", self.bundle)
        return path


def _intervals_in(partial: Path) -> list[Record]:
    """The interval records of a partial file, in the order they came."""
    out = []
    with partial.open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record["record"] == "interval":
                out.append(record)
    return out
