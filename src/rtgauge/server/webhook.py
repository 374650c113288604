"""Sending alerts' webhooks: one background thread, the POSTs in the order
they were made, each tried a bounded number of times with growing pauses.
A failure is logged and never reaches the request that caused the alert,
nor stops the server."""

from __future__ import annotations

import json
import logging
import queue
import threading
import urllib.error
import urllib.request
from typing import Any

log = logging.getLogger("rtgauge.server.alerts")

ATTEMPTS = 4  # the first try and three more
PAUSES_S = (0.5, 2.0, 5.0)
TIMEOUT_S = 10.0
BACKLOG = 1000  # POSTs waiting: beyond, new ones are dropped and logged


class Webhooks:
    def __init__(self, pauses: tuple[float, ...] = PAUSES_S) -> None:
        self._queue: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue(BACKLOG)
        self._stop = threading.Event()
        self._pauses = pauses
        self._thread = threading.Thread(target=self._run, name="rtgauge-webhooks", daemon=True)
        self._thread.start()

    def send(self, url: str, payload: dict[str, Any]) -> None:
        try:
            self._queue.put_nowait((url, payload))
        except queue.Full:
            log.error("webhook %s: %d alerts already waiting, this one dropped", url, BACKLOG)

    def close(self, wait_s: float = 5.0) -> None:
        """Sends what is queued (within `wait_s`), then stops the thread."""
        try:
            self._queue.put(None, timeout=wait_s)
        except queue.Full:
            pass
        self._thread.join(wait_s)
        self._stop.set()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            self._deliver(*item)

    def _deliver(self, url: str, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        for attempt in range(ATTEMPTS):
            try:
                req = urllib.request.Request(url, data=body, method="POST")
                req.add_header("Content-Type", "application/json")
                with urllib.request.urlopen(req, timeout=TIMEOUT_S) as answer:
                    answer.read()
                return
            except (OSError, ValueError) as exc:  # URLError, HTTPError, timeouts are OSErrors
                reason = getattr(exc, "reason", None) or exc
                if attempt + 1 == ATTEMPTS:
                    log.error("webhook %s: %s %s not delivered after %d tries: %s",
                              url, payload.get("event"), payload.get("rule"), ATTEMPTS, reason)  # fmt: skip
                    return
                log.warning(
                    "webhook %s: try %d failed (%s), trying again", url, attempt + 1, reason
                )
                pause = self._pauses[min(attempt, len(self._pauses) - 1)]
                if self._stop.wait(pause):
                    return
