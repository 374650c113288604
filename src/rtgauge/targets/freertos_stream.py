"""The freertos-qemu target as a run's stream (see rtgauge.cli.run)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rtgauge.errors import UsageError
from rtgauge.model import Record
from rtgauge.probe import repo_root
from rtgauge.targets.freertos_qemu import BoardOptions, BoardRun, find_firmware, run_on_board

if TYPE_CHECKING:
    from rtgauge.cli.run import Stream


def freertos_stream(args: argparse.Namespace, pargs: list[str]) -> Stream:
    from rtgauge.cli.run import Stream

    icount = getattr(args, "icount", None)
    if icount is not None and not 0 <= icount <= 10:
        raise UsageError("--icount: the shift must be 0..10")
    if "--cpus" in pargs:
        raise UsageError("--cpus: the FreeRTOS board has one CPU")
    opts = BoardOptions(firmware=find_firmware(repo_root()), icount=icount)
    br = BoardRun()
    target: Record = {
        "kind": "freertos-qemu",
        "board": "mps2-an385",
        "firmware": str(opts.firmware),
        "accel": "tcg",
        "emulated": True,
        "icount_shift": icount,
    }

    def lines() -> Iterator[str]:
        yield from run_on_board(opts, pargs, br)
        target["boots"] = br.boots

    return Stream(lines(), lambda: None, target, lambda: (br.exit_code, br.error), "rtgauge-fw")
