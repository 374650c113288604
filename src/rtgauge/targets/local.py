"""This machine: the probe as a child process, its stdout streamed."""

from __future__ import annotations

import argparse
import signal
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rtgauge.model import Record
from rtgauge.probe import find_probe
from rtgauge.targets.base import Target, target_record


@dataclass
class LocalRun:
    exit_code: int | None = None
    stderr: list[str] = field(default_factory=list)
    proc: subprocess.Popen[bytes] | None = None

    def interrupt(self) -> None:
        """Asks the probe to stop (SIGTERM): it ends the current test, keeping its samples."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)


def run_local(probe: Path, args: list[str], result: LocalRun) -> Iterator[str]:
    proc = subprocess.Popen(
        [str(probe), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    result.proc = proc
    assert proc.stdout is not None and proc.stderr is not None
    err = proc.stderr

    def drain() -> None:  # stderr in a thread, so neither pipe can fill up
        for raw in err:
            result.stderr.append(raw.decode(errors="replace").rstrip())

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        for raw in proc.stdout:
            line = raw.decode(errors="replace").strip()
            if line:
                yield line
    finally:
        if proc.poll() is None and proc.stdout.closed is False:
            proc.stdout.close()
        result.exit_code = proc.wait()
        reader.join(timeout=5)


class LocalTarget(Target):
    """The probe of this tree (or --probe, $RTGAUGE_PROBE) as a child process."""

    kind, usage = "local", "local"

    def __init__(self, probe: str | None) -> None:
        self._explicit = probe
        self._probe: Path | None = None
        self._run = LocalRun()

    @classmethod
    def matches(cls, spec: str) -> bool:
        return spec == "local"

    @classmethod
    def from_args(cls, spec: str, args: argparse.Namespace) -> LocalTarget:
        return cls(args.probe)

    def prepare(self) -> None:
        self._probe = find_probe(self._explicit)

    def run(self, probe_args: list[str]) -> Iterator[str]:
        assert self._probe is not None, "prepare() first"
        self.stream = run_local(self._probe, probe_args, self._run)
        return self.stream

    def stop(self) -> None:
        self._run.interrupt()

    def cleanup(self) -> None:
        self._run.interrupt()  # a consumer that stopped early leaves no probe behind
        super().cleanup()

    def outcome(self) -> tuple[int | None, str | None]:
        return self._run.exit_code, (self._run.stderr[-1] if self._run.stderr else None)

    def describe(self) -> Record:
        # What the probe finds here (hypervisor, emulation) it says itself.
        return target_record("local", "local", None, None)

    @property
    def probe_command(self) -> str:
        return str(self._probe) if self._probe else "rtgauge-probe"
