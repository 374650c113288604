"""Numbers and names as a reader sees them."""

from __future__ import annotations

import re
from typing import Any

# The figure columns, worst case first.
COLUMNS = [
    ("max", "max"),
    ("p99_99", "p99.99"),
    ("p99_9", "p99.9"),
    ("p99", "p99"),
    ("p50", "p50"),
    ("mean", "mean"),
    ("min", "min"),
    ("stddev", "stddev"),
]

FAMILIES = {
    "CLK": "Clocks",
    "TMR": "Timers and wake-up latency",
    "IRQ": "Interrupt-level response",
    "THR": "Threads and the scheduler",
    "PRC": "Processes",
    "SEM": "Counting semaphores",
    "MUT": "Mutexes",
    "MSG": "Message passing",
    "SIG": "Signals",
    "MEM": "Memory",
    "CND": "Condition variables",
    "RWL": "Reader-writer locks",
    "BAR": "Barriers",
    "TMO": "Timed waits",
    "SMP": "Multiprocessor scheduling",
    "DLN": "Deadline scheduling",
}


def us(ns: Any) -> str:
    """ns as µs with a precision that suits the size; '—' for null."""
    if ns is None:
        return "—"
    v = float(ns) / 1e3
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3f}"


def us2(ns: Any) -> str:
    """ns as µs with 2 decimals (the metric tables); '—' for null."""
    return "—" if ns is None else f"{float(ns) / 1e3:,.2f}"


def family(test_id: str) -> str:
    return test_id.split("-", 1)[0]


def worst_value(metric: dict[str, Any]) -> float:
    return float(metric["max"]) if metric.get("max") is not None else -1.0


_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def term(text: Any) -> str:
    """A target's string made safe for a terminal: control bytes (escape
    sequences could rewrite the screen) shown as \\xNN, newlines as spaces."""
    s = str(text).replace("\n", " ")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", s)
