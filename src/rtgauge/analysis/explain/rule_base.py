"""What every rule is made of: the context the passes found, one piece as a
rule sees it (Case), the rule itself (Rule) and the small word makers the
rule tables share (rules.py: release windows; op_rules.py: operations)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rtgauge.analysis.explain.operation import OpState
from rtgauge.analysis.explain.parts import (
    ROLE_IDLE,
    ROLE_TIMER_TASK,
    Part,
    Subject,
)
from rtgauge.analysis.explain.passes import Landmarks, Piece, TaskSeen
from rtgauge.analysis.explain.replay import Frame
from rtgauge.analysis.explain.window import RELEASE, TraceWindow
from rtgauge.analysis.explain.words import (
    frame_label,
    priority_of,
    subject_label,
)


@dataclass(frozen=True)
class Context:
    """What the passes found, shared by every piece of one window."""

    w: TraceWindow
    marks: Landmarks
    tasks: dict[int, TaskSeen]
    my_prio: int | None
    held: set[int]  # lower-priority tasks proven to hold the CPU
    op: OpState | None = None  # an operation window's thread states


@dataclass(frozen=True)
class Case:
    """One piece after the release, as the rules see it."""

    ctx: Context
    piece: Piece

    @property
    def ns(self) -> int:
        return self.piece.b - self.piece.a

    @property
    def who(self) -> int | None:
        return self.piece.who

    @property
    def top(self) -> Frame | None:
        return self.piece.frames[-1] if self.piece.frames else None

    @property
    def in_handler(self) -> bool:
        return self.top is not None and self.top.kind != "work"

    @property
    def wake_path(self) -> list[Frame]:
        return [f for f in self.piece.frames if f in self.ctx.marks.wake_frames]

    @property
    def woken(self) -> bool:
        m = self.ctx.marks
        return m.wake_at is not None and self.piece.a >= m.wake_at

    @property
    def before_reaction(self) -> bool:
        m = self.ctx.marks
        return m.react_at is None or self.piece.b <= m.react_at

    @property
    def is_thread(self) -> bool:
        return self.who == self.ctx.w.tid

    @property
    def is_task(self) -> bool:
        return self.who is not None and self.who not in (0, self.ctx.w.tid)

    @property
    def outranks(self) -> bool:
        """A task of higher or equal priority: it may legally keep the thread off."""
        t = self.ctx.tasks.get(self.who or -1)
        mine = self.ctx.my_prio
        if t is None or t.prio is None or mine is None:
            return False
        return t.prio >= mine if self.ctx.w.os.higher_number_first else t.prio <= mine

    def task(self) -> Subject:
        """The current task as a subject (with the work item it runs, if any)."""
        pid = self.who if self.who is not None else -1
        t = self.ctx.tasks.get(pid, TaskSeen(pid))
        os = self.ctx.w.os
        role = ROLE_IDLE if pid == 0 else ROLE_TIMER_TASK if t.comm == os.timer_task else ""
        work = ""
        if self.top is not None and self.top.kind == "work":
            work = frame_label(self.top.subject)
        priority, nice = priority_of(t.prio, os)
        return Subject(
            "task",
            pid=pid,
            comm=t.comm,
            prio=t.prio,
            policy=self.ctx.w.policies.get(pid, ""),
            role=role,
            work=work,
            origin=self.ctx.w.origins.get(pid, ""),
            priority=priority,
            nice=nice,
        )


Words = Callable[[Part, TraceWindow], str]


def _fixed(text: str) -> Words:
    return lambda _p, _w: text


def _label(p: Part, w: TraceWindow) -> str:
    return subject_label(p.subject, w)


def _via(p: Part, w: TraceWindow) -> str:
    return subject_label(p.via, w)


def _no_event_words(why: str) -> Words:
    """A no-event part's reason: the current task (or the thread), then why."""

    def words(p: Part, w: TraceWindow) -> str:
        return f"{why.format(who=_label(p, w))}: interrupts off, firmware or the hypervisor"

    return words


@dataclass(frozen=True)
class Rule:
    name: str
    kind: str
    says: str  # the rule in words, for docs/explain.md
    when: Callable[[Case], bool] | None  # None: made by another rule (see says)
    subject: Callable[[Case], Subject | None] = lambda c: None
    party: str | None = None  # what the culprit line names; None: never named
    party_by_subject: bool = False  # one party per subject (a task, a handler)
    party_by_via: bool = False  # one party per wake-up interrupt
    merge_as: str = ""  # parts whose rules share it (and the subject) are summed
    merge_by_subject: bool = True
    merge_by_via: bool = False
    legal: bool | None = None
    label: Words = _label
    detail: Words = _fixed("")
    blame: Words = _fixed("")
    # the kind of part, when it depends on the piece (a handler's frame kind)
    kind_of: Callable[[Case], str] | None = None
    examples: tuple[str, ...] = field(default=())
    interval: str = RELEASE  # the windows it reads: RELEASE, OPERATION (or both)


def _top(c: Case) -> Subject | None:
    return c.top.subject if c.top else None


def _thread(c: Case) -> Subject:
    return Subject("thread", pid=c.ctx.w.tid)


def _idle(c: Case) -> Subject:
    return Subject("idle", pid=0, role=ROLE_IDLE)


NO_EVENT_LABEL = "no kernel event at all"
