"""rtgauge report BUNDLE: the run report in any exporter's format (HTML, Markdown,
JSON, CSV tables), with optional deadline verdicts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rtgauge.cli.common import add_deadline, parse_confidence, parse_duration_ns, parse_rate
from rtgauge.errors import UsageError
from rtgauge.model import load_bundle
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", type=Path, help="a bundle (.json) or a probe stream (.jsonl)")
    p.add_argument("--format", choices=sorted(EXPORTERS), default="html")
    p.add_argument(
        "--out", type=Path, help="output file (default: beside the bundle; - for stdout)"
    )
    p.add_argument("--csv", type=Path, metavar="DIR", help="also write every table as CSV and JSON")
    add_deadline(p)
    p.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    bundle = load_bundle(args.bundle)
    deadline = parse_duration_ns(args.deadline) if args.deadline else None
    rate = parse_rate(args.miss_rate)
    confidence = parse_confidence(args.confidence)
    exporter = EXPORTERS[args.format]
    report = bundle_report(bundle, deadline, rate, confidence)
    if args.csv:
        EXPORTERS["csv"].write(report, args.csv)
    if args.out and str(args.out) == "-":
        sys.stdout.write(exporter.render(report))
        return 0
    out = args.out or args.bundle.with_suffix(exporter.suffix)
    if out.resolve() == args.bundle.resolve():
        raise UsageError(f"refusing to overwrite the bundle {args.bundle}")
    exporter.write(report, out)
    print(out)
    if not bundle.complete:
        print("note: the run is incomplete; the report says so", file=sys.stderr)
    return 0
