#!/usr/bin/env python3
"""make soak: the default run N times back to back (10 by default). Between
tests the probe's parent process is sampled (/proc: resident memory, open
file descriptors, threads); the last sample of every run is compared with the
first run's: nothing may grow. Also checks that no probe process and no IPC
object outlives a run. Usage: bench/soak.py [--runs N] [--quick]"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = Path(os.environ.get("RTGAUGE_PROBE", ROOT / "build" / "rtgauge-probe"))


def sample(pid: int) -> tuple[int, int, int] | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None
    field = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return int(field["VmRSS"].split()[0]), fds, int(field["Threads"])


def ipc_objects() -> set[str]:
    objs = {f"shm:{x}" for x in os.listdir("/dev/shm")}
    if os.path.isdir("/dev/mqueue"):
        objs |= {f"mq:{x}" for x in os.listdir("/dev/mqueue")}
    out = subprocess.run(["ipcs"], capture_output=True, text=True).stdout
    objs |= {f"ipc:{line.split()[1]}" for line in out.splitlines() if line.startswith("0x")}
    return objs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    before = ipc_objects()
    last: list[tuple[int, int, int]] = []
    for i in range(a.runs):
        proc = subprocess.Popen(
            [str(PROBE), *(["--quick"] if a.quick else [])],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        seen = None
        while proc.poll() is None:
            seen = sample(proc.pid) or seen
            time.sleep(0.2)
        last.append(seen or (0, 0, 0))
        left = subprocess.run(["pgrep", "-f", str(PROBE)], capture_output=True, text=True).stdout
        print(
            f"run {i + 1}: exit {proc.returncode}, parent RSS {last[-1][0]} KiB, "
            f"{last[-1][1]} fds, {last[-1][2]} threads; processes left: {left.split() or 'none'}"
        )
        if left.split():
            print("soak: a probe process outlived its run", file=sys.stderr)
            return 1
    grew = [
        f"run {i + 1}"
        for i, s in enumerate(last)
        if s[0] > last[0][0] * 1.2 + 512 or s[1] > last[0][1] or s[2] > last[0][2]
    ]
    leaked = ipc_objects() - before
    print(f"IPC objects left: {sorted(leaked) or 'none'}")
    if grew or leaked:
        print(f"soak: growth in {grew}" if grew else "soak: IPC objects leaked", file=sys.stderr)
        return 1
    print(f"soak: {a.runs} runs, no growth of memory, descriptors or threads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
