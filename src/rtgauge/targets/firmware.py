"""The boards the FreeRTOS firmware is built for (core/boards/<board>/), and
their firmware: found through $RTGAUGE_FIRMWARE_DIR, or built in the source
tree (build-freertos/<board>/, the lean profile's in <board>-lean/),
incrementally."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rtgauge.errors import UsageError

FIRMWARE_DIR = "build-freertos"  # one folder per board below it
DEFAULT_BOARD = "mps2-an385"
# The firmware's kernel configuration (FreeRTOSConfig.h, docs/porting.md):
# checked keeps the kernel's own checks, lean is what a product ships.
PROFILES = ("checked", "lean")
DEFAULT_PROFILE = "checked"


@dataclass(frozen=True)
class Board:
    name: str
    title: str  # for the target's name and the lab sets
    qemu: tuple[str, ...]  # QEMU's machine options; () when no QEMU machine models it


BOARDS: dict[str, Board] = {
    "mps2-an385": Board(
        "mps2-an385",
        "MPS2 AN385 (Cortex-M3, 16 MB heap)",
        ("-machine", "mps2-an385", "-cpu", "cortex-m3"),
    ),
    "netduinoplus2": Board(
        "netduinoplus2",
        "Netduino Plus 2 (STM32F405, Cortex-M4, 128 KB RAM)",
        ("-machine", "netduinoplus2"),
    ),
    "nucleo-f401re": Board(
        "nucleo-f401re",
        "Nucleo-F401RE (STM32F401RE, Cortex-M4, 96 KB RAM)",
        (),  # the part only, in a lab (docs/lab.md)
    ),
}


def board_named(name: str) -> Board:
    board = BOARDS.get(name)
    if board is None:
        raise UsageError(f"--board {name!r}: unknown board (boards: {', '.join(BOARDS)})")
    return board


def profile_named(name: str) -> str:
    if name not in PROFILES:
        raise UsageError(f"--profile {name!r}: unknown profile (profiles: {', '.join(PROFILES)})")
    return name


def board_folder(board: str, profile: str = DEFAULT_PROFILE) -> str:
    """A board's build folder under build-freertos/ (and $RTGAUGE_FIRMWARE_DIR)."""
    return board if profile == DEFAULT_PROFILE else f"{board}-{profile}"


def firmware_name(hooks: bool) -> str:
    return "rtgauge-fw-hooks.elf" if hooks else "rtgauge-fw.elf"


def find_firmware(
    root: Path | None,
    board: str = DEFAULT_BOARD,
    hooks: bool = False,
    build_dir: str = FIRMWARE_DIR,
    profile: str = DEFAULT_PROFILE,
) -> Path:
    """$RTGAUGE_FIRMWARE_DIR/<board>[-lean]/, else the tree's firmware, built first."""
    board_named(board)
    profile_named(profile)
    env = os.environ.get("RTGAUGE_FIRMWARE_DIR")
    if env:
        path = Path(env) / board_folder(board, profile) / firmware_name(hooks)
        if not path.is_file():
            raise UsageError(f"firmware not found: {path} (make firmware)")
        return path
    if root is None:
        raise UsageError("no firmware: run from the source tree or set RTGAUGE_FIRMWARE_DIR")
    return build_firmware(root, board, hooks, build_dir, profile)


def build_firmware(
    root: Path,
    board: str,
    hooks: bool,
    build_dir: str = FIRMWARE_DIR,
    profile: str = DEFAULT_PROFILE,
) -> Path:
    """Builds one board's firmware with the cross toolchain; a no-op when up to
    date. A firmware that does not fit its board stops here, with ld's line
    naming the region and the overflow."""
    for tool, package in (
        ("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
        ("cmake", "cmake"),
    ):
        if not shutil.which(tool):
            raise UsageError(f"{tool} is missing: make deps-freertos (apt-get install {package})")
    out = root / build_dir / board_folder(board, profile)
    name = firmware_name(hooks)
    toolchain = root / "cmake" / "toolchain-arm-none-eabi.cmake"
    steps = [["cmake", "--build", str(out), "--target", name]]
    if not (out / "CMakeCache.txt").is_file():
        configure = ["cmake", "-S", str(root / "core/boards"), "-B", str(out)]
        steps.insert(
            0,
            [
                *configure,
                f"-DRTG_BOARD={board}",
                f"-DRTG_PROFILE={profile}",
                f"-DCMAKE_TOOLCHAIN_FILE={toolchain}",
            ],
        )
    for cmd in steps:
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise UsageError(
                f"building the {board} firmware ({profile}) failed: {build_failure(proc)}"
            )
    return out / name


def build_failure(proc: subprocess.CompletedProcess[str]) -> str:
    """The line that says why: ld's overflow, a compiler error, else the last."""
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    for marker in ("overflowed by", "will not fit in region", "error:", "Error:"):
        found = [line.strip() for line in lines if marker in line]
        if found:
            return found[0]
    return lines[-1].strip() if lines else f"exit code {proc.returncode}"
