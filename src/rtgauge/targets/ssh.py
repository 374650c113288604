"""Run the probe on another machine over SSH.

The matching static probe (architecture from `uname -m`) is copied into a
fresh temporary directory on the target, run there, its JSON lines streamed
back, and the directory removed, whether the run ends well or not.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.model import Record
from rtgauge.probe import repo_root
from rtgauge.targets.base import Target, target_record

# uname -m → the probe build that runs there
ARCH_BUILDS = {
    "x86_64": "build-static",  # glibc: musl has no PTHREAD_PRIO_PROTECT
    "aarch64": "build-aarch64",
    "arm64": "build-aarch64",
    "armv7l": "build-armhf",
    "armv8l": "build-armhf",
}


@dataclass
class SshTarget:
    user: str | None
    host: str
    port: int = 22
    options: list[str] = field(default_factory=list)  # extra ssh -o options
    identity: Path | None = None
    sudo: bool = False  # run the probe through `sudo -n` for real-time privileges

    @property
    def label(self) -> str:
        who = f"{self.user}@" if self.user else ""
        return f"ssh://{who}{self.host}:{self.port}"


_URL = re.compile(
    r"ssh://(?:(?P<user>[A-Za-z0-9._-]+)@)?(?P<host>[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::(?P<port>\d+))?/?"
)


def parse_ssh_url(url: str) -> SshTarget:
    m = _URL.fullmatch(url)
    if not m:
        raise UsageError(f"--target {url!r}: expected ssh://[user@]host[:port]")
    port = int(m["port"] or 22)
    if not 1 <= port <= 65535:
        raise UsageError(f"--target {url!r}: port {port} is outside 1..65535")
    return SshTarget(user=m["user"], host=m["host"].strip("[]"), port=port)


@dataclass
class SshRun:
    arch: str = ""
    exit_code: int | None = None
    error: str | None = None
    remote_dir: str | None = None
    proc: subprocess.Popen[bytes] | None = None  # the local ssh that streams the lines


def _pid_file(rdir: str) -> str:
    # The remote probe's process id, so that it can be stopped by its own id
    # from another connection (a stop request, or cleanup after a lost link).
    return f"{rdir}/pid"


def stop_remote(t: SshTarget, result: SshRun) -> None:
    """Asks the remote probe to end its current test and stop (SIGTERM by its
    id), keeping what it measured; quiet if it has already ended."""
    if not result.remote_dir:
        return
    pid = _pid_file(shlex.quote(result.remote_dir))
    killer = "sudo -n " if t.sudo else ""
    try:
        _ssh(t, f"[ -f {pid} ] && {killer}kill -TERM $(cat {pid}) 2>/dev/null; true", timeout=30)
    except UsageError:
        pass  # the link is gone: cleanup still tries, and says so if it fails


def _remove_remote(t: SshTarget, rdir: str) -> None:
    """Ends a probe still running (TERM, then KILL after 5 s) and removes its directory."""
    killer = "sudo -n " if t.sudo else ""
    pid = _pid_file(rdir)
    _ssh(
        t,
        f"if [ -f {pid} ]; then p=$(cat {pid}); {killer}kill -TERM $p 2>/dev/null && "
        f"for i in $(seq 50); do kill -0 $p 2>/dev/null || break; sleep 0.1; done; "
        f"{killer}kill -KILL $p 2>/dev/null; fi; rm -rf {rdir}",
        timeout=30,
    )


def _base(t: SshTarget) -> list[str]:
    cmd = ["ssh", "-p", str(t.port), "-o", "BatchMode=yes", "-o", "ConnectTimeout=15"]
    if t.identity:
        cmd += ["-i", str(t.identity)]
    for opt in t.options:
        cmd += ["-o", opt]
    return cmd + [f"{t.user}@{t.host}" if t.user else t.host]


# A server may drop a connection before the key exchange when it is busy
# (MaxStartups); such a refusal is worth another try, a login failure is not.
TRANSIENT = ("kex_exchange_identification", "Connection closed by", "Connection reset")


def _transient(returncode: int, stderr: bytes) -> bool:
    text = stderr.decode(errors="replace")
    return returncode == 255 and any(t in text for t in TRANSIENT)


def _ssh(t: SshTarget, remote: str, data: bytes | None = None, timeout: float = 60) -> str:
    for attempt in range(4):
        try:
            proc = subprocess.run(
                _base(t) + [remote],
                input=data if data is not None else b"",
                capture_output=True,
                timeout=timeout,
            )
        except FileNotFoundError as exc:
            raise UsageError("ssh is not installed (apt-get install openssh-client)") from exc
        except subprocess.TimeoutExpired as exc:
            raise UsageError(f"{t.label}: no answer within {timeout:.0f} s") from exc
        if not _transient(proc.returncode, proc.stderr):
            break
        time.sleep(0.2 * (attempt + 1))
    if proc.returncode != 0:
        msg = (proc.stderr.decode(errors="replace").strip().splitlines() or ["failed"])[-1]
        raise UsageError(f"{t.label}: {msg}")
    return proc.stdout.decode(errors="replace").strip()


def ssh_argv(t: SshTarget, remote: str) -> list[str]:
    """The ssh command line that runs `remote` on the target."""
    return _base(t) + [remote]


def ssh_output(t: SshTarget, remote: str, timeout: float = 60) -> str:
    """What `remote` says on the target's stdout; UsageError naming the
    target when it cannot be reached or the command fails."""
    return _ssh(t, remote, timeout=timeout)


def probe_for(arch: str, root: Path) -> Path:
    build = ARCH_BUILDS.get(arch)
    if not build:
        raise UsageError(f"no probe build for the target's architecture {arch!r}")
    probe = root / build / "rtgauge-probe"
    if not probe.is_file():
        target = build.replace("build-", "probe-")
        raise UsageError(f"the {arch} probe is not built: run make {target}")
    return probe


def _arch_after_janitor(t: SshTarget) -> str:
    """The target's architecture, read after the janitor of rtgauge tune has
    put back what a tune's holder killed there left (it says so here)."""
    import sys

    from rtgauge.fmt import term
    from rtgauge.targets.ssh_janitor import (
        janitor_lines,
        janitor_script,
        remote_command,
        remote_state_dir,
    )

    janitor = remote_command(janitor_script(remote_state_dir()), t.sudo)
    *said, arch = (_ssh(t, f"{{ {janitor}; }} 2>/dev/null; uname -m") or "?").splitlines()
    for line in janitor_lines(said, t.label):
        print(f"rtgauge: {term(line)}", file=sys.stderr)
    return arch.strip()


def run_over_ssh(t: SshTarget, root: Path, probe_args: list[str], result: SshRun) -> Iterator[str]:
    """Yields the remote probe's JSON lines as they arrive."""
    result.arch = _arch_after_janitor(t)
    probe = probe_for(result.arch, root)
    result.remote_dir = _ssh(t, "mktemp -d /tmp/rtgauge.XXXXXX")
    rdir = shlex.quote(result.remote_dir)
    try:
        _ssh(
            t,
            f"cat > {rdir}/rtgauge-probe && chmod 700 {rdir}/rtgauge-probe",
            probe.read_bytes(),
            300,
        )
        runner = "sudo -n " if t.sudo else ""
        # Say which signal ended the probe: ssh itself only reports 255 then.
        remote = (
            f"{runner}{rdir}/rtgauge-probe {shlex.join(probe_args)} </dev/null & "
            f"echo $! > {_pid_file(rdir)}; wait $!; rc=$?; "
            'if [ $rc -gt 128 ]; then echo "the probe was killed by signal $((rc - 128))" >&2; fi; '
            "exit $rc"
        )
        for attempt in range(4):
            got_any = False
            proc = subprocess.Popen(
                _base(t) + [remote],
                stdin=subprocess.DEVNULL,  # ssh must not read the caller's terminal
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            result.proc = proc
            assert proc.stdout is not None and proc.stderr is not None
            try:
                for raw in proc.stdout:
                    line = raw.decode(errors="replace").strip()
                    if line.startswith("{"):
                        got_any = True
                        yield line
            except GeneratorExit:  # the consumer stopped: stop the remote run
                proc.terminate()
                raise
            finally:
                # Output ended: ssh exits by itself; only a consumer that stopped
                # early, or an ssh that lingers, gets terminated.
                try:
                    result.exit_code = proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.terminate()
                    result.exit_code = proc.wait(timeout=30)
                err_bytes = proc.stderr.read()
            if got_any or not _transient(result.exit_code, err_bytes):
                break
            time.sleep(0.2 * (attempt + 1))  # refused before it started: try again
        err = err_bytes.decode(errors="replace").strip()
        if result.exit_code not in (0, 1, 3):
            result.error = (err.splitlines() or [f"exit code {result.exit_code}"])[-1]
    finally:
        try:
            _remove_remote(t, rdir)
        except UsageError:
            result.error = result.error or f"could not remove {result.remote_dir} on the target"


class SshHost(Target):
    """Another machine over SSH: the static probe of its architecture is copied
    into a temporary directory there, run, and the directory removed."""

    kind, usage = "ssh", "ssh://[user@]host[:port]"

    def __init__(self, target: SshTarget, root: Path | None) -> None:
        self.target = target
        self._root = root
        self._run = SshRun()

    @classmethod
    def matches(cls, spec: str) -> bool:
        return spec.startswith("ssh://")

    @classmethod
    def from_args(cls, spec: str, args: argparse.Namespace) -> SshHost:
        t = parse_ssh_url(spec)
        t.options, t.identity, t.sudo = args.ssh_option, args.identity, args.sudo
        return cls(t, repo_root())

    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group("ssh target")
        g.add_argument("--ssh-option", action="append", default=[], help="extra ssh -o option")
        g.add_argument("--identity", type=Path, help="ssh private key")
        g.add_argument("--sudo", action="store_true", help="run the remote probe with sudo -n")

    def prepare(self) -> None:
        # The probe is chosen once the target's architecture is known (in run()).
        if self._root is None:
            raise UsageError("the ssh target needs the source tree's static probes")

    def run(self, probe_args: list[str]) -> Iterator[str]:
        assert self._root is not None, "prepare() first"
        self.stream = run_over_ssh(self.target, self._root, probe_args, self._run)
        return self.stream

    def outcome(self) -> tuple[int | None, str | None]:
        return self._run.exit_code, self._run.error

    def describe(self) -> Record:
        # Whether the remote machine is virtual, only its probe can tell.
        return target_record(
            "ssh", self.target.label, None, None, address=self.target.label, arch=self._run.arch
        )
