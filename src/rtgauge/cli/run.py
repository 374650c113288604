"""rtgauge run: evaluate a system (this machine, a QEMU guest, a host over SSH),
store the run, print the summary and write the report."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TextIO

from rtgauge import pushing
from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.limits import Limits
from rtgauge.cli import run_limits
from rtgauge.cli.common import add_push, add_results_dir
from rtgauge.cli.spans import duration_ms, interval_ms
from rtgauge.errors import UsageError
from rtgauge.fmt import term
from rtgauge.model import parse_line
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.progress import Progress
from rtgauge.report.run_report import run_report
from rtgauge.report.summary import summary_text
from rtgauge.store import Location, RunWriter
from rtgauge.targets.base import Target
from rtgauge.targets.registry import add_target_options, make_target
from rtgauge.traces.window_files import embedded_links


def add_probe_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tests", help="ids or globs, comma-separated (default: all)")
    p.add_argument("--quick", action="store_true", help="short durations (about a minute)")
    p.add_argument("--cpus", help="CPUs to measure on, e.g. 0,2-3 (default: all)")
    p.add_argument("--duration-scale", help="multiply every duration and count (0.01..100)")
    p.add_argument(
        "--duration",
        type=duration_ms,
        metavar="SPAN",
        help="how long each duration test measures (TMR-P-LAT, IRQ-P-LAT, CLK-P-DUR, "
        "TMR-P-LOAD's phases together), e.g. 90s, 30m, 24h, up to 7d; other tests run as usual",
    )
    p.add_argument(
        "--interval",
        type=interval_ms,
        metavar="SPAN",
        help="a duration test writes its figures every SPAN as it runs (default: 5m for a "
        "test longer than 10 min, else none; 0: none)",
    )
    p.add_argument("--prio", help="SCHED_FIFO priority of the tests, 1..98 (default 95)")
    p.add_argument("--opt", action="append", default=[], metavar="ID.key=value")
    p.add_argument("--no-rt", action="store_true", help="run SCHED_OTHER on purpose")
    p.add_argument(
        "--no-explain",
        action="store_true",
        help="do not record the kernel's events around the worst samples (the flight recorder)",
    )
    p.add_argument(
        "--label", type=run_label, help="a name for the run kept in the store, e.g. a kernel build"
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_probe_options(p)
    add_target_options(p)
    add_results_dir(p)
    add_push(p)
    p.add_argument("--no-report", action="store_true", help="do not write the HTML report")
    p.add_argument(
        "--limits",
        type=Path,
        metavar="FILE",
        help="check each figure against these calibrated limits (history --calibrate); "
        "exit 1 when one is exceeded",
    )
    p.set_defaults(execute=execute)


REMOTE_INTERVAL_MS = 60_000  # the default interval on any target but this machine


def run_label(text: str) -> str:
    """A label is one short line of printable text: it names runs in tables."""
    if not text or len(text) > 100 or not text.isprintable():
        raise UsageError(f"--label {text!r}: give 1 to 100 printable characters")
    return text


def probe_args(args: argparse.Namespace) -> list[str]:
    out: list[str] = []
    for flag in ("tests", "cpus", "duration_scale", "prio"):
        value = getattr(args, flag)
        if value is not None:
            out += [f"--{flag.replace('_', '-')}", str(value)]
    if getattr(args, "duration", None) is not None:
        out += ["--duration-ms", str(args.duration)]
    if getattr(args, "interval", None) is not None:
        out += ["--interval-ms", str(args.interval)]
    elif getattr(args, "target", "local") != "local" and (args.duration or 0) > REMOTE_INTERVAL_MS:
        # a QEMU guest or a board is given up after minutes without a line:
        # a long test there says something every minute (a short one keeps
        # a board's heap for its windows: no interval buffers)
        out += ["--interval-ms", str(REMOTE_INTERVAL_MS)]
    if args.quick:
        out.append("--quick")
    if args.no_rt:
        out.append("--no-rt")
    if getattr(args, "no_explain", False):
        out.append("--no-explain")
    for o in args.opt:
        out += ["--opt", o]
    return out


def _record(
    target: Target,
    pargs: list[str],
    results: Path,
    out: TextIO,
    label: str | None = None,
    store: Location | None = None,
) -> tuple[RunWriter, bool, int]:
    """Streams the target's lines into the store; returns the writer, whether a
    signal stopped the run, and how many lines were not valid records."""
    lines = target.run(pargs)
    writer = RunWriter(results, [target.probe_command, *pargs], target.describe(), label, store)
    progress = Progress(out)
    stopped: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopped.append(signum)
        target.stop()

    # Signals reach the main thread only: a run in a worker thread (rtgauge lab
    # --parallel) is stopped by its caller, through Target.stop().
    in_main = threading.current_thread() is threading.main_thread()
    signals = (signal.SIGINT, signal.SIGTERM) if in_main else ()
    old = {s: signal.signal(s, on_signal) for s in signals}
    bad_lines = 0
    try:
        for line in lines:
            try:
                record = parse_line(line, "probe output")
            except UsageError as exc:
                bad_lines += 1
                writer.reject(line)
                print(f"rtgauge: warning: {term(str(exc))}", file=sys.stderr)
                continue
            writer.add(record)
            if record.get("record") == "system":
                for warning in strangers_warning(record):
                    print(f"rtgauge: warning: {term(warning)}", file=sys.stderr)
            progress.update(record)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        progress.done()
    writer.set_target(target.describe())  # complete now that the run has ended
    return writer, bool(stopped), bad_lines


def strangers_warning(system: dict[str, object]) -> list[str]:
    """At the start of a run: other programs' real-time threads that may run
    on the measured CPUs (the system record's audit facts), said at once."""
    from rtgauge.audit_facts import AuditFacts

    facts = AuditFacts.read(system.get("audit"))
    if not facts.rt_tasks:
        return []
    more = f" and {facts.rt_tasks_more} more" if facts.rt_tasks_more else ""
    names = ", ".join(t.label for t in facts.rt_tasks[:4]) + more
    return [
        f"other programs' real-time threads may run on the measured CPUs: {names}; they "
        "can preempt the measurement (their time shows in the figures; the explanation "
        "names them as not part of the run)"
    ]


def execute(args: argparse.Namespace) -> int:
    token = push_token(args)  # before the run: a push that cannot happen is said at once
    limits = run_limits.read(args.limits)  # likewise a limits file that does not read
    code, path = perform(args, limits=limits)
    return max(code, push_run(args, token, path))


def push_token(args: argparse.Namespace) -> str | None:
    """--push's token, read before anything runs (None without --push)."""
    if not getattr(args, "push", None):
        return None
    pushing.server_url(args.push)
    return pushing.read_token(args.token_file)


def push_run(args: argparse.Namespace, token: str | None, path: Path) -> int:
    """Sends a stored run to --push's server: 0 sent, 2 refused, 3 queued."""
    if token is None:
        return 0
    got = pushing.push_bytes(pushing.bundle_bytes(path), pushing.server_url(args.push), token)
    where = sys.stdout if got.code == 0 else sys.stderr
    print(f"{'push' if got.code == 0 else 'rtgauge: push'}: {term(got.message)}", file=where)
    return got.code


def perform(
    args: argparse.Namespace,
    out: TextIO | None = None,
    summary: bool = True,
    started: Callable[[Target], None] | None = None,
    limits: Limits | None = None,
) -> tuple[int, Path]:
    """Runs, stores and reports; returns the exit code and the bundle. `out`
    takes the progress and the target's words (stderr by default), `started`
    is told the target once it is prepared (so a caller can stop it); with
    `limits`, each figure is checked against them (exit code 1 when one is
    exceeded, unless the run's own code says worse)."""
    err = out or sys.stderr
    pargs = probe_args(args)
    with make_target(args.target, args) as target:
        if started:
            started(target)
        writer, stopped, bad_lines = _record(
            target,
            pargs,
            args.results_dir,
            err,
            getattr(args, "label", None),
            getattr(args, "store", None),
        )
        code, message = target.outcome()
    path = writer.finish()
    if path is None:
        if code == 2 and message:  # the probe refused its arguments
            raise UsageError(message.removeprefix("rtgauge-probe: error: "))
        raise UsageError(f"the target gave no results: {message or f'exit code {code}'}")
    bundle = writer.bundle
    assert bundle is not None
    analysed = AnalysedRun.of(bundle)  # once, for the summary and the report
    if summary:
        print(summary_text(analysed))
        print(f"\nstored: {path}")
    if writer.rejected_path and writer.rejected_path.exists():
        print(
            f"rtgauge: warning: {bad_lines} invalid lines kept in {writer.rejected_path}", file=err
        )
    if message:
        print(f"rtgauge: target: {term(message)}", file=err)
    if not args.no_report:
        html = EXPORTERS["html"]
        report = run_report(analysed)
        report.window_links = embedded_links(report)  # the report file carries them
        (written,) = html.write(report, path.with_suffix(html.suffix))
        if summary:
            print(f"report: {written}")
    failed = any(t.failed for t in analysed.run.tests)
    final = _exit_code(code, bundle.complete, stopped, bad_lines, failed)
    if limits is not None:
        lines, exceeded = run_limits.limits_lines(limits, analysed.run)
        print("\n".join(lines))
        if exceeded and final == 0:
            final = 1  # a finding about the system, as a failed verdict is
    return final, path


def _exit_code(
    code: int | None, complete: bool, stopped: bool, bad: int, failed: bool = True
) -> int:
    """The run's exit code from the probe's and what the host read. The
    probe's 1 says a verdict did not pass; when none of them is a failure
    (each differs from its standard as the OS documents), the run passed:
    0. `failed`: a test failed, as the host judges it."""
    if stopped or not complete or bad:
        return 3
    if code == 1 and not failed:
        return 0
    return code if code in (0, 1, 3) else 3
