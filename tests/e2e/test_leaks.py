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

from live_probe import LiveProbe
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


def _scratch_file_written(tmp: Path) -> bool:
    """The file I/O load has a file in its scratch directory."""
    return any(d.is_dir() and any(d.iterdir()) for d in tmp.iterdir())


def test_killed_run_leaves_nothing(tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    # Inside TMR-P-LOAD's file I/O phase (a file in its scratch directory),
    # then in a whole run as TMR-P-LOAD and MSG-P-LAT begin (the records
    # before them read): each kill waits for its point, never for a time.
    for tests, after in (("TMR-P-LOAD", None), ("*", "TMR-P-LAT"), ("*", "MSG-P-SND")):
        probe = LiveProbe(
            "--quick", "--tests", tests,
            stderr=subprocess.DEVNULL, start_new_session=True, env=probe_env(tmp_path),
        )  # fmt: skip
        try:
            if after is None:
                end = time.monotonic() + 120
                while not _scratch_file_written(tmp_path):
                    assert time.monotonic() < end, "no file of the file I/O load within 120 s"
                    time.sleep(0.02)  # a polling interval
            else:
                probe.wait_for_test(after, timeout=600)
        finally:
            os.killpg(probe.proc.pid, signal.SIGKILL)  # the probe, its test and its loads at once
            probe.proc.wait(timeout=30)
    # After a SIGKILL the cleaning is the janitors' (processes of their own,
    # woken by the probe's death): given a bounded time to finish.
    settle_until = time.monotonic() + 120
    while snapshot(tmp_path) != before and time.monotonic() < settle_until:
        time.sleep(0.2)
    assert_same(before, snapshot(tmp_path))
