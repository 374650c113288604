"""Run the catalogue as FreeRTOS firmware on QEMU's MPS2 AN385 board.

The firmware (core/osal/freertos) takes its arguments from the semihosting
command line, writes framed lines on UART0 (QEMU's stdout) and ends QEMU
with its exit code. After a fault, or a test the watchdog had to stop, it
says RESTART and ends: the board is booted again with the tests left, and
the records of every boot become one stream (one system record, one end
record made from the test records).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.model import Record
from rtgauge.probe import repo_root
from rtgauge.targets.base import Target, target_record
from rtgauge.targets.framing import Silent, framed_bodies

QEMU = "qemu-system-arm"
BOARD = ["-machine", "mps2-an385", "-cpu", "cortex-m3"]
# With instruction counting and no sleeping, virtual time is a function of
# the instructions run: two runs give identical figures.
ICOUNT_DEFAULT_SHIFT = 4


@dataclass
class BoardOptions:
    firmware: Path
    icount: int | None = None  # -icount shift; None: plain TCG
    boot_timeout_s: float = 30.0  # until the firmware says BEGIN
    idle_timeout_s: float = 180.0  # silence allowed while a test runs
    max_boots: int = 64


@dataclass
class BoardRun:
    """How the boots went: their count, the exit code, the error if any."""

    exit_code: int | None = None
    error: str | None = None
    boots: int = 0
    restarts: list[str] = field(default_factory=list)  # the test after which each came
    output_tail: list[str] = field(default_factory=list)


def find_firmware(root: Path | None, hooks: bool = False) -> Path:
    """$RTGAUGE_FIRMWARE, else the tree's firmware, built (incrementally) first."""
    env = os.environ.get("RTGAUGE_FIRMWARE_HOOKS" if hooks else "RTGAUGE_FIRMWARE")
    if env:
        path = Path(env)
        if not path.is_file():
            raise UsageError(f"firmware not found: {path}")
        return path
    if root is None:
        raise UsageError("no firmware: run from the source tree or set RTGAUGE_FIRMWARE")
    return build_firmware(root, hooks)


def build_firmware(root: Path, hooks: bool) -> Path:
    """Builds the firmware with the cross toolchain; a no-op when up to date."""
    for tool, package in (
        ("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
        ("cmake", "cmake"),
    ):
        if not shutil.which(tool):
            raise UsageError(f"{tool} is missing: make deps-freertos (apt-get install {package})")
    out = root / "build-freertos"  # where make firmware builds it
    name = "rtgauge-fw-hooks.elf" if hooks else "rtgauge-fw.elf"
    toolchain = root / "cmake" / "toolchain-cortex-m3.cmake"
    steps = [["cmake", "--build", str(out), "--target", name]]
    if not (out / "CMakeCache.txt").is_file():
        configure = ["cmake", "-S", str(root / "core/osal/freertos"), "-B", str(out)]
        steps.insert(0, [*configure, f"-DCMAKE_TOOLCHAIN_FILE={toolchain}"])
    for cmd in steps:
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:]
            raise UsageError(f"building the firmware failed: {' '.join(tail) or cmd[0]}")
    return out / name


def qemu_command(qemu: str, opts: BoardOptions, fw_args: list[str]) -> list[str]:
    # semihosting arguments: one arg= each, commas doubled (QEMU's escaping)
    semi = ",".join(f"arg={a.replace(',', ',,')}" for a in ["rtgauge-fw", *fw_args])
    cmd = [qemu, *BOARD, "-kernel", str(opts.firmware), "-display", "none"]
    cmd += ["-serial", "stdio", "-monitor", "none"]
    cmd += ["-semihosting-config", f"enable=on,target=native,{semi}"]
    if opts.icount is not None:
        cmd += ["-icount", f"shift={opts.icount},sleep=off"]
    return cmd


def _with_tests(args: list[str], tests: list[str]) -> list[str]:
    """args with --tests replaced by exactly these ids."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--tests":
            skip = True
            continue
        out.append(a)
    return [*out, "--tests", ",".join(tests)]


class _Boot:
    """One boot's lines: records, and the firmware's own words."""

    def __init__(self) -> None:
        self.begun = False
        self.plan: list[str] | None = None
        self.restart = False
        self.exit_code: int | None = None
        self.error: str | None = None
        self.usage_error: str | None = None


def _boot(cmd: list[str], opts: BoardOptions, boot: _Boot, run: BoardRun) -> Iterator[str]:
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        for body in framed_bodies(proc, opts.boot_timeout_s, opts.idle_timeout_s, run.output_tail):
            if body == "BEGIN":
                boot.begun = True
            elif body.startswith("PLAN "):
                boot.plan = [t for t in body[5:].split(",") if t]
            elif body == "RESTART":
                boot.restart = True
            elif body.startswith("ERROR "):
                boot.usage_error = body[6:]
            elif body.startswith("EXIT "):
                boot.exit_code = int(body[5:].strip() or "3")
            elif body.startswith("{"):
                yield body
    except Silent as silent:
        boot.error = (
            f"the board went silent: no output for {silent.waited_s:.0f} s"
            if boot.begun
            else f"the firmware did not boot: no output in {silent.waited_s:.0f} s"
        )
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        err = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
        if not boot.begun and boot.error is None and boot.usage_error is None:
            boot.error = "the firmware did not boot" + (f": {err.splitlines()[-1]}" if err else "")


def _end_record(
    tests: list[dict[str, object]], complete: bool, elapsed_ms: float
) -> tuple[dict[str, object], int]:
    """The end record of a run that took several boots, from its test records;
    and its exit code."""
    count = {s: sum(1 for t in tests if t.get("status") == s) for s in
             ("ok", "pass", "fail", "error", "skipped", "interrupted")}  # fmt: skip
    code = 3 if count["error"] or not complete else 1 if count["fail"] else 0
    return {
        "record": "end", "schema_version": 1,
        "status": "complete" if complete else "interrupted",
        "tests": len(tests), "passed": count["ok"] + count["pass"], "failed": count["fail"],
        "errors": count["error"], "skipped": count["skipped"],
        "interrupted": count["interrupted"], "exit_code": code,
        "elapsed_ms": round(elapsed_ms),
    }, code  # fmt: skip


def run_on_board(opts: BoardOptions, probe_args: list[str], run: BoardRun) -> Iterator[str]:
    """Boots the board (again after each RESTART) and yields the records."""
    qemu = shutil.which(QEMU)
    if not qemu:
        raise UsageError(f"{QEMU} is missing: make deps-freertos (apt-get install qemu-system-arm)")
    if not opts.firmware.is_file():
        raise UsageError(f"firmware not found: {opts.firmware}")
    fw_extra = ["--fw-qemu", f"icount:{opts.icount}" if opts.icount is not None else "tcg"]
    args = list(probe_args)
    plan: list[str] | None = None
    done: list[str] = []
    tests: list[dict[str, object]] = []
    end_line: str | None = None
    t0 = time.monotonic()
    while run.boots < opts.max_boots:
        boot = _Boot()
        run.boots += 1
        before = len(done)
        for line in _boot(qemu_command(qemu, opts, [*args, *fw_extra]), opts, boot, run):
            record = _peek(line)
            kind = record.get("record")
            if kind == "system" and run.boots > 1:
                continue  # the first boot's describes the run
            if kind == "end":
                end_line = line
                continue
            if kind == "test":
                done.append(str(record.get("id")))
                tests.append(record)
            yield line
        if plan is None:
            plan = boot.plan
        if boot.usage_error:
            run.exit_code, run.error = 2, boot.usage_error
            return
        if boot.error:
            run.exit_code, run.error = 3, boot.error
            break
        if not boot.restart:
            run.exit_code = boot.exit_code if boot.exit_code is not None else 3
            break
        run.restarts.append(done[-1] if done else "?")
        left = [t for t in (plan or []) if t not in done]
        if not left:
            break
        if len(done) == before:
            run.exit_code, run.error = 3, "the board restarted without finishing any test"
            break
        args = _with_tests(probe_args, left)
    else:
        run.exit_code, run.error = 3, f"gave up after {opts.max_boots} boots"
    complete = plan is not None and all(t in done for t in plan) and run.error is None
    if run.boots == 1 and end_line is not None:
        yield end_line
    elif tests or end_line is not None:
        if run.error is None and not complete:
            run.error = "the run ended before every test had a record"
        end, code = _end_record(tests, complete, (time.monotonic() - t0) * 1000)
        yield json.dumps(end)
        run.exit_code = 3 if run.error else code


def _peek(line: str) -> dict[str, object]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class FreeRTOSBoard(Target):
    """The catalogue as FreeRTOS firmware on QEMU's MPS2 AN385 board (TCG:
    emulated, so timings are not rated; --icount makes them reproducible)."""

    kind, usage = "freertos-qemu", "freertos-qemu"

    def __init__(self, args: argparse.Namespace) -> None:
        self._icount: int | None = getattr(args, "icount", None)
        if self._icount is not None and not 0 <= self._icount <= 10:
            raise UsageError("--icount: the shift must be 0..10")
        if getattr(args, "cpus", None) is not None:
            raise UsageError("--cpus: the FreeRTOS board has one CPU")
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

    def prepare(self) -> None:
        self._opts = BoardOptions(firmware=find_firmware(repo_root()), icount=self._icount)

    def run(self, probe_args: list[str]) -> Iterator[str]:
        assert self._opts is not None, "prepare() first"
        self.stream = run_on_board(self._opts, probe_args, self._run)
        return self.stream

    def outcome(self) -> tuple[int | None, str | None]:
        return self._run.exit_code, self._run.error

    def describe(self) -> Record:
        return target_record(
            "freertos-qemu",
            "FreeRTOS on QEMU mps2-an385",
            True,  # TCG, whatever the firmware says
            False,
            board="mps2-an385",
            firmware=str(self._opts.firmware) if self._opts else None,
            accel="tcg",
            icount_shift=self._icount,
            boots=self._run.boots,
        )

    @property
    def probe_command(self) -> str:
        return "rtgauge-fw"
