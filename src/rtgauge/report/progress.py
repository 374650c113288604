"""Progress of a run, fed by the probe's records as they arrive."""

from __future__ import annotations

import shutil
import time
from typing import TextIO

from rtgauge.fmt import clip, term
from rtgauge.model import Record, System, TestRecord

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

    def update(self, record: Record) -> None:
        """One checked record of the stream (rtgauge.model.parse_line)."""
        kind = record["record"]
        if kind == "system":
            s = System.read(record)
            self.planned = s.run.tests
            self.os = s.host.os
            first = f" — running {term(self.planned[0])}" if self.planned and self.tty else ""
            self._line(f"{term(s.host.hostname)}: {len(self.planned)} tests{first}")
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
