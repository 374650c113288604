"""What records written before the probe said it themselves leave unsaid.

Every test record the probe writes now (and every --list-json line) carries
its family's title and which of its figures are latencies from a release
instant ("family_title", "release_latency"): the host keeps no list of
tests. A record written before has neither key, and a stored bundle must
read as it always did, so this module answers for such records only, with
the host's lists as they stood when the probe took them over. Never extend
them: a new test or family says it in its own records.
"""

from __future__ import annotations

import re

# The figures a deadline speaks about: wake-up, interrupt response, preemption.
_LATENCY_NAMES = re.compile(r"^(timer\.wakeup|irq|thread\.preempt)\.")
# The latency tests: every figure of theirs is judged, and their headline
# figures get a pWCET estimate.
LATENCY_TESTS = ("TMR-P-LAT", "TMR-P-LOAD", "IRQ-P-LAT", "THR-P-PRE")

FAMILY_TITLES = {
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


def release_latency(test_id: str, metric_name: str) -> bool:
    """Whether an older record's figure is a latency from a release instant."""
    return test_id in LATENCY_TESTS or bool(_LATENCY_NAMES.match(metric_name))
