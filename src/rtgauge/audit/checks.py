"""Every check, by the OS it applies to, and the audit of a system: each
check's finding from the records' facts (docs/audit.md)."""

from __future__ import annotations

from rtgauge.audit import linux_cpus, linux_irqs, linux_kernel, linux_memory, rtos
from rtgauge.audit.facts import Facts
from rtgauge.audit.finding import DEFAULT_BUDGET_NS, Audit, Check, Finding
from rtgauge.audit.platform import CLOCKSOURCE_CHECK, HYPERVISOR_CHECK
from rtgauge.model import End, System, TargetInfo

_BY_ID = {
    c.id: c
    for c in (
        *linux_kernel.CHECKS,
        *linux_cpus.CHECKS,
        *linux_irqs.CHECKS,
        *linux_memory.CHECKS,
        CLOCKSOURCE_CHECK,
        HYPERVISOR_CHECK,
    )
}
# In the order a report lists them within a status: the kernel, the measured
# CPUs, what else may run there, the kernel's settings, memory, the platform,
# the build options.
LINUX_ORDER = (
    "preempt-model",
    "cpu-isolation",
    "isolation-agreement",
    "irq-affinity",
    "irq-default-affinity",
    "workqueue-mask",
    "kthread-mask",
    "smt-siblings",
    "cpufreq",
    "idle-states",
    "rt-throttling",
    "timer-migration",
    "watchdogs",
    "numa-balancing",
    "smi-count",
    "thp",
    "swap",
    "clocksource",
    "hypervisor",
    "kernel-debug-options",
    "kernel-rt-options",
)
LINUX: list[Check] = [_BY_ID[i] for i in LINUX_ORDER]
RTOS: list[Check] = [*rtos.CHECKS, HYPERVISOR_CHECK]
ALL: list[Check] = LINUX + [c for c in RTOS if c not in LINUX]
assert len(LINUX) == len(_BY_ID), "every Linux check has its place in LINUX_ORDER"


def check_by_id(check_id: str) -> Check | None:
    return next((c for c in ALL if c.id == check_id), None)


def checks_for(system: System) -> list[Check]:
    """Linux's checks on Linux, an RTOS's on an RTOS; on an OS the port says
    nothing of (the ISO C11 port), Linux's, each saying it cannot judge."""
    if system.rtos and system.host.os != "Linux":
        return RTOS
    return LINUX


def judge(
    system: System,
    end: End | None,
    target: TargetInfo,
    budget_ns: float = DEFAULT_BUDGET_NS,
) -> Audit:
    """The audit of one system: a pure function of its records."""
    facts = Facts(system, end, target, budget_ns)
    checks = checks_for(system)
    if system.host.os not in ("Linux",) and not system.rtos:
        return Audit([_unread(c, system) for c in checks], budget_ns)
    return Audit([c.finding(facts) for c in checks], budget_ns)


def _unread(check: Check, system: System) -> Finding:
    what = f"host.os {system.host.os}: this port reads none of the system's facts"
    return Finding(check.id, check.title, "unknown", f"not judged: {what}", [what], None, check.why)
