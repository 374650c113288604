"""The monitor's loop: back-to-back probe runs of one interval each.

Each run measures one duration test for one interval with the flight
recorder on; when its test record arrives the interval is built, put on
disk (fsync), shown on /metrics and handed to the outbox, and the next run
starts at once. What lies between two runs (the probe's start, its system
facts, the recorder's set-up and the explanation of the last one's worst)
is measured, not hidden: each interval's gap_ms (docs/monitor.md)."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from rtgauge.errors import UsageError
from rtgauge.model import Record, parse_line
from rtgauge.monitor.intervals import Span, interval
from rtgauge.monitor.metrics_http import Newest
from rtgauge.monitor.outbox import Outbox
from rtgauge.monitor.store import IntervalStore
from rtgauge.targets.base import Target

RETRY_S = 10.0  # after a probe run that gave no interval, before the next try


@dataclass(frozen=True)
class Settings:
    test: str
    cpus: str | None
    interval_ms: int
    label: str | None
    for_ms: int | None  # None: until stopped
    keep_ms: int
    prio: str | None = None


@dataclass
class Arrival:
    """When the test record came: the host's wall and monotonic clocks."""

    wall: float
    mono: float


class Monitor:
    def __init__(
        self,
        target: Target,
        settings: Settings,
        store: IntervalStore,
        outbox: Outbox | None,
        newest: Newest | None,
        out: TextIO,
        err: TextIO,
    ) -> None:
        self.target = target
        self.s = settings
        self.store = store
        self.outbox = outbox
        self.newest = newest
        self.out = out
        self.err = err
        self.kept = 0
        self.last_end: str | None = None
        self.system: Record | None = None
        self.measured = 0  # probe runs that gave an interval
        self._stopping = threading.Event()
        self._said: set[str] = set()
        # Building an interval (the explanation) and closing it happen in a
        # thread of their own, in order, while the next interval measures.
        self._closing: queue.Queue[tuple[list[Record], Span] | None] = queue.Queue()
        self._closer = threading.Thread(target=self._close_all, name="closer", daemon=True)

    def stop(self) -> None:
        """From a signal handler: the running interval ends now and is kept."""
        self._stopping.set()
        self.target.stop()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def _say(self, text: str) -> None:
        print(f"rtgauge monitor: {text}", file=self.err, flush=True)

    def probe_args(self, duration_ms: int) -> list[str]:
        out = ["--tests", self.s.test, "--duration-ms", str(duration_ms)]
        if self.s.cpus:
            out += ["--cpus", self.s.cpus]
        if self.s.prio:
            out += ["--prio", self.s.prio]
        return out

    def _one_run(self, duration_ms: int) -> tuple[list[Record], Arrival | None]:
        """One probe run: its records, and when its test record arrived."""
        records: list[Record] = []
        arrival = None
        for line in self.target.run(self.probe_args(duration_ms)):
            if self.stopping:  # a signal between two runs found no probe to stop
                self.target.stop()
            try:
                record = parse_line(line, "probe output")
            except UsageError as exc:
                self._once(str(exc), f"warning: {exc}")
                continue
            if record.get("record") == "test" and arrival is None:
                arrival = Arrival(time.time(), time.monotonic())
            records.append(record)
        return records, arrival

    def _once(self, key: str, text: str) -> None:
        if key not in self._said:
            self._said.add(key)
            self._say(text)

    def run(self) -> None:
        # The analysis loads scipy when first asked for a bound (seconds of
        # CPU): loaded before the first interval, not while one measures.
        from rtgauge.analysis.binomial import upper_bound

        upper_bound(0, 1000, 0.95)
        self._closer.start()
        try:
            self._measure()
        finally:
            self._closing.put(None)
            self._closer.join()

    def _close_all(self) -> None:
        while (item := self._closing.get()) is not None:
            records, span = item
            try:
                built = interval(records, span)
                if built is not None:
                    self._close(records[0], built)
            except Exception as exc:  # one interval lost is said, the monitor goes on
                self._say(f"an interval could not be kept ({type(exc).__name__}: {exc})")

    def _measure(self) -> None:
        started = time.monotonic()
        prev_end: float | None = None  # monotonic end of the last interval
        while not self.stopping:
            duration = self.s.interval_ms
            if self.s.for_ms is not None:
                left = self.s.for_ms - (time.monotonic() - started) * 1000
                if left < 100:  # the probe's shortest duration
                    break
                duration = min(duration, int(left))
            records, arrival = self._one_run(duration)
            test = next((r for r in records if r.get("record") == "test"), None)
            if test is None or arrival is None:
                self._no_interval()
                continue
            if "duration_ms" not in (test.get("options") or {}) and self.measured == 0:
                raise UsageError(
                    f"--tests {self.s.test}: not a duration test (e.g. TMR-P-LAT, IRQ-P-LAT)"
                )
            measured_s = float(test.get("duration_ms") or duration) / 1000.0
            start_mono = arrival.mono - measured_s
            gap_ms = 0.0 if prev_end is None else (start_mono - prev_end) * 1000.0
            prev_end = arrival.mono
            self.measured += 1
            self._closing.put((records, Span(arrival.wall - measured_s, arrival.wall, gap_ms)))

    def _no_interval(self) -> None:
        if self.stopping:
            return
        code, message = self.target.outcome()
        if self.measured == 0 and code == 2 and message:  # the probe refused its arguments
            raise UsageError(message.removeprefix("rtgauge-probe: error: "))
        self._once(
            f"none-{code}-{message}",
            f"a probe run gave no interval ({message or f'exit code {code}'}); "
            f"trying again in {RETRY_S:.0f} s",
        )
        self._stopping.wait(RETRY_S)

    def _close(self, system: Record, built: dict[str, Any]) -> None:
        """Kept on disk first, then shown and sent."""
        host = str((system.get("host") or {}).get("hostname") or "unknown")
        first = self.system is None
        if first:
            self.system = system
        line = {"host": host, "label": self.s.label, **built}
        self.store.append(line)
        self.kept += 1
        self.last_end = built["end"]
        self.store.prune(self.s.keep_ms)
        if self.newest is not None:
            self.newest.set(line)
        print(interval_line(built), file=self.out, flush=True)
        if self.outbox is not None:
            payload: dict[str, Any] = {
                "kind": "rtgauge-intervals",
                "version": 1,
                "host": host,
                "label": self.s.label,
            }
            if first:
                payload["system"] = system
            payload["intervals"] = [built]
            self.outbox.put(json.dumps(payload, separators=(",", ":")).encode("utf-8"))


def interval_line(iv: dict[str, Any]) -> str:
    """One line per closed interval on stdout."""
    w = iv.get("worst")
    if w:
        value = f"max {w['value_ns'] / 1000:.1f} us ({w['figure']})"
        why = f"; worst: {w['culprit'] or w['summary']}"
    else:
        value, why = "no samples", ""
    rt = "rt" if iv["rt"] else "NOT real-time"
    return (
        f"interval {iv['start']} .. {iv['end']} {iv['test']}: {value}, "
        f"gap {iv['gap_ms']:.1f} ms, {rt}{why}"
    )


def run_monitor(monitor: Monitor, say: Callable[[str], None]) -> None:
    """Runs until stopped or --for is over, then says what was kept."""
    try:
        monitor.run()
    finally:
        where = monitor.store.folder
        last = f", the last ending {monitor.last_end}" if monitor.last_end else ""
        say(f"stopped: {monitor.kept} intervals kept in {where}{last}")
