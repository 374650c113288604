"""The explanation of a worst sample on FreeRTOS, on hand-made windows in
the vocabulary its flight recorder writes (core/osal/freertos/trace*.c):
one CPU, priorities counting upwards, task numbers as pids, the idle task
as pid 0 (or named IDLE), the tick and the board's timer interrupt as
vectors by name. These are the controls of the FreeRTOS rules: a
higher-priority task is named, a lower-priority one never is."""

from __future__ import annotations

from rtgauge.analysis.explain import (
    IDLE,
    NONPREEMPT,
    SWITCH,
    TASK,
    TICK_WAIT,
    VECTOR,
    WAKE_IRQ,
    Explanation,
    TraceWindow,
    explain,
)
from rtgauge.model import TraceEvent

TID = 7  # the measured task: the OSAL's "rtg", FreeRTOS priority 91
ME = (TID, 91, "rtg")
IDLE_TASK = (0, 0, "IDLE")
HIGHER = (42, 97, "hog")
LOWER = (30, 2, "spin")
TIMER = "TIM2, IRQ 28"  # the board's IRQ-P-LAT timer, as the firmware names it


def ev(t: int, kind: str, cur: int, **kw: object) -> TraceEvent:
    return TraceEvent(t=t, cpu=0, kind=kind, cur=cur, **kw)  # type: ignore[arg-type]


def sw(t: int, out: tuple[int, int, str], into: tuple[int, int, str], state: int = 1) -> TraceEvent:
    """A switch from out to into, each (task number, priority, name)."""
    return ev(t, "switch", out[0], pid=out[0], prio=out[1], name=out[2], state=state,
              pid2=into[0], prio2=into[1], name2=into[2])  # fmt: skip


def ready(t: int, cur: int, task: tuple[int, int, str] = ME) -> TraceEvent:
    return ev(t, "wakeup", cur, pid=task[0], prio=task[1], name=task[2], num=0)


def isr(t: int, cur: int, name: str, num: int, dur: int, wakes: bool = True) -> list[TraceEvent]:
    """The board's interrupt name (vector num) entered at t for dur ns,
    making the measured task ready halfway when wakes."""
    out = [ev(t, "vec_entry", cur, name=name, num=num)]
    if wakes:
        out.append(ready(t + dur // 2, cur))
    return [*out, ev(t + dur, "vec_exit", cur, name=name, num=num)]


def window(events: list[TraceEvent], sample: int) -> TraceWindow:
    return TraceWindow(
        metric="timer.wakeup.clock_nanosleep.cpu0",
        sample_ns=sample,
        cpu=0,
        tid=TID,
        start=-1_000_000,
        complete=True,
        lost_events=0,
        events=tuple(events),
        policies={TID: "FreeRTOS"},
        prio_scale="rtos",
    )


def kinds(x: Explanation) -> dict[str, str]:
    return {p.label: p.kind for p in x.parts}


def test_a_higher_priority_task_between_the_wake_up_and_the_switch_in_is_named() -> None:
    evs = [
        sw(-500_000, ME, IDLE_TASK),
        *isr(2_000, 0, TIMER, 44, 4_000),
        ready(5_000, 0, HIGHER),  # the same interrupt made the hog ready too
        sw(10_000, IDLE_TASK, HIGHER, state=0),
        sw(300_000, HIGHER, ME),
    ]
    x = explain(window(evs, 305_000))
    assert x.culprit_kind == TASK
    assert x.culprit == "95 % blocked by hog/42 (priority 97)"
    assert sum(p.ns for p in x.parts) == x.sample_ns


def test_an_equal_priority_task_keeps_the_cpu_legally_and_is_named() -> None:
    """Time slicing off: a task of the same priority runs until it blocks."""
    peer = (43, 91, "peer")
    evs = [sw(-500_000, ME, peer), *isr(2_000, 43, TIMER, 44, 4_000), sw(200_000, peer, ME)]
    x = explain(window(evs, 201_000))
    assert x.culprit_kind == TASK and "blocked by peer/43 (priority 91)" in x.culprit


def test_a_lower_priority_task_after_the_wake_up_is_never_the_culprit() -> None:
    evs = [
        sw(-500_000, ME, LOWER),
        *isr(2_000, 30, TIMER, 44, 4_000),
        sw(250_000, LOWER, ME, state=0),  # the switch came late: not the task's doing
    ]
    x = explain(window(evs, 251_000))
    assert kinds(x)["switch from spin/30 (priority 2)"] == SWITCH
    assert x.culprit_kind == SWITCH and "spin" not in x.culprit
    assert not any(p.kind == TASK for p in x.parts)


def test_a_lower_priority_task_an_interrupt_returned_to_held_off_the_switch() -> None:
    """After the wake-up the tick returned to it instead of switching: the
    scheduler was suspended or it was in a critical section. Named as
    that, never as a task that could legally run."""
    evs = [
        sw(-500_000, ME, LOWER),
        *isr(2_000, 30, TIMER, 44, 4_000),
        *isr(100_000, 30, "tick", 15, 3_000, wakes=False),
        sw(250_000, LOWER, ME, state=0),
    ]
    x = explain(window(evs, 251_000))
    assert x.culprit_kind == NONPREEMPT
    assert "spin/30 (priority 2) held off the switch (the scheduler suspended" in x.culprit
    assert "blocked by" not in x.culprit


def test_the_tick_that_ends_a_sleep_is_named_and_the_wait_for_it_is_the_ticks() -> None:
    """A FreeRTOS sleep ends on the first tick at or after its deadline:
    from the release to that tick is the tick's granularity, not idle."""
    evs = [
        sw(-600_000, ME, IDLE_TASK),
        *isr(700_000, 0, "tick", 15, 4_000),
        sw(706_000, IDLE_TASK, ME, state=0),
    ]
    x = explain(window(evs, 708_000))
    assert x.parts[0].kind == TICK_WAIT and x.parts[0].ns == 700_000
    assert kinds(x)["tick interrupt (the wake-up)"] == WAKE_IRQ
    assert kinds(x)["the scheduler: from idle to the thread"] == SWITCH
    assert (
        x.culprit
        == "99 % the tick's granularity: the sleep ended on the first tick after its deadline"
    )
    assert x.culprit_kind == TICK_WAIT


def test_a_lower_priority_task_running_until_the_tick_is_not_blamed() -> None:
    evs = [
        sw(-600_000, ME, LOWER),
        *isr(650_000, 30, "tick", 15, 4_000),
        sw(656_000, LOWER, ME, state=0),
    ]
    x = explain(window(evs, 658_000))
    assert x.culprit_kind == TICK_WAIT and "spin" not in x.culprit
    assert kinds(x)["waiting for the next tick"] == TICK_WAIT


def test_the_timer_interrupt_that_wakes_the_task_is_named() -> None:
    """IRQ-P-LAT's task response: the board's timer interrupt gives the
    semaphore; before it the idle task ran (no idle state to leave)."""
    evs = [
        sw(-900_000, ME, IDLE_TASK),
        *isr(3_000, 0, TIMER, 44, 12_000),
        sw(16_000, IDLE_TASK, ME),
    ]
    x = explain(window(evs, 18_000))
    assert kinds(x)[f"{TIMER} interrupt (the wake-up)"] == WAKE_IRQ
    assert x.culprit == f"67 % the wake-up's own interrupt ({TIMER} interrupt)"
    idle = next(p for p in x.parts if p.kind == IDLE)
    assert idle.ns == 3_000 and "no idle state to leave" in idle.detail


def test_the_tick_between_the_wake_up_and_the_switch_is_named() -> None:
    evs = [
        sw(-900_000, ME, IDLE_TASK),
        *isr(2_000, 0, TIMER, 44, 2_000),
        *isr(5_000, 0, "tick", 15, 55_000, wakes=False),
        sw(61_000, IDLE_TASK, ME),
    ]
    x = explain(window(evs, 62_000))
    assert kinds(x)["tick interrupt"] == VECTOR
    assert x.culprit == "89 % tick interrupt"


def test_the_idle_task_under_a_number_of_its_own_is_idle() -> None:
    """A recorder that gives the idle task its kernel number: named IDLE,
    it is still the idle task, never a task that ran instead."""
    idle = (2, 0, "IDLE")
    evs = [sw(-900_000, ME, idle), *isr(2_000, 2, TIMER, 44, 2_000), sw(30_000, idle, ME)]
    x = explain(window(evs, 31_000))
    assert kinds(x)["the scheduler: from idle to the thread"] == SWITCH
    assert not any("IDLE" in p.label for p in x.parts)
    assert x.culprit_kind == SWITCH
