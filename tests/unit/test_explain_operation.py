"""Operation windows (the measured thread called something at t = 0 and it
returned at the sample's end) on hand-made windows: who took the call's
time, each case with the control that must fail, and every operation rule
of the table (analysis/explain/op_rules.py) with its must-fail case. The
parts always add up to the sample."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.explain import Explanation, TraceWindow, explain
from rtgauge.analysis.explain.operation import PREEMPTED
from rtgauge.analysis.explain.rules import RULES
from rtgauge.analysis.explain.window import LINUX, OPERATION, RELEASE
from rtgauge.errors import UsageError
from rtgauge.model import TraceEvent, load_bundle
from rtgauge.report.explain_section import parts_table
from rtgauge.report.timeline import timeline_svg
from rtgauge.validate import check_record

CPU = 1
TID = 500  # the measured thread: SCHED_FIFO 95 (kernel prio 4)
PROBE = (TID, 4, "rtgauge-probe")
HOG = (1234, 0, "hog")  # SCHED_FIFO 99: outranks the thread
BUSY = (777, 120, "busy")  # SCHED_OTHER: never outranks it
WORKER = (1300, 10, "worker")  # SCHED_FIFO 89, on another CPU: it wakes the thread
IDLE = (0, 120, "swapper/1")
SLEEPING = 1  # a switch-out's state: the task went to sleep (S)
SAMPLE = 100_000


def ev(t: int, kind: str, cur: int, cpu: int = CPU, **kw: object) -> TraceEvent:
    return TraceEvent(t=t, cpu=cpu, kind=kind, cur=cur, **kw)  # type: ignore[arg-type]


def sw(t: int, out: tuple[int, int, str], into: tuple[int, int, str], state: int, cpu: int = CPU) \
        -> TraceEvent:  # fmt: skip
    return ev(t, "switch", out[0], cpu, pid=out[0], prio=out[1], name=out[2], state=state,
              pid2=into[0], prio2=into[1], name2=into[2])  # fmt: skip


def wake(t: int, cur: int, cpu: int = CPU) -> TraceEvent:
    return ev(t, "waking", cur, cpu, pid=TID, prio=4, name="rtgauge-probe", num=CPU)


def irq(t: int, cur: int, dur: int, num: int = 30, name: str = "eth0") -> list[TraceEvent]:
    return [ev(t, "irq_entry", cur, num=num, name=name), ev(t + dur, "irq_exit", cur, num=num)]


def window(events: list[TraceEvent], sample: int = SAMPLE, **kw: object) -> TraceWindow:
    base: dict[str, object] = dict(
        metric="prc.fork.cpu1", sample_ns=sample, cpu=CPU, tid=TID, start=-100_000,
        complete=True, lost_events=0, events=tuple(events), profile=LINUX,
        interval=OPERATION,
        policies={TID: "SCHED_FIFO", HOG[0]: "SCHED_FIFO", BUSY[0]: "SCHED_OTHER",
                  WORKER[0]: "SCHED_FIFO"},
    )  # fmt: skip
    base.update(kw)
    return TraceWindow(**base)  # type: ignore[arg-type]


def taken(w: TraceWindow) -> Explanation:
    """The window explained; its parts add up to the sample, always."""
    x = explain(w)
    assert sum(p.ns for p in x.parts) == w.sample_ns
    return x


def rules_of(w: TraceWindow) -> set[str]:
    return {p.rule for p in taken(w).parts}


def part(x: Explanation, rule: str) -> int:
    return sum(p.ns for p in x.parts if p.rule == rule)


# The thread running at the call: a task's event names it current before it.
CALLED = ev(-50_000, "softirq_raise", TID, name="RCU", num=9)


def preempted_by(task: tuple[int, int, str]) -> TraceWindow:
    """task preempts the thread 10 µs into the call, for 80 µs."""
    return window([CALLED, sw(10_000, PROBE, task, PREEMPTED), sw(90_000, task, PROBE, 0)])


def blocked(woken: bool, by_irq: bool = False) -> TraceWindow:
    """The thread sleeps 10 µs into the call (the CPU idle); worker wakes it
    from CPU 0 at 70 µs (or IRQ 31 does, on its CPU), and it runs again at
    75 µs. Without the wake-up, it left the CPU runnable (yielded)."""
    events = [CALLED, sw(10_000, PROBE, IDLE, SLEEPING if woken else 0)]
    if woken and by_irq:
        events += [ev(69_000, "irq_entry", 0, num=31, name="nvme0q1"), wake(69_500, 0),
                   ev(70_000, "irq_exit", 0, num=31)]  # fmt: skip
    elif woken:  # worker runs on CPU 0 (a switch there names it)
        events += [sw(60_000, (0, 120, "swapper/0"), WORKER, 0, cpu=0), wake(70_000, WORKER[0], 0)]
    events.append(sw(75_000, IDLE, PROBE, 0))
    return window(events)


def storm(each: int) -> TraceWindow:
    """IRQ 30 every 10 µs through the call, each handler `each` ns long."""
    events = [CALLED]
    for t in range(5_000, SAMPLE - 10_000, 10_000):
        events += irq(t, TID, each)
    return window(events)


def test_a_higher_priority_task_that_preempts_the_thread_is_named_and_legal() -> None:
    x = taken(preempted_by(HOG))
    assert x.named is not None and x.named.party[0] == "task"
    whom = x.named.party[1]
    assert whom is not None and whom.pid == HOG[0]
    hog = next(p for p in x.parts if p.subject == whom)
    assert hog.legal is True and hog.ns == 80_000
    assert x.culprit.startswith("80 % preempted by hog/1234 SCHED_FIFO 99")
    # the control: a SCHED_OTHER task in its place may not legally delay it
    control = taken(preempted_by(BUSY))
    assert all(p.legal is not True for p in control.parts if p.subject and p.subject.is_task)


def test_a_lower_priority_task_while_the_thread_was_runnable_is_named_and_illegal() -> None:
    x = taken(preempted_by(BUSY))
    assert x.named is not None and x.named.party[0] == "lower"
    whom = x.named.party[1]
    assert whom is not None and whom.pid == BUSY[0]
    busy = next(p for p in x.parts if p.subject == whom)
    assert busy.legal is False and busy.rule == "op-task-lower"
    assert "busy/777 SCHED_OTHER ran while the thread was runnable" in x.culprit
    assert "the kernel's path back to the thread" in x.culprit
    # the control: the thread slept (a wake-up ends it): busy may legally run then
    y = taken(_slept_under_busy())
    legal = {p.rule: p.legal for p in y.parts if p.subject and p.subject.is_task}
    assert legal == {"op-task-blocked": True, "op-task-lower": False}
    assert part(y, "op-task-blocked") == 75_000 and part(y, "op-task-lower") == 5_000


def test_an_interrupt_storm_is_named_by_its_interrupt() -> None:
    x = taken(storm(7_000))
    assert x.named is not None and x.named.kind == "irq"
    assert x.culprit.startswith("63 % IRQ 30 eth0")
    assert part(x, "op-handler") == 9 * 7_000
    # the control: short handlers leave the call's own work the largest share
    y = taken(storm(1_000))
    assert y.named is not None and y.named.kind == "own-work"
    assert not y.culprit.endswith("IRQ 30 eth0")


def test_a_blocked_thread_waited_and_its_waker_is_named() -> None:
    x = taken(blocked(woken=True))
    assert part(x, "op-waited") == 60_000 and part(x, "op-idle-switch") == 5_000
    assert x.named is not None and x.named.party[0] == "wait"
    whom = x.named.party[1]
    assert whom is not None and whom.pid == WORKER[0] and whom.comm == "worker"
    assert x.culprit == (
        "60 % the thread waited (blocked, the CPU idle) until worker/1300 SCHED_FIFO 89 woke it"
    )
    # an interrupt woke it: the handler is the waker
    z = taken(blocked(woken=True, by_irq=True))
    assert z.culprit.endswith("until IRQ 31 nvme0q1 woke it")
    # the control: it left the CPU runnable and nothing woke it: it did not wait
    y = taken(blocked(woken=False))
    assert "op-waited" not in {p.rule for p in y.parts}
    assert part(y, "op-idle-switch") == 65_000


def test_nothing_but_the_thread_is_its_own_work() -> None:
    x = taken(window([CALLED, ev(40_000, "softirq_raise", TID, name="TIMER", num=1)]))
    assert [p.rule for p in x.parts] == ["op-own-work"]
    assert x.culprit == "100 % the call's own work: the thread ran"
    assert x.named is not None and x.named.kind == "own-work"
    # the control: a task that runs instead takes the line
    assert not taken(preempted_by(HOG)).culprit.endswith("the thread ran")


def test_a_switch_out_before_the_call_with_no_switch_back_recorded_is_not_a_wait() -> None:
    """A kernel that does not record the switch out of idle on every CPU
    leaves the last switch before the window saying the thread went to
    sleep; its own clock read at the call says it ran: the call is its own
    work, not a wait on an idle CPU."""
    stale = sw(-216_000_000, PROBE, IDLE, SLEEPING)
    x = taken(window([stale], start=-1_000_000))
    assert "op-waited" not in {p.rule for p in x.parts}, x.parts
    assert {p.rule for p in x.parts} <= {"op-own-work", "op-unseen-pause"}, x.parts
    assert x.culprit.startswith("100 % the call's own work"), x.culprit
    # the control: a switch after the call that takes another task off
    # contradicts it, and the window is left as the record says
    other = taken(window([stale, sw(50_000, HOG, PROBE, 0)], start=-1_000_000))
    assert not other.culprit.startswith("100 % the call's own work"), other.culprit


def test_an_incomplete_window_blames_nobody() -> None:
    late = window([CALLED, sw(30_000, PROBE, HOG, PREEMPTED), sw(90_000, HOG, PROBE, 0)],
                  start=20_000, complete=False)  # fmt: skip
    x = taken(late)
    assert x.named is None and x.culprit_kind is None
    assert x.culprit == "incomplete: the trace does not reach back to the call"
    assert x.parts[0].rule == "before-window" and x.parts[0].ns == 20_000
    lost = taken(replace(preempted_by(HOG), complete=False, lost_events=3))
    assert lost.named is None and lost.culprit == "incomplete: 3 events lost"
    # the control: the same window complete names the task
    assert taken(replace(late, complete=True, start=-100_000)).named is not None


def test_the_parts_always_add_up_to_the_sample() -> None:
    windows = [preempted_by(HOG), preempted_by(BUSY), blocked(True), blocked(False),
               blocked(True, True), storm(7_000), storm(1_000)]  # fmt: skip
    for w in windows:
        for sample in (1, 9_999, 10_000, 70_000, SAMPLE, 150_000):
            x = explain(replace(w, sample_ns=sample))
            assert sum(p.ns for p in x.parts) == sample, (w, sample)
            assert all(p.ns > 0 for p in x.parts)


def test_a_release_window_is_not_read_as_an_operation() -> None:
    """The interval decides the rules: the same events as a release window
    go to the release rules."""
    w = preempted_by(HOG)
    assert all(r.startswith("op-") for r in rules_of(w))
    x = taken(replace(w, interval=RELEASE))
    assert not any(p.rule.startswith("op-") for p in x.parts) and x.interval == RELEASE


def _steal(ns: int) -> TraceWindow:
    """A KVM guest: the thread runs the whole call, its longest stretch with
    no event 60 µs; the window reports `ns` of steal around it."""
    events = [CALLED, ev(20_000, "softirq_raise", TID, name="TIMER", num=1),
              ev(80_000, "softirq_raise", TID, name="TIMER", num=1)]  # fmt: skip
    return window(events, virtual_machine="KVM", steal_ns=ns, steal_over_ns=1_000_000)


def test_a_pause_the_steal_time_suggests_is_said() -> None:
    x = taken(_steal(45_000))
    assert part(x, "op-unseen-pause") == 45_000 and part(x, "op-own-work") == 55_000
    assert x.culprit == "55 % the call's own work: the thread ran"
    y = taken(_steal(70_000))  # more steal than the stretch: the stretch at most
    assert part(y, "op-unseen-pause") == 60_000
    assert y.culprit.startswith("60 % no kernel event at all: the hypervisor (KVM guest")
    # the control: no steal reported: the thread's time is its own work, and
    # its words say what its longest stretch with no event may hide
    z = taken(_steal(0))
    assert part(z, "op-unseen-pause") == 0
    assert "its longest stretch with no kernel event (60 µs) may hide a pause" in z.culprit


def _unknown(first_out: tuple[int, int, str]) -> TraceWindow:
    """No event names the current task until a switch at 50 µs takes
    first_out off the CPU for the thread (or the thread off it)."""
    into = PROBE if first_out != PROBE else HOG
    events = [ev(20_000, "softirq_raise", -1, name="TIMER", num=1),
              sw(50_000, first_out, into, PREEMPTED)]  # fmt: skip
    if first_out == PROBE:
        events.append(sw(60_000, HOG, PROBE, 0))
    return window(events)


def _off_through_the_call() -> TraceWindow:
    """hog took the CPU just before the call's instant and holds it past its end."""
    return window([sw(-1_000, PROBE, HOG, PREEMPTED), sw(6_000, HOG, PROBE, 0)], 5_000)


def _switched_in_as_woken() -> TraceWindow:
    """blocked(True), but the thread runs the instant it is woken."""
    return window([CALLED, sw(10_000, PROBE, IDLE, SLEEPING), wake(70_000, WORKER[0], 0),
                   sw(70_000, IDLE, PROBE, 0)])  # fmt: skip


def _slept_under_busy() -> TraceWindow:
    """The thread sleeps at 10 µs, busy runs and wakes it at 85 µs."""
    return window([CALLED, sw(10_000, PROBE, BUSY, SLEEPING), wake(85_000, BUSY[0]),
                   sw(90_000, BUSY, PROBE, 0)])  # fmt: skip


# rule -> (a window where it decides a part, the must-fail: one condition changed)
CASES: dict[str, tuple[TraceWindow, TraceWindow]] = {
    "op-handler": (storm(1_000), replace(storm(1_000), events=(CALLED,))),
    "op-unknown": (_unknown(BUSY), _unknown(PROBE)),
    "op-own-work": (storm(1_000), _off_through_the_call()),
    "op-unseen-pause": (_steal(45_000), _steal(0)),
    "op-waited": (blocked(True), blocked(False)),
    "op-idle-switch": (blocked(True), _switched_in_as_woken()),
    "op-task-blocked": (_slept_under_busy(), preempted_by(BUSY)),
    "op-task-outranks": (preempted_by(HOG), preempted_by(BUSY)),
    "op-task-lower": (preempted_by(BUSY), preempted_by(HOG)),
}


def test_every_operation_rule_has_a_case() -> None:
    assert set(CASES) == {r.name for r in RULES if r.interval == OPERATION}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_the_rule_decides_a_part_and_its_control_does_not(rule: str) -> None:
    fires, control = CASES[rule]
    assert rule in rules_of(fires)
    assert rule not in rules_of(control)


# --- the record's interval, through the analysed run and the report ---

ROOT = Path(__file__).resolve().parents[2]
HOG_RUN = ROOT / "tests/data/explain/hog_run.json"
ANALYSIS = json.loads((ROOT / "schema/analysis-v1.json").read_text(encoding="utf-8"))


def _hog_run(tmp_path: Path, interval: str | None) -> Path:
    """The stored hog run with its first kept window's interval set (None: absent)."""
    data = json.loads(HOG_RUN.read_text(encoding="utf-8"))
    w = data["tests"][0]["explain"]["windows"][0]
    w.pop("interval", None)
    if interval is not None:
        w["interval"] = interval
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_records_interval_is_read_and_absent_is_release(tmp_path: Path) -> None:
    w = AnalysedRun.of(load_bundle(_hog_run(tmp_path, "operation"))).run.tests[0].explain
    assert w is not None and w.windows[0].interval == OPERATION
    assert w.windows[1].interval == RELEASE
    old = AnalysedRun.of(load_bundle(_hog_run(tmp_path, None))).run.tests[0].explain
    assert old is not None and old.windows[0].interval == RELEASE
    record = json.loads(HOG_RUN.read_text(encoding="utf-8"))["tests"][0]
    record["explain"]["windows"][0]["interval"] = "operation"
    check_record(record, "test")  # the contract takes it
    record["explain"]["windows"][0]["interval"] = "sideways"  # the control
    with pytest.raises(UsageError, match="interval"):
        check_record(record, "test")


def test_the_analysed_window_says_its_interval_and_the_report_its_span(tmp_path: Path) -> None:
    a = AnalysedRun.of(load_bundle(_hog_run(tmp_path, "operation")))
    data = a.to_json()
    cls = jsonschema.validators.validator_for(ANALYSIS)
    cls(ANALYSIS).validate(data)
    windows = data["tests"][0]["explain"]["windows"]
    assert [w["interval"] for w in windows[:2]] == [OPERATION, RELEASE]
    e = a.test_explained(a.run.tests[0])
    assert e is not None
    op, rel = (w.explanation for w in e.windows[:2])
    assert parts_table(op).headers[0] == "part, from the call to its return"
    assert parts_table(rel).headers[0] == "part, from release to running"
    svg = timeline_svg(op)
    assert ">call</text>" in svg and ">return</text>" in svg and ">release</text>" not in svg
    assert ">release</text>" in timeline_svg(rel) and ">call</text>" not in timeline_svg(rel)
    mine = taken(blocked(True))  # an operation's kinds in the legend
    assert "the call&#x27;s own work" in timeline_svg(mine) and "waited (idle)" in timeline_svg(
        mine
    )


def test_a_task_that_ran_while_the_thread_slept_and_then_kept_it_off_is_one_party() -> None:
    """hog runs from the thread's sleep at 10 µs; the thread is woken at 20 µs
    and hog keeps the CPU until 90 µs: two parts (why each was legal), one
    party, the line in the words of the larger."""
    w = window([CALLED, sw(10_000, PROBE, HOG, SLEEPING), wake(20_000, HOG[0]),
                sw(90_000, HOG, PROBE, 0)])  # fmt: skip
    x = taken(w)
    assert part(x, "op-task-blocked") == 10_000 and part(x, "op-task-outranks") == 70_000
    assert x.culprit == "80 % preempted by hog/1234 SCHED_FIFO 99"
    # the control: woken only at 80 µs, the blocked part is the larger
    y = taken(replace(w, events=tuple(replace(e, t=80_000) if e.kind == "waking" else e
                                      for e in w.events)))  # fmt: skip
    assert y.culprit == "80 % hog/1234 SCHED_FIFO 99 ran while the thread was blocked"


def test_the_wake_up_and_switch_in_marked_are_the_threads_within_the_call() -> None:
    x = taken(blocked(True))  # woken from CPU 0: no event of it on the thread's CPU
    assert (x.wake_at, x.switch_at) == (70_000, 75_000)
    y = taken(preempted_by(HOG))  # never woken: back after the preemption
    assert (y.wake_at, y.switch_at) == (None, 90_000)
    # the control: the thread never left the CPU
    z = taken(storm(1_000))
    assert (z.wake_at, z.switch_at) == (None, None)
    assert ">woken</text>" in timeline_svg(x) and ">woken</text>" not in timeline_svg(z)
