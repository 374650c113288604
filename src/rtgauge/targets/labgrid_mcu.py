"""A labgrid place whose board is a microcontroller: a serial console and a
debug probe, no network.

The board's firmware (core/boards/<board>/, the FreeRTOS catalogue) is
flashed through labgrid's bootstrap driver, its OpenOCDDriver (the board's
openocd.cfg, `program` with verify and reset), on the exporter's host where
the probe is plugged in. The records are read from the console through
labgrid's SerialDriver (its ConsoleProtocol), the arguments answered on it
(fw_session.py, as for a board under QEMU). After RESTART the board is reset
through OpenOCD and given the tests left, as the QEMU target boots again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtgauge.errors import RunError, UsageError
from rtgauge.targets.firmware import BOARDS, board_named
from rtgauge.targets.framing import framed_from
from rtgauge.targets.fw_session import BoardRun, run_boots

CONSOLES = ("NetworkSerialPort",)
PROBES = ("NetworkUSBDebugger", "NetworkAlteraUSBBlaster")
# What OpenOCD runs: flash and verify the ELF, reset the board into it; and a
# reset alone (after RESTART). labgrid fills {filename} with the ELF's path
# on the exporter's host.
LOAD_COMMANDS = ["init", "program {filename} verify reset", "shutdown"]
RESET_COMMANDS = ["init", "reset run", "shutdown"]


@dataclass
class McuParts:
    """What of the place rtgauge drives: its console and its debug probe."""

    console: str  # resource names
    probe: str
    board: str
    firmware: Path
    openocd_config: Path
    openocd: str | None = None  # OpenOCD on the exporter's host; None: its PATH's
    boot_timeout_s: float = 30.0
    idle_timeout_s: float = 180.0
    max_boots: int = 64
    run: BoardRun = field(default_factory=BoardRun)


def mcu_parts(
    place: str,
    resources: dict[tuple[str, str], Any],
    tags: dict[str, str],
    board: str | None,
    root: Path,
) -> tuple[str, str, str]:
    """The console's and the probe's resource names and the board, or one
    line saying what the place lacks."""
    consoles = sorted(name for name, cls in resources if cls in CONSOLES)
    probes = sorted(name for name, cls in resources if cls in PROBES)
    if not consoles:
        raise UsageError(
            f"labgrid place {place} has neither a NetworkService (a board reached over SSH) "
            "nor a serial console (NetworkSerialPort, a microcontroller board): see docs/lab.md"
        )
    if not probes:
        raise UsageError(
            f"labgrid place {place} has a serial console but no debug probe for labgrid's "
            f"bootstrap driver (OpenOCDDriver: {' or '.join(PROBES)}): rtgauge flashes a "
            "microcontroller board through it"
        )
    name = board or tags.get("board")
    if not name or name not in BOARDS:
        raise UsageError(
            f"labgrid place {place} is a microcontroller board: say which with --board "
            f"(boards: {', '.join(BOARDS)}){f'; its tag board={name} is none of them' if name else ''}"
        )
    board_named(name)
    if not (root / "core" / "boards" / name / "openocd.cfg").is_file():
        raise UsageError(f"core/boards/{name} has no openocd.cfg: rtgauge cannot flash it")
    return consoles[0], probes[0], name


def openocd_driver(target: Any, parts: McuParts) -> Any:
    """labgrid's OpenOCDDriver for the place's probe, with the board's config."""
    from labgrid import target_factory

    driver = target_factory.make_driver(
        target,
        "OpenOCDDriver",
        None,
        {"config": str(parts.openocd_config), "load_commands": LOAD_COMMANDS},
    )
    if parts.openocd:
        driver.tool = parts.openocd
    return driver


def _openocd_failure(place: str, what: str, exc: Exception) -> RunError:
    out = getattr(exc, "output", b"") or b""
    text = out.decode(errors="replace") if isinstance(out, bytes) else str(out)
    lines = [line.strip() for line in text.replace("\r", "\n").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error")]
    last = (errors or lines)[-1] if lines else str(exc)
    return RunError(f"labgrid place {place}: {what} through OpenOCD failed: {last}")


class _ConsoleBoot:
    """One boot of the board: its console's framed lines, and our answers."""

    def __init__(self, console: Any, parts: McuParts, stop: threading.Event) -> None:
        self._console, self._parts, self._stop = console, parts, stop

    def _read(self, wait_s: float) -> bytes | None:
        from labgrid.driver.serialdriver import TIMEOUT

        if self._stop.is_set():
            return None
        try:
            data: bytes = self._console.read(size=1, max_size=65536, timeout=wait_s)
        except TIMEOUT:
            return b""
        return data

    def bodies(self) -> Iterator[str]:
        p = self._parts
        return framed_from(self._read, p.boot_timeout_s, p.idle_timeout_s, p.run.output_tail)

    def send(self, data: bytes) -> None:
        self._console.write(data)

    def close(self) -> str:
        return ""  # the board stays where the firmware left it (stopped)


class McuBoard:
    """The firmware on a lab's microcontroller board, through labgrid's drivers."""

    def __init__(self, place: str, lg_target: Any, parts: McuParts) -> None:
        self.place, self.parts = place, parts
        self.stop = threading.Event()
        self._target = lg_target
        self._console: Any = None
        self._openocd: Any = None
        self._flashed = False

    def activate(self) -> None:
        from labgrid import target_factory

        # labgrid prints what OpenOCD says on stdout unless its Process log is
        # at its own level: rtgauge keeps it for the error it reports.
        from labgrid.util.helper import ProcessWrapper

        logging.getLogger("Process").setLevel(ProcessWrapper.loglevel)
        try:
            self._console = target_factory.make_driver(self._target, "SerialDriver", None, {})
            self._target.activate(self._console)
            self._openocd = openocd_driver(self._target, self.parts)
            self._target.activate(self._openocd)
        except Exception as exc:  # labgrid raises its own errors and serial's
            raise RunError(f"labgrid place {self.place}: {exc}") from exc

    def _drain(self) -> None:
        """What came before this boot is not its output."""
        from labgrid.driver.serialdriver import TIMEOUT

        try:
            while self._console.read(size=1, max_size=65536, timeout=0.2):
                pass
        except TIMEOUT:
            pass

    def _boot(self) -> _ConsoleBoot:
        """Flashes the firmware the first time, resets the board after."""
        try:
            if not self._flashed:
                self._openocd.load(str(self.parts.firmware))
                self._flashed = True
            else:
                self._openocd.execute(RESET_COMMANDS)
        except Exception as exc:  # labgrid's own (ExecutionError), OpenOCD's exit
            what = "the reset" if self._flashed else "flashing"
            raise _openocd_failure(self.place, what, exc) from exc
        self._drain()
        return _ConsoleBoot(self._console, self.parts, self.stop)

    def run(self, probe_args: list[str]) -> Iterator[str]:
        p = self.parts
        return run_boots(self._boot, probe_args, p.run, [], p.max_boots)
