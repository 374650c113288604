"""Progress of a run, fed by the probe's records as they arrive."""

from __future__ import annotations

import time
from typing import TextIO

from rtgauge.model import Record


class Progress:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self.planned: list[str] = []
        self.done_count = 0
        self.t0 = time.monotonic()

    def update(self, record: Record) -> None:
        kind = record["record"]
        if kind == "system":
            self.planned = list(record["run"]["tests"])
            self._line(f"{record['host']['hostname']}: {len(self.planned)} tests")
        elif kind == "test":
            self.done_count += 1
            total = len(self.planned) or self.done_count
            nxt = self.planned[self.done_count] if self.done_count < len(self.planned) else ""
            reason = f" ({record['reason']})" if record["status"] in ("error", "skipped") else ""
            self._line(
                f"[{self.done_count}/{total}] {record['id']} {record['status']}{reason}"
                + (f" — running {nxt}" if nxt and self.tty else "")
            )

    def _line(self, text: str) -> None:
        elapsed = time.monotonic() - self.t0
        if self.tty:
            self.out.write(f"\r\033[K{elapsed:6.1f}s {text}")
        else:
            self.out.write(f"{elapsed:6.1f}s {text}\n")
        self.out.flush()

    def done(self) -> None:
        if self.tty:
            self.out.write("\n")
            self.out.flush()
