"""Every check, by the OS it applies to, and the audit of a system: each
check's finding from the records' facts (docs/audit.md). The host knows an
RTOS by the port that wrote its record (probe.build.osal): a port it has
checks for gets them; another RTOS is judged by what its record reports,
never by a port's checks that are not its own."""

from __future__ import annotations

from rtgauge.audit import (
    freertos,
    linux_cpus,
    linux_irqs,
    linux_kernel,
    linux_memory,
    rtos_generic,
)
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
    "rt-tasks",
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
FREERTOS: list[Check] = [*freertos.CHECKS, HYPERVISOR_CHECK]
# An RTOS whose port has no checks here: what its record reports.
RTOS: list[Check] = [*rtos_generic.CHECKS, HYPERVISOR_CHECK]
# The ports the host has checks of their own for, by their name.
BY_PORT: dict[str, list[Check]] = {"freertos": FREERTOS}
# One check per id: a port's and the generic one of a setting share its id
# (a comparison lines them up), the port's first.
_FIRST: dict[str, Check] = {}
for _check in (*LINUX, *FREERTOS, *RTOS):
    _FIRST.setdefault(_check.id, _check)
ALL: list[Check] = list(_FIRST.values())
assert len(LINUX) == len(_BY_ID), "every Linux check has its place in LINUX_ORDER"


def check_by_id(check_id: str) -> Check | None:
    return next((c for c in ALL if c.id == check_id), None)


def checks_for(system: System) -> list[Check]:
    """The checks of the record's port when the host has them; an RTOS's
    that it has none for, the generic ones; Linux's on Linux, and on an OS
    the port says nothing of (the ISO C11 port), each saying it cannot judge."""
    port = system.port
    if port in BY_PORT:
        return BY_PORT[port]
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
