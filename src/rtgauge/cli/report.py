"""rtgauge report RUN: the run report in any exporter's format (text, HTML,
Markdown, JSON, CSV tables, JUnit, LAVA, cyclictest histograms), with
optional deadline verdicts. RUN is a bundle file or a stored run's id."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rtgauge.cli.common import add_deadline, parse_confidence, parse_duration_ns, parse_rate
from rtgauge.cli.output import add_output, chosen_format, emit_report
from rtgauge.cli.run_source import add_run_inputs, read_run
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_run_inputs(p, "bundle")
    add_output(p, sorted(EXPORTERS), "md", "BUNDLE.html, run-ID.html for a stored run")
    p.add_argument("--csv", type=Path, metavar="DIR", help="also write every table as CSV and JSON")
    add_deadline(p)
    p.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    tune = tune_file(args)
    if tune is not None:  # a tune result (kind tune): its own report
        from rtgauge.report.tune_report import tune_report
        from rtgauge.tune.result import load

        emit_report(args, tune_report(load(tune)), chosen_format(args), tune.stem, [tune])
        return 0
    source = read_run(args.bundle, args.store)
    bundle = source.bundle
    deadline = parse_duration_ns(args.deadline) if args.deadline else None
    rate = parse_rate(args.miss_rate)
    confidence = parse_confidence(args.confidence)
    report = bundle_report(bundle, deadline, rate, confidence)
    if args.csv:
        EXPORTERS["csv"].write(report, args.csv)
    emit_report(args, report, chosen_format(args), source.name, [source.path])
    if not bundle.complete:
        print("note: the run is incomplete; the report says so", file=sys.stderr)
    return 0


def tune_file(args: argparse.Namespace) -> Path | None:
    """The tune result RUN names: its file, or its name in the store's folder."""
    from rtgauge.tune.result import PREFIX, is_tune_file

    path = Path(args.bundle)
    if path.is_file():
        return path if is_tune_file(path) else None
    if args.bundle.startswith(PREFIX) and args.store.is_directory:
        folder: Path = args.results_dir
        stored = folder / (path.name.removesuffix(".json") + ".json")
        if stored.is_file():
            return stored
    return None
