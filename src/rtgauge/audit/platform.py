"""Checks of what the OS runs on: the clocksource and the TSC's stability
(Linux), a hypervisor or an emulator and the time it stole during the run
(any OS). Pure functions of the facts."""

from __future__ import annotations

from rtgauge.audit.facts import Facts
from rtgauge.audit.finding import Check, Verdict
from rtgauge.audit.linux_kernel import unknown

CLOCKSOURCE = "/sys/devices/system/clocksource/clocksource0"
FAST = ("tsc", "arch_sys_counter", "riscv_clocksource")
PARAVIRT = ("kvm-clock", "hyperv_clocksource_tsc_page", "hyperv_clocksource_msr", "xen")
SLOW = ("hpet", "acpi_pm", "jiffies", "refined-jiffies", "pit")


def _x86(f: Facts) -> bool:
    return f.system.host.machine in ("x86_64", "i386", "i486", "i586", "i686")


# ---- clocksource ----
def clocksource(f: Facts) -> Verdict:
    cur = f.system.clock.kernel_clocksource
    ev = [f"{CLOCKSOURCE}/current_clocksource: {cur or 'not read'}"]
    if f.a.clock_available is not None:
        ev.append(f"{CLOCKSOURCE}/available_clocksource: {f.a.clock_available}")
    flags = {
        "constant_tsc": f.a.tsc_constant,
        "nonstop_tsc": f.a.tsc_nonstop,
        "tsc_reliable": f.a.tsc_reliable,
    }
    if _x86(f) and f.a.tsc_constant is not None:
        ev.append(
            "/proc/cpuinfo flags: "
            + ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in flags.items())
        )
    for p in ("clocksource", "tsc"):
        if f.params.has(p):
            ev.append(f"/proc/cmdline: {p}={f.params.value(p)}")
    if cur is None:
        return unknown("the kernel's clocksource was not read", ev)
    tsc_rejected = (
        _x86(f) and f.a.clock_available is not None and "tsc" not in f.a.clock_available.split()
    )
    if cur in SLOW or tsc_rejected:
        why = "; the TSC is not among the available ones (marked unstable)" if tsc_rejected else ""
        return Verdict(
            "fail",
            f"clocksource {cur}: every clock read goes to slow hardware{why}",
            ev,
            "find why the TSC was rejected (dmesg | grep -i tsc); clocksource=tsc tsc=reliable "
            "only when the TSC is known to be stable",
            cur,
        )
    if cur == "tsc" and (f.a.tsc_constant is False or f.a.tsc_nonstop is False):
        return Verdict(
            "warn",
            "clocksource tsc, but the CPU does not declare it constant and non-stop: the kernel "
            "may switch away from it mid-run",
            ev,
            "a CPU with an invariant TSC (or tsc=reliable when it is known to be stable)",
            "tsc, not invariant",
        )
    if cur in FAST:
        return Verdict("pass", f"clocksource {cur}: read from a CPU register", ev, value=cur)
    if cur in PARAVIRT:
        return Verdict(
            "warn",
            f"clocksource {cur}: the hypervisor's clock, slower to read than the TSC",
            ev,
            "clocksource=tsc in the guest when the host exposes an invariant TSC",
            cur,
        )
    return Verdict(
        "warn",
        f"clocksource {cur}: not one known to be fast to read",
        ev,
        "the CPU's own counter, where the kernel offers it",
        cur,
    )


# ---- hypervisor ----
def hypervisor(f: Facts) -> Verdict:
    v, t = f.system.virtualization, f.target
    emulated = bool(v.emulated) or bool(t.emulated)
    virt = bool(v.hypervisor) or bool(t.virtualised)
    ev = [
        f"cpuid hypervisor bit: {'set' if v.hypervisor else 'clear' if v.hypervisor is False else 'not read'}"
        + (f", vendor {v.vendor}" if v.vendor else ""),
        f"target {t.kind}: emulated {_yes(t.emulated)}, virtualised {_yes(t.virtualised)}",
    ]
    if emulated:
        return Verdict(
            "fail",
            "an emulated CPU: timings are the emulator's, not the hardware's",
            ev,
            "measure on the hardware (or under KVM for a guest)",
            "emulated",
        )
    if not virt:
        if v.hypervisor is None and t.virtualised is None:
            return unknown("the hypervisor bit was not read", ev)
        return Verdict("pass", "bare metal: no hypervisor below", ev, value="none")
    fix = (
        "measure on bare metal; in a guest, pin each vCPU to a host CPU of its own (isolated "
        "on the host), with host power management off"
    )
    a, e = f.a, f.e
    if a.steal_ticks is None or e.steal_ticks is None:
        ev.append("/proc/stat steal time during the run: not known")
        return Verdict(
            "warn",
            "a hypervisor below: it may deschedule a virtual CPU at any time",
            ev,
            fix,
            v.vendor or "hypervisor",
        )
    ticks = e.steal_ticks - a.steal_ticks
    ms = ticks * 1000 / (a.clk_tck or 100)
    ev.append(
        f"/proc/stat steal of the measured CPUs: {a.steal_ticks} at the start, "
        f"{e.steal_ticks} at the end (USER_HZ {a.clk_tck})"
    )
    details = {"steal_ms": ms}
    if ticks > 0:
        return Verdict(
            "fail",
            f"the hypervisor took {ms:.0f} ms from the measured CPUs during the run",
            ev,
            fix,
            f"stole {ms:.0f} ms",
            details,
        )
    return Verdict(
        "warn",
        "a hypervisor below; it stole no time from the measured CPUs during the run",
        ev,
        fix,
        "no steal",
        details,
    )


def _yes(v: bool | None) -> str:
    return "not known" if v is None else "yes" if v else "no"


CLOCKSOURCE_CHECK = Check(
    "clocksource",
    "Clocksource and TSC stability",
    "Every timestamp, timer and timeout reads the clocksource: a slow one (HPET, ACPI "
    "PM: about a microsecond per read) adds to every wake-up, and an unstable TSC is "
    "swapped for a slow one mid-run.",
    clocksource,
)
HYPERVISOR_CHECK = Check(
    "hypervisor",
    "Hypervisor and steal time",
    "A hypervisor may deschedule a virtual CPU at any moment (steal time): the guest's "
    "thread stalls that long and its kernel cannot see why. An emulator's timings say "
    "nothing of the hardware.",
    hypervisor,
)
