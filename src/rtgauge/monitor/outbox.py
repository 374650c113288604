"""Closed intervals on their way to a result server (POST /api/intervals).

Every interval goes through the outbox folder (push_queue's files, order and
bound): queued, then the queue is sent oldest first until the server is not
reached. A refusal of the interval (4xx) is said once per status and the
interval set aside (refused/ with its reason), never sent again; a refusal
of the request (401, 403, 404, 405: the token, the address) is said once
and leaves the queue as it is, for a monitor started with the right ones;
not reached (no answer, 5xx,
408, 429) leaves it, and those after it, queued for the next try. A queue
at its bound takes no more: the interval stays in the store, said once.

A worker thread does the sending, so a slow or absent server never delays
the next interval's measurement."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from rtgauge import push_queue
from rtgauge.pushing import send

ROUTE = "/api/intervals"
# An interval is small beside a run: the monitor's queue holds 30 days of
# 5-minute intervals unless the environment bounds it otherwise.
DEFAULT_MAX_INTERVALS = 8640
DEFAULT_MAX_MB = 512.0
SEND_TIMEOUT_S = 30.0


def bound() -> push_queue.Bound:
    """$RTGAUGE_QUEUE_MAX_BUNDLES / _MB when set, else the monitor's defaults."""
    env = os.environ
    if env.get(push_queue.MAX_BUNDLES_ENV) or env.get(push_queue.MAX_MB_ENV):
        return push_queue.queue_bound()
    return push_queue.Bound(DEFAULT_MAX_INTERVALS, int(DEFAULT_MAX_MB * 2**20))


class Outbox:
    def __init__(self, server: str, token: str, folder: Path, say: Callable[[str], None]) -> None:
        self.server = server
        self.token = token
        self.folder = folder
        self.say = say
        self.bound = bound()
        self.sent = 0
        self.refused = 0
        self.not_queued = 0
        self._said: set[str] = set()
        self._away = False
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one send at a time: the order holds
        self._thread = threading.Thread(target=self._work, name="outbox", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._wake.set()  # what a previous monitor left queued goes first

    def put(self, raw: bytes) -> None:
        """Queues one payload and wakes the worker."""
        try:
            push_queue.enqueue(raw, self.server, self.folder, self.bound)
        except push_queue.QueueFull as full:
            self.not_queued += 1
            self._once("full", f"outbox: {full} (the interval is kept in the store)")
            return
        self._wake.set()

    def waiting(self) -> int:
        return len(self._mine())

    def _mine(self) -> list[push_queue.Queued]:
        return [q for q in push_queue.queued(self.folder) if q.server in ("", self.server)]

    def _once(self, key: str, text: str) -> None:
        if key not in self._said:
            self._said.add(key)
            self.say(text)

    def _work(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            if not self._stop.is_set():
                self.drain()

    def drain(self, timeout: float = SEND_TIMEOUT_S) -> None:
        """Sends the queue oldest first; stops at the first not reached."""
        with self._lock:
            for item in self._mine():
                try:
                    raw = item.path.read_bytes()
                except OSError:
                    continue
                got = send(self.server, raw, self.token, timeout, ROUTE)
                if got.what == "unreachable":
                    if not self._away:
                        self._away = True
                        self.say(f"outbox: {got.message}; intervals queued in {self.folder}")
                    return
                if self._away:
                    self._away = False
                    self.say(f"outbox: {self.server} reached again; sending the queue")
                if got.what == "refused" and not got.bundle_refused:
                    # the token or the address, not the interval: it waits
                    # for a monitor started with the right ones
                    self._once(
                        f"refused-{got.status}",
                        f"outbox: {got.message}; that is the token or the address, not the "
                        f"interval: intervals stay queued in {self.folder}",
                    )
                    return
                if got.what == "refused":
                    self.refused += 1
                    push_queue.set_aside(item, got.message)
                    self._once(
                        f"refused-{got.status}",
                        f"outbox: {got.message}; not queued, kept in {self.folder / 'refused'}",
                    )
                    continue
                push_queue.dequeue(item.path)
                self.sent += 1

    def close(self, timeout: float) -> None:
        """A last try at the queue (bounded by timeout), then the worker ends."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=5)
        self.drain(timeout)
