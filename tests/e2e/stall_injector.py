"""A known stall on one CPU: a SCHED_FIFO spinner that busy-loops spin_ms
every every_ms, pinned, above the measured test's priority, for a bounded
time. A figure that loses the stall shows it as at most one period.

Used by tests/e2e/test_stall.py, and on its own:
`python3 tests/e2e/stall_injector.py --cpu 0 --prio 96 --seconds 5`.
5 ms every 100 ms is 5 % of the CPU: far inside the RT budget (950 ms per
second), so RT throttling never cuts a spin short."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


def spin(
    cpu: int,
    prio: int,
    seconds: float,
    spin_ms: float,
    every_ms: float,
    aligned: bool = False,
    ending: bool = False,
) -> int:
    """The spinner itself (runs in its own process). Exit 2 without SCHED_FIFO.
    aligned: its stalls begin at multiples of every_ms on CLOCK_MONOTONIC, so
    spinners on several CPUs stall them at the same instants. ending: each
    stall is spun by a thread that ends with it (a stranger gone before its
    window is read)."""
    try:
        os.sched_setaffinity(0, {cpu})
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(prio))
    except (OSError, AttributeError) as e:
        print(f"stall_injector: cannot run SCHED_FIFO {prio} on CPU {cpu}: {e}", file=sys.stderr)
        return 2
    print("stalling", flush=True)  # its scheduling is set: the caller may start measuring
    spin_ns, every_ns = int(spin_ms * 1e6), int(every_ms * 1e6)
    start = time.monotonic_ns()
    end = start + int(seconds * 1e9)
    if aligned:
        start -= start % every_ns
    k = 1
    while True:
        at = start + k * every_ns
        if at + spin_ns > end:
            return 0
        now = time.monotonic_ns()
        if at > now:
            time.sleep((at - now) / 1e9)
        if ending:
            t = threading.Thread(target=_spin_in_a_thread, args=(cpu, prio, spin_ns))
            t.start()
            t.join()
        else:
            _spin_for(spin_ns)
        k += 1


def _spin_for(spin_ns: int) -> None:
    stop = time.monotonic_ns() + spin_ns
    while time.monotonic_ns() < stop:
        pass


def _spin_in_a_thread(cpu: int, prio: int, spin_ns: int) -> None:
    """One stall by a thread of its own, named stall-ended, that ends with
    it: at its priority nothing else runs on the CPU before it is gone, so
    the stalled sample's window is read after the stall's task has ended."""
    tid = threading.get_native_id()
    with open(f"/proc/self/task/{tid}/comm", "w") as f:
        f.write("stall-ended")
    os.sched_setaffinity(0, {cpu})
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(prio))
    _spin_for(spin_ns)


@contextmanager
def injected_stall(
    cpu: int,
    prio: int,
    seconds: float,
    spin_ms: float = 5.0,
    every_ms: float = 100.0,
    aligned: bool = False,
    ending: bool = False,
) -> Iterator[subprocess.Popen[bytes]]:
    """Runs the spinner for at most `seconds`; killed on leaving the block."""
    args = [sys.executable, __file__, "--cpu", str(cpu), "--prio", str(prio)]
    args += ["--seconds", str(seconds), "--spin-ms", str(spin_ms), "--every-ms", str(every_ms)]
    args += ["--aligned"] if aligned else []
    args += ["--ending"] if ending else []
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        # Its scheduling is set before the measured test starts; no line
        # (end of output) when it could not be: the caller reads its exit code.
        if proc.stdout.readline().strip() != "stalling":
            proc.wait(timeout=60)
        yield proc
    finally:
        proc.kill()
        proc.wait()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cpu", type=int, default=0)
    p.add_argument("--prio", type=int, default=96)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--spin-ms", type=float, default=5.0)
    p.add_argument("--every-ms", type=float, default=100.0)
    p.add_argument("--aligned", action="store_true", help="stall at multiples of --every-ms")
    p.add_argument("--ending", action="store_true", help="each stall by a thread that then ends")
    a = p.parse_args()
    if not (0 < a.spin_ms <= 0.1 * a.every_ms and 0 < a.seconds <= 600):
        print(
            "stall_injector: keep spin-ms within 10 % of every-ms, seconds 0..600", file=sys.stderr
        )
        return 2
    return spin(a.cpu, a.prio, a.seconds, a.spin_ms, a.every_ms, a.aligned, a.ending)


if __name__ == "__main__":
    sys.exit(main())
