"""Linux checks of what else may run on the measured CPUs: device
interrupts (where each may land and how often it fired there during the
run), the default IRQ affinity, unbound workqueues and kernel threads.
Pure functions of the facts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rtgauge.audit.cpus import format_list, format_mask, parse_list, parse_mask
from rtgauge.audit.facts import NO_AUDIT_FACTS, Facts
from rtgauge.audit.finding import Check, Verdict
from rtgauge.audit.linux_kernel import unknown

SHOWN = 8  # IRQs named in the evidence; details hold them all
# The CPU-local interrupts worth naming beside the device ones.
IPIS = ("LOC", "RES", "CAL", "TLB", "IWI", "NMI", "HYP")


def landing(f: Facts) -> list[dict[str, Any]]:
    """Every device IRQ that may land on a measured CPU, or fired on one
    during the run: label, name, affinity, effective, fired (None: not known)."""
    measured = set(f.measured)
    out = []
    for irq in f.a.irqs:
        aff = parse_list(irq.affinity)
        eff = parse_list(irq.effective)
        end = f.e.irq_counts.get(irq.label)
        fired = end - irq.count if end is not None and irq.count is not None else None
        may = aff is None or bool(aff & measured)
        if may or (fired or 0) > 0:
            out.append(
                {
                    "irq": irq.label,
                    "name": irq.name,
                    "affinity": irq.affinity,
                    "effective": irq.effective,
                    "lands": bool(eff and eff & measured),
                    "fired": fired,
                }
            )
    return out


def _irq_line(i: dict[str, Any]) -> str:
    fired = (
        ""
        if i["fired"] is None
        else f", fired {i['fired']}× there during the run"
        if i["fired"]
        else ", did not fire there during the run"
    )
    return (
        f"IRQ {i['irq']} ({i['name']}): /proc/irq/{i['irq']}/smp_affinity_list "
        f"{i['affinity']}, effective {i['effective']}{fired}"
    )


def _ipi_lines(f: Facts) -> tuple[list[str], dict[str, int]]:
    lines, fired = [], {}
    for ipi in f.a.ipis:
        end = f.e.ipi_counts.get(ipi.label)
        if ipi.label in IPIS and end is not None and ipi.count is not None:
            fired[ipi.label] = end - ipi.count
    if fired:
        lines.append(
            "/proc/interrupts, CPU-local during the run: "
            + ", ".join(f"{k} {v}" for k, v in fired.items())
        )
    return lines, fired


def _irqs(n: int) -> str:
    return f"{n} device IRQ" + ("s" if n != 1 else "")


# ---- irq-affinity ----
def irq_affinity(f: Facts) -> Verdict:
    if not f.a.present:
        return unknown(NO_AUDIT_FACTS)
    if not f.a.irqs:
        return unknown("/proc/interrupts lists no device IRQ")
    found = landing(f)
    ipi_lines, ipis = _ipi_lines(f)
    counted = f.e.present
    ev = [f"measured CPUs: {f.measured_text}; {len(f.a.irqs)} device IRQs in /proc/interrupts"]
    fired = [i for i in found if (i["fired"] or 0) > 0]
    shown = sorted(found, key=lambda i: -(i["fired"] or 0))
    ev += [_irq_line(i) for i in shown[:SHOWN]]
    if len(shown) > SHOWN:
        ev.append(f"… and {len(shown) - SHOWN} more IRQs whose affinity includes them")
    ev += ipi_lines
    if not counted:
        ev.append("the counts at the run's end are missing (a run cut short, or an older probe)")
    details = {"irqs": found, "ipis": ipis, "cpus": f.measured}
    hk = f.housekeeping
    fix = (
        f"steer them to other CPUs: echo {hk} > /proc/irq/N/smp_affinity_list for each, "
        f"irqaffinity={hk} on the command line, isolcpus=managed_irq,... for managed IRQs; "
        f"keep irqbalance off the measured CPUs (IRQBALANCE_BANNED_CPULIST={f.measured_text})"
    )
    if f.measures_all:
        fix += "; and measure without CPU 0, left to the system"
    if fired:
        total = sum(int(i["fired"]) for i in fired)
        names = ", ".join(str(i["irq"]) for i in fired[:SHOWN])
        return Verdict(
            "fail",
            f"{_irqs(len(fired))} fired {total}× on the measured CPUs during the run (IRQ {names})",
            ev,
            fix,
            f"{len(fired)} fired",
            details,
        )
    if found:
        names = ", ".join(str(i["irq"]) for i in found[:SHOWN])
        when = "none fired there during the run" if counted else "counts during the run unknown"
        return Verdict(
            "warn",
            f"{_irqs(len(found))} may land on the measured CPUs (IRQ {names}); {when}",
            ev,
            fix,
            f"{len(found)} may land",
            details,
        )
    return Verdict(
        "pass", "no device IRQ may land on the measured CPUs", ev, value="none", details=details
    )


def _mask_check(
    f: Facts, raw: str | None, cpus: set[int] | None, where: str, what: str, fix: str
) -> Verdict:
    """Shared by the masks of other work: excluded, included, included although isolated."""
    if cpus is None:
        return unknown(NO_AUDIT_FACTS if not f.a.present else f"{where} was not read")
    measured = set(f.measured)
    on = measured & cpus
    shown = raw if raw == format_list(cpus) else f"{raw} (CPUs {format_list(cpus)})"
    ev = [f"{where}: {shown}", f"measured CPUs: {f.measured_text}"]
    if f.measures_all:
        fix += "; and measure without CPU 0, left to the system"
    value = format_list(cpus)
    if not on:
        return Verdict("pass", f"{what} stay off the measured CPUs", ev, value=value)
    if on & f.isolated:
        return Verdict(
            "fail",
            f"{what} may run on isolated measured CPUs {format_list(on & f.isolated)}",
            ev + [f"isolated CPUs: {format_list(f.isolated)}"],
            fix,
            value,
        )
    return Verdict("warn", f"{what} may run on the measured CPUs {format_list(on)}", ev, fix, value)


# ---- irq-default-affinity ----
def default_affinity(f: Facts) -> Verdict:
    hk = f.housekeeping
    v = _mask_check(
        f,
        f.a.irq_default_affinity,
        parse_mask(f.a.irq_default_affinity),
        "/proc/irq/default_smp_affinity",
        "new IRQs",
        f"irqaffinity={hk} on the kernel command line, or echo "
        f"{_mask_of(hk)} > /proc/irq/default_smp_affinity",
    )
    if f.params.has("irqaffinity"):
        v = replace(
            v, evidence=[*v.evidence, f"/proc/cmdline: irqaffinity={f.params.value('irqaffinity')}"]
        )
    return v


def _mask_of(cpus: str) -> str:
    parsed = parse_list(cpus)
    return format_mask(parsed) if parsed else "<mask>"


# ---- workqueue-mask ----
def workqueue_mask(f: Facts) -> Verdict:
    hk = f.housekeeping
    return _mask_check(
        f,
        f.a.workqueue_cpumask,
        parse_mask(f.a.workqueue_cpumask),
        "/sys/devices/virtual/workqueue/cpumask",
        "unbound workqueue items",
        f"echo {_mask_of(hk)} > /sys/devices/virtual/workqueue/cpumask (or "
        f"workqueue.unbound_cpus={hk} on the command line)",
    )


# ---- kthread-mask ----
def kthread_mask(f: Facts) -> Verdict:
    hk = f.housekeeping
    v = _mask_check(
        f,
        f.a.kthread_cpus,
        parse_list(f.a.kthread_cpus),
        "/proc/2/status (kthreadd) Cpus_allowed_list",
        "new kernel threads",
        f"kthread_cpus={hk} on the kernel command line (isolcpus=domain does it too), or "
        f"taskset -pc {hk} 2",
    )
    if f.params.has("kthread_cpus"):
        v = replace(
            v,
            evidence=[*v.evidence, f"/proc/cmdline: kthread_cpus={f.params.value('kthread_cpus')}"],
        )
    return v


CHECKS = [
    Check(
        "irq-affinity",
        "Interrupts that can land on the measured CPUs",
        "A device interrupt on the measured CPU runs its handler before the real-time "
        "thread (in hard interrupt context; as a thread at priority 50 under PREEMPT_RT): "
        "its duration is added to the latency.",
        irq_affinity,
    ),
    Check(
        "irq-default-affinity",
        "Default IRQ affinity",
        "An IRQ set up later (a device probed, a driver loaded) starts with this mask: it "
        "may land on the measured CPU whatever the affinities set today.",
        default_affinity,
    ),
    Check(
        "workqueue-mask",
        "Unbound workqueue CPU mask",
        "Unbound workqueue items (writeback, reclaim helpers, crypto) run in kworker "
        "threads on any CPU of this mask: they compete for the measured CPU, and one "
        "holding a lock the real-time thread needs delays it.",
        workqueue_mask,
    ),
    Check(
        "kthread-mask",
        "Kernel threads' CPU mask",
        "New kernel threads start on kthreadd's CPUs: any of them may run on the measured CPU.",
        kthread_mask,
    ),
]
