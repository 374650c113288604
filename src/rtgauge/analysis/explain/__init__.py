"""Why a worst sample was late (docs/explain.md): the passes over a kept
window (passes.py), the rule table (rules.py), the words made at the end
(words.py), the data an explanation is made of (parts.py) and the OS's
differences as data (window.py). engine.explain takes one window apart."""

from __future__ import annotations

from rtgauge.analysis.explain.engine import explain
from rtgauge.analysis.explain.parts import (
    HANDLER_KINDS,
    IDLE,
    IRQ,
    KINDS,
    NO_EVENT,
    NONPREEMPT,
    OWN_WORK,
    RETURN,
    SOFTIRQ,
    SWITCH,
    TASK,
    TICK_WAIT,
    TIMER,
    UNACCOUNTED,
    VECTOR,
    WAIT,
    WAKE_IRQ,
    WAKER,
    Culprit,
    Explanation,
    Part,
    Segment,
    Subject,
)
from rtgauge.analysis.explain.window import (
    LINUX,
    OPERATION,
    RELEASE,
    OsProfile,
    TraceWindow,
    hypervisor_name,
    profile_of,
    trace_window,
)
from rtgauge.model import TestRecord
from rtgauge.run import Run


def explanations(run: Run, test: TestRecord) -> list[Explanation]:
    """Every kept window of the test taken apart, worst first."""
    if test.explain is None:
        return []
    return [explain(trace_window(run, test, w)) for w in test.explain.windows]


__all__ = [
    "HANDLER_KINDS",
    "IDLE",
    "IRQ",
    "KINDS",
    "LINUX",
    "NO_EVENT",
    "NONPREEMPT",
    "OPERATION",
    "OWN_WORK",
    "RELEASE",
    "RETURN",
    "SOFTIRQ",
    "SWITCH",
    "TASK",
    "TICK_WAIT",
    "TIMER",
    "UNACCOUNTED",
    "VECTOR",
    "WAIT",
    "WAKE_IRQ",
    "WAKER",
    "Culprit",
    "Explanation",
    "OsProfile",
    "Part",
    "Segment",
    "Subject",
    "TraceWindow",
    "explain",
    "explanations",
    "hypervisor_name",
    "profile_of",
    "trace_window",
]
