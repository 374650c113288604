"""rtgauge lab: run a set of targets and write their comparison. The set is a
lab file (--file lab.toml: local, QEMU kernels, SSH hosts, labgrid places or
tags, docs/lab.md) or a named built-in set (--set: this machine and Debian
kernels under QEMU). Targets on different machines run at once (--parallel)."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from rtgauge.cli import run
from rtgauge.cli.common import add_deadline, add_push, add_results_dir
from rtgauge.cli.compare import run_compare
from rtgauge.cli.lab_file import LabEntry, entries_from_set, load_lab_file
from rtgauge.cli.lab_pool import Outcome, run_all
from rtgauge.errors import RunError, UsageError
from rtgauge.fmt import term
from rtgauge.store import safe_name, utc_stamp
from rtgauge.targets.firmware import board_named
from rtgauge.targets.registry import KINDS


def lab_sets() -> dict[str, list[dict[str, Any]]]:
    text = resources.files("rtgauge").joinpath("data/labs.json").read_text()
    sets: dict[str, list[dict[str, Any]]] = json.loads(text)["sets"]
    return sets


def add_arguments(p: argparse.ArgumentParser) -> None:
    which = p.add_mutually_exclusive_group()
    which.add_argument("--file", type=Path, help="a lab file (TOML) naming the targets")
    which.add_argument(
        "--set", help=f"a built-in set, one of {', '.join(lab_sets())} (without --file: default)"
    )
    p.add_argument(
        "--parallel",
        type=int,
        default=1,
        metavar="N",
        help="run up to N targets at once, never two on one machine (default 1)",
    )
    run.add_probe_options(p)
    p.add_argument("--probe", help="the probe binary (local targets)")
    for kind in KINDS:
        kind.add_options(p)
    add_results_dir(p)
    add_push(p)
    add_deadline(p)
    p.set_defaults(execute=execute)


def _entries(args: argparse.Namespace) -> tuple[str, list[LabEntry]]:
    if args.file:
        return safe_name(args.file.stem), load_lab_file(args.file, args)
    name = args.set or "default"
    sets = lab_sets()
    if name not in sets:
        raise UsageError(f"--set {name!r}: one of {', '.join(sets)}")
    return name, entries_from_set(sets[name], f"--set {name}")


def execute(args: argparse.Namespace) -> int:
    if args.parallel < 1:
        raise UsageError("--parallel: at least 1")
    if getattr(args, "board", None):
        board_named(args.board)  # an unknown board is bad input, before anything runs
    name, entries = _entries(args)
    token = run.push_token(args)
    args.no_report = False
    outcomes = run_all(entries, args, args.parallel)
    _table(outcomes)
    bundles = [o.path for o in outcomes if o.path is not None]
    worst = max(o.code for o in outcomes)
    for path in bundles:  # every run that was stored, whatever the comparison does
        worst = max(worst, run.push_run(args, token, path))
    if len(bundles) < 2:  # what did run is kept in the store all the same
        raise RunError("fewer than two targets produced a run: nothing to compare")
    out = args.results_dir / f"lab-{name}-{utc_stamp()}"
    for p in run_compare(
        bundles, out, None, args.deadline, args.miss_rate, confidence=args.confidence
    ):
        print(p)
    return worst


def _table(outcomes: list[Outcome]) -> None:
    """A line per target, its name and machine in full (columns as wide as
    the longest)."""
    names = [term(o.entry.name) for o in outcomes]
    machines = [term(o.entry.machine) for o in outcomes]
    wn = max([len("target"), *map(len, names)])
    wm = max([len("machine"), *map(len, machines)])
    print(f"{'target':<{wn}} {'machine':<{wm}} {'exit':>4}  result", file=sys.stderr)
    for o, name, machine in zip(outcomes, names, machines, strict=True):
        result = str(o.path) if o.path else f"failed: {o.error}"
        print(f"{name:<{wn}} {machine:<{wm}} {o.code:>4}  {term(result)}", file=sys.stderr)
