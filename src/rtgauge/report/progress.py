"""Progress of a run, fed by the probe's records as they arrive."""

from __future__ import annotations

import shutil
import time
from typing import TextIO

from rtgauge.fmt import clip, term, us
from rtgauge.intervals import duration_words
from rtgauge.model import IntervalRecord, Record, System, TestRecord

BAR_WIDTH = 20


def _bar(done: int, total: int) -> str:
    filled = BAR_WIDTH * done // max(total, 1)
    return "|" + "#" * filled + "." * (BAR_WIDTH - filled) + "|"


class Progress:
    """One \\r-rewritten line on a terminal; one line per test otherwise (logs, CI)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self.planned: list[str] = []
        self.os: str | None = None  # which documented differences apply
        self.done_count = 0
        self.t0 = time.monotonic()
        self.worst: dict[str, float] = {}  # a duration test's max so far, from its intervals

    def update(self, record: Record) -> None:
        """One checked record of the stream (rtgauge.model.parse_line)."""
        kind = record["record"]
        if kind == "system":
            s = System.read(record)
            self.planned = s.run.tests
            self.os = s.host.os
            first = f" — running {term(self.planned[0])}" if self.planned and self.tty else ""
            self._line(f"{term(s.host.hostname)}: {len(self.planned)} tests{first}")
        elif kind == "interval" and self.tty:
            self._interval(IntervalRecord.read(record))
        elif kind == "test":
            t = TestRecord.read(record, self.os)
            self.done_count += 1
            total = len(self.planned) or self.done_count
            nxt = self.planned[self.done_count] if self.done_count < len(self.planned) else ""
            failing = t.status in ("error", "skipped", "interrupted")
            reason = f" ({term(t.reason)})" if failing and t.reason else ""
            bar = _bar(self.done_count, total) + " " if self.tty else ""
            self._line(
                f"{bar}[{self.done_count}/{total}] {term(t.id)} {t.shown_status}{reason}"
                + (f" — running {term(nxt)}" if nxt and self.tty else "")
            )

    def _interval(self, r: IntervalRecord) -> None:
        """A long test as it goes: time measured, its max so far, time left."""
        worst = r.worst
        if worst is not None:
            self.worst[r.id] = max(worst, self.worst.get(r.id, worst))
        total = len(self.planned) or self.done_count + 1
        max_so_far = f"max {us(self.worst[r.id])} µs" if r.id in self.worst else "no samples yet"
        left = max(r.planned_ms - r.to_ms, 0.0)
        self._line(
            f"[{self.done_count + 1}/{total}] {term(r.id)} "
            f"{duration_words(r.to_ms)} of {duration_words(r.planned_ms)}, {max_so_far}, "
            f"{duration_words(left)} left"
        )

    def _line(self, text: str) -> None:
        elapsed = time.monotonic() - self.t0
        if self.tty:
            # One screen line, or \r no longer rewrites it: cut with a mark.
            width = shutil.get_terminal_size().columns - 1
            self.out.write(f"\r\033[K{clip(f'{elapsed:6.1f}s {text}', width)}")
        else:
            self.out.write(f"{elapsed:6.1f}s {text}\n")
        self.out.flush()

    def done(self) -> None:
        if self.tty:
            self.out.write("\n")
            self.out.flush()
