"""IRQ-P-LAT's interrupt figure on FreeRTOS begins where the timer fires.

Under --icount the board's time is its instruction count (2**shift ns
each), and the emulator takes the timer's interrupt at the instant it is
due. The figure (irq.service.isr) is then the instructions run from the
timer's vector to its handler's clock read, which QEMU's instruction
trace counts on its own (up to the clock's load, which clock.c labels):
the two agree within the clock's count and a few instructions (exception
entry, the emulated STM32 timer's re-arm). A
figure measured from a clock read made before the arming's arithmetic,
as it once was, is several microseconds above the count.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from probe_run import ROOT, validate

from rtgauge.targets import freertos_qemu
from rtgauge.targets.firmware import find_firmware
from rtgauge.targets.freertos_qemu import BoardOptions, BoardRun, run_on_board

SHIFT = 4
# The clock's count (40 ns on MPS2's 25 MHz timer), the exception's entry
# and the emulated STM32 timer's re-arm (each expiry a few instructions
# after its due time): far below the arming's cost the figure once held.
SLACK_NS = 200
_PC = re.compile(rb"\[[0-9a-f]+/([0-9a-f]+)/")


def _tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        pytest.fail(f"{name} missing: make deps-freertos")
    return path


def _symbols(elf: Path) -> dict[str, int]:
    out = subprocess.run([_tool("arm-none-eabi-nm"), str(elf)], capture_output=True, text=True)
    found = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            found[parts[2]] = int(parts[0], 16)
    return found


def _clock_reads(symbols: dict[str, int]) -> set[int]:
    """The measuring clock's one load, wherever it is inlined: the labels
    core/boards/cortex_m/clock.c puts on it (board_clock_read_<n>)."""
    reads = {a for name, a in symbols.items() if re.fullmatch(r"board_clock_read_\d+", name)}
    assert reads, "no board_clock_read_<n> label in the firmware"
    return reads


def _vector_to_read(lines: Iterator[bytes], vector: int, reads: set[int]) -> list[int]:
    """Instructions from each entry of the vector to the next clock load."""
    counts, last, i, entered = [], -1, 0, None
    for line in lines:
        m = _PC.search(line)
        if not m:
            continue
        pc = int(m.group(1), 16)
        if pc == last:
            continue  # one instruction logged again after an icount exit
        last, i = pc, i + 1
        if pc == vector:
            entered = i
        elif pc in reads and entered is not None:
            counts.append(i - entered)
            entered = None
    return counts


@pytest.mark.parametrize("board", ["mps2-an385", "netduinoplus2"])
def test_the_interrupt_figure_is_the_path_from_the_vector_to_the_clock_read(
    board: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not shutil.which("qemu-system-arm"):
        pytest.fail("qemu-system-arm missing: make deps-freertos")
    elf = find_firmware(ROOT, board)
    symbols = _symbols(elf)
    vector, reads = symbols["board_isr_irq_timer"], _clock_reads(symbols)
    with tempfile.TemporaryDirectory() as tmp:
        fifo = Path(tmp) / "exec.log"
        os.mkfifo(fifo)
        plain = freertos_qemu.qemu_command
        monkeypatch.setattr(
            freertos_qemu,
            "qemu_command",
            lambda q, o: [*plain(q, o), "-d", "exec,nochain", "-singlestep", "-D", str(fifo)],
        )
        counts: list[int] = []

        def count() -> None:
            with open(fifo, "rb") as f:
                counts.extend(_vector_to_read(iter(f), vector, reads))

        reader = threading.Thread(target=count)
        reader.start()
        # single-stepping with a log is slow: the boot gets its time
        opts = BoardOptions(firmware=elf, icount=SHIFT, board=board, boot_timeout_s=900)
        args = [
            "--tests",
            "IRQ-P-LAT",
            "--quick",
            "--no-explain",
            "--opt",
            "IRQ-P-LAT.duration_ms=100",
        ]
        records: list[Any] = [json.loads(line) for line in run_on_board(opts, args, BoardRun())]
        reader.join()
    for r in records:
        validate(r)
    irq = next(r for r in records if r["record"] == "test" and r["id"] == "IRQ-P-LAT")
    svc = next(m for m in irq["metrics"] if m["name"] == "irq.service.isr")
    assert svc["count"] > 0 and len(counts) >= svc["count"], (svc["count"], len(counts))
    low, high = min(counts) << SHIFT, max(counts) << SHIFT
    assert low - SLACK_NS <= svc["min"] <= low + SLACK_NS, (svc["min"], sorted(set(counts)))
    assert high - SLACK_NS <= svc["max"] <= high + SLACK_NS, (svc["max"], sorted(set(counts)))
