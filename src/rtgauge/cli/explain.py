"""rtgauge explain RUN: why each worst sample of a stored run was late, as
the report says it, for one test or all (text, Markdown, HTML or JSON).
RUN is a bundle file or a stored run's id."""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from rtgauge.analysis.explain import explanations
from rtgauge.analysis.explain_audit import bearing
from rtgauge.cli.output import add_output, chosen_format, emit, emit_report
from rtgauge.cli.run_source import add_run_inputs, read_run
from rtgauge.errors import UsageError
from rtgauge.model import TestRecord
from rtgauge.report.document import Block, Heading, Para, Report
from rtgauge.report.explain_section import state_line, test_section
from rtgauge.run import Run

FORMATS = ("text", "md", "html", "json")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_run_inputs(p, "bundle")
    p.add_argument("--test", metavar="ID", help="one test (default: every explained test)")
    add_output(p, FORMATS, piped="md", html_name="BUNDLE-explain.html")
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


def _as_json(run: Run, tests: list[TestRecord]) -> list[dict[str, Any]]:
    out = []
    for t in tests:
        xs = explanations(run, t)
        out.append(
            {
                "test": t.id,
                "state": t.explain.state if t.explain else None,
                "why_not": state_line(t),
                "windows": [
                    {
                        "metric": x.metric,
                        "sample_ns": x.sample_ns,
                        "cpu": x.cpu,
                        "complete": x.complete,
                        "lost_events": x.lost_events,
                        "culprit": x.culprit,
                        "culprit_kind": x.culprit_kind,
                        "wake_at_ns": x.wake_at,
                        "switch_at_ns": x.switch_at,
                        "parts": [dataclasses.asdict(p) for p in x.parts],
                        # the audit's findings that bear on its parts (warn, fail)
                        "bears_on": [b.to_json() for b in bearing(x, run.audit.findings)],
                    }
                    for x in xs
                ],
            }
        )
    return out


def execute(args: argparse.Namespace) -> int:
    source = read_run(args.bundle, args.store)
    run = Run.of(source.bundle)
    tests = _chosen(run, args.test)
    fmt, name = chosen_format(args), f"{source.name}-explain"
    if fmt == "json":
        emit(args, json.dumps(_as_json(run, tests), indent=1) + "\n", fmt, name, [source.path])
        return 0
    blocks: list[Block] = [Heading(1, f"Why the worst cases: {run.host} {run.system.host.release}")]
    if not run.complete:
        blocks.append(Para("The run is incomplete; the tests that finished are shown.", "warn"))
    for t in tests:
        blocks += test_section(run, t)
    report = Report(f"rtgauge explain: {run.host}", blocks, [run])
    emit_report(args, report, fmt, name, [source.path])
    return 0
