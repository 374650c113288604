"""The monitor's own store: closed intervals on disk, append-only.

intervals/<YYYY-MM-DDTHH>.jsonl (UTC hour of the interval's end): one line
per interval, written and fsync'ed before it is pushed, never rewritten.
A file is removed whole once its hour lies entirely beyond --keep, so the
store holds at least --keep and at most an hour more."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rtgauge.errors import UsageError

FOLDER = "intervals"
SUFFIX = ".jsonl"
HOUR_FORMAT = "%Y-%m-%dT%H"


def _hour_of(stamp: str) -> str:
    """The file an interval goes to: the UTC hour of its end."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).strftime(HOUR_FORMAT)


class IntervalStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / FOLDER
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--store {root}: {exc.strerror}") from None

    def append(self, interval: dict[str, Any]) -> Path:
        """On disk (fsync'ed, and its folder) when this returns."""
        path = self.folder / f"{_hour_of(interval['end'])}{SUFFIX}"
        line = json.dumps(interval, separators=(",", ":")) + "\n"
        new = not path.exists()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        if new:  # the file's name is in the folder for good
            dir_fd = os.open(self.folder, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        return path

    def files(self) -> list[Path]:
        return sorted(self.folder.glob(f"*{SUFFIX}"))

    def intervals(self) -> Iterator[dict[str, Any]]:
        """Every interval kept, oldest first; a last line cut short by a
        crash is skipped."""
        for path in self.files():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue

    def prune(self, keep_ms: int, now: datetime | None = None) -> list[Path]:
        """Removes the files whose whole hour ended more than keep_ms ago."""
        now = now or datetime.now(UTC)
        cutoff = now - timedelta(milliseconds=keep_ms)
        gone = []
        for path in self.files():
            try:
                hour = datetime.strptime(path.stem, HOUR_FORMAT).replace(tzinfo=UTC)
            except ValueError:
                continue  # not one of ours: left alone
            if hour + timedelta(hours=1) <= cutoff:
                path.unlink(missing_ok=True)
                gone.append(path)
        return gone
