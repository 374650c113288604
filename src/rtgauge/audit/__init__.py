"""Is this system set up for real time? The audit: a check per setting that
bears on latency, each a pure function of the facts the probe read on the
target (the system record's and the end record's "audit"), each finding
with its status, its evidence and, for a warning or a failure, the fix and
why it matters (docs/audit.md).

Other analyses look a finding up by its stable id:

    run.audit.get("irq-affinity")   # rtgauge.run.Run holds the audit, decided once
    judge(system, end, target, budget_ns).get("idle-states")
"""

from rtgauge.audit.checks import ALL, check_by_id, checks_for, judge
from rtgauge.audit.finding import DEFAULT_BUDGET_NS, STATUSES, Audit, Check, Finding

__all__ = [
    "ALL",
    "DEFAULT_BUDGET_NS",
    "STATUSES",
    "Audit",
    "Check",
    "Finding",
    "check_by_id",
    "checks_for",
    "judge",
]
