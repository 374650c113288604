"""rtgauge compare A B [C ...]: several runs side by side, with ratings and
deadline verdicts, as HTML and Markdown."""

from __future__ import annotations

import argparse
from pathlib import Path

from rtgauge.analysis.ratings import load_criteria
from rtgauge.cli.common import (
    DEFAULT_RESULTS,
    add_deadline,
    parse_confidence,
    parse_duration_ns,
    parse_rate,
)
from rtgauge.errors import UsageError
from rtgauge.model import load_bundle
from rtgauge.report.compare_report import bundles_report
from rtgauge.report.formats import EXPORTERS
from rtgauge.store import utc_stamp

FORMATS = ("html", "md")  # written side by side; --csv adds the tables


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundles", nargs="+", type=Path, help="two or more bundles")
    p.add_argument(
        "--out",
        type=Path,
        help=f"output path without extension (default ./{DEFAULT_RESULTS}/compare-<time>)",
    )
    p.add_argument("--criteria", type=Path, help="rating criteria (JSON) instead of the built-in")
    p.add_argument("--csv", type=Path, metavar="DIR", help="also write every table as CSV/JSON")
    add_deadline(p)
    p.set_defaults(execute=execute)


def run_compare(
    paths: list[Path],
    out: Path,
    criteria: Path | None,
    deadline: str | None,
    miss_rate: str,
    csv: Path | None = None,
    confidence: str = "0.95",
) -> list[Path]:
    if len(paths) < 2:
        raise UsageError("compare needs at least two runs")
    rate = parse_rate(miss_rate)
    conf = parse_confidence(confidence)
    dl = parse_duration_ns(deadline) if deadline else None
    bundles = [load_bundle(p) for p in paths]
    report = bundles_report(bundles, load_criteria(criteria), dl, rate, conf)
    out.parent.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for fmt in FORMATS:
        exporter = EXPORTERS[fmt]
        written += exporter.write(report, out.with_suffix(exporter.suffix))
    if csv:
        EXPORTERS["csv"].write(report, csv)
    return written


def execute(args: argparse.Namespace) -> int:
    out = args.out or Path(DEFAULT_RESULTS) / f"compare-{utc_stamp()}"
    for path in run_compare(
        args.bundles, out, args.criteria, args.deadline, args.miss_rate, args.csv, args.confidence
    ):
        print(path)
    return 0
