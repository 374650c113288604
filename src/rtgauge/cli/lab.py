"""rtgauge lab: run a named set of targets (this machine, Debian kernels under
QEMU, with different preemption models, FreeRTOS on an emulated board) and
write their comparison."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from rtgauge.cli import run
from rtgauge.cli.common import add_deadline, add_results_dir
from rtgauge.cli.compare import run_compare
from rtgauge.errors import UsageError
from rtgauge.store import utc_stamp


def lab_sets() -> dict[str, list[dict[str, Any]]]:
    text = resources.files("rtgauge").joinpath("data/labs.json").read_text()
    sets: dict[str, list[dict[str, Any]]] = json.loads(text)["sets"]
    return sets


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("lab", help="evaluate a named set of systems and compare them")
    p.add_argument("--set", default="default", help=f"one of: {', '.join(lab_sets())}")
    run.add_probe_options(p)
    p.add_argument("--accel", default="auto", help="kvm | tcg | auto for the guests")
    p.add_argument("--vcpus", type=int, default=2)
    p.add_argument("--mem", type=int, default=1024)
    add_results_dir(p)
    add_deadline(p)
    p.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    sets = lab_sets()
    if args.set not in sets:
        raise UsageError(f"--set {args.set!r}: one of {', '.join(sets)}")
    bundles: list[Path] = []
    worst = 0
    for entry in sets[args.set]:
        print(f"\n=== {entry['name']} ===", file=sys.stderr)
        ns = argparse.Namespace(**vars(args))
        ns.target = entry["target"]
        ns.kernel = None
        ns.kernel_package = entry.get("kernel_package")
        ns.append = entry.get("append", "")
        ns.icount = entry.get("icount")
        ns.probe = None
        ns.no_report = False
        ns.ssh_option, ns.identity, ns.sudo = [], None, False
        try:
            code, path = run.perform(ns)
        except UsageError as exc:  # one target failing does not lose the others
            print(f"rtgauge: lab: {entry['name']}: {exc}", file=sys.stderr)
            worst = 3
            continue
        bundles.append(path)
        worst = max(worst, code)
    if len(bundles) < 2:
        raise UsageError("fewer than two targets produced a run: nothing to compare")
    out = args.results_dir / f"lab-{args.set}-{utc_stamp()}"
    for p in run_compare(
        bundles, out, None, args.deadline, args.miss_rate, confidence=args.confidence
    ):
        print(p)
    return worst
