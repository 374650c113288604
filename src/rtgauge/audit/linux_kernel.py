"""Linux checks of the kernel itself: its preemption model, the options it
was built with, RT throttling, timer migration, the watchdogs, NUMA
balancing and the firmware's SMIs. Pure functions of the facts."""

from __future__ import annotations

from rtgauge.audit.cpus import format_list, parse_list
from rtgauge.audit.facts import NO_AUDIT_FACTS, Facts
from rtgauge.audit.finding import Check, Verdict

PROC_SYS = "/proc/sys/kernel"
RT_KERNEL_FIX = (
    "boot a PREEMPT_RT kernel (CONFIG_PREEMPT_RT=y; Debian: linux-image-rt-amd64, "
    "mainline since 6.12)"
)


def unknown(what: str, evidence: list[str] | None = None) -> Verdict:
    return Verdict("unknown", f"not judged: {what}", evidence or [what])


def kconfig_evidence(f: Facts, keys: list[str]) -> list[str]:
    source = f.a.kconfig_source or "the kernel configuration"
    return [
        f"{source}: " + ", ".join(f"CONFIG_{k}={f.a.kconfig.get('CONFIG_' + k, '?')}" for k in keys)
    ]


# ---- preempt-model ----
def preempt_model(f: Facts) -> Verdict:
    k = f.system.kernel
    ev = [
        f"preemption model: {k.preempt_model or 'unknown'}"
        + (f" (read from {k.preempt_source})" if k.preempt_source else ""),
        f"uname -v: {f.system.host.version}",
    ]
    if f.a.present:
        ev.append(
            "/sys/kernel/realtime: "
            + (
                f.a.realtime_file
                if f.a.realtime_file is not None
                else "absent (the out-of-tree RT patch's mark; mainline PREEMPT_RT, 6.12 on, has none)"
            )
        )
        if f.a.kconfig_source:
            ev += kconfig_evidence(f, ["PREEMPT_RT", "PREEMPT_DYNAMIC"])
        ev.append(
            "/sys/kernel/debug/sched/preempt: "
            + (f.a.preempt_debugfs or "unreadable (debugfs not mounted, or not a dynamic kernel)")
        )
    if f.params.has("preempt"):
        ev.append(f"/proc/cmdline: preempt={f.params.value('preempt')}")
    model = k.preempt_model
    if model is None:
        return unknown("no source named the preemption model", ev)
    if model == "rt":
        return Verdict(
            "pass", "PREEMPT_RT: the kernel is preemptible almost everywhere", ev, value="rt"
        )
    dynamic = " or preempt=full on the command line" if k.preempt_dynamic else ""
    if model in ("full", "lazy"):
        return Verdict(
            "warn",
            f"preemption model {model}: preemptible kernel, but interrupt handlers and "
            "spinlock sections are not",
            ev,
            RT_KERNEL_FIX,
            model,
        )
    return Verdict(
        "fail",
        f"preemption model {model}: a thread woken in the kernel waits for the next "
        "preemption point",
        ev,
        f"{RT_KERNEL_FIX}; at least a fully preemptible kernel (CONFIG_PREEMPT=y{dynamic})",
        model,
    )


# ---- kernel-debug-options ----
HEAVY_DEBUG = [
    "KASAN",
    "KCSAN",
    "KMSAN",
    "LOCKDEP",
    "PROVE_LOCKING",
    "DEBUG_LOCK_ALLOC",
    "LOCK_STAT",
    "PROVE_RCU",
    "DEBUG_PAGEALLOC",
    "DEBUG_KMEMLEAK",
]
LIGHT_DEBUG = [
    "DEBUG_PREEMPT",
    "DEBUG_ATOMIC_SLEEP",
    "DEBUG_SPINLOCK",
    "DEBUG_MUTEXES",
    "DEBUG_RT_MUTEXES",
    "DEBUG_OBJECTS",
    "SLUB_DEBUG_ON",
    "PAGE_POISONING",
    "IRQSOFF_TRACER",
    "PREEMPT_TRACER",
    "SCHED_TRACER",
    "DEBUG_VM",
    "UBSAN_TRAP",
]


def _set(f: Facts, key: str) -> bool:
    return f.a.kconfig.get("CONFIG_" + key) in ("y", "m")


def debug_options(f: Facts) -> Verdict:
    if not f.a.present:
        return unknown(NO_AUDIT_FACTS)
    if not f.a.kconfig_source:
        return unknown(
            "the kernel configuration is not readable (no /boot/config-<release>, "
            "no /proc/config.gz)"
        )
    heavy = [k for k in HEAVY_DEBUG if _set(f, k)]
    light = [k for k in LIGHT_DEBUG if _set(f, k)]
    on = heavy + light
    ev = [
        f"{f.a.kconfig_source}: "
        + (
            ", ".join(f"CONFIG_{k}=y" for k in on)
            if on
            else f"none set of CONFIG_{', CONFIG_'.join(HEAVY_DEBUG + LIGHT_DEBUG)}"
        )
    ]
    fix = (
        "a kernel built without them (scripts/config -d "
        + " -d ".join(f"CONFIG_{k}" for k in on)
        + "), such as the distribution's production kernel"
    )
    if heavy:
        return Verdict(
            "fail",
            f"lock or memory debugging is built in: {', '.join(heavy)}",
            ev,
            fix,
            ", ".join(heavy),
        )
    if light:
        return Verdict(
            "warn",
            f"debugging that runs on every switch or lock: {', '.join(light)}",
            ev,
            fix,
            ", ".join(light),
        )
    return Verdict("pass", "no debugging option that slows the kernel's paths", ev, value="none")


# ---- kernel-rt-options ----
def rt_options(f: Facts) -> Verdict:
    if not f.a.present:
        return unknown(NO_AUDIT_FACTS)
    if not f.a.kconfig_source:
        return unknown("the kernel configuration is not readable")
    rt = _set(f, "PREEMPT_RT")
    threaded = rt or (_set(f, "IRQ_FORCED_THREADING") and f.params.has("threadirqs"))
    ev = kconfig_evidence(
        f, ["HIGH_RES_TIMERS", "NO_HZ_FULL", "RCU_NOCB_CPU", "RCU_BOOST", "IRQ_FORCED_THREADING"]
    ) + [
        "threaded interrupts: "
        + (
            "forced by PREEMPT_RT"
            if rt
            else "threadirqs on /proc/cmdline"
            if threaded
            else "no (neither PREEMPT_RT nor threadirqs on /proc/cmdline)"
        )
    ]
    missing: list[tuple[str, str]] = []
    for key, fix in (
        ("NO_HZ_FULL", "CONFIG_NO_HZ_FULL=y (then nohz_full=<cpus>)"),
        ("RCU_NOCB_CPU", "CONFIG_RCU_NOCB_CPU=y (then rcu_nocbs=<cpus>)"),
        ("RCU_BOOST", "CONFIG_RCU_BOOST=y"),
    ):
        if not _set(f, key):
            missing.append((key, fix))
    if not threaded:
        missing.append(
            ("threaded interrupts", "threadirqs on the kernel command line (or PREEMPT_RT)")
        )
    # for the explanation of a worst case: which of them a part needed
    details = {"high_res": _set(f, "HIGH_RES_TIMERS"), "missing": [n for n, _ in missing]}
    if not _set(f, "HIGH_RES_TIMERS"):
        return Verdict(
            "fail",
            "no high-resolution timers: every timer expires on a tick",
            ev,
            "CONFIG_HIGH_RES_TIMERS=y; " + "; ".join(x for _, x in missing),
            "no HIGH_RES_TIMERS",
            details,
        )
    if missing:
        names = ", ".join(n for n, _ in missing)
        return Verdict(
            "warn",
            f"missing what helps latency: {names}",
            ev,
            "; ".join(x for _, x in missing),
            f"missing {names}",
            details,
        )
    return Verdict(
        "pass",
        "high-resolution timers, full dynticks, RCU offload and boosting, threaded interrupts",
        ev,
        value="all",
        details=details,
    )


# ---- rt-throttling ----
def rt_throttling(f: Facts) -> Verdict:
    k = f.system.kernel
    ev = [
        f"{PROC_SYS}/sched_rt_runtime_us: {k.rt_runtime_us}",
        f"{PROC_SYS}/sched_rt_period_us: {k.rt_period_us}",
    ]
    if k.rt_runtime_us is None or k.rt_period_us is None:
        return unknown("the RT throttling sysctls were not read", ev)
    fix = "sysctl kernel.sched_rt_runtime_us=950000 (the default: 95 % of each second)"
    if k.rt_runtime_us < 0:
        return Verdict(
            "warn",
            "RT throttling is off: a runaway SCHED_FIFO thread hangs its CPU",
            ev,
            fix,
            "off",
        )
    share = k.rt_runtime_us / k.rt_period_us if k.rt_period_us else 0.0
    value = f"{share:.0%}"
    if share < 0.5:
        return Verdict(
            "fail",
            f"real-time threads may use only {share:.0%} of each period: one that runs longer "
            f"stalls for {(k.rt_period_us - k.rt_runtime_us) / 1000:.0f} ms",
            ev,
            fix,
            value,
        )
    return Verdict(
        "pass", f"throttling at {share:.0%}: a thread that sleeps never meets it", ev, value=value
    )


# ---- timer-migration ----
def timer_migration(f: Facts) -> Verdict:
    if not f.a.present:
        return unknown(NO_AUDIT_FACTS)
    v = f.a.sysctl.get("timer_migration")
    ev = [f"{PROC_SYS}/timer_migration: {v if v is not None else 'not read'}"]
    if v is None:
        return unknown("timer_migration not read", ev)
    fix = "sysctl kernel.timer_migration=0"
    if v == 0:
        return Verdict("pass", "timers stay on the CPU that armed them", ev, value="0")
    if f.measured_isolated:
        return Verdict(
            "fail",
            "timers migrate although the measured CPUs are isolated",
            ev + [f"isolated CPUs: {format_list(f.isolated)}"],
            fix,
            str(v),
        )
    return Verdict(
        "warn",
        "timers of idle CPUs migrate to busy ones, the measured CPU among them",
        ev,
        fix,
        str(v),
    )


# ---- watchdogs ----
def watchdogs(f: Facts) -> Verdict:
    s = f.a.sysctl
    if "watchdog" not in s and "nmi_watchdog" not in s:
        return unknown(NO_AUDIT_FACTS if not f.a.present else "the watchdog sysctls were not read")
    ev = [
        f"{PROC_SYS}/{k}: {s[k]}"
        for k in (
            "watchdog",
            "nmi_watchdog",
            "soft_watchdog",
            "watchdog_thresh",
            "watchdog_cpumask",
        )
        if k in s
    ]
    for flag in ("nowatchdog", "nosoftlockup", "nmi_watchdog"):
        if f.params.has(flag):
            value = f.params.value(flag)
            ev.append(f"/proc/cmdline: {flag}" + (f"={value}" if value is not None else ""))
    on = s.get("watchdog", 1) != 0
    nmi = on and s.get("nmi_watchdog", 0) != 0
    soft = on and s.get("soft_watchdog", 0) != 0
    mask = parse_list(str(s["watchdog_cpumask"])) if "watchdog_cpumask" in s else None
    on_measured = mask is None or bool(mask & set(f.measured))
    active = [n for n, a in (("NMI watchdog", nmi), ("soft-lockup watchdog", soft)) if a]
    if not active or not on_measured:
        why = "off" if not active else "kept off the measured CPUs by watchdog_cpumask"
        return Verdict("pass", f"the lockup watchdogs are {why}", ev, value="off")
    fix = (
        "nowatchdog on the kernel command line (or sysctl kernel.nmi_watchdog=0 "
        f"kernel.soft_watchdog=0), or keep them to the other CPUs: sysctl "
        f"kernel.watchdog_cpumask={f.housekeeping}"
    )
    text = " and ".join(active)
    verb = "run" if len(active) > 1 else "runs"
    if f.measured_isolated:
        return Verdict("fail", f"the {text} {verb} on the isolated measured CPUs", ev, fix, text)
    return Verdict("warn", f"the {text} {verb} on the measured CPUs", ev, fix, text)


# ---- numa-balancing ----
def numa_balancing(f: Facts) -> Verdict:
    if not f.a.present:
        return unknown(NO_AUDIT_FACTS)
    v = f.a.sysctl.get("numa_balancing")
    nodes = parse_list(f.a.numa_nodes)
    ev = [
        f"{PROC_SYS}/numa_balancing: {v if v is not None else 'absent (not built in)'}",
        f"/sys/devices/system/node/online: {f.a.numa_nodes or 'not read'}",
    ]
    if not v:
        return Verdict("pass", "NUMA balancing is off", ev, value="off")
    fix = "sysctl kernel.numa_balancing=0 (numa_balancing=disable on the command line); place memory with numactl"
    if nodes is not None and len(nodes) > 1:
        return Verdict(
            "fail", f"NUMA balancing scans every task over {len(nodes)} nodes", ev, fix, "on"
        )
    where = "one node" if nodes is not None else "an unknown number of nodes"
    return Verdict(
        "warn", f"NUMA balancing is on with {where}: it scans for nothing to gain", ev, fix, "on"
    )


# ---- smi-count ----
def smi_count(f: Facts) -> Verdict:
    if not f.a.present:
        return unknown(NO_AUDIT_FACTS)
    source = f.a.smi_source or "MSR 0x34"
    if f.a.smi_count is None:
        return Verdict("n/a", "the SMI count cannot be read here", [source], value="unreadable")
    ev = [f"{source} (MSR_SMI_COUNT) at the start: {f.a.smi_count}"]
    fix = (
        "SMIs come from the firmware: in its setup turn off legacy USB emulation, power "
        "management through SMM and error logging to SMM, or use another board"
    )
    end = f.e.smi_count
    if end is not None:
        ev.append(f"at the end: {end}")
        during = end - f.a.smi_count
        if during > 0:
            return Verdict(
                "fail",
                f"{during} SMIs during the run",
                ev,
                fix,
                f"{during} during the run",
                {"smis": during},
            )
    if f.a.smi_count > 0:
        when = "none during the run" if end is not None else "whether during the run is not known"
        return Verdict(
            "warn",
            f"{f.a.smi_count} SMIs since boot; {when}",
            ev,
            fix,
            f"{f.a.smi_count} since boot",
        )
    return Verdict("pass", "no SMI since boot", ev, value="0")


CHECKS = [
    Check(
        "preempt-model",
        "Preemption model",
        "Without full preemption a high-priority thread woken while the kernel serves "
        "another task waits for the next preemption point (milliseconds in long system "
        "calls). PREEMPT_RT also turns interrupt handlers into threads and most "
        "spinlocks into sleeping locks, so almost nothing runs unpreemptible.",
        preempt_model,
    ),
    Check(
        "kernel-debug-options",
        "Kernel options that hurt latency",
        "Lock debugging checks every lock taken, KASAN every memory access, debug "
        "preemption every preemption count change: they lengthen the paths a wake-up "
        "goes through and the sections run with preemption or interrupts off.",
        debug_options,
    ),
    Check(
        "kernel-rt-options",
        "Kernel options that help latency",
        "High-resolution timers wake a thread at its time instead of the next tick; "
        "full dynticks and RCU offloading take the tick and RCU callbacks off isolated "
        "CPUs; threaded interrupts let a real-time thread outrank device handlers; RCU "
        "boosting keeps a preempted RCU reader from holding up the system.",
        rt_options,
    ),
    Check(
        "rt-throttling",
        "RT throttling",
        "Once the real-time threads of a CPU have run for the runtime in a period, the "
        "kernel stops them for the rest of it: harmless to threads that sleep, a stall of "
        "that length to one that computes; with throttling off a runaway thread hangs "
        "the CPU instead.",
        rt_throttling,
    ),
    Check(
        "timer-migration",
        "Timer migration",
        "With migration on, the timers of idle CPUs are run by busy ones: the measured "
        "CPU may run other CPUs' timer callbacks just when its thread should wake.",
        timer_migration,
    ),
    Check(
        "watchdogs",
        "NMI and soft-lockup watchdogs",
        "The soft-lockup watchdog runs a timer and a thread at the highest priority on "
        "each CPU every few seconds; the NMI watchdog interrupts each CPU with an NMI, "
        "which nothing can defer.",
        watchdogs,
    ),
    Check(
        "numa-balancing",
        "NUMA balancing",
        "NUMA balancing unmaps pages of running tasks to learn where they are used: "
        "each task then takes page faults, and scans its own memory on its way back to "
        "user space, the real-time thread included.",
        numa_balancing,
    ),
    Check(
        "smi-count",
        "System Management Interrupts",
        "An SMI stops every CPU for the firmware's handler, from microseconds to "
        "milliseconds; the OS cannot see it, only the latency it leaves.",
        smi_count,
    ),
]
