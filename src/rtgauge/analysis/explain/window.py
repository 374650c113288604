"""A kept window as the rules read it, and how the OS behind it differs from
Linux, as data (OsProfile): how priorities count, which task is idle, which
vector is the tick, what holds off a switch. The rules never branch on an
OS's name; they read the profile they are handed."""

from __future__ import annotations

from dataclasses import dataclass, field

from rtgauge import legacy_system
from rtgauge.model import TestRecord, TraceEvent, TraceWindowRecord
from rtgauge.run import Run


@dataclass(frozen=True)
class OsProfile:
    """What the rules need to know of the OS whose trace they read."""

    name: str  # "linux", or the port's name ("freertos")
    higher_number_first: bool  # priorities count upwards (an RTOS) or downwards (Linux)
    idle_tasks: tuple[str, ...] = ()  # task names that are the idle task (as pid 0)
    tick: str | None = None  # the tick's vector, as the trace names it
    timer_task: str | None = None  # the timer service task, where the OS has one
    idle_states: bool = True  # an idle CPU may sit in a state it must exit (cpuidle)
    # a switch-out's state tells kernel code from a return to user space (Linux's R+)
    switch_state_tells_kernel_code: bool = True
    # what holds off a switch from a lower-priority task the interrupt returned to;
    # None: the kernel's preemption model
    holds_off_switch: str | None = None


LINUX = OsProfile("linux", higher_number_first=False)

# What a window's sample measures: from a release instant (a timer's expiry,
# a post) to the thread running, or an operation: from the thread's call to
# its return, the thread running at both ends.
RELEASE, OPERATION = "release", "operation"
INTERVALS = (RELEASE, OPERATION)


def rtos_profile(
    name: str, idle_task: str | None, tick: str | None, timer_task: str | None
) -> OsProfile:
    """An RTOS's profile from the names its record gives."""
    return OsProfile(
        name,
        higher_number_first=True,
        idle_tasks=(idle_task,) if idle_task else (),
        tick=tick,
        timer_task=timer_task,
        idle_states=False,
        switch_state_tells_kernel_code=False,
        holds_off_switch="the scheduler suspended, or a critical section",
    )


def profile_of(run: Run, test: TestRecord) -> OsProfile:
    """The profile for a test's windows: Linux's, or the RTOS's from the
    names its system record gives (rtgauge.legacy_system answers for
    records from before they were given)."""
    scale = test.explain.prio_scale if test.explain else "linux"
    if scale != "rtos":
        return LINUX
    names = run.system.trace_names()
    port = run.system.port or "rtos"
    if names is None:  # an RTOS that names nothing: no idle task, no tick known
        return rtos_profile(port, None, None, None)
    # a port that names its tasks in the record also numbers its idle task 0
    # in the events itself; only older records need the host to
    said = isinstance((run.system.rtos or {}).get("trace_names"), dict)
    idle = None if said else names.idle_task
    return rtos_profile(port, idle, names.tick, names.timer_task)


def legacy_profile(prio_scale: str) -> OsProfile:
    """A profile from a window's priority scale alone (windows made by hand):
    an RTOS's with the names the first RTOS port gave."""
    if prio_scale != "rtos":
        return LINUX
    return rtos_profile(
        legacy_system.FREERTOS,
        legacy_system.FREERTOS_IDLE_TASK,
        legacy_system.FREERTOS_TICK,
        legacy_system.FREERTOS_TIMER_TASK,
    )


@dataclass(frozen=True)
class TraceWindow:
    """A kept window, as the record holds it (times relative to the release:
    an operation's call)."""

    metric: str
    sample_ns: int
    cpu: int
    tid: int
    start: int  # the window's start, ns from the release (negative: before it)
    complete: bool
    lost_events: int
    events: tuple[TraceEvent, ...]
    policies: dict[int, str] = field(default_factory=dict)
    origins: dict[int, str] = field(default_factory=dict)  # pid -> run, kernel, other
    steal_ns: int | None = None
    steal_over_ns: int | None = None
    # how the OS numbers priorities: "linux" (0-99 real-time, lower first;
    # 100-139 normal) or "rtos" (higher number, higher priority); the
    # profile, when given, says more and wins
    prio_scale: str = "linux"
    # idle states' exit latencies where the system record gives them (ns)
    idle_exit_ns: dict[int, int] = field(default_factory=dict)
    virtual_machine: str | None = None  # the hypervisor, when the run found one
    preempt_model: str | None = None  # the kernel's preemption model, when known
    capped: bool = False  # more events than the recorder keeps a window: the oldest left out
    profile: OsProfile | None = None
    interval: str = RELEASE  # RELEASE or OPERATION: what the sample measures

    @property
    def os(self) -> OsProfile:
        return self.profile or legacy_profile(self.prio_scale)


# CPUID hypervisor signatures as people call them
_HYPERVISORS = {
    "KVMKVMKVM": "KVM",
    "Microsoft Hv": "Hyper-V",
    "VMwareVMware": "VMware",
    "XenVMMXenVMM": "Xen",
    "TCGTCGTCGTCG": "QEMU TCG",
    "ACRNACRNACRN": "ACRN",
    "bhyve bhyve": "bhyve",
    " lrpepyh  vr": "Parallels",
}


def hypervisor_name(vendor: str | None) -> str:
    if not vendor:
        return "a hypervisor"
    return _HYPERVISORS.get(vendor.strip("\0 "), _HYPERVISORS.get(vendor, vendor))


def trace_window(run: Run, test: TestRecord, w: TraceWindowRecord) -> TraceWindow:
    """A kept window with what the run's system record adds to it: the
    hypervisor, how priorities count and the OS's names."""
    v = run.system.virtualization
    vm = hypervisor_name(v.vendor) if v.hypervisor else None
    scale = test.explain.prio_scale if test.explain else "linux"
    return TraceWindow(
        metric=w.metric,
        sample_ns=w.sample_ns,
        cpu=w.cpu,
        tid=w.tid,
        start=w.start,
        complete=w.complete,
        lost_events=w.lost_events,
        events=w.events,
        capped=w.capped,
        policies=dict(w.policies),
        origins=dict(w.origins),
        steal_ns=w.steal_ns,
        steal_over_ns=w.steal_over_ns,
        prio_scale=scale,
        virtual_machine=vm,
        preempt_model=run.system.kernel.preempt_model,
        profile=profile_of(run, test),
        interval=w.interval,
    )
