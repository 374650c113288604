"""A probe still running, watched instead of waited for by the clock.

The probe writes a test's record only when the test ends, so a test that
must act in the middle of one (interrupt it once it has samples) reads what
the kernel says of the test's threads: each wake-up of a periodic thread is
one sleep, one voluntary context switch in /proc. Records are read from the
probe's stdout as they come, each wait bounded and failing with what it
waited for.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from probe_run import probe_path, validate

WAIT_S = 120.0  # a bound on each wait, never a synchronisation


class LiveProbe:
    """The probe started in the background, its records read as they come."""

    def __init__(self, *args: str, hooks: bool = False, **popen: Any) -> None:
        self.proc = subprocess.Popen(
            [str(probe_path(hooks)), *args], stdout=subprocess.PIPE, text=True, **popen
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.records: list[dict[str, Any]] = []

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip():
                self._lines.put(line)
        self._lines.put(None)  # end of output

    def next_record(self, timeout: float = WAIT_S) -> dict[str, Any]:
        """The next record, schema-valid; fails when none came in timeout s."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no record from the probe within {timeout} s") from None
        if line is None:
            raise AssertionError(f"the probe ended (exit {self.proc.wait()}) before the record")
        record: dict[str, Any] = json.loads(line)
        validate(record)
        self.records.append(record)
        return record

    def wait_for_test(self, tid: str, timeout: float = WAIT_S) -> dict[str, Any]:
        """Reads records until the test record of tid."""
        end = time.monotonic() + timeout
        while True:
            r = self.next_record(max(end - time.monotonic(), 0.01))
            if r["record"] == "test" and r["id"] == tid:
                return r

    def finish(self, timeout: float = WAIT_S) -> int:
        """Waits for the probe to end and reads its remaining records."""
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=timeout)
        while (line := self._lines.get_nowait()) is not None:
            record = json.loads(line)
            validate(record)
            self.records.append(record)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def children(pid: int) -> list[int]:
    """The child processes of pid (none once it is gone)."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []
    out = []
    for task in tasks:
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def _thread_facts(task: Path) -> tuple[str, int, int] | None:
    """A thread's allowed CPUs, scheduling policy and voluntary switches."""
    try:
        status = dict(
            line.split(":", 1) for line in (task / "status").read_text().splitlines() if ":" in line
        )
        policy = int((task / "stat").read_text().rsplit(")", 1)[1].split()[38])
        return status["Cpus_allowed_list"].strip(), policy, int(status["voluntary_ctxt_switches"])
    except (OSError, KeyError, IndexError, ValueError):
        return None  # it ended meanwhile


SCHED_FIFO = 1


def periodic_wakeups(probe_pid: int, cpus: list[int], fifo: bool) -> int:
    """The most wake-ups of one periodic measuring thread of the probe's test
    process: a thread other than a process's main one, pinned to one of the
    measured CPUs, SCHED_FIFO when the run has it (the flight recorder's
    reader is SCHED_OTHER and kept off them). Each sleep until its next
    period is one voluntary context switch."""
    best = 0
    wanted = {str(c) for c in cpus}
    for child in children(probe_pid):
        try:
            tasks = list(Path(f"/proc/{child}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            if task.name == str(child):
                continue
            facts = _thread_facts(task)
            if facts is None:
                continue
            allowed, policy, switches = facts
            if allowed in wanted and (policy == SCHED_FIFO or not fifo):
                best = max(best, switches)
    return best


def wait_for_wakeups(
    probe_pid: int, cpus: list[int], fifo: bool, at_least: int = 20, timeout: float = WAIT_S
) -> None:
    """Until a measuring thread of the running test has woken at_least times
    (so it has recorded samples: a sample follows each wake-up)."""
    end = time.monotonic() + timeout
    seen = 0
    while time.monotonic() < end:
        seen = periodic_wakeups(probe_pid, cpus, fifo)
        if seen >= at_least:
            return
        time.sleep(0.01)  # a polling interval, not a synchronisation
    raise AssertionError(
        f"no measuring thread of the probe (pid {probe_pid}) woke {at_least} times "
        f"within {timeout} s (most seen: {seen})"
    )
