"""rtgauge compare RUN RUN [RUN ...]: several runs side by side, with ratings
and deadline verdicts. A RUN is a bundle file or a stored run's id."""

from __future__ import annotations

import argparse
from pathlib import Path

from rtgauge.analysis.ratings import load_criteria
from rtgauge.cli.common import add_deadline, parse_confidence, parse_duration_ns, parse_rate
from rtgauge.cli.output import add_output, chosen_format, emit_report, note
from rtgauge.cli.run_source import add_run_inputs, read_runs
from rtgauge.errors import UsageError
from rtgauge.model import Bundle, load_bundle
from rtgauge.report.compare_report import bundles_report
from rtgauge.report.document import Report
from rtgauge.report.formats import EXPORTERS

FORMATS = ("text", "md", "html", "json", "csv")
SIDE_BY_SIDE = ("html", "md")  # what `lab`, and the old `compare --out STEM`, write
KNOWN_SUFFIXES = (".txt", ".md", ".json", ".html", ".htm", ".csv")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_run_inputs(p, "bundles", nargs="+")
    add_output(p, FORMATS, piped="md", html_name="compare-A-B.html")
    p.add_argument("--criteria", type=Path, help="rating criteria (JSON) instead of the built-in")
    p.add_argument("--csv", type=Path, metavar="DIR", help="also write every table as CSV/JSON")
    add_deadline(p)
    p.set_defaults(execute=execute)


def comparison(
    bundles: list[Bundle],
    criteria: Path | None,
    deadline: str | None,
    miss_rate: str,
    confidence: str = "0.95",
) -> Report:
    if len(bundles) < 2:
        raise UsageError("compare needs at least two runs")
    rate = parse_rate(miss_rate)
    conf = parse_confidence(confidence)
    dl = parse_duration_ns(deadline) if deadline else None
    return bundles_report(bundles, load_criteria(criteria), dl, rate, conf)


def write_side_by_side(report: Report, out: Path, csv: Path | None = None) -> list[Path]:
    """OUT.html and OUT.md (and the tables in csv when given)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for fmt in SIDE_BY_SIDE:
        exporter = EXPORTERS[fmt]
        written += exporter.write(report, out.with_suffix(exporter.suffix))
    if csv:
        EXPORTERS["csv"].write(report, csv)
    return written


def run_compare(
    paths: list[Path],
    out: Path,
    criteria: Path | None,
    deadline: str | None,
    miss_rate: str,
    csv: Path | None = None,
    confidence: str = "0.95",
) -> list[Path]:
    """Bundle files compared, written side by side at OUT (rtgauge lab)."""
    if len(paths) < 2:
        raise UsageError("compare needs at least two runs")
    report = comparison([load_bundle(p) for p in paths], criteria, deadline, miss_rate, confidence)
    return write_side_by_side(report, out, csv)


def old_stem(args: argparse.Namespace) -> Path | None:
    """--out STEM (no extension, no --format): the old spelling, which wrote
    STEM.html and STEM.md; kept for one release."""
    if args.format or not args.out or args.out == "-":
        return None
    out = Path(args.out)
    return None if out.suffix.lower() in KNOWN_SUFFIXES else out


def execute(args: argparse.Namespace) -> int:
    sources = read_runs(args.bundles, args.store)
    report = comparison(
        [s.bundle for s in sources], args.criteria, args.deadline, args.miss_rate, args.confidence
    )
    stem = old_stem(args)
    if stem is not None:
        note(
            f"--out {stem} without an extension wrote {stem}.html and {stem}.md; "
            "give --format and --out FILE (the old spelling goes in the next release)"
        )
        for path in write_side_by_side(report, stem, args.csv):
            print(path)
        return 0
    if args.csv:
        EXPORTERS["csv"].write(report, args.csv)
    name = "compare-" + "-".join(s.name for s in sources)[:80]
    emit_report(args, report, chosen_format(args), name, [s.path for s in sources])
    return 0
