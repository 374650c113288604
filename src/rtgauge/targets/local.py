"""This machine: the probe as a child process, its stdout streamed."""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class LocalRun:
    exit_code: int | None = None
    stderr: list[str] = field(default_factory=list)
    proc: subprocess.Popen[bytes] | None = None

    def interrupt(self, sig: int = signal.SIGTERM) -> None:
        """Asks the probe to stop: it ends the current test, keeping its samples."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)


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
