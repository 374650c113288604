"""An RTOS whose port the host has no checks of its own for: judged by what
its record reports in the keys every RTOS port may give ("rtos":
preemptive, priority_levels, tick_rate_hz, heap, heap_bytes; the free heap
under "audit"), each check unknown when its facts are absent. The
judgements a known port's checks share (rtgauge.audit.freertos) are here
too, so a setting is judged alike whatever wrote it. Pure functions."""

from __future__ import annotations

from rtgauge.audit.facts import Facts
from rtgauge.audit.finding import Check, Verdict
from rtgauge.audit.linux_kernel import unknown

# Below this many priority levels, tasks of different urgency share one.
MIN_PRIORITY_LEVELS = 8


def as_int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _said(key: str, v: object) -> str:
    return f"rtos.{key}: {v if v is not None else 'not recorded'}"


def preemption_verdict(
    preemptive: bool, levels: int | None, evidence: list[str], fix: str, levels_fix: str
) -> Verdict:
    """A kernel that preempts (or not), with its priority levels when known."""
    if not preemptive:
        return Verdict(
            "fail",
            "cooperative scheduling: a ready higher-priority task waits "
            "until the running one yields",
            evidence,
            fix,
            "cooperative",
        )
    if levels is not None and levels < MIN_PRIORITY_LEVELS:
        return Verdict(
            "warn",
            f"preemptive, with only {levels} priority levels: tasks of different urgency "
            "share a level, where they do not preempt each other",
            evidence,
            levels_fix,
            f"{levels} levels",
        )
    said = f"{levels} priority levels" if levels is not None else "priority levels not recorded"
    return Verdict("pass", f"preemptive, {said}", evidence, value="preemptive")


def tick_verdict(hz: int, evidence: list[str], fix: str) -> Verdict:
    """A tick rate against the resolution real-time delays need."""
    value = f"{hz} Hz"
    if hz < 100:
        return Verdict(
            "fail",
            f"tick of {1000 / hz:.0f} ms: delays and timeouts are that coarse",
            evidence,
            fix,
            value,
        )
    if hz < 1000:
        return Verdict(
            "warn",
            f"tick of {1000 / hz:.1f} ms: delays and timeouts round up to it",
            evidence,
            fix,
            value,
        )
    return Verdict("pass", f"tick of {1000 / hz:.2g} ms", evidence, value=value)


def heap_low(f: Facts) -> tuple[int | None, str]:
    """The lowest free heap: the end record's, else the start's, and which."""
    if f.e.heap_min_free_bytes is not None:
        return f.e.heap_min_free_bytes, " at the run's end"
    return f.a.heap_min_free_bytes, " at the start"


def heap_verdict(
    scheme: str,
    size: int,
    low: int,
    evidence: list[str],
    unbounded: str | None,
    fixes: tuple[str, str] = (
        "a larger heap, or fewer allocations at run time",
        "an allocator with bounded time, sized with room to spare",
    ),
) -> Verdict:
    """A heap's lowest free share; unbounded: why its allocator's time is
    not bounded (None: nothing says it is not); fixes: when it ran out,
    when it is short or unbounded."""
    share = low / size
    value = f"{scheme}, {share:.0%} free at lowest"
    if share < 0.01:
        return Verdict(
            "fail",
            f"the heap ran out: {low} bytes left at its lowest",
            evidence,
            fixes[0],
            value,
        )
    if unbounded or share < 0.10:
        return Verdict(
            "warn",
            unbounded or f"{share:.0%} of the heap left at its lowest",
            evidence,
            fixes[1],
            value,
        )
    return Verdict("pass", f"{scheme}, {share:.0%} left at its lowest", evidence, value=value)


# ---- rtos-preemption ----
def preemption(f: Facts) -> Verdict:
    preemptive = f.rtos_fact("preemptive")
    levels = as_int(f.rtos_fact("priority_levels"))
    evidence = [_said("preemptive", preemptive), _said("priority_levels", levels)]
    if not isinstance(preemptive, bool):
        return unknown("the record does not say whether the kernel preempts", evidence)
    return preemption_verdict(
        preemptive,
        levels,
        evidence,
        "the kernel's preemptive scheduling",
        f"a priority level per urgency ({MIN_PRIORITY_LEVELS} or more)",
    )


# ---- rtos-tick-rate ----
def tick_rate(f: Facts) -> Verdict:
    hz = as_int(f.rtos_fact("tick_rate_hz"))
    evidence = [_said("tick_rate_hz", hz)]
    if hz is None and f.system.kernel.hz_config is not None:
        hz = f.system.kernel.hz_config
        evidence.append(f"kernel.hz_config: {hz}")
    if not hz:
        return unknown("the tick rate is not in the record", evidence)
    return tick_verdict(
        hz, evidence, "a tick of 1000 Hz or more (or time the real-time work with a hardware timer)"
    )


# ---- rtos-heap ----
def heap(f: Facts) -> Verdict:
    scheme = f.rtos_fact("heap")
    size = as_int(f.rtos_fact("heap_bytes"))
    low, when = heap_low(f)
    evidence = [
        _said("heap", scheme),
        _said("heap_bytes", size),
        f"lowest free heap: {low if low is not None else 'not recorded'}"
        + (when if low is not None else ""),
    ]
    if low is None or not size:
        return unknown("the heap is not in the record", evidence)
    return heap_verdict(str(scheme or "the heap"), size, low, evidence, None)


PREEMPTION_WHY = (
    "With cooperative scheduling a task made ready waits for the running one to "
    "yield, however urgent: its latency is the other task's run."
)
TICK_WHY = "Delays, timeouts and time slices count in ticks: the tick's length is their resolution."
HEAP_WHY = (
    "An allocator whose time is unbounded, or a heap near exhaustion, makes any "
    "allocation in the measured path late or failing."
)

CHECKS = [
    Check("rtos-preemption", "Preemptive scheduling", PREEMPTION_WHY, preemption),
    Check("rtos-tick-rate", "Tick rate", TICK_WHY, tick_rate),
    Check("rtos-heap", "Heap and free heap", HEAP_WHY, heap),
]
