"""Typed views of the real-time audit's facts: the system record's "audit"
(every fact at the run's start) and the end record's (the facts that count
over the run, read again after the last test). Part of the views of
rtgauge.model, which reads them; rtgauge.audit judges them.

A fact the port could not read is absent from the record, and None here;
`present` says whether the record has audit facts at all (a record written
before them has none, and the audit then says what it cannot judge).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rtgauge.validate import Record


def _obj(d: Any, key: str) -> Record:
    value = d.get(key) if isinstance(d, dict) else None
    return value if isinstance(value, dict) else {}


def _str(d: Record, key: str) -> str | None:
    value = d.get(key)
    return value if isinstance(value, str) else None


def _int(d: Record, key: str) -> int | None:
    value = d.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bool(d: Record, key: str) -> bool | None:
    value = d.get(key)
    return value if isinstance(value, bool) else None


def _by_number(key: str) -> tuple[int, str]:
    """Numeric keys in numeric order, others after them by name."""
    return (int(key), "") if key.isdigit() else (1 << 30, key)


@dataclass(frozen=True)
class IdleState:
    index: int
    name: str
    exit_latency_us: int | None
    residency_us: int | None
    disabled: bool | None


@dataclass(frozen=True)
class CpuFacts:
    """One measured CPU: its SMT siblings, node, frequency and idle states."""

    cpu: int
    siblings: str | None
    node: int | None
    governor: str | None
    driver: str | None
    min_khz: int | None
    max_khz: int | None
    hw_max_khz: int | None
    idle: list[IdleState]

    @classmethod
    def read(cls, cpu: int, d: Record) -> CpuFacts:
        states = _obj(d, "idle")
        idle = []
        for key in sorted(states, key=_by_number):
            s = _obj(states, key)
            disabled = _int(s, "disabled")
            idle.append(
                IdleState(
                    int(key) if key.isdigit() else -1,
                    _str(s, "name") or "?",
                    _int(s, "exit_latency_us"),
                    _int(s, "residency_us"),
                    None if disabled is None else bool(disabled),
                )
            )
        return cls(
            cpu,
            _str(d, "siblings"),
            _int(d, "node"),
            _str(d, "governor"),
            _str(d, "driver"),
            _int(d, "min_khz"),
            _int(d, "max_khz"),
            _int(d, "hw_max_khz"),
            idle,
        )


@dataclass(frozen=True)
class Interrupt:
    """A row of /proc/interrupts: a device IRQ (affinity known) or a CPU-local
    one (LOC, RES ...); count is the sum over the measured CPUs."""

    label: str
    name: str | None
    affinity: str | None
    effective: str | None
    count: int | None


def _interrupts(d: Record) -> list[Interrupt]:
    return [
        Interrupt(
            label,
            _str(row, "name"),
            _str(row, "affinity"),
            _str(row, "effective"),
            _int(row, "count"),
        )
        for label in sorted(d, key=_by_number)
        if isinstance(row := d[label], dict)
    ]


@dataclass(frozen=True)
class Cpuset:
    version: int | None
    path: str | None
    cpus: str | None
    partition: str | None  # cgroup v2: member, root, isolated
    isolated: str | None  # cgroup v2: the CPUs of every isolated partition
    root_load_balance: int | None  # cgroup v1: 0 takes the root's CPUs out of balancing


@dataclass(frozen=True)
class RtTask:
    """Another program's real-time thread that may run on the measured CPUs."""

    tid: int
    pid: int | None
    comm: str
    policy: str
    prio: int | None
    state: str  # as /proc said when read: R runnable, S sleeping ...
    cpus: str

    @property
    def label(self) -> str:
        prio = f" {self.prio}" if self.prio else ""
        runnable = ", runnable" if self.state == "R" else ""
        return f"{self.comm}/{self.tid} {self.policy}{prio} (CPUs {self.cpus}{runnable})"


def _rt_tasks(d: Record) -> list[RtTask]:
    return [
        RtTask(
            int(tid),
            _int(row, "pid"),
            _str(row, "comm") or "",
            _str(row, "policy") or "",
            _int(row, "prio"),
            _str(row, "state") or "",
            _str(row, "cpus") or "",
        )
        for tid in sorted(d, key=_by_number)
        if tid.isdigit() and isinstance(row := d[tid], dict)
    ]


@dataclass(frozen=True)
class AuditFacts:
    """The system record's "audit": every fact the audit judges by."""

    present: bool
    realtime_file: str | None  # /sys/kernel/realtime (the RT patch; absent since 6.12)
    preempt_debugfs: str | None
    kconfig_source: str | None
    kconfig: dict[str, str]  # "CONFIG_PREEMPT_RT" -> "y", "n" (unset), "250" ...
    cpus: list[CpuFacts]
    cpufreq_boost: int | None
    no_turbo: int | None
    cpuidle_driver: str | None
    cpuidle_governor: str | None
    smt_control: str | None
    smt_active: int | None
    affinity: str | None  # the CPUs the probe may run on
    cpuset: Cpuset
    workqueue_cpumask: str | None  # hex
    kthread_cpus: str | None
    irq_default_affinity: str | None  # hex
    irqs: list[Interrupt]
    ipis: list[Interrupt]
    sysctl: dict[str, int | str]
    thp_enabled: str | None  # "always [madvise] never": the choice in brackets
    thp_defrag: str | None
    khugepaged_defrag: int | None
    swap_total_kb: int | None
    swap_devices: int | None
    clock_available: str | None
    tsc_constant: bool | None
    tsc_nonstop: bool | None
    tsc_reliable: bool | None
    numa_nodes: str | None
    steal_ticks: int | None
    clk_tck: int | None
    smi_count: int | None
    smi_source: str | None
    # an RTOS's own
    asserts: bool | None = None
    trace_hooks: str | None = None
    trace_recorder: str | None = None  # of those, rtgauge's flight recorder's
    mpu_regions: int | None = None
    heap_free_bytes: int | None = None
    heap_min_free_bytes: int | None = None
    # other programs' real-time threads on the measured CPUs; None: not read
    rt_tasks: list[RtTask] | None = None
    rt_tasks_more: int = 0

    @classmethod
    def read(cls, d: Any) -> AuditFacts:
        """From the system record's "audit" (None or {} when it has none)."""
        a = d if isinstance(d, dict) else {}
        kc = _obj(a, "kconfig")
        cpus = _obj(a, "cpus")
        cs = _obj(a, "cpuset")
        sysctl = {
            k: v
            for k, v in _obj(a, "sysctl").items()
            if isinstance(v, (int, str)) and not isinstance(v, bool)
        }
        thp, swap, clock = _obj(a, "thp"), _obj(a, "swap"), _obj(a, "clock")
        steal, smi = _obj(a, "steal"), _obj(a, "smi")
        return cls(
            present=bool(a),
            realtime_file=_str(_obj(a, "preempt"), "realtime_file"),
            preempt_debugfs=_str(_obj(a, "preempt"), "debugfs"),
            kconfig_source=_str(kc, "source"),
            kconfig={k: v for k, v in kc.items() if k.startswith("CONFIG_") and isinstance(v, str)},
            cpus=[
                CpuFacts.read(int(k), _obj(cpus, k))
                for k in sorted(cpus, key=_by_number)
                if k.isdigit()
            ],
            cpufreq_boost=_int(_obj(a, "cpufreq"), "boost"),
            no_turbo=_int(_obj(a, "cpufreq"), "no_turbo"),
            cpuidle_driver=_str(_obj(a, "cpuidle"), "driver"),
            cpuidle_governor=_str(_obj(a, "cpuidle"), "governor"),
            smt_control=_str(_obj(a, "smt"), "control"),
            smt_active=_int(_obj(a, "smt"), "active"),
            affinity=_str(a, "affinity"),
            cpuset=Cpuset(
                _int(cs, "version"),
                _str(cs, "path"),
                _str(cs, "cpus"),
                _str(cs, "partition"),
                _str(cs, "isolated"),
                _int(cs, "root_load_balance"),
            ),
            workqueue_cpumask=_str(_obj(a, "housekeeping"), "workqueue_cpumask"),
            kthread_cpus=_str(_obj(a, "housekeeping"), "kthread_cpus"),
            irq_default_affinity=_str(_obj(a, "irq"), "default_affinity"),
            irqs=_interrupts(_obj(a, "irqs")),
            ipis=_interrupts(_obj(a, "ipis")),
            sysctl=sysctl,
            thp_enabled=_str(thp, "enabled"),
            thp_defrag=_str(thp, "defrag"),
            khugepaged_defrag=_int(thp, "khugepaged_defrag"),
            swap_total_kb=_int(swap, "total_kb"),
            swap_devices=_int(swap, "devices"),
            clock_available=_str(clock, "available"),
            tsc_constant=_bool(clock, "tsc_constant"),
            tsc_nonstop=_bool(clock, "tsc_nonstop"),
            tsc_reliable=_bool(clock, "tsc_reliable"),
            numa_nodes=_str(_obj(a, "numa"), "nodes"),
            steal_ticks=_int(steal, "ticks"),
            clk_tck=_int(steal, "clk_tck"),
            smi_count=_int(smi, "count"),
            smi_source=_str(smi, "source"),
            asserts=_bool(a, "asserts"),
            trace_hooks=_str(a, "trace_hooks"),
            trace_recorder=_str(a, "trace_recorder"),
            mpu_regions=_int(a, "mpu_regions"),
            heap_free_bytes=_int(a, "heap_free_bytes"),
            heap_min_free_bytes=_int(a, "heap_min_free_bytes"),
            rt_tasks=_rt_tasks(_obj(a, "rt_tasks")) if "rt_tasks" in a else None,
            rt_tasks_more=_int(a, "rt_tasks_more") or 0,
        )

    def cpu(self, n: int) -> CpuFacts | None:
        return next((c for c in self.cpus if c.cpu == n), None)

    def irq(self, label: str) -> Interrupt | None:
        return next((i for i in self.irqs if i.label == label), None)


@dataclass(frozen=True)
class EndFacts:
    """The end record's "audit": the counts read again after the last test."""

    present: bool
    irq_counts: dict[str, int] = field(default_factory=dict)
    ipi_counts: dict[str, int] = field(default_factory=dict)
    steal_ticks: int | None = None
    smi_count: int | None = None
    heap_free_bytes: int | None = None
    heap_min_free_bytes: int | None = None
    # other programs' real-time threads on the measured CPUs; None: not read
    rt_tasks: list[RtTask] | None = None
    rt_tasks_more: int = 0

    @classmethod
    def read(cls, d: Any) -> EndFacts:
        a = d if isinstance(d, dict) else {}

        def counts(key: str) -> dict[str, int]:
            rows = _obj(a, key)
            return {
                label: n for label in rows if (n := _int(_obj(rows, label), "count")) is not None
            }

        return cls(
            present=bool(a),
            irq_counts=counts("irqs"),
            ipi_counts=counts("ipis"),
            steal_ticks=_int(_obj(a, "steal"), "ticks"),
            smi_count=_int(_obj(a, "smi"), "count"),
            heap_free_bytes=_int(a, "heap_free_bytes"),
            heap_min_free_bytes=_int(a, "heap_min_free_bytes"),
            rt_tasks=_rt_tasks(_obj(a, "rt_tasks")) if "rt_tasks" in a else None,
            rt_tasks_more=_int(a, "rt_tasks_more") or 0,
        )
