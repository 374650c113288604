"""Why a worst sample was late: the parts of one kept trace window.

Pure functions of what the record holds (the flight recorder's window: the
kernel's events on the sample's CPU from before the release to the end of
the sample, on the sample's own clock). The time from the release to the
end is cut at every event; each piece goes to what the CPU was doing then
(an interrupt handler, a softirq, a timer callback, a task, idle, nothing
traced at all), and the pieces are summed into parts that add up to the
sample, with an explicit "unaccounted" remainder.

Who is named as the culprit is the party responsible for the largest part:
a task only when it could legally delay the measured thread (higher or
equal priority); a lower-priority task that was still on the CPU after the
wake-up is the kernel's path to the switch, never the task's fault; time
with no kernel event at all is the hypervisor, firmware or interrupts off,
never the task that happened to be current. A window that lost events
names nobody. On an RTOS (FreeRTOS's trace hooks) the same rules read the
same vocabulary: priorities count upwards, the idle task is pid 0 (or named
IDLE), and a wake-up served by the tick ("tick") waited for that tick from
its release. docs/explain.md describes the explanation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from rtgauge.model import TestRecord, TraceEvent, TraceWindowRecord
from rtgauge.run import Run

# Part kinds, in the record's and the report's words.
IDLE = "idle"  # the CPU was idle: the exit from its idle state
NO_EVENT = "no-event"  # no kernel event at all (interrupts off, firmware, hypervisor)
WAKE_IRQ = "wake-irq"  # the interrupt (or handler) that woke the thread
TICK_WAIT = "tick-wait"  # a tick-driven sleep: from the release to the tick that ended it
IRQ = "irq"  # another device interrupt's handler
VECTOR = "vector"  # another architecture vector (IPI, irq_work, ...)
SOFTIRQ = "softirq"
TIMER = "timer"  # another timer callback
TASK = "task"  # a task that could legally run instead
WAKER = "waker"  # the task whose action woke the thread (part of the mechanism)
SWITCH = "switch"  # the kernel's path from the wake-up to the switch
NONPREEMPT = "non-preemptible"  # a lower-priority task's kernel code the kernel did not preempt
RETURN = "return"  # the thread itself, from the switch to its time stamp
UNACCOUNTED = "unaccounted"

HANDLER_KINDS = {"irq": IRQ, "vec": VECTOR, "softirq": SOFTIRQ, "timer": TIMER, "ipi": VECTOR}
TICK_FRAME = "tick interrupt"  # an RTOS's tick, as its vector's frame is named


@dataclass(frozen=True)
class TraceWindow:
    """A kept window, as the record holds it (times relative to the release)."""

    metric: str
    sample_ns: int
    cpu: int
    tid: int
    start: int  # the window's start, ns from the release (negative: before it)
    complete: bool
    lost_events: int
    events: tuple[TraceEvent, ...]
    policies: dict[int, str] = field(default_factory=dict)
    steal_ns: int | None = None
    steal_over_ns: int | None = None
    # how the OS numbers priorities: "linux" (0-99 real-time, lower first;
    # 100-139 normal) or "rtos" (higher number, higher priority)
    prio_scale: str = "linux"
    # idle states' exit latencies where the system record gives them (ns)
    idle_exit_ns: dict[int, int] = field(default_factory=dict)
    virtual_machine: str | None = None  # the hypervisor, when the run found one
    preempt_model: str | None = None  # the kernel's preemption model, when known


@dataclass(frozen=True)
class Part:
    kind: str
    label: str  # what it was, e.g. "softirq NET_RX", "hog/1234 SCHED_FIFO 99"
    ns: int
    detail: str = ""  # why it counts as it does
    blame: str = ""  # what the culprit line says when this part is the largest


@dataclass(frozen=True)
class Segment:
    """A piece of the timeline picture: [start, end) ns from the release."""

    cpu: int
    start: int
    end: int
    kind: str
    label: str


@dataclass(frozen=True)
class Explanation:
    metric: str
    sample_ns: int
    cpu: int
    complete: bool
    parts: tuple[Part, ...]
    culprit: str  # the one line on top
    culprit_kind: str | None  # the part kind it names; None: nobody named
    segments: tuple[Segment, ...]
    wake_at: int | None  # the thread was woken (ns from the release)
    switch_at: int | None  # it was switched in
    lost_events: int

    @property
    def accounted_ns(self) -> int:
        return sum(p.ns for p in self.parts if p.kind != UNACCOUNTED)


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
    hypervisor, the idle states' exit latencies, how priorities count."""
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
        policies=dict(w.policies),
        steal_ns=w.steal_ns,
        steal_over_ns=w.steal_over_ns,
        prio_scale=scale,
        virtual_machine=vm,
        preempt_model=run.system.kernel.preempt_model,
    )


def explanations(run: Run, test: TestRecord) -> list[Explanation]:
    """Every kept window of the test taken apart, worst first."""
    if test.explain is None:
        return []
    return [explain(trace_window(run, test, w)) for w in test.explain.windows]


# ---- tasks and priorities ----


def _task_label(pid: int, comm: str, prio: int, policies: dict[int, str], scale: str) -> str:
    if pid == 0:
        return "idle"
    pol = policies.get(pid, "")
    if scale == "rtos":  # the task number: the OSAL gives its tasks one name
        return f"{comm or 'task'}/{pid} (priority {prio})"
    if prio < 0:
        return f"{comm}/{pid} SCHED_DEADLINE"
    if prio < 100:
        return f"{comm}/{pid} {pol or 'SCHED_FIFO/RR'} {99 - prio}"
    nice = prio - 120
    return f"{comm}/{pid} {pol or 'SCHED_OTHER'}" + (f" nice {nice}" if nice else "")


def _outranks_or_equals(prio: int, than: int, scale: str) -> bool:
    """Whether a task of priority prio may legally keep one of priority than
    from running (higher or equal priority)."""
    return prio >= than if scale == "rtos" else prio <= than


RTOS_IDLE = "IDLE"  # FreeRTOS's idle task's name (configIDLE_TASK_NAME)


def _idle_as_zero(events: Sequence[TraceEvent]) -> tuple[TraceEvent, ...]:
    """An RTOS's idle task as pid 0, the number every rule reads as idle,
    where the events name it IDLE under a number of its own."""
    idle = {
        e.pid for e in events if e.kind in ("switch", "waking", "wakeup") and e.name == RTOS_IDLE
    }
    idle |= {e.pid2 for e in events if e.kind == "switch" and e.name2 == RTOS_IDLE}
    idle.discard(0)
    if not idle:
        return tuple(events)
    return tuple(
        replace(
            e,
            cur=0 if e.cur in idle else e.cur,
            pid=0 if e.kind in ("switch", "waking", "wakeup") and e.pid in idle else e.pid,
            pid2=0 if e.kind == "switch" and e.pid2 in idle else e.pid2,
        )
        for e in events
    )


# ---- replaying the CPU's context ----


@dataclass
class _Frame:
    kind: str  # "irq", "vec", "softirq", "timer", "ipi", "work"
    name: str
    entered: int
    wakes_thread: bool = False


_ENTRY = {
    "irq_entry": "irq",
    "vec_entry": "vec",
    "softirq_entry": "softirq",
    "timer_entry": "timer",
    "ipi_entry": "ipi",
    "work_start": "work",
}
_HARD_ENTRY = ("irq_entry", "vec_entry", "ipi_entry")  # hardware interrupts arriving
_EXIT = {
    "irq_exit": "irq",
    "vec_exit": "vec",
    "softirq_exit": "softirq",
    "timer_exit": "timer",
    "ipi_exit": "ipi",
    "work_end": "work",
}


def _frame_name(e: TraceEvent) -> str:
    if e.kind == "irq_entry":
        return f"IRQ {e.num} {e.name}".strip()
    if e.kind == "vec_entry":
        return f"{e.name} interrupt"
    if e.kind == "softirq_entry":
        return f"softirq {e.name or e.num}"
    if e.kind == "timer_entry":
        return f"timer {e.name or 'callback'}"
    if e.kind == "ipi_entry":
        return f"IPI {e.name}".strip()
    return f"work {e.name or 'item'}"


def _pop(stack: list[_Frame], kind: str) -> bool:
    for i in range(len(stack) - 1, -1, -1):
        if stack[i].kind == kind:
            del stack[i:]
            return True
    return False


@dataclass
class _Task:
    pid: int
    comm: str = ""
    prio: int | None = None


def _initial_stack(events: Sequence[TraceEvent]) -> list[_Frame]:
    """Handlers already running when the window starts: an exit with no
    entry before it means its entry lies before the window."""
    depth: dict[str, int] = {}
    missing: list[_Frame] = []
    for e in events:
        if e.kind in _ENTRY:
            depth[_ENTRY[e.kind]] = depth.get(_ENTRY[e.kind], 0) + 1
        elif e.kind in _EXIT:
            k = _EXIT[e.kind]
            if depth.get(k, 0) > 0:
                depth[k] -= 1
            else:
                name = f"{e.name} interrupt" if k == "vec" else f"{k} handler"
                if k == "irq":
                    name = f"IRQ {e.num}"
                missing.insert(0, _Frame(k, name, events[0].t if events else 0))
    return missing


# ---- the parts ----


def explain(w: TraceWindow) -> Explanation:
    """Takes the window apart; see the module's docstring."""
    if w.prio_scale == "rtos":
        w = replace(w, events=_idle_as_zero(w.events))
    evs = sorted((e for e in w.events if e.cpu == w.cpu), key=lambda e: e.t)
    others = sorted((e for e in w.events if e.cpu != w.cpu), key=lambda e: e.t)
    end = w.sample_ns
    tasks: dict[int, _Task] = {}

    def task(pid: int) -> _Task:
        return tasks.setdefault(pid, _Task(pid))

    for e in w.events:
        if e.kind in ("waking", "wakeup"):
            t = task(e.pid)
            t.comm, t.prio = e.name, e.prio
        elif e.kind == "switch":
            out_, in_ = task(e.pid), task(e.pid2)
            out_.comm, out_.prio = e.name, e.prio
            in_.comm, in_.prio = e.name2, e.prio2
    me = tasks.get(w.tid)
    my_prio = me.prio if me and me.prio is not None else None

    wake_at = next(
        (e.t for e in evs if e.kind in ("waking", "wakeup") and e.pid == w.tid and e.t >= 0),
        None,
    )
    waker = next(
        (e.cur for e in evs if e.kind in ("waking", "wakeup") and e.pid == w.tid and e.t >= 0),
        None,
    )
    switch_at = next(
        (e.t for e in evs if e.kind == "switch" and e.pid2 == w.tid and (wake_at or 0) <= e.t),
        None,
    )
    if switch_at is None and wake_at is not None:  # switches out of idle may go untraced
        switch_at = next((e.t for e in evs if e.t > wake_at and e.cur == w.tid), None)

    # replay up to the picture's start (a tenth of the sample before the
    # release), then cut at every event until the end; parts begin at the
    # release, or where the window begins when it begins later
    known_from = max(0, w.start)
    pic_start = max(w.start, -max(end // 10, 1))
    stack = _initial_stack(evs)
    cur: int | None = None
    pieces: list[tuple[int, int, list[_Frame], int | None]] = []
    t_prev = pic_start
    i = 0
    while i < len(evs) and evs[i].t <= pic_start:
        cur = _apply(evs[i], stack, cur, w.tid)
        i += 1
    for e in evs[i:]:
        if e.t >= end:
            break
        if e.cur >= 0 and cur is None:
            cur = e.cur  # the task current before this event is the one it names
        pieces.extend(_split_at(t_prev, e.t, [*stack], cur, 0))
        cur = _apply(e, stack, cur, w.tid)
        t_prev = e.t
    pieces.extend(_split_at(t_prev, end, [*stack], cur, 0))

    # the handlers that hold the wake-up: every frame open just before it
    wake_keys: set[tuple[str, str, int]] = set()
    by_handler = False  # the wake-up came from a handler, not a task
    tick_at: int | None = None  # a tick-driven sleep: the tick that ended it entered
    if wake_at is not None:
        st = _initial_stack(evs)
        for e in evs:
            if e.t >= wake_at:
                break
            _apply(e, st, None, w.tid)
        path = _wake_path(st)
        wake_keys = {(f.kind, f.name, f.entered) for f in path}
        if not _in_task(st):
            # woken from a handler: the interrupt woke it, not the task it
            # arrived on, and that task's time before it is the interrupt's
            # lateness, not the waker's path
            waker, by_handler = None, True
        if path and (path[0].kind, path[0].name) == ("vec", TICK_FRAME) and path[0].entered >= 0:
            tick_at = path[0].entered
    # the CPU's first reaction to the release: a handler entered, or the wake-up
    react_at = next(
        (
            e.t
            for e in evs
            if e.t >= 0
            and (e.kind in _ENTRY or (e.kind in ("waking", "wakeup") and e.pid == w.tid))
        ),
        None,
    )

    # lower-priority tasks an interrupt returned to after the wake-up, with
    # the thread waiting: proof they were in kernel code the kernel would not
    # preempt (a return to user space would have switched at once). Only a
    # hardware interrupt's arrival proves the task ran again: a softirq
    # entered with no handler open is most often the tail of the interrupt
    # just left (irq_exit), still on its way back, not a return to the task.
    held: set[int] = set()
    if wake_at is not None:
        st = _initial_stack(evs)
        now_cur: int | None = None
        arrived_on: int | None = None  # an interrupt that came after the wake-up, on whom
        for e in evs:
            if switch_at is not None and e.t >= switch_at:
                break
            top_level = _in_task(st)
            now_cur = _apply(e, st, now_cur, w.tid)
            entry = e.kind in _HARD_ENTRY
            if e.t > wake_at and entry and top_level and e.cur not in (-1, 0, w.tid):
                arrived_on = e.cur
            elif e.kind in _EXIT and _in_task(st) and arrived_on is not None:
                if e.cur == arrived_on:
                    held.add(e.cur)
                arrived_on = None
        if w.prio_scale == "linux":
            held &= _left_from_kernel_code(evs, wake_at)

    segs: list[Segment] = []
    raw: list[Part] = []
    if known_from > 0:
        raw.append(
            Part(UNACCOUNTED, "before the window", min(known_from, end), "the trace begins later")
        )
    for a, b, frames, who in pieces:
        if b <= a:
            continue
        if b <= 0:  # before the release: the picture only
            segs.append(_context_segment(w, a, b, frames, who, tasks))
            continue
        ctx = _Context(
            w,
            wake_at,
            switch_at,
            react_at,
            waker,
            wake_keys,
            tasks,
            my_prio,
            held,
            by_handler,
            tick_at,
        )
        for part, (pa, pb) in _classify(ctx, a, b, frames, who):
            raw.append(part)
            segs.append(Segment(w.cpu, pa, pb, part.kind, part.label))
    for e in others:  # the other CPUs' lanes: their handlers as points
        if w.start <= e.t < end and e.kind in _ENTRY:
            segs.append(Segment(e.cpu, e.t, e.t, HANDLER_KINDS.get(_ENTRY[e.kind], TASK), ""))
    parts = _merge(raw, end)
    culprit, culprit_kind = _culprit(w, parts)
    return Explanation(
        metric=w.metric,
        sample_ns=w.sample_ns,
        cpu=w.cpu,
        complete=w.complete,
        parts=tuple(parts),
        culprit=culprit,
        culprit_kind=culprit_kind,
        segments=tuple(segs),
        wake_at=wake_at,
        switch_at=switch_at,
        lost_events=w.lost_events,
    )


def _left_from_kernel_code(evs: Sequence[TraceEvent], wake_at: int) -> set[int]:
    """Tasks switched out after the wake-up preempted (`R+`) or asleep: they
    left the CPU from kernel code. A plain `R` is a return to user space (or
    a yield): an interrupt held pending through the previous one's exit
    (the hypervisor) arrives on that path, on its way to the switch, and
    proves no kernel code of the task's own."""
    return {e.pid for e in evs if e.kind == "switch" and e.t > wake_at and e.state != 0}


def _in_task(stack: list[_Frame]) -> bool:
    """No handler running: a task's own context (a work item is one)."""
    return all(f.kind == "work" for f in stack)


def _wake_path(stack: list[_Frame]) -> list[_Frame]:
    """The handlers that served the release, of those open at the wake-up:
    from the outermost hardware interrupt entered after the release inwards
    (a softirq it interrupted, already running or begun meanwhile, delayed
    the wake-up instead); with no hardware interrupt, the softirq or timer
    frames begun after the release (a wake-up from a softirq)."""
    hw = [i for i, f in enumerate(stack) if f.kind in ("irq", "vec", "ipi") and f.entered >= 0]
    if hw:
        return stack[hw[0] :]
    return [f for f in stack if f.entered >= 0]


def _split_at(
    a: int, b: int, frames: list[_Frame], who: int | None, at: int
) -> list[tuple[int, int, list[_Frame], int | None]]:
    if a < at < b:
        return [(a, at, frames, who), (at, b, frames, who)]
    return [(a, b, frames, who)]


def _context_segment(
    w: TraceWindow,
    a: int,
    b: int,
    frames: list[_Frame],
    who: int | None,
    tasks: dict[int, _Task],
) -> Segment:
    """What the CPU was doing before the release, for the picture."""
    if frames:
        f = frames[-1]
        return Segment(w.cpu, a, b, HANDLER_KINDS.get(f.kind, TASK), f.name)
    if who == 0:
        return Segment(w.cpu, a, b, IDLE, "idle")
    if who is None:
        return Segment(w.cpu, a, b, UNACCOUNTED, "unknown")
    if who == w.tid:
        return Segment(w.cpu, a, b, RETURN, "the thread itself")
    t = tasks.get(who, _Task(who))
    prio = t.prio if t.prio is not None else 0
    return Segment(w.cpu, a, b, TASK, _task_label(who, t.comm, prio, w.policies, w.prio_scale))


def _apply(e: TraceEvent, stack: list[_Frame], cur: int | None, tid: int) -> int | None:
    if e.kind in _ENTRY:
        stack.append(_Frame(_ENTRY[e.kind], _frame_name(e), e.t))
    elif e.kind in _EXIT:
        _pop(stack, _EXIT[e.kind])
    if e.kind == "switch":
        return e.pid2
    if e.cur >= 0:
        return e.cur
    return cur


@dataclass(frozen=True)
class _Context:
    w: TraceWindow
    wake_at: int | None
    switch_at: int | None
    react_at: int | None
    waker: int | None
    wake_keys: set[tuple[str, str, int]]
    tasks: dict[int, _Task]
    my_prio: int | None
    held: set[int]  # lower-priority tasks proven to hold the CPU in kernel code
    by_handler: bool = False  # the wake-up came from a handler: no task woke it
    tick_at: int | None = None  # the tick that ended a tick-driven sleep entered


Piece = tuple[Part, tuple[int, int]]


def _classify(c: _Context, a: int, b: int, frames: list[_Frame], who: int | None) -> list[Piece]:
    """What [a, b) was: one part, or two when an idle gap splits."""
    ns = b - a
    w = c.w
    work = ""
    if frames and frames[-1].kind == "work":  # a work item runs in its kworker's task context
        work = f" ({frames[-1].name})"
    elif frames:
        return [(_handler_part(c, frames, ns), (a, b))]
    if c.tick_at is not None and b <= c.tick_at:
        part = Part(
            TICK_WAIT,
            "waiting for the next tick",
            ns,
            "a sleep on this kernel ends on a tick: the first at or after its deadline",
            "the tick's granularity: the sleep ended on the first tick after its deadline",
        )
        return [(part, (a, b))]
    before_reaction = c.react_at is None or b <= c.react_at
    woken = c.wake_at is not None and a >= c.wake_at
    if who == w.tid:
        if c.switch_at is not None and a >= c.switch_at:
            part = Part(RETURN, "the thread itself", ns, "from the switch to its time stamp")
        elif woken:
            part = Part(SWITCH, "the switch to the thread", ns, "", "the kernel's switch")
        else:
            part = _no_event(w, ns, "the thread itself was still current")
        return [(part, (a, b))]
    if who is None:
        return [(Part(UNACCOUNTED, "unknown context", ns, "no event says what ran"), (a, b))]
    if who == 0:
        if not woken and w.prio_scale == "rtos":
            part = Part(
                IDLE,
                "the CPU was idle",
                ns,
                "the idle task ran until the interrupt entered: no idle state to leave, the "
                "time is the interrupt's arrival and the core's entry",
                "the interrupt's arrival (the CPU was idle)",
            )
            return [(part, (a, b))]
        if not woken:
            return _idle_split(w, a, b)
        part = Part(
            SWITCH,
            "the scheduler: from idle to the thread",
            ns,
            "the switch out of the idle task",
            "the kernel's switch out of idle",
        )
        return [(part, (a, b))]
    t = c.tasks.get(who, _Task(who))
    label = _task_label(who, t.comm, t.prio if t.prio is not None else 0, w.policies, w.prio_scale)
    label += work
    if before_reaction:
        part = _no_event(w, ns, f"{label} was current and no interrupt came")
    elif not woken and who == c.waker:
        part = Part(WAKER, f"{label} (the waker)", ns, "the wake-up's own path")
    elif not woken and c.by_handler:
        # a handler's wake-up: after another handler, the CPU still waits
        # for the one that wakes the thread, whoever runs meanwhile
        part = _no_event(w, ns, f"{label} was current and the wake-up's interrupt had not come")
    elif not woken:
        part = Part(TASK, label, ns, "ran before the wake-up", f"{label} (before the wake-up)")
    elif (
        t.prio is not None
        and c.my_prio is not None
        and _outranks_or_equals(t.prio, c.my_prio, w.prio_scale)
    ):
        part = Part(
            TASK,
            label,
            ns,
            "ran instead: higher or equal priority, may legally delay the thread",
            f"blocked by {label}",
        )
    elif who in c.held and w.prio_scale == "rtos":
        part = Part(
            NONPREEMPT,
            f"{label} kept the CPU",
            ns,
            f"{label} (lower priority) kept the CPU: an interrupt after the wake-up returned to "
            "it instead of switching (the scheduler suspended, or a critical section)",
            f"{label} held off the switch (the scheduler suspended, or a critical section)",
        )
    elif who in c.held:
        model = f"preemption model {w.preempt_model}" if w.preempt_model else "this kernel"
        part = Part(
            NONPREEMPT,
            f"{label} kept the CPU",
            ns,
            f"{label} (lower priority) was in kernel code that {model} does not preempt: an "
            "interrupt after the wake-up returned to it instead of switching",
            f"the kernel did not preempt {label} ({model})",
        )
    else:
        part = Part(
            SWITCH,
            f"switch from {label}",
            ns,
            f"{label} (lower priority) was still on the CPU after the wake-up: it could not "
            "legally delay the thread; this is the kernel's path to the switch",
            "the kernel's path to the switch from a lower-priority task (its non-preemptible "
            "kernel code, interrupts off, or the hypervisor)",
        )
    return [(part, (a, b))]


def _handler_part(c: _Context, frames: list[_Frame], ns: int) -> Part:
    f = frames[-1]
    on_wake_path = [g for g in frames if (g.kind, g.name, g.entered) in c.wake_keys]
    if on_wake_path:
        outer = on_wake_path[0].name
        if (f.kind, f.name, f.entered) not in c.wake_keys and f.kind == "timer":
            return Part(TIMER, f.name, ns, f"another timer in the same interrupt ({outer})", f.name)
        return Part(
            WAKE_IRQ,
            f"{outer} (the wake-up)",
            ns,
            "the interrupt that woke the thread",
            f"the wake-up's own interrupt ({outer})",
        )
    kind = HANDLER_KINDS.get(f.kind, TASK)
    return Part(kind, f.name, ns, "ran on the CPU meanwhile", f.name)


def _no_event(w: TraceWindow, ns: int, why: str) -> Part:
    return Part(
        NO_EVENT,
        "no kernel event at all",
        ns,
        f"{why}: interrupts off, firmware or the hypervisor",
        _no_event_blame(w),
    )


def _idle_split(w: TraceWindow, a: int, b: int) -> list[Piece]:
    """An idle CPU until the interrupt: the idle state's exit and, beyond its
    declared exit latency, no kernel event at all."""
    ns = b - a
    exit_ns = max(w.idle_exit_ns.values(), default=0)
    label, blame = "the CPU was idle", "the CPU's exit from idle"
    if not w.virtual_machine and not exit_ns:
        return [(Part(IDLE, label, ns, "its exit latency is not known", blame), (a, b))]
    if exit_ns >= ns:
        return [(Part(IDLE, label, ns, "the exit from its idle state", blame), (a, b))]
    out: list[Piece] = []
    if exit_ns:
        detail = f"its deepest idle state exits in {exit_ns / 1000:.0f} µs"
        out.append((Part(IDLE, label, exit_ns, detail, blame), (a, a + exit_ns)))
    rest = Part(
        NO_EVENT,
        "no kernel event at all (the CPU was idle)",
        ns - exit_ns,
        "idle beyond its idle state's exit latency until the interrupt entered",
        _no_event_blame(w),
    )
    out.append((rest, (a + exit_ns, b)))
    return out


def _no_event_blame(w: TraceWindow) -> str:
    if not w.virtual_machine:
        return "no kernel event at all: interrupts off, firmware (SMI) or the hardware"
    steal = ""
    if w.steal_ns and w.steal_over_ns:
        steal = f"; steal time +{w.steal_ns / 1e6:.0f} ms within the {w.steal_over_ns / 1e6:.0f} ms"
        steal += " around it"
    elif w.steal_ns is not None:
        steal = "; no steal time reported"
    return f"no kernel event at all: the hypervisor ({w.virtual_machine} guest{steal})"


def _merge(raw: list[Part], end: int) -> list[Part]:
    """Sums the pieces by what they were, in order of first appearance, and
    adds the remainder."""
    out: dict[tuple[str, str], Part] = {}
    for p in raw:
        k = (p.kind, p.label)
        if k in out:
            q = out[k]
            out[k] = Part(q.kind, q.label, q.ns + p.ns, q.detail, q.blame)
        else:
            out[k] = p
    parts = list(out.values())
    rest = end - sum(p.ns for p in parts)
    if rest:
        parts.append(Part(UNACCOUNTED, "unaccounted", rest, "no event covers it", ""))
    return parts


def _culprit(w: TraceWindow, parts: list[Part]) -> tuple[str, str | None]:
    if not w.complete:
        n = w.lost_events
        return (
            f"incomplete: {n} events lost"
            if n
            else "incomplete: the trace does not reach back to the release",
            None,
        )
    blamable = [p for p in parts if p.blame and p.kind != UNACCOUNTED]
    if not blamable or w.sample_ns <= 0:
        return ("nothing in the trace explains it", None)
    # one responsible party may own several parts (a hog that ran twice)
    by_blame: dict[str, int] = {}
    kinds: dict[str, str] = {}
    for p in blamable:
        by_blame[p.blame] = by_blame.get(p.blame, 0) + p.ns
        kinds.setdefault(p.blame, p.kind)
    blame, ns = max(by_blame.items(), key=lambda kv: kv[1])
    share = 100.0 * ns / w.sample_ns
    return (f"{share:.0f} % {blame}", kinds[blame])
