"""Which audit findings bear on a worst sample's explanation: each part of
the explanation linked to the finding whose setting could have kept that
part off the measured CPU (or short), when that finding warns or fails.

A pure function of an explanation (analysis/explain/) and the audit's
findings (rtgauge.audit). It never blames: it links only a part that is in
the explanation, and only to a finding that says its setting is not as
real-time work needs (status warn or fail); a passing finding says the
setting is fine, and pointing to it would mislead, so it is never pointed
to, nor is an unknown or n/a one. The parts that are the wake-up's own
mechanism (its interrupt, its waker, the switch, the thread itself) or
unknown time point to nothing; so does an incomplete window, whose parts
may be wrong (it names no culprit either).

An IRQ part is linked to irq-affinity by its number: when the finding's
details name that IRQ (it may land on, or fired on, the measured CPUs) the
line says what the audit found of it; when they do not (its affinity
changed during the run, or it was set up after the audit read the
affinities) the line says so in generic words, and irq-default-affinity,
the mask a new IRQ starts with, bears on it too.

docs/audit.md gives the table; docs/explain.md, "The audit links", the rules
of when a part is pointed to.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rtgauge.analysis.explain import (
    IDLE,
    IRQ,
    NO_EVENT,
    NONPREEMPT,
    SOFTIRQ,
    TASK,
    TICK_WAIT,
    TIMER,
    VECTOR,
    Explanation,
    Part,
    Subject,
)
from rtgauge.analysis.explain.parts import ROLE_TIMER_TASK
from rtgauge.analysis.explain.rules import IDLE_BEYOND_EXIT
from rtgauge.audit import Finding

POINTED = ("warn", "fail")  # the statuses an explanation points to
# A part under this share of the sample gets no line: the report would list
# every tick and softirq of the window without saying more.
MIN_SHARE = 0.01

# What each finding's setting does for a part, in the words of the line:
# always what could have kept it off the measured CPU (or short), never who
# is at fault.
KEPT_OFF = {
    "irq-affinity": "an IRQ affinity without this CPU could have kept it off",
    "irq-default-affinity": (
        "a default IRQ affinity without this CPU could have kept it off (an IRQ set up "
        "after the audit read the affinities starts with it)"
    ),
    "workqueue-mask": "an unbound workqueue mask without this CPU could have kept it off",
    "cpu-isolation": "isolating the measured CPU could have kept it off",
    "idle-states": (
        "holding /dev/cpu_dma_latency at 0, or disabling the deep idle states, could have "
        "kept it short"
    ),
    "hypervisor": "bare metal, or a vCPU pinned to an isolated host CPU, could have kept it off",
    "smi-count": "firmware set up without SMIs could have kept it off",
    "preempt-model": "a fully preemptible kernel (PREEMPT_RT) could have preempted it at once",
    "timer-migration": "timer_migration 0 could have kept other CPUs' timers off this CPU",
    "watchdogs": "the watchdogs kept off the measured CPUs could have kept it off",
    "thp": "THP at madvise or never could have spared khugepaged this work",
    "rtos-tick-rate": "a higher tick rate could have made the wait shorter",
    "rtos-timer-task": (
        "a timer task priority below the measured tasks' could have kept it from running first"
    ),
}
# kernel-rt-options covers several options: the part's own one, by the name
# its details list as missing.
RT_OPTION_KEPT_OFF = {
    "NO_HZ_FULL": "full dynticks (CONFIG_NO_HZ_FULL, nohz_full=) could have kept the tick off",
    "RCU_NOCB_CPU": (
        "RCU callback offloading (CONFIG_RCU_NOCB_CPU, rcu_nocbs=) could have kept it off"
    ),
    "threaded interrupts": (
        "threaded interrupts could have let the thread outrank this handler's thread"
    ),
    "HIGH_RES_TIMERS": "high-resolution timers could have ended the sleep at its time",
}

# Softirqs raised by a device's interrupt on the CPU it lands on (NET_RX also
# by a task sending on loopback, from that task's CPU).
DEVICE_SOFTIRQS = ("NET_RX", "NET_TX", "BLOCK", "IRQ_POLL", "TASKLET", "HI")
TIMER_SOFTIRQS = ("TIMER", "HRTIMER")
# The tick's callbacks, as the timer events name them.
TICK_CALLBACKS = (
    "tick_sched_timer",
    "tick_nohz_handler",
    "tick_nohz_highres_handler",
    "tick_handle_periodic",
)
# A CPU's own timer: as a vector (x86) or as an IRQ's action (Arm, RISC-V).
LOCAL_TIMER_VECTORS = ("local_timer",)
LOCAL_TIMER_IRQS = ("arch_timer", "riscv-timer")
IPI_VECTORS = ("reschedule", "call_function", "call_function_single")
# A threaded interrupt handler's task: irq/<number>-<name>.
_IRQ_THREAD = re.compile(r"^irq/(?P<num>\d+)-")


@dataclass(frozen=True)
class Bearing:
    """One line: a part of the explanation and the finding that bears on it."""

    part: Part
    share: float  # of the sample, 0..1
    finding: Finding
    says: str  # what the part is and what the setting could have done

    def to_json(self) -> dict[str, Any]:
        return {
            "part": self.part.label,
            "rule": self.part.rule,
            "share": round(self.share, 4),
            "finding": self.finding.id,
            "status": self.finding.status,
            "fix": self.finding.fix,
            "says": self.says,
        }


def bearing(
    x: Explanation, findings: Sequence[Finding], min_share: float = MIN_SHARE
) -> list[Bearing]:
    """The findings that bear on the explanation's parts, one line per
    (part, finding) pair, largest part first (equal parts in the
    explanation's order; a part's findings most specific first), parts of
    at least min_share of the sample. None for an incomplete window, or
    with no finding that warns or fails (no audit: no finding at all)."""
    if not x.complete or x.sample_ns <= 0:
        return []
    pointed = {f.id: f for f in findings if f.status in POINTED}
    if not pointed:
        return []
    out: list[Bearing] = []
    seen: set[tuple[object, ...]] = set()
    for p in sorted(x.parts, key=lambda p: -p.ns):
        if p.ns <= 0 or p.ns < min_share * x.sample_ns:
            continue
        for check_id, says in _links(p, pointed):
            key = (p.kind, p.rule, p.subject, p.via, check_id)
            if check_id not in pointed or key in seen:
                continue
            seen.add(key)
            out.append(Bearing(p, p.ns / x.sample_ns, pointed[check_id], says))
    return out


Link = tuple[str, str]  # (finding id, what the line says)


def _links(p: Part, found: dict[str, Finding]) -> Iterator[Link]:
    """The findings that may bear on one part, with the line's words: read
    from the part's data (its kind, rule and subject), never its label."""
    s = p.subject
    if p.kind == IDLE:
        yield _link("idle-states", "the CPU's exit from idle")
    elif p.kind == NO_EVENT:
        yield _link("hypervisor", "a hypervisor below may take such time unseen")
        yield _link("smi-count", "an SMI takes such time unseen")
        if p.rule == IDLE_BEYOND_EXIT:
            yield _link("idle-states", "the CPU was idle meanwhile")
    elif p.kind == TICK_WAIT:
        yield _link("rtos-tick-rate", "a sleep that ends on the next tick")
        yield from _rt_option(found, "HIGH_RES_TIMERS", "a sleep that ends on the next tick")
    elif s is None:
        return
    elif p.kind == IRQ:
        yield from _irq(s, found)
    elif p.kind == VECTOR:
        yield from _vector(s, found)
    elif p.kind == SOFTIRQ:
        yield from _softirq(s.name if not s.opened_before else "handler", found)
    elif p.kind == TIMER:
        yield from _timer(s.name or ("handler" if s.opened_before else "callback"), found)
    elif p.kind in (TASK, NONPREEMPT):
        yield from _task(p.kind, s, found)


def _link(check_id: str, what: str) -> Link:
    return check_id, f"{what}; {KEPT_OFF[check_id]}"


def _rt_option(found: dict[str, Finding], option: str, what: str) -> Iterator[Link]:
    """kernel-rt-options, when the option this part needs is among those it
    found missing (high-resolution timers: its failure)."""
    f = found.get("kernel-rt-options")
    if f is None:
        return
    missing = f.details.get("missing", [])
    if option in missing or (option == "HIGH_RES_TIMERS" and f.details.get("high_res") is False):
        yield "kernel-rt-options", f"{what}; {RT_OPTION_KEPT_OFF[option]}"


def _irq(s: Subject, found: dict[str, Finding]) -> Iterator[Link]:
    if s.name in LOCAL_TIMER_IRQS:
        yield from _local_timer(found)
        return
    num = str(s.num) if s.num >= 0 else None
    yield from _device_irq(num, found, "device interrupt")
    yield from _rt_option(
        found, "threaded interrupts", f"IRQ {num}'s handler" if num else "a handler"
    )


def _device_irq(num: str | None, found: dict[str, Finding], what: str) -> Iterator[Link]:
    """irq-affinity, in the words of what it found of this IRQ; when it did
    not name it, generic words and the default affinity too."""
    f = found.get("irq-affinity")
    named = _named_irq(f, num) if f is not None else None
    irq = f"IRQ {num}" if num else "this interrupt"
    if named is not None:
        fired = named.get("fired")
        how = (
            f"fired {fired}× there during the run"
            if fired
            else f"affinity {named.get('affinity')}, effective {named.get('effective')}"
        )
        yield _link("irq-affinity", f"{irq} may land on the measured CPUs ({how})")
        return
    not_named = (
        f"{irq}, a {what}, is not among the IRQs the audit found landing on the measured CPUs"
    )
    yield _link("irq-affinity", not_named)
    yield _link("irq-default-affinity", f"{irq}, a {what}")


def _named_irq(f: Finding, num: str | None) -> dict[str, Any] | None:
    if num is None:
        return None
    irqs = f.details.get("irqs", [])
    return next((i for i in irqs if isinstance(i, dict) and str(i.get("irq")) == num), None)


def _tick(found: dict[str, Finding], what: str) -> Iterator[Link]:
    yield from _rt_option(found, "NO_HZ_FULL", what)
    yield _link("cpu-isolation", what)


def _local_timer(found: dict[str, Finding]) -> Iterator[Link]:
    yield from _tick(found, "the CPU's timer interrupt")
    yield _link("timer-migration", "the CPU's timer interrupt")


def _vector(s: Subject, found: dict[str, Finding]) -> Iterator[Link]:
    if s.what == "vec" and s.name in LOCAL_TIMER_VECTORS:
        yield from _local_timer(found)
    elif s.what == "ipi" or s.name in IPI_VECTORS:
        yield _link("cpu-isolation", "an inter-processor interrupt, for work on or toward this CPU")


def _softirq(name: str, found: dict[str, Finding]) -> Iterator[Link]:
    if name in DEVICE_SOFTIRQS:
        yield _link(
            "irq-affinity",
            f"softirq {name} runs on the CPU whose device interrupt raised it",
        )
        yield _link("cpu-isolation", f"softirq {name}, raised by work on this CPU")
    elif name in TIMER_SOFTIRQS:
        yield _link("timer-migration", f"softirq {name}, the expired timers of this CPU")
        yield from _tick(found, f"softirq {name}, the expired timers of this CPU")
    elif name == "RCU":
        yield from _rt_option(found, "RCU_NOCB_CPU", "softirq RCU, this CPU's RCU callbacks")
        yield _link("cpu-isolation", "softirq RCU, this CPU's RCU callbacks")
    else:
        yield _link("cpu-isolation", f"softirq {name}, raised by work on this CPU")


def _timer(name: str, found: dict[str, Finding]) -> Iterator[Link]:
    if name == "watchdog_timer_fn":
        yield _link("watchdogs", "the soft-lockup watchdog's timer")
    elif name in TICK_CALLBACKS:
        yield from _tick(found, "the tick")
    else:
        what = f"timer {name}, a timer callback run on this CPU"
        yield _link("timer-migration", what)
        yield _link("cpu-isolation", what)


def _task(kind: str, s: Subject, found: dict[str, Finding]) -> Iterator[Link]:
    comm = s.comm
    if kind == NONPREEMPT:
        yield _link(
            "preempt-model", f"{comm or 'a task'}'s kernel code, which the kernel did not preempt"
        )
    if comm.startswith("kworker/u"):
        yield _link("workqueue-mask", f"{comm}, an unbound workqueue's worker")
    elif comm.startswith("kworker/"):  # a CPU's own pool: the unbound mask cannot move it
        yield _link("cpu-isolation", f"{comm}, work queued on this CPU")
        return
    elif comm.startswith("watchdog/"):
        yield _link("watchdogs", f"{comm}, the soft-lockup watchdog's thread")
    elif comm.startswith("migration/"):
        yield _link(
            "watchdogs",
            f"{comm}, the CPU's stopper thread, which the soft-lockup watchdog runs every few "
            "seconds (task migration uses it too)",
        )
    elif m := _IRQ_THREAD.match(comm):  # follows its IRQ's affinity, not the isolation
        yield from _device_irq(m.group("num"), found, "threaded interrupt handler")
        return
    elif comm.startswith("ksoftirqd/"):
        yield _link("irq-affinity", f"{comm}, softirqs mostly raised by device interrupts here")
    elif comm.startswith(("ktimers/", "ktimersoftd/")):
        yield _link("timer-migration", f"{comm}, the expired timers of this CPU")
    elif comm.startswith(("rcuc/", "rcuop/", "rcuog/", "rcu_")):
        yield from _rt_option(found, "RCU_NOCB_CPU", f"{comm}, RCU callbacks")
    elif comm == "khugepaged":
        yield _link("thp", "khugepaged, collapsing pages into huge pages")
    elif s.role == ROLE_TIMER_TASK:
        yield _link("rtos-timer-task", f"{comm}, the timer service task")
    who = comm or "a task"
    yield _link("cpu-isolation", f"{who}, another task on the measured CPU")
