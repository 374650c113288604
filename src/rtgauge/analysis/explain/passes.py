"""The passes over a window, each a function of what the one before found:
the events made uniform (the OS's idle task as pid 0), the tasks learnt,
the landmarks of the sample (wake-up, switch, the CPU's first reaction, the
handlers that served the release), the lower-priority tasks proven to hold
the CPU, and the window cut into pieces of one context each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rtgauge.analysis.explain.replay import (
    ENTRY,
    EXIT,
    HARD_ENTRY,
    WAKE_KINDS,
    Frame,
    apply,
    in_task,
    initial_stack,
    stack_at,
    wake_path,
)
from rtgauge.analysis.explain.window import OsProfile, TraceWindow
from rtgauge.model import TraceEvent

_NAMED_KINDS = ("switch", *WAKE_KINDS)


def idle_as_zero(events: Sequence[TraceEvent], os: OsProfile) -> tuple[TraceEvent, ...]:
    """The OS's idle task as pid 0, the number every rule reads as idle,
    where the events name it under a number of its own (records from before
    the port mapped it itself)."""
    names = set(os.idle_tasks)
    idle = {e.pid for e in events if e.kind in _NAMED_KINDS and e.name in names}
    idle |= {e.pid2 for e in events if e.kind == "switch" and e.name2 in names}
    idle.discard(0)
    if not idle:
        return tuple(events)
    return tuple(
        replace(
            e,
            cur=0 if e.cur in idle else e.cur,
            pid=0 if e.kind in _NAMED_KINDS and e.pid in idle else e.pid,
            pid2=0 if e.kind == "switch" and e.pid2 in idle else e.pid2,
        )
        for e in events
    )


@dataclass
class TaskSeen:
    pid: int
    comm: str = ""
    prio: int | None = None


def learn_tasks(events: Sequence[TraceEvent]) -> dict[int, TaskSeen]:
    """Every task's name and priority, as the last event naming it says."""
    tasks: dict[int, TaskSeen] = {}

    def task(pid: int) -> TaskSeen:
        return tasks.setdefault(pid, TaskSeen(pid))

    for e in events:
        if e.kind in WAKE_KINDS:
            t = task(e.pid)
            t.comm, t.prio = e.name, e.prio
        elif e.kind == "switch":
            out_, in_ = task(e.pid), task(e.pid2)
            out_.comm, out_.prio = e.name, e.prio
            in_.comm, in_.prio = e.name2, e.prio2
    return tasks


@dataclass(frozen=True)
class Landmarks:
    """The instants and handlers of one sample, ns from its release."""

    wake_at: int | None  # the thread was woken
    waker: int | None  # the task whose action woke it (None: a handler did)
    switch_at: int | None  # it was switched in
    react_at: int | None  # the CPU's first reaction: a handler entered, or the wake-up
    wake_frames: frozenset[Frame]  # the handlers that served the release
    by_handler: bool  # the wake-up came from a handler, not a task
    tick_at: int | None  # a tick-driven sleep: the tick that ended it entered


def landmarks(evs: Sequence[TraceEvent], tid: int, os: OsProfile) -> Landmarks:
    """The sample's landmarks, from its CPU's events (sorted by time)."""
    woken = [e for e in evs if e.kind in WAKE_KINDS and e.pid == tid and e.t >= 0]
    wake_at = woken[0].t if woken else None
    waker: int | None = woken[0].cur if woken else None
    switch_at = next(
        (e.t for e in evs if e.kind == "switch" and e.pid2 == tid and (wake_at or 0) <= e.t),
        None,
    )
    if switch_at is None and wake_at is not None:  # switches out of idle may go untraced
        switch_at = next((e.t for e in evs if e.t > wake_at and e.cur == tid), None)
    frames: frozenset[Frame] = frozenset()
    by_handler = False
    tick_at: int | None = None
    if wake_at is not None:
        st = stack_at(evs, wake_at)
        path = wake_path(st)
        frames = frozenset(path)
        if not in_task(st):
            # woken from a handler: the interrupt woke it, not the task it
            # arrived on, and that task's time before it is the interrupt's
            # lateness, not the waker's path
            waker, by_handler = None, True
        first = path[0] if path else None
        if first and first.kind == "vec" and os.tick and first.subject.name == os.tick:
            tick_at = first.entered if first.entered >= 0 else None
    react_at = next(
        (
            e.t
            for e in evs
            if e.t >= 0 and (e.kind in ENTRY or (e.kind in WAKE_KINDS and e.pid == tid))
        ),
        None,
    )
    return Landmarks(wake_at, waker, switch_at, react_at, frames, by_handler, tick_at)


def held_tasks(evs: Sequence[TraceEvent], tid: int, marks: Landmarks, os: OsProfile) -> set[int]:
    """Lower-priority tasks an interrupt returned to after the wake-up, with
    the thread waiting: proof they were in code the OS would not preempt (a
    return to user space would have switched at once). Only a hardware
    interrupt's arrival proves the task ran again: a softirq entered with no
    handler open is most often the tail of the interrupt just left
    (irq_exit), still on its way back, not a return to the task."""
    if marks.wake_at is None:
        return set()
    held: set[int] = set()
    st = initial_stack(evs)
    now_cur: int | None = None
    arrived_on: int | None = None  # an interrupt that came after the wake-up, on whom
    for e in evs:
        if marks.switch_at is not None and e.t >= marks.switch_at:
            break
        top_level = in_task(st)
        now_cur = apply(e, st, now_cur)
        if e.t > marks.wake_at and e.kind in HARD_ENTRY and top_level and e.cur not in (-1, 0, tid):
            arrived_on = e.cur
        elif e.kind in EXIT and in_task(st) and arrived_on is not None:
            if e.cur == arrived_on:
                held.add(e.cur)
            arrived_on = None
    if os.switch_state_tells_kernel_code:
        held &= left_from_kernel_code(evs, marks.wake_at)
    return held


def left_from_kernel_code(evs: Sequence[TraceEvent], wake_at: int) -> set[int]:
    """Tasks switched out after the wake-up preempted (`R+`) or asleep: they
    left the CPU from kernel code. A plain `R` is a return to user space (or
    a yield): an interrupt held pending through the previous one's exit
    (the hypervisor) arrives on that path, on its way to the switch, and
    proves no kernel code of the task's own."""
    return {e.pid for e in evs if e.kind == "switch" and e.t > wake_at and e.state != 0}


@dataclass(frozen=True)
class Piece:
    """[a, b): one context, the frames open and the task current."""

    a: int
    b: int
    frames: tuple[Frame, ...]
    who: int | None


def cut(evs: Sequence[TraceEvent], w: TraceWindow) -> list[Piece]:
    """Replays up to the picture's start (a tenth of the sample before the
    release), then cuts at every event until the end, and at the release."""
    end = w.sample_ns
    pic_start = max(w.start, -max(end // 10, 1))
    stack = initial_stack(evs)
    cur: int | None = None
    pieces: list[Piece] = []
    t_prev = pic_start
    i = 0
    while i < len(evs) and evs[i].t <= pic_start:
        cur = apply(evs[i], stack, cur)
        i += 1
    for e in evs[i:]:
        if e.t >= end:
            break
        if e.cur >= 0 and cur is None:
            cur = e.cur  # the task current before this event is the one it names
        pieces += _split_at_release(t_prev, e.t, tuple(stack), cur)
        cur = apply(e, stack, cur)
        t_prev = e.t
    pieces += _split_at_release(t_prev, end, tuple(stack), cur)
    return [p for p in pieces if p.b > p.a]


def _split_at_release(a: int, b: int, frames: tuple[Frame, ...], who: int | None) -> list[Piece]:
    if a < 0 < b:
        return [Piece(a, 0, frames, who), Piece(0, b, frames, who)]
    return [Piece(a, b, frames, who)]
