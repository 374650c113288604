"""rtgauge check: is this system set up for real time? The probe reads the
system's facts on the target (rtgauge-probe --facts: the same reading a run
makes, over a one-second window), the host judges them (rtgauge.audit) and
prints a line per check with its evidence, and for a warning or a failure
its fix. Exit 0 when nothing fails, 1 when a check fails, 2 for bad input,
3 when the target cannot be reached."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

from rtgauge.audit import DEFAULT_BUDGET_NS, judge
from rtgauge.cli.common import parse_duration_ns
from rtgauge.cli.output import add_output, chosen_format, emit
from rtgauge.errors import RunError, UsageError
from rtgauge.fmt import term
from rtgauge.model import Bundle, Record, bundle_from_records, parse_line
from rtgauge.report.audit_report import HEADING, audit_blocks, audit_json, audit_text
from rtgauge.report.document import Block, Heading, Para, Report
from rtgauge.report.formats import EXPORTERS
from rtgauge.targets.base import Target
from rtgauge.targets.registry import add_target_options, make_target

FORMATS = ("text", "md", "json")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_target_options(p)
    p.add_argument("--cpus", help="the CPUs to judge, as a run would measure them (default: all)")
    add_output(p, FORMATS, piped="text")
    p.add_argument(
        "--deadline",
        help="the latency budget idle states and time slices are weighed against (default 100us)",
    )
    p.set_defaults(execute=execute)


def facts_args(args: argparse.Namespace) -> list[str]:
    out = ["--facts"]
    if args.cpus is not None:
        out += ["--cpus", str(args.cpus)]
    return out


def read_facts(target: Target, pargs: list[str]) -> list[Record]:
    """The target's records of a --facts run. A target that cannot be
    reached or started is a RunError (exit 3); arguments the probe refuses
    (an unknown CPU) a UsageError (exit 2)."""
    records: list[Record] = []
    try:
        lines: Iterator[str] = target.run(pargs)
        for line in lines:
            try:
                records.append(parse_line(line, "probe output"))
            except UsageError as exc:
                print(f"rtgauge: warning: {term(str(exc))}", file=sys.stderr)
    except UsageError as exc:  # raised on the way to the target (ssh, a board)
        raise RunError(f"cannot reach or start the target: {exc}") from exc
    code, message = target.outcome()
    if code == 2 and message:
        raise UsageError(message.removeprefix("rtgauge-probe: error: "))
    if not records or records[0].get("record") != "system":
        raise RunError(f"the target gave no facts: {message or f'exit code {code}'}")
    return records


def execute(args: argparse.Namespace) -> int:
    budget = parse_duration_ns(args.deadline) if args.deadline else DEFAULT_BUDGET_NS
    with make_target(args.target, args) as target:
        records = read_facts(target, facts_args(args))
        target_record = target.describe()
    bundle: Bundle = bundle_from_records(records, "probe output")
    bundle.target = target_record
    system, end = bundle.system_view(), bundle.end_view()
    audit = judge(system, end, bundle.target_view(), budget)
    fmt = chosen_format(args)
    if fmt == "json":
        emit(args, audit_json(audit) + "\n", fmt, "check")
    else:
        header = (
            f"rtgauge check: {system.host.hostname}, {system.host.os} {system.host.release} "
            f"(target {bundle.target_view().kind}), CPUs {','.join(map(str, system.cpu.selected))}"
        )
        if fmt == "md":
            blocks: list[Block] = [
                Heading(1, f"rtgauge check: {system.host.hostname}"),
                Para(header, "lead"),
            ]
            blocks += audit_blocks(audit)
            emit(args, EXPORTERS["md"].render(Report(HEADING, blocks)), fmt, "check")
        else:
            emit(args, audit_text(audit, header) + "\n", fmt, "check")
    return 1 if audit.failed else 0
