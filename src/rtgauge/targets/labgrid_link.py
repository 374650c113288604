"""A connection to a labgrid coordinator, through labgrid's own ClientSession.

The session's asyncio loop runs in a thread of its own, so that labgrid keeps
receiving place updates (and notices a lost coordinator) while the run streams
the probe's lines in the caller's thread. labgrid is an optional dependency:
it is imported only when a labgrid:// target is used.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from rtgauge.errors import RunError, UsageError

DEFAULT_COORDINATOR = "127.0.0.1:20408"  # labgrid's own default
CONNECT_SECONDS = 15.0
T = TypeVar("T")


def coordinator_address(explicit: str | None) -> str:
    """The address given, else labgrid's LG_COORDINATOR, else labgrid's default."""
    return explicit or os.environ.get("LG_COORDINATOR") or DEFAULT_COORDINATOR


@functools.cache  # once per process: the log filter below is added once
def _labgrid() -> Any:
    try:
        from labgrid.remote import client
    except ImportError as exc:
        raise UsageError("labgrid is not installed: pip install 'rtgauge[labgrid]'") from exc
    # labgrid's client logs a lost coordinator on the root logger; rtgauge says
    # it itself, in its own words, once.
    logging.getLogger().addFilter(_not_from(Path(client.__file__).parent.parent))
    return client


def _not_from(package: Path) -> Callable[[logging.LogRecord], bool]:
    def keep(record: logging.LogRecord) -> bool:
        return not record.pathname.startswith(str(package))

    return keep


class Coordinator:
    """One labgrid ClientSession, its loop in a background thread."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.lost = threading.Event()  # set when the coordinator stops answering
        self._closing = False  # our own stop() also ends labgrid's stream: not a loss
        self._on_lost: list[Callable[[], None]] = []
        self._client = _labgrid()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="labgrid", daemon=True)
        self._thread.start()
        self.session: Any = None
        try:
            self.session = self._call(self._start(), CONNECT_SECONDS)
        except BaseException:
            self.close()
            raise

    async def _start(self) -> Any:
        client = self._client
        addr = client.proxymanager.get_grpc_address(self.address, default_port=20408)
        session = client.ClientSession(addr, self._loop, args=argparse.Namespace())
        try:
            await session.start()
        except client.Error as exc:
            raise UsageError(f"labgrid coordinator {self.address}: {exc}") from exc
        self._loop.create_task(self._watch(session))
        return session

    async def _watch(self, session: Any) -> None:
        await session.stopping.wait()  # labgrid sets it when its stream to the coordinator ends
        if self._closing:
            return
        self.lost.set()
        for callback in self._on_lost:
            callback()

    def on_lost(self, callback: Callable[[], None]) -> None:
        """Calls back (from the labgrid thread) when the coordinator is lost."""
        self._on_lost.append(callback)
        if self.lost.is_set():
            callback()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The session's event loop, running in its own thread."""
        return self._loop

    def _call(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except TimeoutError as exc:
            future.cancel()
            raise RunError(
                f"labgrid coordinator {self.address}: no answer in {timeout:.0f} s"
            ) from exc

    def _check(self) -> None:
        if self.lost.is_set():
            raise RunError(f"lost the labgrid coordinator {self.address}")

    def places(self) -> dict[str, Any]:
        self._check()
        return dict(self.session.places)

    def tagged(self, tags: dict[str, str]) -> list[str]:
        """Names of the places that carry every one of these tags."""
        return sorted(
            name
            for name, place in self.places().items()
            if all(place.tags.get(k) == v for k, v in tags.items())
        )

    def acquire(self, name: str, wait_s: float) -> None:
        """Acquires the place; waits up to wait_s while someone else holds it."""
        deadline = time.monotonic() + wait_s
        place = self._place(name)
        try:
            self.session.check_matches(place)
        except self._client.Error as exc:
            raise UsageError(f"labgrid place {name}: {exc}") from exc
        while True:
            place = self._place(name)
            if not place.acquired:
                try:
                    self._call(self._acquire(name), CONNECT_SECONDS)
                    return
                except RunError:
                    if time.monotonic() >= deadline or self.lost.is_set():
                        raise
            if time.monotonic() >= deadline:
                raise RunError(
                    f"labgrid place {name} is held by {place.acquired}: "
                    f"not free within --acquire-timeout {wait_s:g} s"
                )
            time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))

    async def _acquire(self, name: str) -> None:
        pb2 = self._client.labgrid_coordinator_pb2
        try:
            await self.session.stub.AcquirePlace(pb2.AcquirePlaceRequest(placename=name))
        except self._client.grpc.aio.AioRpcError as exc:  # taken in between: try again
            raise RunError(f"labgrid place {name}: {exc.details()}") from exc
        await self.session.sync_with_coordinator()

    def release(self, name: str) -> None:
        self._check()
        self._call(self._release(name), CONNECT_SECONDS)

    async def _release(self, name: str) -> None:
        pb2 = self._client.labgrid_coordinator_pb2
        try:
            await self.session.stub.ReleasePlace(pb2.ReleasePlaceRequest(placename=name))
        except self._client.grpc.aio.AioRpcError as exc:
            raise RunError(f"labgrid place {name}: release failed: {exc.details()}") from exc
        await self.session.sync_with_coordinator()

    def _place(self, name: str) -> Any:
        self._check()
        place = self.session.places.get(name)
        if place is None:
            known = ", ".join(sorted(self.session.places)) or "none"
            raise UsageError(f"labgrid place {name!r} does not exist (places: {known})")
        return place

    def resources(self, name: str) -> dict[tuple[str, str], Any]:
        """The acquired place's resources by (name, class), as labgrid resolves them."""
        try:
            resources: dict[tuple[str, str], Any] = self.session.get_target_resources(
                self._place(name)
            )
        except self._client.Error as exc:
            raise RunError(f"labgrid place {name}: {exc}") from exc
        return resources

    def close(self) -> None:
        self._closing = True
        if self.session is not None and not self.lost.is_set():
            try:
                self._call(self._stop(), CONNECT_SECONDS)
            except RunError:
                pass  # closing: the coordinator going away now changes nothing
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=CONNECT_SECONDS)
        if not self._thread.is_alive():
            self._loop.close()

    async def _stop(self) -> None:
        await self.session.stop()
        await self.session.close()
