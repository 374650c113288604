"""Replaying a CPU's context from its events: which handlers are open (a
stack of frames) and which task is current, at any instant of the window."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rtgauge.analysis.explain.parts import Subject
from rtgauge.model import TraceEvent

ENTRY = {
    "irq_entry": "irq",
    "vec_entry": "vec",
    "softirq_entry": "softirq",
    "timer_entry": "timer",
    "ipi_entry": "ipi",
    "work_start": "work",
}
HARD_ENTRY = ("irq_entry", "vec_entry", "ipi_entry")  # hardware interrupts arriving
EXIT = {
    "irq_exit": "irq",
    "vec_exit": "vec",
    "softirq_exit": "softirq",
    "timer_exit": "timer",
    "ipi_exit": "ipi",
    "work_end": "work",
}
WAKE_KINDS = ("waking", "wakeup")


@dataclass(frozen=True)
class Frame:
    """An open handler (or a work item): what it is and when it entered."""

    subject: Subject
    entered: int

    @property
    def kind(self) -> str:
        return self.subject.what


def frame_of(e: TraceEvent) -> Frame:
    """The frame an entry event opens."""
    kind = ENTRY[e.kind]
    name = e.name if kind != "softirq" or e.name else str(e.num)
    return Frame(Subject(kind, num=e.num, name=name), e.t)


def initial_stack(events: Sequence[TraceEvent]) -> list[Frame]:
    """Handlers already running when the window starts: an exit with no
    entry before it means its entry lies before the window."""
    depth: dict[str, int] = {}
    missing: list[Frame] = []
    for e in events:
        if e.kind in ENTRY:
            depth[ENTRY[e.kind]] = depth.get(ENTRY[e.kind], 0) + 1
        elif e.kind in EXIT:
            k = EXIT[e.kind]
            if depth.get(k, 0) > 0:
                depth[k] -= 1
            else:
                # an IRQ's number and a vector's name are in its exit event
                num = e.num if k == "irq" else -1
                name = e.name if k == "vec" else ""
                subject = Subject(k, num=num, name=name, opened_before=True)
                missing.insert(0, Frame(subject, events[0].t if events else 0))
    return missing


def _pop(stack: list[Frame], kind: str) -> None:
    for i in range(len(stack) - 1, -1, -1):
        if stack[i].kind == kind:
            del stack[i:]
            return


def apply(e: TraceEvent, stack: list[Frame], cur: int | None) -> int | None:
    """One event applied to the stack; the task current after it."""
    if e.kind in ENTRY:
        stack.append(frame_of(e))
    elif e.kind in EXIT:
        _pop(stack, EXIT[e.kind])
    if e.kind == "switch":
        return e.pid2
    if e.cur >= 0:
        return e.cur
    return cur


def in_task(stack: list[Frame]) -> bool:
    """No handler running: a task's own context (a work item is one)."""
    return all(f.kind == "work" for f in stack)


def stack_at(events: Sequence[TraceEvent], t: int) -> list[Frame]:
    """The frames open just before instant t."""
    st = initial_stack(events)
    for e in events:
        if e.t >= t:
            break
        apply(e, st, None)
    return st


def wake_path(stack: list[Frame]) -> list[Frame]:
    """The handlers that served the release, of those open at the wake-up:
    from the outermost hardware interrupt entered after the release inwards
    (a softirq it interrupted, already running or begun meanwhile, delayed
    the wake-up instead); with no hardware interrupt, the softirq or timer
    frames begun after the release (a wake-up from a softirq)."""
    hw = [i for i, f in enumerate(stack) if f.kind in ("irq", "vec", "ipi") and f.entered >= 0]
    if hw:
        return stack[hw[0] :]
    return [f for f in stack if f.entered >= 0]
