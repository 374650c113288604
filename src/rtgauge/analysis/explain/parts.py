"""What an explanation is made of, as data: the kinds of part, who or what a
part is (its subject), the parts, the timeline's segments and the whole
explanation. Every text a reader sees (a part's label, why it counts, the
culprit line) is made from these at the end (words.py); nothing reads a text
back."""

from __future__ import annotations

from dataclasses import dataclass

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
OWN_WORK = "own-work"  # an operation: the thread itself ran its call
WAIT = "wait"  # an operation: the thread blocked, the CPU idle until it was woken
UNACCOUNTED = "unaccounted"
KINDS = (
    IDLE,
    NO_EVENT,
    WAKE_IRQ,
    TICK_WAIT,
    IRQ,
    VECTOR,
    SOFTIRQ,
    TIMER,
    TASK,
    WAKER,
    SWITCH,
    NONPREEMPT,
    RETURN,
    OWN_WORK,
    WAIT,
    UNACCOUNTED,
)

# What a handler frame is, as the trace's entry events say it.
FRAME_KINDS = ("irq", "vec", "softirq", "timer", "ipi", "work")
HANDLER_KINDS = {"irq": IRQ, "vec": VECTOR, "softirq": SOFTIRQ, "timer": TIMER, "ipi": VECTOR}

# A task's role, where the OS's port names it (data, not a rule).
ROLE_IDLE = "idle"
ROLE_TIMER_TASK = "timer-task"


@dataclass(frozen=True)
class Subject:
    """Who or what a part is: a handler (what: a frame kind) or a task.

    A handler: num (the IRQ number, the softirq's vector), name (the IRQ's
    action, the vector's, softirq's, timer callback's or work function's
    name); opened_before: its entry lies before the window (its name may be
    unknown). A task: pid, comm, prio (the kernel's or the RTOS's number),
    policy (where the record gives it), role (the port's idle or timer task),
    work (a work item it was running)."""

    what: str  # a FRAME_KINDS entry, "task", "idle" or "thread" (the measured one)
    num: int = -1
    name: str = ""
    opened_before: bool = False
    pid: int = -1
    comm: str = ""
    prio: int | None = None  # as the trace gives it (Linux: the kernel's 0-139)
    policy: str = ""
    priority: int | None = None  # as the OS's interface says it (SCHED_FIFO 98; an RTOS's)
    nice: int | None = None  # a normal Linux task's nice value
    role: str = ""
    work: str = ""
    origin: str = ""  # whose task: "run", "kernel", "other" (another program's), "ended" (not
    # the run's, ended before it was looked up); "" unknown

    @property
    def is_task(self) -> bool:
        return self.what == "task"


@dataclass(frozen=True)
class Part:
    """One part of a sample: its kind, how long, who or what, the rule that
    decided it, and the texts made from these at the end."""

    kind: str
    ns: int
    rule: str  # the rule's name (rules.py)
    subject: Subject | None = None
    via: Subject | None = None  # the wake-up's interrupt this part ran within
    legal: bool | None = None  # may it legally delay the thread (None: not a delay by another)
    idle_exit_ns: int = 0  # the idle state's declared exit latency, where known
    cut_at_exit: bool = False  # the part ends at that latency (the rest is no event)
    label: str = ""  # e.g. "softirq NET_RX", "hog/1234 SCHED_FIFO 99"
    detail: str = ""  # why it counts as it does
    blame: str = ""  # what the culprit line says when this part is the largest
    quiet_ns: int = 0  # an operation's own work: its longest stretch with no event


@dataclass(frozen=True)
class Segment:
    """A piece of the timeline picture: [start, end) ns from the release."""

    cpu: int
    start: int
    end: int
    kind: str
    label: str
    subject: Subject | None = None


@dataclass(frozen=True)
class Culprit:
    """The party responsible for the largest part, and its share."""

    party: tuple[str, Subject | None]  # (what kind of party, whom) — parts it owns are summed
    kind: str  # the kind of the first part it owns
    ns: int
    share: float  # of the sample, 0..1


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
    named: Culprit | None = None  # the culprit as data; None: nobody named
    interval: str = "release"  # what the sample measures: "release" or "operation"

    @property
    def accounted_ns(self) -> int:
        return sum(p.ns for p in self.parts if p.kind != UNACCOUNTED)
