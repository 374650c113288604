"""What every check reads: the records' views and what follows from them
once (the measured CPUs, the kernel's parameters, the isolated CPUs)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from rtgauge.audit.cmdline import KernelParams
from rtgauge.audit.cpus import format_list, isolcpus_list, parse_list
from rtgauge.audit_facts import AuditFacts, EndFacts
from rtgauge.model import End, System, TargetInfo

# Where a record before the audit has no facts: said in the evidence.
NO_AUDIT_FACTS = "the record has no audit facts (written by a probe from before the audit)"


@dataclass(frozen=True)
class Facts:
    system: System
    end: End | None
    target: TargetInfo
    budget_ns: float

    @property
    def a(self) -> AuditFacts:
        return self.system.audit

    @property
    def e(self) -> EndFacts:
        """The end's counts; empty when the run was cut short or is older."""
        return self.end.audit if self.end is not None else EndFacts(False)

    @property
    def measured(self) -> list[int]:
        return sorted(self.system.cpu.selected)

    @property
    def measured_text(self) -> str:
        return format_list(self.measured)

    @property
    def online(self) -> int:
        return self.system.cpu.online

    @cached_property
    def params(self) -> KernelParams:
        return KernelParams.parse(self.system.kernel.cmdline)

    def cmdline_list(self, name: str) -> set[int] | None:
        """A CPU list parameter of the command line (nohz_full=, rcu_nocbs=)."""
        return parse_list(self.params.value(name), self.system.cpu.configured)

    @cached_property
    def isolated(self) -> set[int]:
        """CPUs isolated from the scheduler: /sys/devices/system/cpu/isolated
        (isolcpus=domain), and a cgroup v2 isolated partition."""
        out = parse_list(self.system.kernel.isolcpus) or set()
        if self.a.cpuset.isolated:
            out |= parse_list(self.a.cpuset.isolated) or set()
        if self.a.cpuset.partition == "isolated":
            out |= parse_list(self.a.cpuset.cpus) or set()
        if not out:  # an older record: the command line says it
            cpus, flags = isolcpus_list(self.params.value("isolcpus"), self.system.cpu.configured)
            if cpus and "domain" in flags:
                out = cpus
        return out

    @property
    def measured_isolated(self) -> bool:
        """Every measured CPU is isolated: the system asked for isolation there."""
        return bool(self.measured) and set(self.measured) <= self.isolated

    @property
    def housekeeping(self) -> str:
        """The CPUs other work should go to: those neither measured nor
        isolated; when the run measured every CPU, CPU 0 (to be left out of
        the measured ones)."""
        rest = set(range(self.online)) - set(self.measured) - self.isolated
        return format_list(rest) if rest else "0"

    @property
    def measures_all(self) -> bool:
        """The run measured every online CPU: nothing is left for other work."""
        return not set(range(self.online)) - set(self.measured)

    @property
    def is_linux(self) -> bool:
        return self.system.host.os == "Linux"

    @property
    def rtos(self) -> str | None:
        """An RTOS's name ("FreeRTOS"), from its record's "rtos"."""
        name = (self.system.rtos or {}).get("name")
        return str(name) if name else None

    def rtos_config(self, key: str) -> int | None:
        """A configuration value an RTOS names ("configUSE_PREEMPTION")."""
        config = (self.system.rtos or {}).get("config")
        value = config.get(key) if isinstance(config, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def rtos_fact(self, key: str) -> object:
        return (self.system.rtos or {}).get(key)
