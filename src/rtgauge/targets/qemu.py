"""Run the probe inside a QEMU guest booted with another kernel.

The guest's console (kernel messages) goes to the first serial port and a
log file; the probe's JSON lines come back framed on the second port, read
from QEMU's stdout. KVM is used when it can run the guest; otherwise TCG,
whose results are marked emulated: the host knows it chose TCG, and the
probe says so too when it can tell.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.model import Record
from rtgauge.probe import repo_root, static_probe
from rtgauge.targets.base import Target, target_record
from rtgauge.targets.framing import Silent, framed_bodies
from rtgauge.targets.initramfs import build_initramfs
from rtgauge.targets.kernels import fetch_kernel


@dataclass
class QemuOptions:
    kernel: Path
    probe: Path  # a static x86-64 probe
    accel: str = "auto"  # auto | kvm | tcg
    cpus: int = 2
    mem_mb: int = 1024
    append: str = ""
    boot_timeout_s: float = 120.0  # until the probe starts
    idle_timeout_s: float = 120.0  # silence allowed while the probe runs
    # A kernel prints on the console within a second or two of starting
    # (under TCG too); a KVM guest whose console stays empty this long is
    # one this host's KVM cannot run, and TCG is tried without waiting for
    # boot_timeout_s.
    kvm_console_s: float = 20.0
    busybox: Path = Path("/bin/busybox")


@dataclass
class GuestRun:
    """What a boot produced: records as they came, and how it ended."""

    accel: str = ""
    exit_code: int | None = None
    error: str | None = None
    console_tail: list[str] = field(default_factory=list)


def _check(opts: QemuOptions) -> str:
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        raise UsageError("qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)")
    for what, path in (("kernel", opts.kernel), ("probe", opts.probe), ("busybox", opts.busybox)):
        if not path.is_file():
            raise UsageError(f"{what} not found: {path}")
    if opts.accel not in ("auto", "kvm", "tcg"):
        raise UsageError(f"--accel must be kvm, tcg or auto, not {opts.accel!r}")
    if not 1 <= opts.cpus <= 64:
        raise UsageError("--vcpus must be 1..64 for a guest")
    if not 128 <= opts.mem_mb <= 65536:
        raise UsageError("--mem must be 128..65536 MB")
    return qemu


# TCG runs every vCPU in one host thread, in turn. With a thread per vCPU
# (QEMU's default), a guest that enables trace events, which rewrites
# kernel text live, was seen to hang 5 boots in 364: one vCPU kept
# trapping on the breakpoint of a patched site while the other waited for
# it (docs/lab.md, "Linux guests under QEMU"). Timings under TCG are not
# real time either way; one thread is even quicker for a 2-vCPU guest.
TCG_ACCEL = "tcg,thread=single"


def _kvm_possible() -> bool:
    return os.access("/dev/kvm", os.R_OK | os.W_OK)


def _command(qemu: str, opts: QemuOptions, accel: str, initrd: Path, console: Path) -> list[str]:
    cmd = [qemu, "-accel", TCG_ACCEL if accel == "tcg" else accel]
    cmd += ["-m", str(opts.mem_mb), "-smp", str(opts.cpus)]
    if accel == "kvm":
        cmd += ["-cpu", "host"]
    append = f"console=ttyS0 panic=-1 {opts.append}".strip()
    return cmd + [
        "-kernel", str(opts.kernel), "-initrd", str(initrd), "-append", append,
        "-display", "none", "-monitor", "none", "-no-reboot",
        "-serial", f"file:{console}", "-serial", "stdio",
    ]  # fmt: skip


def _tail(console: Path) -> list[str]:
    """The console's last eight lines: what the guest said before it ended."""
    try:
        lines = console.read_text(errors="replace").splitlines()
    except OSError:
        return []
    return [line.strip() for line in lines[-8:] if line.strip()]


def _console_empty(console: Path) -> bool:
    try:
        return console.stat().st_size == 0
    except OSError:
        return True


def _boot(cmd: list[str], opts: QemuOptions, console: Path, result: GuestRun) -> Iterator[str]:
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    started = False
    silent_console = False

    def stop_if_silent() -> None:
        nonlocal silent_console
        if proc.poll() is None and _console_empty(console):
            silent_console = True
            proc.kill()

    watch = threading.Timer(opts.kvm_console_s, stop_if_silent)
    if result.accel == "kvm":
        watch.start()
    try:
        for body in framed_bodies(proc, opts.boot_timeout_s, opts.idle_timeout_s):
            if body == "BEGIN":
                started = True
            elif body.startswith("EXIT "):
                result.exit_code = int(body[5:].strip() or "3")
            elif body.startswith("{"):
                yield body
    except Silent as silent:
        what = "the probe to start" if not started else "the guest (no output)"
        result.error = f"guest stopped answering: waited {silent.waited_s:.0f} s for {what}"
    finally:
        watch.cancel()
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        result.console_tail = _tail(console)
        if silent_console and not started:
            result.error = (
                f"the kernel printed nothing in {opts.kvm_console_s:.0f} s under KVM: "
                "this host's KVM cannot run it"
            )
        err = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
        if result.exit_code is None and result.error is None:
            panic = [x for x in result.console_tail if "Kernel panic" in x]
            if panic:
                result.error = f"guest kernel panicked: {panic[0]}"
            elif not started:
                result.error = "guest did not start the probe" + (
                    f": {err.splitlines()[-1]}" if err else ""
                )
            else:
                result.error = "guest ended before the probe finished"


def run_in_qemu(opts: QemuOptions, probe_args: list[str], result: GuestRun) -> Iterator[str]:
    """Boots the guest and yields the probe's JSON lines as they arrive.

    With accel auto, KVM is tried first; if the guest never starts the probe
    under it (this machine's paravirtual /dev/kvm cannot run a stock kernel),
    the boot is repeated under TCG.
    """
    qemu = _check(opts)
    with tempfile.TemporaryDirectory(prefix="rtgauge-qemu-") as tmp:
        initrd = build_initramfs(opts.probe, opts.busybox, probe_args, Path(tmp) / "initrd.gz")
        tries = (
            ["kvm", "tcg"]
            if opts.accel == "auto" and _kvm_possible()
            else (["tcg"] if opts.accel == "auto" else [opts.accel])
        )
        for accel in tries:
            console = Path(tmp) / f"console-{accel}.log"
            result.accel, result.error, result.exit_code = accel, None, None
            got_any = False
            for line in _boot(_command(qemu, opts, accel, initrd, console), opts, console, result):
                got_any = True
                yield line
            if got_any or accel == tries[-1]:
                return


class QemuGuest(Target):
    """A QEMU guest booted with another kernel (--kernel, or --kernel-package
    fetched from Debian), the static probe in its initramfs."""

    kind, usage = "qemu", "qemu"

    def __init__(self, args: argparse.Namespace) -> None:
        if bool(args.kernel) == bool(args.kernel_package):
            raise UsageError("--target qemu needs --kernel PATH or --kernel-package NAME")
        self._args = args
        self._opts: QemuOptions | None = None
        self._run = GuestRun()

    @classmethod
    def matches(cls, spec: str) -> bool:
        return spec == "qemu"

    @classmethod
    def from_args(cls, spec: str, args: argparse.Namespace) -> QemuGuest:
        return cls(args)

    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group("qemu target")
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

    def prepare(self) -> None:
        a = self._args
        if a.kernel:
            kernel = Path(a.kernel)
        else:
            root = repo_root() or Path.cwd()
            kernel = fetch_kernel(a.kernel_package, root / ".cache" / "kernels")
        self._opts = QemuOptions(
            kernel=kernel,
            probe=static_probe("x86_64"),
            accel=a.accel,
            cpus=a.vcpus,
            mem_mb=a.mem,
            append=a.append,
        )

    def run(self, probe_args: list[str]) -> Iterator[str]:
        assert self._opts is not None, "prepare() first"
        self.stream = run_in_qemu(self._opts, probe_args, self._run)
        return self.stream

    def outcome(self) -> tuple[int | None, str | None]:
        return self._run.exit_code, self._run.error

    def describe(self) -> Record:
        a = self._args
        accel = self._run.accel or None
        kernel = str(self._opts.kernel) if self._opts else str(a.kernel)
        return target_record(
            "qemu",
            f"qemu {Path(kernel).name}",
            # The host chose the accelerator: TCG is emulation, KVM a virtual machine,
            # whatever the probe inside manages to detect.
            None if accel is None else accel == "tcg",
            None if accel is None else accel == "kvm",
            kernel=kernel,
            package=a.kernel_package,
            append=a.append,
            vcpus=a.vcpus,
            mem_mb=a.mem,
            accel=accel,
        )
