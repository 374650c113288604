"""The framed lines a QEMU guest or board writes on its console.

Every line the host accepts starts with FRAME (kernel and firmware noise
on the same port can never be mistaken for a record). One reader serves
the Linux guests (qemu.py), the FreeRTOS boards under QEMU
(freertos_qemu.py) and a lab's boards read through labgrid's console
(labgrid_mcu.py).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from collections.abc import Callable, Iterator

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
    fd = proc.stdout.fileno()

    def read(wait_s: float) -> bytes | None:
        if not sel.select(timeout=wait_s):
            return None if proc.poll() is not None else b""
        return os.read(fd, 65536) or None

    return framed_from(read, first_s, idle_s, tail)


def framed_from(
    read: Callable[[float], bytes | None],
    first_s: float,
    idle_s: float,
    tail: list[str] | None = None,
) -> Iterator[str]:
    """framed_bodies over any byte source: read(wait_s) returns what came within
    wait_s (b"" when nothing did), None once the source has ended."""
    buf = b""
    begun = False
    deadline = time.monotonic() + first_s
    while True:
        if time.monotonic() > deadline:
            raise Silent(idle_s if begun else first_s, begun)
        chunk = read(0.5)
        if chunk is None:
            return
        if not chunk:
            continue
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
