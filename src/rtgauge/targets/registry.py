"""From a --target string to a Target. A new kind of target is a new module
with a Target subclass, and one line in KINDS."""

from __future__ import annotations

import argparse

from rtgauge.errors import UsageError
from rtgauge.targets.base import Target
from rtgauge.targets.freertos_qemu import FreeRTOSBoard
from rtgauge.targets.labgrid_place import LabgridPlace
from rtgauge.targets.local import LocalTarget
from rtgauge.targets.qemu import QemuGuest
from rtgauge.targets.ssh import SshHost

KINDS: tuple[type[Target], ...] = (
    LocalTarget,
    QemuGuest,
    FreeRTOSBoard,
    SshHost,
    LabgridPlace,
)


def target_usage() -> str:
    return " | ".join(k.usage for k in KINDS)


def add_target_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default="local", help=target_usage())
    parser.add_argument("--probe", help="the probe binary (local target)")
    for kind in KINDS:
        kind.add_options(parser)


def make_target(spec: str, args: argparse.Namespace) -> Target:
    for kind in KINDS:
        if kind.matches(spec):
            return kind.from_args(spec, args)
    *first, last = [k.usage for k in KINDS]
    raise UsageError(f"--target {spec!r}: expected {', '.join(first)} or {last}")
