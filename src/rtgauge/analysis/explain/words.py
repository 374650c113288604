"""The texts of an explanation, made from its data at the end: a handler's
or a task's label, the no-event part's blame. Nothing parses them back."""

from __future__ import annotations

from rtgauge.analysis.explain.parts import Subject
from rtgauge.analysis.explain.window import OsProfile, TraceWindow


def frame_label(s: Subject) -> str:
    """A handler as the report names it: "IRQ 17 eth0", "softirq NET_RX" …"""
    if s.what == "irq":
        return f"IRQ {s.num} {s.name}".strip()
    if s.what == "vec":
        return f"{s.name} interrupt"
    if s.opened_before:  # its entry, with its name, lies before the window
        return f"{s.what} handler"
    if s.what == "softirq":
        return f"softirq {s.name}"
    if s.what == "timer":
        return f"timer {s.name or 'callback'}"
    if s.what == "ipi":
        return f"IPI {s.name}".strip()
    return f"work {s.name or 'item'}"


def priority_of(prio: int | None, os: OsProfile) -> tuple[int | None, int | None]:
    """A traced priority as the OS's interface says it, (priority, nice): an
    RTOS's own number; on Linux SCHED_FIFO/RR 1-99 (kernel 98-0) or a nice
    value (kernel 100-139)."""
    if prio is None:
        return None, None
    if os.higher_number_first:
        return prio, None
    if 0 <= prio < 100:
        return 99 - prio, None
    return None, (prio - 120 if prio >= 100 else None)


def task_label(s: Subject, os: OsProfile) -> str:
    """A task as the report names it: comm/pid and its policy or priority."""
    if s.pid == 0:
        return "idle"
    prio = s.prio if s.prio is not None else 0
    if os.higher_number_first:  # an RTOS: its own priority number
        base = f"{s.comm or 'task'}/{s.pid} (priority {prio})"
    elif prio < 0:
        base = f"{s.comm}/{s.pid} SCHED_DEADLINE"
    elif prio < 100:
        base = f"{s.comm}/{s.pid} {s.policy or 'SCHED_FIFO/RR'} {99 - prio}"
    else:
        nice = prio - 120
        base = f"{s.comm}/{s.pid} {s.policy or 'SCHED_OTHER'}" + (f" nice {nice}" if nice else "")
    return base + (f" ({s.work})" if s.work else "")


STRANGERS = {
    "other": " (not part of the run: another program's task)",
    "ended": " (not part of the run: it had ended before it could be told whose)",
}


def whose(s: Subject | None) -> str:
    """What the culprit line adds of a task that is not the run's own: a
    stranger (another program's task, or one that ended and was not the
    run's) is called one."""
    return STRANGERS.get(s.origin, "") if s else ""


def subject_label(s: Subject | None, w: TraceWindow) -> str:
    if s is None:
        return ""
    if s.what == "task":
        return task_label(s, w.os)
    if s.what == "idle":
        return "idle"
    if s.what == "thread":
        return "the thread itself"
    return frame_label(s)


def no_event_blame(w: TraceWindow) -> str:
    """What time with no kernel event at all is put down to."""
    if not w.virtual_machine:
        return "no kernel event at all: interrupts off, firmware (SMI) or the hardware"
    steal = ""
    if w.steal_ns and w.steal_over_ns:
        steal = f"; steal time +{w.steal_ns / 1e6:.0f} ms within the {w.steal_over_ns / 1e6:.0f} ms"
        steal += " around it"
    elif w.steal_ns is not None:
        steal = "; no steal time reported"
    return f"no kernel event at all: the hypervisor ({w.virtual_machine} guest{steal})"


def held_cause(w: TraceWindow) -> str:
    """What keeps a lower-priority task on the CPU past an interrupt."""
    if w.os.holds_off_switch:
        return w.os.holds_off_switch
    model = f"preemption model {w.preempt_model}" if w.preempt_model else "this kernel"
    return model
