"""A system's settings that bear on latency, flat, for comparing two systems
or two runs of one: the kernel command line parameter by parameter, the
kernel's real-time-relevant build options, and the settings the audit reads
(sysctls, THP, governors, masks ...). A setting not read is left out, so an
older record never shows a change it could not see."""

from __future__ import annotations

from rtgauge.audit.cmdline import KernelParams
from rtgauge.audit.cpus import format_list, parse_list, parse_mask
from rtgauge.audit.linux_memory import chosen
from rtgauge.model import System

CMDLINE = "kernel command line"
KCONFIG = "kernel options"
SYSTEM = "settings"
GROUPS = (CMDLINE, KCONFIG, SYSTEM)


def settings(system: System) -> dict[str, dict[str, str]]:
    """group -> setting -> its value as text."""
    out: dict[str, dict[str, str]] = {g: {} for g in GROUPS}
    k = system.kernel
    if k.cmdline is not None:
        out[CMDLINE] = {
            name: value or "(set)" for name, value in KernelParams.parse(k.cmdline).flat().items()
        }
    out[KCONFIG] = dict(system.audit.kconfig)
    out[SYSTEM] = _system(system)
    return out


def _put(d: dict[str, str], name: str, value: object) -> None:
    if value is not None:
        d[name] = str(value)


def _mask(text: str | None) -> str | None:
    cpus = parse_mask(text)
    return None if cpus is None else format_list(cpus)


def _system(s: System) -> dict[str, str]:
    a, k = s.audit, s.kernel
    d: dict[str, str] = {}
    _put(d, "kernel release", s.host.release)
    _put(d, "preemption model", k.preempt_model)
    _put(d, "CONFIG_HZ (configured tick)", k.hz_config)
    if k.rt_runtime_us is not None:
        d["RT throttling"] = f"{k.rt_runtime_us} of {k.rt_period_us} µs"
    _put(
        d,
        "isolated CPUs",
        format_list(parse_list(k.isolcpus) or set()) if k.isolcpus is not None else None,
    )
    _put(
        d,
        "nohz_full CPUs",
        format_list(parse_list(k.nohz_full) or set()) if k.nohz_full is not None else None,
    )
    _put(d, "clocksource", s.clock.kernel_clocksource)
    for name, value in sorted(a.sysctl.items()):
        d[f"sysctl {name}"] = str(value)
    _put(d, "THP enabled", chosen(a.thp_enabled))
    _put(d, "THP defrag", chosen(a.thp_defrag))
    _put(d, "khugepaged defrag", a.khugepaged_defrag)
    _put(d, "SMT", a.smt_control)
    _put(d, "cpuidle driver", a.cpuidle_driver)
    _put(d, "cpuidle governor", a.cpuidle_governor)
    _put(d, "cpufreq boost", a.cpufreq_boost)
    _put(d, "intel_pstate no_turbo", a.no_turbo)
    governors = {c.cpu: c.governor for c in a.cpus if c.governor}
    if governors:
        d["governor of the measured CPUs"] = ", ".join(sorted(set(governors.values())))
    elif not a.present:
        _put(d, "governor of the measured CPUs", s.cpu.governor)
    disabled = [f"cpu{c.cpu} {st.name}" for c in a.cpus for st in c.idle if st.disabled]
    if a.cpus:
        d["idle states disabled"] = ", ".join(disabled) or "none"
    _put(d, "default IRQ affinity", _mask(a.irq_default_affinity))
    _put(d, "workqueue CPU mask", _mask(a.workqueue_cpumask))
    _put(d, "kthread CPUs", a.kthread_cpus)
    if a.cpuset.version is not None:
        d["cpuset of the probe"] = f"v{a.cpuset.version} {a.cpuset.path}: {a.cpuset.cpus}" + (
            f" ({a.cpuset.partition})" if a.cpuset.partition else ""
        )
    if a.swap_total_kb is not None:
        d["swap"] = f"{a.swap_total_kb} kB"
    _put(d, "NUMA nodes", a.numa_nodes)
    return d


def changes(old: System, new: System) -> list[str]:
    """What changed from one run's settings to the next: "name: old → new",
    for the settings both runs read."""
    a, b = settings(old), settings(new)
    out = []
    for group in GROUPS:
        before, after = a[group], b[group]
        if group == CMDLINE and (not before or not after):
            continue  # one run did not read the command line
        for name in sorted(set(before) | set(after)):
            x, y = before.get(name), after.get(name)
            if x == y:
                continue
            if group != CMDLINE and (x is None or y is None):
                continue  # read by one run only
            out.append(
                f"{name}: {x if x is not None else '(absent)'} → {y if y is not None else '(absent)'}"
            )
    return out
