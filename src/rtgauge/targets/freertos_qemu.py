"""Run the catalogue as FreeRTOS firmware on a board QEMU emulates: MPS2
AN385 (the default) or the Netduino Plus 2 (an STM32F405 with a real
microcontroller's memory), --board.

The firmware (core/boards, core/osal/freertos) speaks over the board's
record UART, QEMU's stdin and stdout here (fw_session.py: the arguments go
in as an ARGS line, framed lines come out); told it runs under QEMU, it
ends QEMU with its exit code through semihosting. After a fault, or a test
the watchdog had to stop, it says RESTART: QEMU is started again with the
tests left, and the boots become one run.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.model import Record
from rtgauge.probe import repo_root
from rtgauge.targets.base import Target, target_record
from rtgauge.targets.firmware import (
    BOARDS,
    DEFAULT_BOARD,
    DEFAULT_PROFILE,
    PROFILES,
    board_named,
    find_firmware,
    profile_named,
)
from rtgauge.targets.framing import framed_bodies
from rtgauge.targets.fw_session import BoardRun, run_boots

QEMU = "qemu-system-arm"
# With instruction counting and no sleeping, virtual time is a function of
# the instructions run: two runs give identical figures.
ICOUNT_DEFAULT_SHIFT = 4

__all__ = ["BoardOptions", "BoardRun", "FreeRTOSBoard", "qemu_command", "run_on_board"]


@dataclass
class BoardOptions:
    firmware: Path
    icount: int | None = None  # -icount shift; None: plain TCG
    board: str = DEFAULT_BOARD
    boot_timeout_s: float = 30.0  # until the firmware says BEGIN
    idle_timeout_s: float = 180.0  # silence allowed while a test runs
    max_boots: int = 64


def qemu_command(qemu: str, opts: BoardOptions) -> list[str]:
    """QEMU with the board's serial on stdin and stdout, semihosting for the end."""
    cmd = [qemu, *board_named(opts.board).qemu, "-kernel", str(opts.firmware)]
    cmd += ["-display", "none", "-serial", "stdio", "-monitor", "none"]
    cmd += ["-semihosting-config", "enable=on,target=native"]
    if opts.icount is not None:
        cmd += ["-icount", f"shift={opts.icount},sleep=off"]
    return cmd


class _QemuBoot:
    """One boot: QEMU started, its stdout read, its stdin the board's input."""

    def __init__(self, cmd: list[str], opts: BoardOptions, run: BoardRun) -> None:
        self._opts, self._run = opts, run
        self._proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE
        )

    def bodies(self) -> Iterator[str]:
        return framed_bodies(
            self._proc, self._opts.boot_timeout_s, self._opts.idle_timeout_s, self._run.output_tail
        )

    def send(self, data: bytes) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(data)
            self._proc.stdin.flush()
        except BrokenPipeError:
            pass  # QEMU has gone: its silence says the rest

    def close(self) -> str:
        proc = self._proc
        try:
            proc.wait(timeout=2)  # the firmware ends QEMU itself after EXIT
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stdin:
            proc.stdin.close()
        err = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
        return err.splitlines()[-1] if err else ""


def run_on_board(opts: BoardOptions, probe_args: list[str], run: BoardRun) -> Iterator[str]:
    """Boots the board (again after each RESTART) and yields the records."""
    qemu = shutil.which(QEMU)
    if not qemu:
        raise UsageError(f"{QEMU} is missing: make deps-freertos (apt-get install qemu-system-arm)")
    if not opts.firmware.is_file():
        raise UsageError(f"firmware not found: {opts.firmware}")
    fw_extra = ["--fw-qemu", f"icount:{opts.icount}" if opts.icount is not None else "tcg"]
    cmd = qemu_command(qemu, opts)
    return run_boots(lambda: _QemuBoot(cmd, opts, run), probe_args, run, fw_extra, opts.max_boots)


class FreeRTOSBoard(Target):
    """The catalogue as FreeRTOS firmware on a board QEMU emulates (TCG:
    emulated, so timings are not rated; --icount makes them reproducible)."""

    kind, usage = "freertos-qemu", "freertos-qemu"

    def __init__(self, args: argparse.Namespace) -> None:
        self._icount: int | None = getattr(args, "icount", None)
        if self._icount is not None and not 0 <= self._icount <= 10:
            raise UsageError("--icount: the shift must be 0..10")
        if getattr(args, "cpus", None) is not None:
            raise UsageError("--cpus: the FreeRTOS board has one CPU")
        board = board_named(getattr(args, "board", None) or DEFAULT_BOARD)
        if not board.qemu:
            raise UsageError(
                f"--board {board.name}: no QEMU machine models it; run it on the board in a "
                "labgrid lab (docs/lab.md)"
            )
        self._board = board.name
        self._profile = profile_named(getattr(args, "profile", None) or DEFAULT_PROFILE)
        self._opts: BoardOptions | None = None
        self._run = BoardRun()

    @classmethod
    def matches(cls, spec: str) -> bool:
        return spec == "freertos-qemu"

    @classmethod
    def from_args(cls, spec: str, args: argparse.Namespace) -> FreeRTOSBoard:
        return cls(args)

    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group("freertos-qemu target")
        g.add_argument(
            "--icount",
            type=int,
            nargs="?",
            const=ICOUNT_DEFAULT_SHIFT,
            metavar="SHIFT",
            help="QEMU instruction counting: reproducible virtual-time figures "
            f"(shift {ICOUNT_DEFAULT_SHIFT} if not given)",
        )
        g.add_argument(
            "--board",
            metavar="BOARD",
            help=f"the board of the FreeRTOS firmware: {', '.join(BOARDS)} "
            f"(default {DEFAULT_BOARD}; a labgrid place's board too)",
        )
        g.add_argument(
            "--profile",
            metavar="PROFILE",
            help=f"the firmware's kernel configuration: {', '.join(PROFILES)} (default "
            f"{DEFAULT_PROFILE}: the kernel's asserts and stack checks on; lean: off, with "
            "the port's optimised task selection; a labgrid place's board too)",
        )

    def prepare(self) -> None:
        self._opts = BoardOptions(
            firmware=find_firmware(repo_root(), self._board, profile=self._profile),
            icount=self._icount,
            board=self._board,
        )

    def run(self, probe_args: list[str]) -> Iterator[str]:
        assert self._opts is not None, "prepare() first"
        self.stream = run_on_board(self._opts, probe_args, self._run)
        return self.stream

    def outcome(self) -> tuple[int | None, str | None]:
        return self._run.exit_code, self._run.error

    def describe(self) -> Record:
        return target_record(
            "freertos-qemu",
            f"FreeRTOS on QEMU {self._board}",
            True,  # TCG, whatever the firmware says
            False,
            board=self._board,
            profile=self._profile,
            firmware=str(self._opts.firmware) if self._opts else None,
            accel="tcg",
            icount_shift=self._icount,
            boots=self._run.boots,
        )

    @property
    def probe_command(self) -> str:
        return "rtgauge-fw"
