"""rtgauge run: evaluate a system (this machine, a QEMU guest, a host over SSH),
store the run, print the summary and write the report."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

from rtgauge.cli.common import add_results_dir
from rtgauge.errors import UsageError
from rtgauge.model import Record, parse_line
from rtgauge.probe import find_probe, repo_root, static_probe
from rtgauge.report.fmt import term
from rtgauge.report.progress import Progress
from rtgauge.report.summary import summary_text
from rtgauge.store import RunWriter


def add_probe_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tests", help="ids or globs, comma-separated (default: all)")
    p.add_argument("--quick", action="store_true", help="short durations (about a minute)")
    p.add_argument("--cpus", help="CPUs to measure on, e.g. 0,2-3 (default: all)")
    p.add_argument("--duration-scale", help="multiply every duration and count (0.01..100)")
    p.add_argument("--prio", help="SCHED_FIFO priority of the tests, 1..98 (default 95)")
    p.add_argument("--opt", action="append", default=[], metavar="ID.key=value")
    p.add_argument("--no-rt", action="store_true", help="run SCHED_OTHER on purpose")
    p.add_argument(
        "--label", type=run_label, help="a name for the run kept in the store, e.g. a kernel build"
    )


def add_target_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--target", default="local", help="local | qemu | ssh://[user@]host[:port]")
    p.add_argument("--probe", help="the probe binary (local target)")
    g = p.add_argument_group("qemu target")
    g.add_argument("--kernel", help="kernel image to boot")
    g.add_argument(
        "--kernel-package", help="Debian package to fetch it from, e.g. linux-image-rt-amd64"
    )
    g.add_argument(
        "--accel", default="auto", help="kvm | tcg | auto (kvm when it can run the guest)"
    )
    g.add_argument("--vcpus", type=int, default=2, help="guest CPUs (2)")
    g.add_argument("--mem", type=int, default=1024, help="guest memory in MB (1024)")
    g.add_argument("--append", default="", help="extra kernel command line")
    g = p.add_argument_group("ssh target")
    g.add_argument("--ssh-option", action="append", default=[], help="extra ssh -o option")
    g.add_argument("--identity", type=Path, help="ssh private key")
    g.add_argument("--sudo", action="store_true", help="run the remote probe with sudo -n")


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("run", help="evaluate a system and store the run")
    add_probe_options(p)
    add_target_options(p)
    add_results_dir(p)
    p.add_argument("--no-report", action="store_true", help="do not write the HTML report")
    p.set_defaults(execute=execute)


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
    if args.quick:
        out.append("--quick")
    if args.no_rt:
        out.append("--no-rt")
    for o in args.opt:
        out += ["--opt", o]
    return out


class Stream:
    """The lines of a run on some target, how to stop it, how it ended."""

    def __init__(
        self,
        lines: Iterator[str],
        stop: Callable[[], None],
        target: Record,
        outcome: Callable[[], tuple[int | None, str | None]],
        probe: str = "rtgauge-probe",  # as the bundle's command names it
    ) -> None:
        self.lines, self.stop, self.target, self.outcome = lines, stop, target, outcome
        self.probe = probe


def open_stream(args: argparse.Namespace, pargs: list[str]) -> Stream:
    if args.target == "local":
        from rtgauge.targets.local import LocalRun, run_local

        probe = find_probe(args.probe)
        lr = LocalRun()
        # The probe's own check of the arguments first: bad usage is exit 2 and
        # one line, before anything runs or is stored.
        return Stream(
            run_local(probe, pargs, lr),
            lr.interrupt,
            {"kind": "local"},
            lambda: (lr.exit_code, lr.stderr[-1] if lr.stderr else None),
            str(probe),
        )
    if args.target == "qemu":
        return _qemu_stream(args, pargs)
    if args.target.startswith("ssh://"):
        from rtgauge.targets.ssh import SshRun, parse_ssh_url, run_over_ssh

        t = parse_ssh_url(args.target)
        t.options, t.identity, t.sudo = args.ssh_option, args.identity, args.sudo
        root = repo_root()
        if root is None:
            raise UsageError("the ssh target needs the source tree's static probes")
        sr = SshRun()
        return Stream(
            run_over_ssh(t, root, pargs, sr),
            lambda: None,
            {"kind": "ssh", "address": t.label},
            lambda: (sr.exit_code, sr.error),
        )
    raise UsageError(f"--target {args.target!r}: expected local, qemu or ssh://host")


def _qemu_stream(args: argparse.Namespace, pargs: list[str]) -> Stream:
    from rtgauge.targets.kernels import fetch_kernel
    from rtgauge.targets.qemu import GuestRun, QemuOptions, run_in_qemu

    if bool(args.kernel) == bool(args.kernel_package):
        raise UsageError("--target qemu needs --kernel PATH or --kernel-package NAME")
    if args.kernel:
        kernel = Path(args.kernel)
    else:
        root = repo_root() or Path.cwd()
        kernel = fetch_kernel(args.kernel_package, root / ".cache" / "kernels")
    opts = QemuOptions(
        kernel=kernel,
        probe=static_probe("x86_64"),
        accel=args.accel,
        cpus=args.vcpus,
        mem_mb=args.mem,
        append=args.append,
    )
    gr = GuestRun()
    target: Record = {
        "kind": "qemu",
        "kernel": str(kernel),
        "package": args.kernel_package,
        "append": args.append,
        "vcpus": args.vcpus,
        "mem_mb": args.mem,
    }

    def lines() -> Iterator[str]:
        yield from run_in_qemu(opts, pargs, gr)
        target["accel"] = gr.accel
        target["emulated"] = gr.accel == "tcg"

    return Stream(lines(), lambda: None, target, lambda: (gr.exit_code, gr.error))


def execute(args: argparse.Namespace) -> int:
    return perform(args)[0]


def perform(args: argparse.Namespace) -> tuple[int, Path]:
    """Runs, stores and reports; returns the exit code and the bundle."""
    pargs = probe_args(args)
    stream = open_stream(args, pargs)
    writer = RunWriter(
        args.results_dir, [stream.probe, *pargs], stream.target, getattr(args, "label", None)
    )
    progress = Progress(sys.stderr)
    stopped: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopped.append(signum)
        stream.stop()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    bad_lines = 0
    try:
        for line in stream.lines:
            try:
                record = parse_line(line, "probe output")
            except UsageError as exc:
                bad_lines += 1
                writer.reject(line)
                print(f"rtgauge: warning: {term(str(exc))}", file=sys.stderr)
                continue
            writer.add(record)
            progress.update(record)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        progress.done()
    code, message = stream.outcome()
    path = writer.finish()
    if path is None:
        if code == 2 and message:  # the probe refused its arguments
            raise UsageError(message.removeprefix("rtgauge-probe: error: "))
        raise UsageError(f"the target gave no results: {message or f'exit code {code}'}")
    bundle = writer.bundle
    assert bundle is not None
    print(summary_text(bundle))
    print(f"\nstored: {path}")
    if writer.rejected_path and writer.rejected_path.exists():
        print(
            f"rtgauge: warning: {bad_lines} invalid lines kept in {writer.rejected_path}",
            file=sys.stderr,
        )
    if message:
        print(f"rtgauge: target: {term(message)}", file=sys.stderr)
    if not args.no_report:
        from rtgauge.report.html import write_html

        print(f"report: {write_html(bundle, path.with_suffix('.html'))}")
    return _exit_code(code, bundle.complete, bool(stopped), bad_lines), path


def _exit_code(code: int | None, complete: bool, stopped: bool, bad: int) -> int:
    if stopped or not complete or bad:
        return 3
    return code if code in (0, 1, 3) else 3
