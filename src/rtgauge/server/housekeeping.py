"""The server's timer: monitored intervals older than the retention
(`--interval-retention`, 400 days by default) deleted when the server
starts and every hour after, on a thread of their own. A failure is logged
and tried again at the next hour."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from sqlalchemy.exc import SQLAlchemyError

from rtgauge.store import ResultStore
from rtgauge.store.index_row import now_utc

log = logging.getLogger("rtgauge.server")
EVERY_S = 3600.0


class Housekeeping:
    def __init__(self, store: ResultStore, retention: timedelta, every_s: float = EVERY_S) -> None:
        self.store = store
        self.retention = retention
        self.every_s = every_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="rtgauge-retention", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)

    def sweep(self) -> int:
        """Deletes what is past the retention now; how many intervals."""
        gone = self.store.intervals.drop_before(now_utc() - self.retention)
        if gone:
            log.warning("retention: %d intervals older than %s deleted", gone, self.retention)
        return gone

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.sweep()
            except SQLAlchemyError as exc:
                log.error("retention: the store failed (%s); trying again in an hour", exc)
            self._stop.wait(self.every_s)
