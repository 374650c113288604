"""Nothing leaks between runs: no named semaphore or message queue, no
System V object, no temporary file, no process left after a normal run, a
test in error, or a kill of the whole probe.

The probe's temporary files go to a directory of the test's own (TMPDIR),
so another program's files in /tmp, made while the test runs, are not
taken for the probe's."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from probe_run import live_processes, probe_path

# What the probe names its objects (core/osal/posix/named.c, msg_internal.h):
# another program's objects made while the test runs (a PostgreSQL cluster's
# shared memory) are not the probe's. System V: the probe makes message
# queues only, so only queues are counted.
NAMED = "rtg-"


def snapshot(tmp: Path) -> dict[str, set[str]]:
    ipcs = subprocess.run(["ipcs", "-q"], capture_output=True, text=True).stdout
    mq = os.listdir("/dev/mqueue") if os.path.isdir("/dev/mqueue") else []
    return {
        "shm": {n for n in os.listdir("/dev/shm") if NAMED in n},
        "mqueue": {n for n in mq if NAMED in n},
        "sysv": {line.split()[1] for line in ipcs.splitlines() if line.startswith("0x")},
        "tmp": {p.name for p in tmp.iterdir()},
        "procs": set(live_processes(str(probe_path()))),
    }


def assert_same(before: dict[str, set[str]], after: dict[str, set[str]]) -> None:
    grown = {k: sorted(after[k] - before[k]) for k in before if after[k] - before[k]}
    assert grown == {}, f"left behind: {grown}"


def probe_env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(tmp)}


def test_normal_run_and_errors_leave_nothing(tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    proc = subprocess.run(
        [str(probe_path()), "--quick"], capture_output=True, timeout=600, env=probe_env(tmp_path)
    )
    assert proc.returncode in (0, 1, 3)
    assert_same(before, snapshot(tmp_path))


def test_killed_run_leaves_nothing(tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    # Inside TMR-P-LOAD's file I/O phase (idle, cpu, memory, fileio: 1 s
    # each with --quick), then at two points of a whole run.
    for tests, delay in (("TMR-P-LOAD", 3.5), ("*", 6.0), ("*", 12.0)):
        proc = subprocess.Popen(
            [str(probe_path()), "--quick", "--tests", tests],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=probe_env(tmp_path),
        )
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGKILL)  # the probe, its test and its loads at once
        proc.wait(timeout=30)
    # After a SIGKILL the cleaning is the janitors' (processes of their own,
    # woken by the probe's death): given a bounded time to finish.
    settle_until = time.monotonic() + 20
    while snapshot(tmp_path) != before and time.monotonic() < settle_until:
        time.sleep(0.2)
    assert_same(before, snapshot(tmp_path))
