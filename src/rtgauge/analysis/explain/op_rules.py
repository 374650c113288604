"""The rules of an operation window: the thread called something at t = 0
and it returned at the sample's end, running at both ends. Each piece of
the call goes to the first of these that applies: a handler that ran on
the CPU, the thread's own work, the CPU idle while the thread was blocked
(it waited; the waker named where the events show it), another task that
ran instead (legal when it outranks the thread or the thread was blocked).
They are tried only on operation windows; release windows keep their own
table (rules.py), which lists both."""

from __future__ import annotations

from dataclasses import replace

from rtgauge.analysis.explain.operation import BLOCKED, RUNNING
from rtgauge.analysis.explain.parts import (
    HANDLER_KINDS,
    IRQ,
    NO_EVENT,
    OWN_WORK,
    SWITCH,
    TASK,
    UNACCOUNTED,
    WAIT,
    Part,
    Subject,
)
from rtgauge.analysis.explain.rule_base import (
    NO_EVENT_LABEL,
    Case,
    Rule,
    _fixed,
    _idle,
    _label,
    _thread,
    _top,
)
from rtgauge.analysis.explain.window import OPERATION, TraceWindow
from rtgauge.analysis.explain.words import no_event_blame, subject_label, whose

OWN_WORK_RULE = "op-own-work"
UNSEEN_PAUSE = "op-unseen-pause"


def _state(c: Case) -> str:
    op = c.ctx.op
    return op.state_at(c.piece.a) if op else RUNNING


def _waker(c: Case) -> Subject | None:
    op = c.ctx.op
    span = op.span_at(c.piece.a) if op else None
    return span.waker if span else None


def _unseen(p: Part, w: TraceWindow) -> str:
    """On a virtual machine with no steal time to place, what the thread's
    longest stretch with no event may hide (the release rules' no-event words)."""
    if not w.virtual_machine or (w.steal_ns or 0) > 0 or not p.quiet_ns:
        return ""
    return (
        f"; its longest stretch with no kernel event ({p.quiet_ns / 1000:.0f} µs) may hide "
        f"a pause: {no_event_blame(w)}"
    )


def _waited_label(p: Part, w: TraceWindow) -> str:
    if p.subject is None:
        return "waited (the CPU idle)"
    return f"waited (the CPU idle) until {subject_label(p.subject, w)} woke it"


def _waited_blame(p: Part, w: TraceWindow) -> str:
    if p.subject is None:
        return (
            "the thread waited (blocked, the CPU idle): for I/O, a lock or another CPU; "
            "the trace does not show what woke it"
        )
    return f"the thread waited (blocked, the CPU idle) until {subject_label(p.subject, w)} woke it"


OP_RULES: tuple[Rule, ...] = (
    Rule(
        "op-handler",
        IRQ,
        "A call: any handler (interrupt, vector, softirq, timer callback) that ran on the "
        "CPU during it is named; a handler may legally delay any thread.",
        lambda c: c.in_handler,
        subject=_top,
        party="handler",
        party_by_subject=True,
        merge_as="handler",
        legal=True,
        detail=_fixed("ran on the CPU during the call"),
        blame=_label,
        kind_of=lambda c: HANDLER_KINDS.get(c.top.kind if c.top else "", TASK),
        interval=OPERATION,
    ),
    Rule(
        "op-unknown",
        UNACCOUNTED,
        "A call: no event says which task was current: unknown, and blamed on nobody.",
        lambda c: c.who is None,
        label=_fixed("unknown context"),
        detail=_fixed("no event says what ran"),
        interval=OPERATION,
    ),
    Rule(
        OWN_WORK_RULE,
        OWN_WORK,
        "A call: the thread itself current (it ran at the call, and after every switch "
        "back to it): the call's own work. On a virtual machine with no steal time to "
        "place, its words say what its longest stretch with no event may hide.",
        lambda c: c.is_thread,
        subject=_thread,
        party="own-work",
        merge_as="own-work",
        label=_fixed("the thread itself (the call's own work)"),
        detail=lambda p, w: f"the thread ran: the call's own work{_unseen(p, w)}",
        blame=lambda p, w: f"the call's own work: the thread ran{_unseen(p, w)}",
        interval=OPERATION,
    ),
    Rule(
        UNSEEN_PAUSE,
        NO_EVENT,
        "Made by op-own-work on a window that reports steal time: the thread's longest "
        "stretch with no event, up to the steal time, is no kernel event at all (the "
        "hypervisor).",
        None,
        subject=_thread,
        party="no-event",
        merge_as="no-event",
        merge_by_subject=False,
        label=_fixed(NO_EVENT_LABEL),
        detail=_fixed(
            "the thread's longest stretch with no event, as much of it as the steal time "
            "the window reports: the hypervisor took the CPU"
        ),
        blame=lambda _p, w: no_event_blame(w),
        interval=OPERATION,
    ),
    Rule(
        "op-waited",
        WAIT,
        "A call: the CPU idle while the thread was blocked (it slept until a wake-up): it "
        "waited — for I/O, a lock, another CPU; the task or handler that woke it is named "
        "where the events show it.",
        lambda c: c.who == 0 and _state(c) == BLOCKED,
        subject=_waker,
        party="wait",
        party_by_subject=True,
        merge_as="wait",
        label=_waited_label,
        detail=_fixed(
            "the thread was blocked and the CPU idle: it waited for I/O, a lock or another CPU"
        ),  # fmt: skip
        blame=_waited_blame,
        interval=OPERATION,
    ),
    Rule(
        "op-idle-switch",
        SWITCH,
        "A call: the CPU idle after the thread was woken (or preempted): the scheduler's "
        "switch out of the idle task.",
        lambda c: c.who == 0,
        subject=_idle,
        party="idle-switch",
        merge_as="op-idle-switch",
        merge_by_subject=False,
        label=_fixed("the scheduler: from idle to the thread"),
        detail=_fixed("the switch out of the idle task"),
        blame=_fixed("the kernel's switch out of idle"),
        interval=OPERATION,
    ),
    Rule(
        "op-task-blocked",
        TASK,
        "A call: another task that ran while the thread was blocked: it may legally run, "
        "and is named.",
        lambda c: c.is_task and _state(c) == BLOCKED,
        subject=lambda c: c.task(),
        party="task",
        party_by_subject=True,
        merge_as="op-task-blocked",  # a part of its own: why it was legal differs
        legal=True,
        detail=_fixed("ran while the thread was blocked: it may legally run"),
        blame=lambda p, w: f"{_label(p, w)} ran while the thread was blocked{whose(p.subject)}",
        interval=OPERATION,
    ),
    Rule(
        "op-task-outranks",
        TASK,
        "A call: a task of higher or equal priority that ran while the thread was "
        "runnable (preempted, or woken and not yet back): it may legally delay the "
        "thread, and is blamed.",
        lambda c: c.is_task and c.outranks,
        subject=lambda c: c.task(),
        party="task",
        party_by_subject=True,
        merge_as="task",
        legal=True,
        detail=_fixed(
            "ran while the thread was runnable: higher or equal priority, may legally delay it"
        ),
        blame=lambda p, w: f"preempted by {_label(p, w)}{whose(p.subject)}",
        interval=OPERATION,
    ),
    Rule(
        "op-task-lower",
        SWITCH,
        "A call: a lower-priority task that ran while the thread was runnable: it could "
        "not legally delay the thread; it is named, and the time is the kernel's path "
        "back to the thread.",
        lambda c: c.is_task,
        subject=lambda c: c.task(),
        party="lower",
        party_by_subject=True,
        merge_as="op-lower",
        legal=False,
        detail=lambda p, w: (
            f"{_label(p, w)} (lower priority) ran while the thread was runnable: it could "
            "not legally delay the thread; this is the kernel's path back to it"
        ),
        blame=lambda p, w: (
            f"{_label(p, w)} ran while the thread was runnable (lower priority: the kernel's "
            f"path back to the thread){whose(p.subject)}"
        ),
        interval=OPERATION,
    ),
)


def own_work_split(c: Case) -> list[tuple[Part, tuple[int, int]]]:
    """The thread's own work; on a window that reports steal time, its
    longest stretch with no event is, up to that steal, no kernel event at all."""
    a, b, ns = c.piece.a, c.piece.b, c.ns
    op = c.ctx.op
    quiet = op.quiet if op else None
    part = Part(OWN_WORK, ns, OWN_WORK_RULE, _thread(c),
                quiet_ns=quiet[1] - quiet[0] if quiet else 0)  # fmt: skip
    steal = c.ctx.w.steal_ns or 0
    if quiet != (a, b) or steal <= 0:
        return [(part, (a, b))]
    pause = min(steal, ns)
    out = [(Part(NO_EVENT, pause, UNSEEN_PAUSE, _thread(c)), (a, a + pause))]
    if ns > pause:
        out.append((replace(part, ns=ns - pause), (a + pause, b)))
    return out
