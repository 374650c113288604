"""What a cyclictest command line says about the conditions of its run.

cyclictest refuses to start when it cannot set the policy it was asked for
(-p) or lock memory (-m), so a run that ended with return code 0 ran with
them. Only the options that matter for reading the figures are looked at.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass


@dataclass
class CyclictestOptions:
    prio: int | None = None
    policy: str | None = None
    mlockall: bool = False
    interval_us: int | None = None
    pinned: bool = False  # -a / -S: thread N runs on CPU N (or the given set)


_LONG = {
    "priority": "p",
    "interval": "i",
    "mlockall": "m",
    "affinity": "a",
    "smp": "S",
    "policy": "y",
}


def parse_cmdline(cmdline: str) -> CyclictestOptions:
    try:
        words = shlex.split(cmdline)
    except ValueError:
        words = cmdline.split()
    out = CyclictestOptions()
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        m = re.fullmatch(r"--([a-z-]+)(?:=(.*))?", w)
        if m:
            key, value = _LONG.get(m.group(1)), m.group(2)
        elif re.fullmatch(r"-[A-Za-z].*", w):
            key, value = w[1], (w[2:] or None)
        else:
            continue
        if key in ("p", "i", "y") and value is None and i < len(words):
            value = words[i]
            i += 1
        if key == "p" and value and value.isdigit():
            out.prio = int(value)
        elif key == "i" and value and value.isdigit():
            out.interval_us = int(value)
        elif key == "y" and value:
            out.policy = {"fifo": "SCHED_FIFO", "rr": "SCHED_RR"}.get(value, "SCHED_OTHER")
        elif key == "m":
            out.mlockall = True
        elif key in ("a", "S"):
            out.pinned = True
    if out.prio and out.policy is None:
        out.policy = "SCHED_FIFO"  # cyclictest's default with a priority
    return out
