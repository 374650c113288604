"""Linux checks of the measured CPUs: isolation and whether its settings
agree, SMT siblings, frequency scaling, idle states. Pure functions of the
facts."""

from __future__ import annotations

from rtgauge.audit.cpus import format_list, parse_list
from rtgauge.audit.facts import NO_AUDIT_FACTS, Facts
from rtgauge.audit.finding import Check, Verdict
from rtgauge.audit.linux_kernel import unknown
from rtgauge.audit_facts import IdleState

SYS_CPU = "/sys/devices/system/cpu"


def _isolation_evidence(f: Facts) -> list[str]:
    k, cs = f.system.kernel, f.a.cpuset
    absent = "absent (a kernel without NO_HZ_FULL)" if f.a.present else "not read"
    ev = [
        f"measured CPUs: {f.measured_text} of {f.online} online",
        f"{SYS_CPU}/isolated: {_shown(k.isolcpus, 'not read')}",
        f"{SYS_CPU}/nohz_full: {_shown(k.nohz_full, absent)}",
    ]
    for name in ("isolcpus", "nohz_full", "rcu_nocbs"):
        if f.params.has(name):
            ev.append(f"/proc/cmdline: {name}={f.params.value(name)}")
    if cs.version is not None:
        ev.append(
            f"cpuset (cgroup v{cs.version}) {cs.path}: CPUs {cs.cpus or '?'}"
            + (f", partition {cs.partition}" if cs.partition else "")
            + (f", isolated partitions' CPUs {cs.isolated or 'none'}" if cs.version == 2 else "")
        )
    return ev


def _shown(text: str | None, missing: str) -> str:
    """A file's text as evidence: an empty one says so."""
    return missing if text is None else text or "(empty)"


def _fix_isolation(cpus: str) -> str:
    return (
        f"isolcpus=domain,managed_irq,{cpus} nohz_full={cpus} rcu_nocbs={cpus} on the kernel "
        "command line (or an isolated cpuset partition: cpuset.cpus.partition=isolated), "
        f"and measure on those CPUs (--cpus {cpus})"
    )


# ---- cpu-isolation ----
def cpu_isolation(f: Facts) -> Verdict:
    ev = _isolation_evidence(f)
    if f.system.kernel.isolcpus is None and not f.params.has("isolcpus") and not f.a.present:
        return unknown("neither the isolated CPUs nor the command line were read", ev)
    measured, iso = set(f.measured), f.isolated
    if f.online <= 1:
        return Verdict("n/a", "one CPU: nothing to isolate it from", ev, value="one CPU")
    value = f"isolated {format_list(iso)}"
    if measured and measured <= iso:
        return Verdict(
            "pass", f"the measured CPUs ({f.measured_text}) are isolated", ev, value=value
        )
    if iso and not measured & iso:
        return Verdict(
            "fail",
            f"CPUs {format_list(iso)} are isolated, but the run measured {f.measured_text}",
            ev,
            f"measure on the isolated CPUs: --cpus {format_list(iso)}",
            value,
        )
    if iso:
        rest = format_list(measured - iso)
        return Verdict(
            "warn",
            f"measured CPUs {rest} are not isolated",
            ev,
            _fix_isolation(format_list(measured)),
            value,
        )
    keep = max(set(range(f.online)) - {0}, default=0)
    return Verdict(
        "warn",
        "no CPU is isolated: the measured CPUs run every other task too",
        ev,
        _fix_isolation(str(keep)),
        "none",
    )


# ---- isolation-agreement ----
def isolation_agreement(f: Facts) -> Verdict:
    ev = _isolation_evidence(f)
    k = f.system.kernel
    nohz = parse_list(k.nohz_full) if k.nohz_full is not None else f.cmdline_list("nohz_full")
    nocb = (f.cmdline_list("rcu_nocbs") or set()) | (nohz or set())  # nohz_full implies it
    iso = f.isolated
    if nohz is None and k.isolcpus is None and not f.a.present:
        return unknown("the isolation settings were not read", ev)
    sets = {"isolated": iso, "nohz_full": nohz or set(), "rcu_nocbs (or nohz_full)": nocb}
    if not any(sets.values()):
        return Verdict("n/a", "no isolation configured: nothing to agree", ev, value="none")
    bad_nohz = sorted(c for c in f.measured if c in (nohz or set()) and c not in iso)
    if bad_nohz:
        return Verdict(
            "fail",
            f"nohz_full CPUs {format_list(bad_nohz)} are not isolated: the scheduler puts "
            "other tasks there, the tick returns, and every kernel entry pays for dynticks",
            ev,
            f"isolate them too: isolcpus=domain,managed_irq,{format_list(bad_nohz)}",
            "nohz_full without isolation",
        )
    differ = {name: s for name, s in sets.items() if s != iso}
    if differ:
        parts = [f"isolated {format_list(iso)}"] + [
            f"{n} {format_list(s)}" for n, s in differ.items()
        ]
        cpus = format_list(iso | (nohz or set()))
        return Verdict(
            "warn",
            "the isolation settings name different CPUs: " + "; ".join(parts),
            ev,
            f"name the same CPUs in each: isolcpus=domain,managed_irq,{cpus} nohz_full={cpus} "
            f"rcu_nocbs={cpus}",
            "; ".join(parts),
        )
    return Verdict(
        "pass",
        f"isolcpus, nohz_full and rcu_nocbs all name {format_list(iso)}",
        ev,
        value=format_list(iso),
    )


# ---- smt-siblings ----
def smt_siblings(f: Facts) -> Verdict:
    if not f.a.present:
        return unknown(NO_AUDIT_FACTS)
    ev = [f"{SYS_CPU}/smt/control: {f.a.smt_control or 'not read'}"]
    siblings: dict[int, set[int]] = {}
    for c in f.measured:
        facts = f.a.cpu(c)
        if facts is None or facts.siblings is None:
            return unknown(f"CPU {c}'s topology was not read", ev)
        ev.append(f"{SYS_CPU}/cpu{c}/topology/thread_siblings_list: {facts.siblings}")
        siblings[c] = (parse_list(facts.siblings) or {c}) - {c}
    others = set().union(*siblings.values()) if siblings else set()
    if not others:
        return Verdict("pass", "no measured CPU shares its core", ev, value="none")
    fix = (
        "nosmt on the kernel command line (or echo off > /sys/devices/system/cpu/smt/control), "
        f"or isolate the siblings ({format_list(others)}) and leave them idle"
    )
    busy = others - set(f.measured) - f.isolated
    details = {"siblings": {c: sorted(s) for c, s in siblings.items() if s}}
    if busy:
        return Verdict(
            "fail",
            f"siblings {format_list(busy)} of the measured CPUs run other work on the same cores",
            ev,
            fix,
            f"busy siblings {format_list(busy)}",
            details,
        )
    return Verdict(
        "warn",
        f"the measured CPUs share cores with {format_list(others)} (measured or isolated)",
        ev,
        fix,
        f"siblings {format_list(others)}",
        details,
    )


# ---- cpufreq ----
# Governors whose frequency follows the load; powersave does too under a
# P-state driver (below that, it pins the lowest frequency).
DYNAMIC_GOVERNORS = ("schedutil", "ondemand", "conservative")
PSTATE_DRIVERS = ("intel_pstate", "amd-pstate", "amd-pstate-epp", "intel_cpufreq")


def _follows_load(governor: str, driver: str) -> bool:
    return governor in DYNAMIC_GOVERNORS or (governor == "powersave" and driver in PSTATE_DRIVERS)


def cpufreq(f: Facts) -> Verdict:
    a = f.a
    if not a.present:
        g = f.system.cpu.governor
        ev = [f"{SYS_CPU}/cpu0/cpufreq/scaling_governor: {g or 'absent'}"]
        if g is None:
            return Verdict(
                "n/a",
                "no cpufreq driver: the OS does not scale the frequency",
                ev,
                value="no cpufreq",
            )
        if g == "performance":
            return Verdict("pass", "governor performance (cpu0)", ev, value=g)
        return Verdict("warn", f"governor {g} (cpu0)", ev, _governor_fix(), g)
    ev, governors = [], {}
    for c in f.measured:
        cf = a.cpu(c)
        if cf is None or cf.governor is None:
            continue
        governors[c] = (cf.governor, cf.driver or "?")
        limits = f", limits {cf.min_khz}..{cf.max_khz} kHz of {cf.hw_max_khz}" if cf.max_khz else ""
        ev.append(f"{SYS_CPU}/cpu{c}/cpufreq: governor {cf.governor}, driver {cf.driver}{limits}")
    if a.cpufreq_boost is not None:
        ev.append(f"{SYS_CPU}/cpufreq/boost: {a.cpufreq_boost}")
    if a.no_turbo is not None:
        ev.append(f"{SYS_CPU}/intel_pstate/no_turbo: {a.no_turbo}")
    if not governors:
        ev.append(f"{SYS_CPU}/cpuN/cpufreq: absent for CPUs {f.measured_text}")
        return Verdict(
            "n/a", "no cpufreq driver: the OS does not scale the frequency", ev, value="no cpufreq"
        )
    boost = a.cpufreq_boost == 1 or a.no_turbo == 0
    pinned_low = sorted(
        c for c, (g, d) in governors.items() if g == "powersave" and d not in PSTATE_DRIVERS
    )
    dynamic = sorted(c for c, (g, d) in governors.items() if _follows_load(g, d))
    # userspace, or a governor the check does not know: a frequency not read
    other = sorted(
        c
        for c, (g, d) in governors.items()
        if g != "performance" and c not in dynamic and c not in pinned_low
    )
    names = ", ".join(sorted({g for g, _ in governors.values()}))
    value = names + (", boost on" if boost else "")
    if pinned_low:
        return Verdict(
            "fail",
            f"CPUs {format_list(pinned_low)} run at their lowest frequency (powersave)",
            ev,
            _governor_fix(),
            value,
        )
    if dynamic or other or boost:
        what = []
        if dynamic:
            what.append(
                f"governor {_names(governors, dynamic)} on CPUs {format_list(dynamic)}: "
                "the clock follows the load"
            )
        if other:
            what.append(
                f"governor {_names(governors, other)} on CPUs {format_list(other)}: a "
                "frequency set from user space, or by a governor this check does not know"
            )
        if boost:
            what.append("boost on: the clock follows temperature and load")
        return Verdict("warn", "; ".join(what), ev, _governor_fix(), value)
    return Verdict("pass", "governor performance, no boost", ev, value=value)


def _names(governors: dict[int, tuple[str, str]], cpus: list[int]) -> str:
    return ", ".join(sorted({governors[c][0] for c in cpus}))


def _governor_fix() -> str:
    return (
        "cpupower frequency-set -g performance on the measured CPUs; boost off: echo 0 > "
        "/sys/devices/system/cpu/cpufreq/boost (intel_pstate: echo 1 > "
        "/sys/devices/system/cpu/intel_pstate/no_turbo)"
    )


# ---- idle-states ----
def idle_states(f: Facts) -> Verdict:
    if not f.a.present:
        return unknown(NO_AUDIT_FACTS)
    budget_us = f.budget_ns / 1000
    held = f.system.privileges.cpu_dma_latency
    ev = [f"{SYS_CPU}/cpuidle/current_driver: {f.a.cpuidle_driver or 'none'}"]
    states: list[tuple[int, IdleState]] = []
    for c in f.measured:
        cf = f.a.cpu(c)
        for st in cf.idle if cf else []:
            states.append((c, st))
            ev.append(
                f"{SYS_CPU}/cpu{c}/cpuidle/state{st.index}: {st.name}, exit latency "
                f"{st.exit_latency_us} µs" + (", disabled" if st.disabled else "")
            )
    ev.append(
        "/dev/cpu_dma_latency: "
        + (
            "held at 0 µs by the probe during the run"
            if held
            else "not held by the probe (not root?)"
            if held is False
            else "not recorded"
        )
    )
    details = {
        "states": [
            {
                "cpu": c,
                "state": st.index,
                "name": st.name,
                "exit_latency_us": st.exit_latency_us,
                "disabled": st.disabled,
            }
            for c, st in states
        ],
        "cpu_dma_latency": held,
        "budget_us": budget_us,
    }
    if not states:
        return Verdict(
            "n/a", "no idle states listed (no cpuidle driver)", ev, value="none", details=details
        )
    deepest = max((st.exit_latency_us or 0 for _, st in states if not st.disabled), default=0)
    value = f"deepest {deepest} µs" + (", cpu_dma_latency held" if held else "")
    if held:
        return Verdict(
            "pass",
            f"cpu_dma_latency held at 0: no state deeper than polling was entered (the deepest "
            f"enabled exits in {deepest} µs)",
            ev,
            value=value,
            details=details,
        )
    fix = (
        "hold /dev/cpu_dma_latency at 0 while the real-time work runs (rtgauge does as root; "
        "tuned's latency-performance profile does), or disable the deep states: echo 1 > "
        "/sys/devices/system/cpu/cpuN/cpuidle/stateK/disable, or intel_idle.max_cstate=1 "
        "processor.max_cstate=1 on the command line"
    )
    if deepest >= budget_us:
        return Verdict(
            "fail",
            f"an enabled idle state exits in {deepest} µs, the whole {budget_us:.0f} µs budget",
            ev,
            fix,
            value,
            details,
        )
    if deepest > budget_us / 10:
        return Verdict(
            "warn",
            f"an enabled idle state exits in {deepest} µs, over a tenth of "
            f"the {budget_us:.0f} µs budget",
            ev,
            fix,
            value,
            details,
        )
    return Verdict(
        "pass",
        f"the deepest enabled idle state exits in {deepest} µs",
        ev,
        value=value,
        details=details,
    )


# ---- rt-tasks ----
def rt_tasks(f: Facts) -> Verdict:
    """Other programs' real-time threads that may run on the measured CPUs:
    they outrank every SCHED_OTHER task and, at or above the probe's
    priority, the measured thread itself."""
    tasks = f.a.rt_tasks
    if tasks is None:
        return unknown("the record has no list of real-time tasks (a probe from before it)")
    if not tasks:
        seen = (
            f"/proc/*/task/*: no thread of another program with SCHED_FIFO, SCHED_RR or "
            f"SCHED_DEADLINE may run on CPUs {f.measured_text}"
        )
        return Verdict(
            "pass", "no other program's real-time thread may run on the measured CPUs", [seen],
            value="none",
        )  # fmt: skip
    more = f" and {f.a.rt_tasks_more} more" if f.a.rt_tasks_more else ""
    runnable = [t for t in tasks if t.state == "R"]
    ev = [f"/proc/{t.pid or t.tid}/task/{t.tid}: {t.label}" for t in tasks] + (
        [f"{f.a.rt_tasks_more} more not listed"] if f.a.rt_tasks_more else []
    )
    names = ", ".join(t.label for t in tasks[:4]) + more
    fix = (
        "stop them during the measurement, or keep them off the measured CPUs (taskset -p "
        "-c <other CPUs> <pid>; a cpuset); rtgauge never moves or signals another program's "
        "task"
    )
    status = "fail" if runnable else "warn"
    what = "runnable now" if runnable else "that may wake"
    summary = f"{len(tasks)} real-time thread(s) of other programs {what} on the measured CPUs: "
    return Verdict(status, summary + names, ev, fix, f"{len(tasks)}{more}")


CHECKS = [
    Check(
        "rt-tasks",
        "Other programs' real-time tasks on the measured CPUs",
        "A SCHED_FIFO, SCHED_RR or SCHED_DEADLINE thread of another program that may run on "
        "a measured CPU preempts everything below it, the measured thread too when its "
        "priority is as high: its bursts are in the latency, and a hog of another tool can "
        "take the CPU for hundreds of milliseconds.",
        rt_tasks,
    ),
    Check(
        "cpu-isolation",
        "Isolation of the measured CPUs",
        "On a shared CPU any task, kernel thread or timer may be running when the "
        "real-time thread wakes: its preemption, and the caches it leaves cold, are in "
        "the latency.",
        cpu_isolation,
    ),
    Check(
        "isolation-agreement",
        "isolcpus, nohz_full, rcu_nocbs and cpusets agree",
        "Each setting isolates from one thing: isolcpus from the scheduler, nohz_full "
        "from the tick, rcu_nocbs from RCU callbacks. A CPU named in one but not the "
        "others keeps the rest of the disturbance, or pays for dynticks without gain.",
        isolation_agreement,
    ),
    Check(
        "smt-siblings",
        "SMT siblings of the measured CPUs",
        "Hyper-threads share one core's execution units and caches: work on the sibling "
        "slows the real-time thread by tens of percent, unpredictably.",
        smt_siblings,
    ),
    Check(
        "cpufreq",
        "CPU frequency governor and boost",
        "A dynamic governor lowers the clock while the CPU idles: the wake-up that "
        "matters runs slow until the governor reacts, and each change may stall the "
        "core. Boost clocks vary with temperature and the other cores' load.",
        cpufreq,
    ),
    Check(
        "idle-states",
        "Idle states deeper than the latency budget",
        "A CPU in a deep idle state needs its exit latency to wake: the timer or "
        "interrupt that wakes the real-time thread waits that long first.",
        idle_states,
    ),
]
