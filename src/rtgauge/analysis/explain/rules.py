"""The classification rules, as a table: each a small named unit that says
when it applies to a piece of the sample, what kind of part it makes, who is
responsible for it (the party the culprit line names, if any), whether that
party may legally delay the thread, and its words. The first rule that
applies wins; docs/explain.md lists them, generated from this table. A
release window's pieces go to the release rules below; an operation
window's to the operation rules (op_rules.py), the table's tail.

A rule reads the OS only through the profile it is handed (priorities'
direction, idle states, what holds off a switch): no rule names an OS."""

from __future__ import annotations

from dataclasses import replace

from rtgauge.analysis.explain.op_rules import OP_RULES, OWN_WORK_RULE, own_work_split
from rtgauge.analysis.explain.parts import (
    HANDLER_KINDS,
    IDLE,
    IRQ,
    NO_EVENT,
    NONPREEMPT,
    RETURN,
    SWITCH,
    TASK,
    TICK_WAIT,
    TIMER,
    UNACCOUNTED,
    WAKE_IRQ,
    WAKER,
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
    _no_event_words,
    _thread,
    _top,
    _via,
)
from rtgauge.analysis.explain.window import OPERATION, TraceWindow
from rtgauge.analysis.explain.words import (
    held_cause,
    no_event_blame,
    whose,
)


def _outer_label(p: Part, w: TraceWindow) -> str:
    return f"{_via(p, w)} (the wake-up)"


IDLE_BEYOND_EXIT = "idle-beyond-exit"

RELEASE_RULES: tuple[Rule, ...] = (
    Rule(
        "wake-interrupt-other-timer",
        TIMER,
        "Inside the interrupt that woke the thread, another timer's callback is that "
        "timer's time, not the wake-up's.",
        lambda c: (
            c.in_handler
            and bool(c.wake_path)
            and c.top not in c.ctx.marks.wake_frames
            and c.top is not None
            and c.top.kind == "timer"
        ),
        subject=_top,
        party="handler",
        party_by_subject=True,
        merge_as="handler",
        legal=True,
        detail=lambda p, w: f"another timer in the same interrupt ({_via(p, w)})",
        blame=_label,
    ),
    Rule(
        "wake-interrupt",
        WAKE_IRQ,
        "A handler on the path that woke the thread (the outermost hardware interrupt "
        "entered after the release, inwards) is the wake-up's own interrupt.",
        lambda c: c.in_handler and bool(c.wake_path),
        subject=_top,
        party="wake-interrupt",
        party_by_via=True,
        merge_as="wake",
        merge_by_subject=False,
        merge_by_via=True,
        label=_outer_label,
        detail=_fixed("the interrupt that woke the thread"),
        blame=lambda p, w: f"the wake-up's own interrupt ({_via(p, w)})",
    ),
    Rule(
        "handler",
        IRQ,
        "Any other handler (interrupt, vector, softirq, timer callback) ran on the CPU "
        "meanwhile: it is named; a handler may legally delay any thread.",
        lambda c: c.in_handler,
        subject=_top,
        party="handler",
        party_by_subject=True,
        merge_as="handler",
        legal=True,
        detail=_fixed("ran on the CPU meanwhile"),
        blame=_label,
        kind_of=lambda c: HANDLER_KINDS.get(c.top.kind if c.top else "", TASK),
    ),
    Rule(
        "tick-wait",
        TICK_WAIT,
        "A sleep that the OS's tick ended (its vector, as the port names it, served the "
        "wake-up): from the release to that tick's entry is the tick's granularity.",
        lambda c: c.ctx.marks.tick_at is not None and c.piece.b <= c.ctx.marks.tick_at,
        party="tick",
        label=_fixed("waiting for the next tick"),
        detail=_fixed("a sleep on this kernel ends on a tick: the first at or after its deadline"),
        blame=_fixed(
            "the tick's granularity: the sleep ended on the first tick after its deadline"
        ),
    ),
    Rule(
        "thread-return",
        RETURN,
        "The thread itself after it was switched in: its way back to its time stamp.",
        lambda c: (
            c.is_thread and c.ctx.marks.switch_at is not None and c.piece.a >= c.ctx.marks.switch_at
        ),
        subject=_thread,
        detail=_fixed("from the switch to its time stamp"),
    ),
    Rule(
        "thread-switch",
        SWITCH,
        "The thread current after its wake-up but before its switch-in: the kernel's switch.",
        lambda c: c.is_thread and c.woken,
        subject=_thread,
        party="switch",
        label=_fixed("the switch to the thread"),
        blame=_fixed("the kernel's switch"),
    ),
    Rule(
        "thread-still-current",
        NO_EVENT,
        "The thread still current after its release with no event: no kernel event at all "
        "(interrupts off, firmware or the hypervisor).",
        lambda c: c.is_thread,
        subject=_thread,
        party="no-event",
        merge_as="no-event",
        merge_by_subject=False,
        label=_fixed(NO_EVENT_LABEL),
        detail=_no_event_words("the thread itself was still current"),
        blame=lambda _p, w: no_event_blame(w),
    ),
    Rule(
        "unknown-context",
        UNACCOUNTED,
        "No event says which task was current: unknown, and blamed on nobody.",
        lambda c: c.who is None,
        label=_fixed("unknown context"),
        detail=_fixed("no event says what ran"),
    ),
    Rule(
        "idle-without-states",
        IDLE,
        "An idle CPU on an OS whose idle task has no idle state to leave (the profile "
        "says so): the interrupt's arrival and the core's entry.",
        lambda c: c.who == 0 and not c.woken and not c.ctx.w.os.idle_states,
        subject=_idle,
        party="idle-arrival",
        merge_as="idle",
        merge_by_subject=False,
        label=_fixed("the CPU was idle"),
        detail=_fixed(
            "the idle task ran until the interrupt entered: no idle state to leave, the "
            "time is the interrupt's arrival and the core's entry"
        ),
        blame=_fixed("the interrupt's arrival (the CPU was idle)"),
    ),
    Rule(
        "idle-exit",
        IDLE,
        "An idle CPU until the interrupt: the exit from its idle state, up to the deepest "
        "state's declared exit latency (all of it when the latency is not known and no "
        "hypervisor is below).",
        lambda c: c.who == 0 and not c.woken,
        subject=_idle,
        party="idle-exit",
        merge_as="idle",
        merge_by_subject=False,
        label=_fixed("the CPU was idle"),
        detail=lambda p, _w: (
            f"its deepest idle state exits in {p.idle_exit_ns / 1000:.0f} µs"
            if p.cut_at_exit
            else "the exit from its idle state"
            if p.idle_exit_ns
            else "its exit latency is not known"
        ),
        blame=_fixed("the CPU's exit from idle"),
    ),
    Rule(
        IDLE_BEYOND_EXIT,
        NO_EVENT,
        "Made by idle-exit: idle beyond the declared exit latency until the interrupt "
        "entered is no kernel event at all.",
        None,
        subject=_idle,
        party="no-event",
        merge_as="no-event-idle",
        merge_by_subject=False,
        label=_fixed("no kernel event at all (the CPU was idle)"),
        detail=_fixed("idle beyond its idle state's exit latency until the interrupt entered"),
        blame=lambda _p, w: no_event_blame(w),
    ),
    Rule(
        "idle-switch",
        SWITCH,
        "Idle after the wake-up: the scheduler's switch out of the idle task.",
        lambda c: c.who == 0,
        subject=_idle,
        party="idle-switch",
        label=_fixed("the scheduler: from idle to the thread"),
        detail=_fixed("the switch out of the idle task"),
        blame=_fixed("the kernel's switch out of idle"),
    ),
    Rule(
        "task-before-reaction",
        NO_EVENT,
        "Another task current after the release while the CPU had not reacted (no handler, "
        "no wake-up yet): no kernel event at all, never the task's fault.",
        lambda c: c.is_task and c.before_reaction,
        subject=lambda c: c.task(),
        party="no-event",
        merge_as="no-event",
        merge_by_subject=False,
        label=_fixed(NO_EVENT_LABEL),
        detail=_no_event_words("{who} was current and no interrupt came"),
        blame=lambda _p, w: no_event_blame(w),
    ),
    Rule(
        "waker",
        WAKER,
        "The task whose action woke the thread, before the wake-up: the wake-up's own path.",
        lambda c: c.is_task and not c.woken and c.who == c.ctx.marks.waker,
        subject=lambda c: c.task(),
        merge_as="waker",
        label=lambda p, w: f"{_label(p, w)} (the waker)",
        detail=_fixed("the wake-up's own path"),
    ),
    Rule(
        "task-awaiting-interrupt",
        NO_EVENT,
        "Another task current before a handler's wake-up, after another handler: the CPU "
        "still waited for the interrupt that wakes the thread.",
        lambda c: c.is_task and not c.woken and c.ctx.marks.by_handler,
        subject=lambda c: c.task(),
        party="no-event",
        merge_as="no-event",
        merge_by_subject=False,
        label=_fixed(NO_EVENT_LABEL),
        detail=_no_event_words("{who} was current and the wake-up's interrupt had not come"),
        blame=lambda _p, w: no_event_blame(w),
    ),
    Rule(
        "task-before-wake",
        TASK,
        "Another task that ran after the CPU reacted but before the wake-up.",
        lambda c: c.is_task and not c.woken,
        subject=lambda c: c.task(),
        party="task-before-wake",
        party_by_subject=True,
        merge_as="task",
        detail=_fixed("ran before the wake-up"),
        blame=lambda p, w: f"{_label(p, w)} (before the wake-up){whose(p.subject)}",
    ),
    Rule(
        "task-outranks",
        TASK,
        "A task of higher or equal priority that ran after the wake-up: it may legally "
        "delay the thread, and is blamed.",
        lambda c: c.is_task and c.outranks,
        subject=lambda c: c.task(),
        party="task",
        party_by_subject=True,
        merge_as="task",
        legal=True,
        detail=_fixed("ran instead: higher or equal priority, may legally delay the thread"),
        blame=lambda p, w: f"blocked by {_label(p, w)}{whose(p.subject)}",
    ),
    Rule(
        "task-held",
        NONPREEMPT,
        "A lower-priority task that an interrupt after the wake-up returned to instead of "
        "switching (and, where the OS's switch states tell, that left the CPU from kernel "
        "code): it held off the switch — the kernel's preemption model, or what the OS's "
        "profile names (the scheduler suspended, a critical section).",
        lambda c: c.is_task and c.who in c.ctx.held,
        subject=lambda c: c.task(),
        party="held",
        party_by_subject=True,
        merge_as="held",
        legal=False,
        label=lambda p, w: f"{_label(p, w)} kept the CPU",
        detail=lambda p, w: (
            f"{_label(p, w)} (lower priority) kept the CPU: an interrupt after the wake-up "
            f"returned to it instead of switching ({w.os.holds_off_switch})"
            if w.os.holds_off_switch
            else f"{_label(p, w)} (lower priority) was in kernel code that {held_cause(w)} does "
            "not preempt: an interrupt after the wake-up returned to it instead of switching"
        ),
        blame=lambda p, w: (
            f"{_label(p, w)} held off the switch ({w.os.holds_off_switch}){whose(p.subject)}"
            if w.os.holds_off_switch
            else f"the kernel did not preempt {_label(p, w)} ({held_cause(w)}){whose(p.subject)}"
        ),
    ),
    Rule(
        "task-lower",
        SWITCH,
        "A lower-priority task still on the CPU after the wake-up: it could not legally "
        "delay the thread; the time is the kernel's path to the switch.",
        lambda c: c.is_task,
        subject=lambda c: c.task(),
        party="lower-switch",
        merge_as="lower-switch",
        legal=False,
        label=lambda p, w: f"switch from {_label(p, w)}",
        detail=lambda p, w: (
            f"{_label(p, w)} (lower priority) was still on the CPU after the wake-up: it could "
            "not legally delay the thread; this is the kernel's path to the switch"
        ),
        blame=_fixed(
            "the kernel's path to the switch from a lower-priority task (its non-preemptible "
            "kernel code, interrupts off, or the hypervisor)"
        ),
    ),
)
RULES: tuple[Rule, ...] = (*RELEASE_RULES, *OP_RULES)
BY_NAME = {r.name: r for r in RULES}
# The parts no piece rule makes: the time before the window, and the rest.
BEFORE_WINDOW = Rule(
    "before-window",
    UNACCOUNTED,
    "The window begins after the release: the time before it is unaccounted.",
    None,
    label=_fixed("before the window"),
    detail=_fixed("the trace begins later"),
    interval="both",
)
REMAINDER = Rule(
    "remainder",
    UNACCOUNTED,
    "What no event covers: the sample less every part.",
    None,
    label=_fixed("unaccounted"),
    detail=_fixed("no event covers it"),
    interval="both",
)
BY_NAME.update({r.name: r for r in (BEFORE_WINDOW, REMAINDER)})


def classify(c: Case) -> list[tuple[Part, tuple[int, int]]]:
    """The first rule that applies makes the piece's part (or parts)."""
    op = c.ctx.w.interval == OPERATION
    rule = next(
        r for r in RULES if (r.interval == OPERATION) == op and r.when is not None and r.when(c)
    )
    if rule.name == "idle-exit":
        return _idle_split(c)
    if rule.name == OWN_WORK_RULE:
        return own_work_split(c)
    kind = rule.kind_of(c) if rule.kind_of else rule.kind
    via = c.wake_path[0].subject if rule.name.startswith("wake-interrupt") else None
    part = Part(kind, c.ns, rule.name, rule.subject(c), via, rule.legal)
    return [(part, (c.piece.a, c.piece.b))]


def _idle_split(c: Case) -> list[tuple[Part, tuple[int, int]]]:
    """An idle CPU until the interrupt: the idle state's exit and, beyond its
    declared exit latency, no kernel event at all."""
    a, b, ns = c.piece.a, c.piece.b, c.ns
    w = c.ctx.w
    exit_ns = max(w.idle_exit_ns.values(), default=0)
    idle = Part(IDLE, ns, "idle-exit", _idle(c), idle_exit_ns=exit_ns)
    if (not w.virtual_machine and not exit_ns) or exit_ns >= ns:
        return [(idle, (a, b))]
    out: list[tuple[Part, tuple[int, int]]] = []
    if exit_ns:
        out.append((replace(idle, ns=exit_ns, cut_at_exit=True), (a, a + exit_ns)))
    rest = Part(NO_EVENT, ns - exit_ns, IDLE_BEYOND_EXIT, _idle(c))
    out.append((rest, (a + exit_ns, b)))
    return out


def worded(p: Part, w: TraceWindow) -> Part:
    """The part with its texts, made by its rule's words."""
    r = BY_NAME[p.rule]
    return replace(p, label=r.label(p, w), detail=r.detail(p, w), blame=r.blame(p, w))


def merge_key(p: Part) -> tuple[object, ...]:
    r = BY_NAME[p.rule]
    subject = p.subject if r.merge_by_subject else None
    return (p.kind, r.merge_as or r.name, subject, p.via if r.merge_by_via else None)


def party_of(p: Part) -> tuple[str, Subject | None] | None:
    r = BY_NAME[p.rule]
    if r.party is None or p.kind == UNACCOUNTED:
        return None
    whom = p.subject if r.party_by_subject else p.via if r.party_by_via else None
    return (r.party, whom)
