"""Every rule of the explanation's table (analysis/explain/rules.py) on a
hand-made window where it decides a part, and its must-fail case: the same
window with the one condition the rule needs changed, where that rule makes
no part (another rule takes the piece). The table and docs/explain.md's
"Rules" section say the same (generated from the table)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from rtgauge.analysis.explain import OsProfile, Part, TraceWindow, explain
from rtgauge.analysis.explain.engine import _merge
from rtgauge.analysis.explain.rules import BEFORE_WINDOW, REMAINDER, RULES
from rtgauge.analysis.explain.rules_doc import with_rules
from rtgauge.analysis.explain.window import LINUX, OPERATION, legacy_profile
from rtgauge.model import TraceEvent

ROOT = Path(__file__).resolve().parents[2]
TID = 500  # the measured thread: SCHED_FIFO 95 (kernel prio 4)
PROBE = (TID, 4, "rtgauge-probe")
HOG = (1234, 0, "hog")  # SCHED_FIFO 99: outranks the thread
BUSY = (777, 120, "busy")  # SCHED_OTHER: never outranks it
RTOS = legacy_profile("rtos")


def ev(t: int, kind: str, cur: int, **kw: object) -> TraceEvent:
    return TraceEvent(t=t, cpu=1, kind=kind, cur=cur, **kw)  # type: ignore[arg-type]


def sw(t: int, out: tuple[int, int, str], into: tuple[int, int, str], state: int = 1) -> TraceEvent:
    return ev(t, "switch", out[0], pid=out[0], prio=out[1], name=out[2], state=state,
              pid2=into[0], prio2=into[1], name2=into[2])  # fmt: skip


def wake(t: int, cur: int, kind: str = "waking") -> TraceEvent:
    return ev(t, kind, cur, pid=TID, prio=4, name="rtgauge-probe", num=1)


def vec(t: int, cur: int, dur: int, name: str = "local_timer", inner: tuple[TraceEvent, ...] = ()) \
        -> list[TraceEvent]:  # fmt: skip
    return [ev(t, "vec_entry", cur, name=name, num=236), *inner,
            ev(t + dur, "vec_exit", cur, name=name, num=236)]  # fmt: skip


def timer_wake(t: int, cur: int) -> list[TraceEvent]:
    """The local timer interrupt at t whose hrtimer wakes the thread."""
    inner = (
        ev(t + 500, "timer_entry", cur, name="hrtimer_wakeup"),
        wake(t + 1000, cur),
        ev(t + 2000, "timer_exit", cur),
    )
    return vec(t, cur, 4000, inner=inner)


def irq(t: int, cur: int, dur: int, num: int = 30, name: str = "eth0") -> list[TraceEvent]:
    return [ev(t, "irq_entry", cur, num=num, name=name), ev(t + dur, "irq_exit", cur, num=num)]


def window(events: list[TraceEvent], sample: int, os: OsProfile = LINUX, **kw: object) \
        -> TraceWindow:  # fmt: skip
    base: dict[str, object] = dict(
        metric="timer.wakeup.clock_nanosleep.cpu1", sample_ns=sample, cpu=1, tid=TID,
        start=-1_000_000, complete=True, lost_events=0, events=tuple(events), profile=os,
        policies={TID: "SCHED_FIFO", HOG[0]: "SCHED_FIFO", BUSY[0]: "SCHED_OTHER"},
    )  # fmt: skip
    base.update(kw)
    return TraceWindow(**base)  # type: ignore[arg-type]


def rules_of(w: TraceWindow) -> set[str]:
    x = explain(w)
    assert sum(p.ns for p in x.parts) == w.sample_ns  # the parts add up, always
    return {p.rule for p in x.parts}


def hog_then(cur: tuple[int, int, str], after: list[TraceEvent], sample: int = 50_000) \
        -> TraceWindow:  # fmt: skip
    """cur on the CPU from before the release, the timer wakes the thread at
    2 µs, then `after`; the thread switched in at the sample's end - 1 µs."""
    return window([sw(-900_000, PROBE, cur), *timer_wake(2_000, cur[0]), *after,
                   sw(sample - 1_000, cur, PROBE)], sample)  # fmt: skip


def _other_timer(inside: bool) -> TraceWindow:
    tick = (ev(3_000, "timer_entry", 1234, name="tick_sched_timer"), ev(3_500, "timer_exit", 1234))
    if inside:  # within the interrupt that woke the thread
        events = [
            sw(-900_000, PROBE, HOG),
            *vec(2_000, 1234, 4_000, inner=(
                ev(2_100, "timer_entry", 1234, name="hrtimer_wakeup"), wake(2_200, 1234),
                ev(2_500, "timer_exit", 1234), *tick)),
            sw(20_000, HOG, PROBE),
        ]  # fmt: skip
    else:  # the same callback in an interrupt of its own, later
        events = [sw(-900_000, PROBE, HOG), *timer_wake(2_000, 1234),
                  *vec(8_000, 1234, 2_000, inner=tick), sw(20_000, HOG, PROBE)]  # fmt: skip
        events = [replace(e, t=e.t + 5_000) if e.name == "tick_sched_timer" or
                  (e.kind == "timer_exit" and e.t == 3_500) else e for e in events]  # fmt: skip
    return window(events, 21_000)


def _woken_by_task(from_handler: bool) -> TraceWindow:
    """IRQ 30 at the release (the CPU reacts), busy runs, then wakes the
    thread at 5 µs: from its own context, or from IRQ 31's handler."""
    waking = (
        irq(5_000, 777, 1_000, 31, "wakes")[:1] + [wake(5_500, 777)] + irq(5_000, 777, 1_000, 31)[1:]
        if from_handler
        else [wake(5_000, 777)]
    )  # fmt: skip
    return window([sw(-900_000, PROBE, BUSY), *irq(0, 777, 1_000), *waking,
                   sw(8_000, BUSY, PROBE)], 9_000)  # fmt: skip


def _held(state: int) -> TraceWindow:
    """busy keeps the CPU after the wake-up: IRQ 30 comes on it and returns to
    it; busy is switched out preempted (R+, state 256) or as from user space (R, 0)."""
    return hog_then(BUSY, [*irq(10_000, 777, 1_000)], 40_000) if state else replace(
        hog_then(BUSY, [*irq(10_000, 777, 1_000)], 40_000),
        events=tuple(replace(e, state=0) if e.kind == "switch" and e.t > 0 else e
                     for e in hog_then(BUSY, [*irq(10_000, 777, 1_000)], 40_000).events),
    )  # fmt: skip


def _idle(os: OsProfile, exit_us: int = 0, vm: str | None = None) -> TraceWindow:
    """The CPU idle from before the release until the timer at 10 µs."""
    events = [sw(-900_000, PROBE, (0, 120, "swapper/1")), *timer_wake(10_000, 0),
              sw(16_000, (0, 120, "swapper/1"), PROBE)]  # fmt: skip
    return window(events, 17_000, os, idle_exit_ns={1: exit_us * 1000} if exit_us else {},
                  virtual_machine=vm)  # fmt: skip


def _tick(os: OsProfile) -> TraceWindow:
    """A sleep the tick vector ended at 600 µs, on an RTOS's one CPU."""
    tick = [ev(600_000, "vec_entry", 0, name="tick", num=15), wake(601_000, 0, "wakeup"),
            ev(602_000, "vec_exit", 0, name="tick", num=15)]  # fmt: skip
    events = [sw(-900_000, (TID, 91, "rtg"), (0, 0, "IDLE")), *tick,
              sw(603_000, (0, 0, "IDLE"), (TID, 91, "rtg"))]  # fmt: skip
    events = [replace(e, prio=91) if e.kind == "wakeup" else e for e in events]
    return window(events, 604_000, os)


def _thread_current(switch_traced_early: bool) -> TraceWindow:
    """The thread stayed current through its sleep (no switch out): the
    timer wakes it at 2 µs; the first event naming it current after that
    comes at 5 µs, or at 10 µs with events naming nobody before it."""
    later = 5_000 if switch_traced_early else 10_000
    events = [ev(-500_000, "softirq_entry", TID, name="RCU", num=9),
              ev(-499_000, "softirq_exit", TID, name="RCU", num=9),
              *[replace(e, cur=-1) for e in timer_wake(2_000, TID)],
              ev(later, "softirq_raise", TID, name="TIMER", num=1)]  # fmt: skip
    return window(events, 12_000)


def _thread_still_current(thread: bool) -> TraceWindow:
    """The thread (or busy) current at the release; the timer comes at 5 µs."""
    who = PROBE if thread else BUSY
    events = [ev(-600_000, "softirq_raise", who[0], name="RCU", num=9), *timer_wake(5_000, who[0])]
    if not thread:
        events.append(sw(10_000, BUSY, PROBE))
    return window(events, 11_000)


def _unknown(named: bool) -> TraceWindow:
    """No event before the timer names the current task (cur -1), or one does."""
    cur = 777 if named else -1
    events = [*[replace(e, cur=cur) for e in timer_wake(5_000, 0)], sw(10_000, BUSY, PROBE)]
    return window(events, 11_000, start=0)


def _before_wake(waking_here: bool) -> TraceWindow:
    """IRQ 30 at 1 µs; busy runs; the thread is woken on another CPU (no
    wake-up on this one), or by busy here at 2.5 µs."""
    events = [sw(-900_000, PROBE, BUSY), *irq(1_000, 777, 1_000)]
    if waking_here:
        events.append(wake(2_500, 777))
    return window([*events, sw(8_000, BUSY, PROBE)], 9_000)


def _idle_switch(prompt: bool) -> TraceWindow:
    """Woken from idle at 2 µs; switched in at 8 µs, or as the interrupt ends."""
    at = 6_000 if prompt else 8_000
    events = [sw(-900_000, PROBE, (0, 120, "swapper/1")), *timer_wake(2_000, 0),
              sw(at, (0, 120, "swapper/1"), PROBE)]  # fmt: skip
    return window(events, 9_000, virtual_machine="KVM")


# rule -> (a window where it decides a part, the must-fail: one condition changed)
CASES: dict[str, tuple[TraceWindow, TraceWindow]] = {
    "wake-interrupt-other-timer": (_other_timer(True), _other_timer(False)),
    "wake-interrupt": (
        hog_then(HOG, []),
        window(
            [
                sw(-900_000, PROBE, BUSY),
                *irq(500, 777, 500),
                wake(2_000, 777),
                sw(5_000, BUSY, PROBE),
            ],
            6_000,
        ),
    ),  # fmt: skip
    "handler": (hog_then(HOG, [*irq(10_000, 1234, 3_000)]), hog_then(HOG, [])),
    "tick-wait": (_tick(RTOS), _tick(replace(RTOS, tick=None))),
    "thread-return": (
        hog_then(HOG, [], 50_000),
        replace(hog_then(HOG, [], 50_000), sample_ns=49_000),
    ),
    "thread-switch": (_thread_current(False), _thread_current(True)),
    "thread-still-current": (_thread_still_current(True), _thread_still_current(False)),
    "unknown-context": (_unknown(False), _unknown(True)),
    "idle-without-states": (_idle(RTOS), _idle(LINUX)),
    "idle-exit": (_idle(LINUX), _idle(RTOS)),
    "idle-beyond-exit": (_idle(LINUX, 2, "KVM"), _idle(LINUX, 20, "KVM")),
    "idle-switch": (_idle_switch(False), _idle_switch(True)),
    "task-before-reaction": (_thread_still_current(False), _thread_still_current(True)),
    "waker": (_woken_by_task(False), _woken_by_task(True)),
    "task-awaiting-interrupt": (_woken_by_task(True), _woken_by_task(False)),
    "task-before-wake": (_before_wake(False), _before_wake(True)),
    "task-outranks": (hog_then(HOG, []), hog_then(BUSY, [])),
    "task-held": (_held(256), _held(0)),
    "task-lower": (hog_then(BUSY, []), hog_then(HOG, [])),
}
CASES["before-window"] = (replace(hog_then(HOG, []), start=1_000), hog_then(HOG, []))  # starts late


def test_every_rule_has_a_case() -> None:
    """Every release rule (the operation rules: test_explain_operation.py)."""
    names = {r.name for r in (*RULES, BEFORE_WINDOW, REMAINDER) if r.interval != OPERATION}
    assert set(CASES) | {"remainder"} == names


@pytest.mark.parametrize("rule", sorted(CASES))
def test_the_rule_decides_a_part_and_its_control_does_not(rule: str) -> None:
    fires, control = CASES[rule]
    assert rule in rules_of(fires)
    assert rule not in rules_of(control)


def test_the_remainder_is_what_no_part_covers() -> None:
    w = hog_then(HOG, [])
    covered = [Part("task", 30_000, "task-outranks")]
    rest = _merge(covered, 50_000, w)
    assert [p.rule for p in rest] == ["task-outranks", "remainder"] and rest[1].ns == 20_000
    assert [p.rule for p in _merge(covered, 30_000, w)] == ["task-outranks"]  # the control


def test_no_rule_names_an_os() -> None:
    """Port differences are data handed in: a rule's text and predicate read
    the profile, never an OS's name."""
    source = (ROOT / "src/rtgauge/analysis/explain/rules.py").read_text()
    for word in ("rtos", "freertos", "FreeRTOS", "prio_scale", '"linux"'):
        assert word not in source, word


def test_the_docs_rules_section_is_the_table() -> None:
    path = ROOT / "docs" / "explain.md"
    text = path.read_text(encoding="utf-8")
    assert with_rules(text) == text, (
        "docs/explain.md's Rules section is not the table: run "
        "`python -m rtgauge.analysis.explain.rules_doc docs/explain.md`"
    )
    assert with_rules(text.replace("`task-held`", "`task-kept`")) != text.replace(
        "`task-held`", "`task-kept`"
    )
