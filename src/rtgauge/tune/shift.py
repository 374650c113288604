"""How the explanation of the worst samples moved between the two sides of a
trial: each kept window's late time (its parts) summed by cause category
over every round of a side, as shares of that side's total."""

from __future__ import annotations

from collections.abc import Iterable

from rtgauge.analysis.explain import Explanation
from rtgauge.analysis.explain import parts as P
from rtgauge.tune.result import Share, Shift

DEVICE_IRQ = "device IRQ"
SOFTIRQ = "softirq"
OTHER_TASK = "other task"
KTHREAD = "kernel thread"
NONPREEMPT = "non-preemptible kernel code"
HYPERVISOR = "hypervisor/no event"
IDLE = "idle exit"
TIMER_IPI = "timer or IPI"
PATH = "the wake-up path itself"
UNACCOUNTED = "unaccounted"

DOMINANT = 0.5  # a share above this is "most of" the late time
MOVED = 0.10  # a share that moved by less is not named


def category(p: P.Part) -> str:
    """The cause a part's time belongs to."""
    if p.kind == P.IRQ:
        return DEVICE_IRQ
    if p.kind == P.SOFTIRQ:
        return SOFTIRQ
    if p.kind in (P.VECTOR, P.TIMER):
        return TIMER_IPI
    if p.kind == P.NO_EVENT:
        return HYPERVISOR
    if p.kind == P.IDLE:
        return IDLE
    if p.kind == P.UNACCOUNTED:
        return UNACCOUNTED
    if p.kind in (P.TASK, P.NONPREEMPT):
        s = p.subject
        if s is not None and (s.origin == "kernel" or s.pid == 0 and s.is_task):
            return KTHREAD
        return OTHER_TASK if p.kind == P.TASK else NONPREEMPT
    return PATH


def late_time(windows: Iterable[Explanation]) -> tuple[dict[str, int], int]:
    """ns per category over the windows, and how many windows."""
    out: dict[str, int] = {}
    n = 0
    for w in windows:
        n += 1
        for p in w.parts:
            if p.ns > 0:
                c = category(p)
                out[c] = out.get(c, 0) + p.ns
    return out, n


def _shares(ns: dict[str, int]) -> dict[str, float]:
    total = sum(ns.values())
    return {k: v / total for k, v in ns.items()} if total else {}


def _pct(x: float) -> str:
    return f"{round(100 * x)} %"


def shift(before: Iterable[Explanation], after: Iterable[Explanation]) -> Shift:
    b_ns, nb = late_time(before)
    a_ns, na = late_time(after)
    b, a = _shares(b_ns), _shares(a_ns)
    cats = sorted(set(b) | set(a), key=lambda c: -max(b.get(c, 0.0), a.get(c, 0.0)))
    shares = tuple(Share(c, b.get(c, 0.0), a.get(c, 0.0)) for c in cats)
    hyper = max(b.get(HYPERVISOR, 0.0), a.get(HYPERVISOR, 0.0)) > DOMINANT and (
        a.get(HYPERVISOR, 0.0) >= max(a.values(), default=0.0)
    )
    if not nb or not na:
        which = "before" if not nb else "after"
        return Shift(shares, (nb, na), f"no kept windows {which}: no explanation to compare", hyper)
    moved = sorted(
        (s for s in shares if abs(s.before - s.after) >= MOVED),
        key=lambda s: -abs(s.before - s.after),
    )
    if moved:
        text = "; ".join(
            f"{s.category} share of the kept windows {_pct(s.before)} → {_pct(s.after)}"
            for s in moved[:3]
        )
    else:
        top = shares[0]
        text = (
            f"the explanation did not move: {top.category} share of the kept windows "
            f"{_pct(top.before)} → {_pct(top.after)}"
        )
    if hyper:
        text += (
            f"; the hypervisor (time with no event in the guest) holds most of the late time "
            f"({_pct(a.get(HYPERVISOR, 0.0))} after): no guest setting can help that part"
        )
    return Shift(shares, (nb, na), text, hyper)
