"""rtgauge explain RUN: why each worst sample of a stored run was late, as
the report says it, for one test or all (text, Markdown, HTML or JSON), or
the kept windows as a Chrome/Perfetto trace (--format perfetto) or as a
trace-cmd trace.dat (--format trace-dat, docs/traces.md). RUN is a bundle
file or a stored run's id, or a trace taken by other tools: a trace-cmd
recording of cyclictest (TRACE.dat), whose breaking sample is explained the
same way, or of the kernel's timerlat tracer (a trace.dat, or rtla's saved
text trace), whose worst sample per CPU is."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rtgauge.analysis.analysed_run import AnalysedRun, explained_json
from rtgauge.cli.output import (
    add_output,
    chosen_format,
    destination,
    emit,
    emit_report,
    refuse_inputs,
)
from rtgauge.cli.run_source import add_run_inputs, read_run
from rtgauge.errors import UsageError
from rtgauge.model import TestRecord
from rtgauge.report.document import Block, Heading, Para, Report
from rtgauge.report.explain_section import test_section
from rtgauge.run import Run
from rtgauge.traces.explain_trace import as_json as trace_json
from rtgauge.traces.explain_trace import explained, exported, is_trace
from rtgauge.traces.explain_trace import report as trace_report
from rtgauge.traces.perfetto import ExportedWindow, run_windows, trace_document
from rtgauge.traces.tracedat import trace_dat_bytes

FORMATS = ("text", "md", "html", "json", "perfetto", "trace-dat")


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
    if is_trace(args.bundle):
        return _execute_trace(args)
    source = read_run(args.bundle, args.store)
    a = AnalysedRun.of(source.bundle)
    run = a.run
    tests = _chosen(run, args.test)
    fmt, name = chosen_format(args), f"{source.name}-explain"
    if fmt == "json":
        emit(args, json.dumps(as_json(a, tests), indent=1) + "\n", fmt, name, [source.path])
        return 0
    if fmt == "perfetto":
        doc = trace_document(run_windows(a, tests))
        emit(args, json.dumps(doc) + "\n", fmt, name, [source.path])
        return 0
    if fmt == "trace-dat":
        emit_trace_dat(args, run_windows(a, tests), [source.path])
        return 0
    blocks: list[Block] = [Heading(1, f"Why the worst cases: {run.host} {run.system.host.release}")]
    if not run.complete:
        blocks.append(Para("The run is incomplete; the tests that finished are shown.", "warn"))
    for t in tests:
        blocks += test_section(a, t)
    report = Report(f"rtgauge explain: {run.host}", blocks, [run], [a])
    emit_report(args, report, fmt, name, [source.path])
    return 0


def _execute_trace(args: argparse.Namespace) -> int:
    """A trace of cyclictest or timerlat (docs/traces.md)."""
    if args.test:
        raise UsageError(
            "--test: a trace holds cyclictest's or timerlat's samples, not a run's tests"
        )
    path = Path(args.bundle)
    xs = explained(path)
    fmt, name = chosen_format(args), f"{path.stem}-explain"
    if fmt == "json":
        emit(args, json.dumps(trace_json(path, xs), indent=1) + "\n", fmt, name, [path])
    elif fmt == "perfetto":
        emit(args, json.dumps(trace_document(exported(path, xs))) + "\n", fmt, name, [path])
    elif fmt == "trace-dat":
        emit_trace_dat(args, exported(path, xs), [path])
    else:
        emit_report(args, trace_report(path, xs), fmt, name, [path])
    return 0


def emit_trace_dat(
    args: argparse.Namespace, windows: list[ExportedWindow], inputs: list[Path | None]
) -> None:
    """The windows as a trace.dat where --out says: a file, or stdout when it
    is not a terminal (the file is binary)."""
    path = destination(args, "trace-dat", "")
    refuse_inputs(path, inputs)
    data = trace_dat_bytes(windows)
    if path is None:
        if sys.stdout.isatty():
            raise UsageError("--format trace-dat writes a binary file: give --out FILE")
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    print(path)
