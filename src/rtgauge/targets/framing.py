"""The framed lines a QEMU guest or board writes on its console.

Every line the host accepts starts with FRAME (kernel and firmware noise
on the same port can never be mistaken for a record). One reader serves
the Linux guests (qemu.py) and the FreeRTOS board (freertos_qemu.py).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from collections.abc import Iterator

from rtgauge.targets.initramfs import FRAME


class Silent(Exception):
    """No framed line came in time."""

    def __init__(self, waited_s: float, begun: bool) -> None:
        super().__init__(f"no framed line for {waited_s:.0f} s")
        self.waited_s, self.begun = waited_s, begun


def framed_bodies(
    proc: subprocess.Popen[bytes], first_s: float, idle_s: float, tail: list[str] | None = None
) -> Iterator[str]:
    """The body of every framed line on proc's stdout, until it ends. The first
    must come within first_s, each next within idle_s of the one before, or
    Silent is raised. tail, when given, keeps the last lines of any kind."""
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buf = b""
    begun = False
    deadline = time.monotonic() + first_s
    while True:
        if time.monotonic() > deadline:
            raise Silent(idle_s if begun else first_s, begun)
        if not sel.select(timeout=0.5):
            if proc.poll() is not None:
                return
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            return
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace").rstrip("\r")
            if tail is not None:
                tail[:] = [*tail[-7:], line[:200]]
            pos = line.find(FRAME)
            if pos < 0:
                continue  # not ours: console noise
            begun = True
            deadline = time.monotonic() + idle_s
            yield line[pos + len(FRAME) :]
