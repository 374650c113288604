"""rtgauge explain BUNDLE: why each worst sample of a stored run was late, as
the report says it, for one test or all (Markdown, HTML or JSON)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rtgauge.analysis.analysed_run import AnalysedRun, explained_json
from rtgauge.errors import UsageError
from rtgauge.model import TestRecord, load_bundle
from rtgauge.report.document import Block, Heading, Para, Report
from rtgauge.report.explain_section import test_section
from rtgauge.report.formats import EXPORTERS
from rtgauge.run import Run

FORMATS = ("md", "html", "json")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", type=Path, help="a bundle (.json) or a probe stream (.jsonl)")
    p.add_argument("--test", metavar="ID", help="one test (default: every explained test)")
    p.add_argument("--format", choices=FORMATS, default="md")
    p.set_defaults(execute=execute)


def _chosen(run: Run, test_id: str | None) -> list[TestRecord]:
    if test_id is None:
        tests = [t for t in run.tests if t.explain is not None]
        if not tests:
            raise UsageError("no test of this run has figures to explain")
        return tests
    t = run.test(test_id)
    if t is None:
        raise UsageError(f"--test {test_id}: no such test in this run")
    if t.explain is None:
        raise UsageError(f"--test {test_id}: its figures are not latencies from a release instant")
    return [t]


def as_json(a: AnalysedRun, tests: list[TestRecord]) -> list[dict[str, Any]]:
    """The explained tests of the analysed run, as its schema gives them
    (schema/analysis-v1.json, explained_test), each with its test id."""
    out = []
    for t in tests:
        e = a.test_explained(t)
        if e is not None:
            out.append({"test": t.id, **explained_json(e)})
    return out


def execute(args: argparse.Namespace) -> int:
    a = AnalysedRun.of(load_bundle(args.bundle))
    run = a.run
    tests = _chosen(run, args.test)
    if args.format == "json":
        json.dump(as_json(a, tests), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    blocks: list[Block] = [Heading(1, f"Why the worst cases: {run.host} {run.system.host.release}")]
    if not run.complete:
        blocks.append(Para("The run is incomplete; the tests that finished are shown.", "warn"))
    for t in tests:
        blocks += test_section(a, t)
    report = Report(f"rtgauge explain: {run.host}", blocks, [run], [a])
    exporter = EXPORTERS[args.format]
    sys.stdout.write(exporter.render(report))
    return 0
