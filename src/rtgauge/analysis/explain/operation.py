"""The pass an operation window needs (the thread called something at t = 0
and it returned at the sample's end): when the thread was off its CPU
during the call, and why — blocked (it slept until a wake-up: the task or
handler that woke it, where the events show it) or runnable (preempted, or
woken and not yet switched back in)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rtgauge.analysis.explain.parts import Subject
from rtgauge.analysis.explain.passes import Piece, TaskSeen
from rtgauge.analysis.explain.replay import WAKE_KINDS, in_task, stack_at
from rtgauge.analysis.explain.window import OsProfile, TraceWindow
from rtgauge.analysis.explain.words import priority_of
from rtgauge.model import TraceEvent

PREEMPTED = 256  # a switch-out's state for a task preempted in kernel code (Linux's R+)

RUNNING, BLOCKED, RUNNABLE = "running", "blocked", "runnable"


@dataclass(frozen=True)
class OffSpan:
    """[a, b): the thread off its CPU during the call; blocked until woken_at
    (None: never blocked, or, when asleep is True, blocked throughout)."""

    a: int
    b: int
    woken_at: int | None
    waker: Subject | None  # who woke it, where the events show it
    asleep: bool  # it left the CPU to sleep (a wake-up, or its switch state, says so)

    def state_at(self, t: int) -> str:
        if not self.asleep:
            return RUNNABLE
        return BLOCKED if self.woken_at is None or t < self.woken_at else RUNNABLE


@dataclass(frozen=True)
class OpState:
    """The thread's off-CPU spans during the call, and its longest stretch on
    the CPU with no event at all (where an unseen pause would hide)."""

    spans: tuple[OffSpan, ...]
    quiet: tuple[int, int] | None

    def state_at(self, t: int) -> str:
        """The thread's state over the piece that begins at t."""
        for s in self.spans:
            if s.a <= t < s.b:
                return s.state_at(t)
        return RUNNING

    @property
    def first_wake(self) -> int | None:
        """The thread's first wake-up within the call (on any CPU)."""
        return next((s.woken_at for s in self.spans if s.woken_at is not None), None)

    def first_back(self, end: int) -> int | None:
        """The first switch back to the thread: after its first wake-up, or
        after its first time off the CPU when it was never woken."""
        woken = [s for s in self.spans if s.woken_at is not None]
        span = woken[0] if woken else self.spans[0] if self.spans else None
        return span.b if span and span.b < end else None

    def span_at(self, t: int) -> OffSpan | None:
        return next((s for s in self.spans if s.a <= t < s.b), None)


def thread_pieces(pieces: Sequence[Piece], evs: Sequence[TraceEvent], tid: int) -> list[Piece]:
    """The thread ran at the call (t = 0: its own clock read): every piece
    from it on, before any switch, is the thread's — when the first switch
    after the call takes the thread off (or none comes). That holds also
    against a switch before the window that took it off: the switch that
    put it back was not recorded (a kernel that does not trace the switch
    out of idle on every CPU), and its own clock read says it ran. A first
    switch of another task contradicts it, and leaves the pieces as they
    were."""
    first = next((e for e in evs if e.kind == "switch" and e.t >= 0), None)
    if first is not None and first.pid != tid:
        return list(pieces)
    out: list[Piece] = []
    for p in pieces:
        if p.b <= 0 or (first is not None and p.a >= first.t) or p.who == tid:
            out.append(p)
            continue
        if p.a < 0:  # the part before the call stays as the record says
            out.append(Piece(p.a, 0, p.frames, p.who))
        end = p.b if first is None else min(p.b, first.t)
        out.append(Piece(max(p.a, 0), end, p.frames, tid))
        if end < p.b:
            out.append(Piece(end, p.b, p.frames, p.who))
    return out


def op_state(
    w: TraceWindow,
    pieces: Sequence[Piece],
    events: Sequence[TraceEvent],
    tasks: dict[int, TaskSeen],
) -> OpState:
    """The thread's spans off its CPU from the pieces (their current task),
    each with the wake-up that ended its sleep, from every CPU's events."""
    spans: list[OffSpan] = []
    after = [p for p in pieces if p.b > 0]
    i = 0
    while i < len(after):
        if after[i].who == w.tid:
            i += 1
            continue
        j = i
        while j < len(after) and after[j].who != w.tid:
            j += 1
        a, b = max(after[i].a, 0), after[j - 1].b
        spans.append(_off_span(w, events, tasks, a, b))
        i = j
    quiet = max(
        ((p.a, p.b) for p in after if p.who == w.tid and not p.frames),
        key=lambda ab: ab[1] - ab[0],
        default=None,
    )
    return OpState(tuple(spans), quiet)


def split_at_wakes(pieces: Sequence[Piece], op: OpState) -> list[Piece]:
    """The pieces cut where the thread was woken (a wake-up from another CPU
    cuts nothing on this one): blocked before it, runnable after."""
    cuts = sorted(s.woken_at for s in op.spans if s.woken_at is not None)
    out: list[Piece] = []
    for p in pieces:
        a = p.a
        for t in cuts:
            if a < t < p.b:
                out.append(Piece(a, t, p.frames, p.who))
                a = t
        out.append(Piece(a, p.b, p.frames, p.who))
    return out


def _off_span(
    w: TraceWindow, events: Sequence[TraceEvent], tasks: dict[int, TaskSeen], a: int, b: int
) -> OffSpan:
    woken = next(
        (e for e in sorted(events, key=lambda e: e.t) if e.kind in WAKE_KINDS
         and e.pid == w.tid and a <= e.t < b),
        None,
    )  # fmt: skip
    if woken is not None:
        return OffSpan(a, b, woken.t, _waker(w, events, tasks, woken), True)
    out = _switch_out(events, w.tid, w.cpu, a)
    asleep = (
        out is not None and w.os.switch_state_tells_kernel_code and out.state not in (0, PREEMPTED)
    )
    return OffSpan(a, b, None, None, asleep)


def _switch_out(events: Sequence[TraceEvent], tid: int, cpu: int, a: int) -> TraceEvent | None:
    """The switch that took the thread off its CPU at (or last before) a."""
    outs = [e for e in events if e.kind == "switch" and e.pid == tid and e.cpu == cpu and e.t <= a]
    return max(outs, key=lambda e: e.t, default=None)


def _waker(
    w: TraceWindow, events: Sequence[TraceEvent], tasks: dict[int, TaskSeen], e: TraceEvent
) -> Subject | None:
    """Who woke the thread: the handler open on the waking CPU at the
    wake-up, else the task current there."""
    on_cpu = sorted((x for x in events if x.cpu == e.cpu), key=lambda x: x.t)
    st = stack_at(on_cpu, e.t)
    if not in_task(st):
        return st[-1].subject
    if e.cur <= 0 or e.cur == w.tid:
        return None
    return task_subject(w, tasks, e.cur)


def task_subject(w: TraceWindow, tasks: dict[int, TaskSeen], pid: int) -> Subject:
    t = tasks.get(pid, TaskSeen(pid))
    os: OsProfile = w.os
    priority, nice = priority_of(t.prio, os)
    return Subject(
        "task",
        pid=pid,
        comm=t.comm,
        prio=t.prio,
        policy=w.policies.get(pid, ""),
        origin=w.origins.get(pid, ""),
        priority=priority,
        nice=nice,
    )
