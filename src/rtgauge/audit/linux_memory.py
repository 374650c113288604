"""Linux checks of memory: transparent hugepages and khugepaged, swap with
or without locked memory. Pure functions of the facts."""

from __future__ import annotations

import re

from rtgauge.audit.facts import NO_AUDIT_FACTS, Facts
from rtgauge.audit.finding import Check, Verdict
from rtgauge.audit.linux_kernel import unknown

THP = "/sys/kernel/mm/transparent_hugepage"


def chosen(text: str | None) -> str | None:
    """The choice in brackets of a sysfs selector ("always [madvise] never")."""
    if text is None:
        return None
    m = re.search(r"\[([^\]]+)\]", text)
    return m.group(1) if m else text.strip() or None


# ---- thp ----
def thp(f: Facts) -> Verdict:
    if not f.a.present:
        return unknown(NO_AUDIT_FACTS)
    enabled, defrag = chosen(f.a.thp_enabled), chosen(f.a.thp_defrag)
    ev = [
        f"{THP}/enabled: {f.a.thp_enabled or 'absent (no THP)'}",
        f"{THP}/defrag: {f.a.thp_defrag or 'absent'}",
        f"{THP}/khugepaged/defrag: {f.a.khugepaged_defrag}",
    ]
    if f.params.has("transparent_hugepage"):
        ev.append(f"/proc/cmdline: transparent_hugepage={f.params.value('transparent_hugepage')}")
    if enabled is None:
        return Verdict("pass", "no transparent hugepages in this kernel", ev, value="absent")
    value = f"{enabled}, defrag {defrag}"
    fix = (
        f"echo madvise > {THP}/enabled (or never; transparent_hugepage=madvise on the command "
        f"line) and echo defer+madvise > {THP}/defrag"
    )
    if enabled == "always" and defrag == "always":
        return Verdict(
            "fail", "every fault may compact memory first, in the faulting thread", ev, fix, value
        )
    if enabled == "always":
        return Verdict(
            "warn",
            "every anonymous mapping gets hugepages: faults zero 2 MB, khugepaged collapses "
            "pages behind the process",
            ev,
            fix,
            value,
        )
    if enabled == "madvise" and defrag == "always":
        return Verdict(
            "warn", "regions that ask for hugepages compact memory in their faults", ev, fix, value
        )
    return Verdict("pass", f"hugepages only where asked ({enabled})", ev, value=value)


# ---- swap ----
def swap(f: Facts) -> Verdict:
    if not f.a.present or f.a.swap_total_kb is None:
        return unknown(NO_AUDIT_FACTS if not f.a.present else "/proc/meminfo was not read")
    locked = f.system.privileges.mlockall
    ev = [
        f"/proc/meminfo: SwapTotal {f.a.swap_total_kb} kB",
        f"/proc/swaps: {f.a.swap_devices} devices",
        f"mlockall obtained by the probe: {'yes' if locked else 'no'}"
        + ("" if locked else f" ({f.system.privileges.mlockall_reason})"),
    ]
    if f.a.swap_total_kb == 0:
        return Verdict("pass", "no swap", ev, value="none")
    size = f"{f.a.swap_total_kb / 1024 / 1024:.1f} GiB swap"
    if locked:
        return Verdict(
            "warn",
            f"{size}; the probe's memory is locked, but other processes swap",
            ev,
            "swapoff -a, or keep it and lock every real-time process's memory (mlockall)",
            size,
        )
    return Verdict(
        "fail",
        f"{size} and the probe's memory is not locked: a page may be on disk",
        ev,
        "lock the real-time process's memory (mlockall: run as root or raise RLIMIT_MEMLOCK), "
        "or swapoff -a",
        size,
    )


CHECKS = [
    Check(
        "thp",
        "Transparent hugepages and khugepaged",
        "A fault in a hugepage region allocates and zeroes 2 MB, and with defrag may "
        "compact memory first (milliseconds); khugepaged collapsing pages sends TLB "
        "shootdowns to every CPU the process runs on.",
        thp,
    ),
    Check(
        "swap",
        "Swap and locked memory",
        "A swapped-out page costs a disk read at its next touch: milliseconds. Locked "
        "memory is never swapped, but kswapd and the swap traffic still compete.",
        swap,
    ),
]
