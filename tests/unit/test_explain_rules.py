"""The explanation of a worst sample, on hand-made windows: each culprit
named right, nothing blamed that could not legally delay, parts that add up."""

from __future__ import annotations

from rtgauge.analysis.explain import (
    IDLE,
    NO_EVENT,
    NONPREEMPT,
    SOFTIRQ,
    SWITCH,
    TASK,
    UNACCOUNTED,
    WAKE_IRQ,
    WAKER,
    TraceWindow,
    explain,
)
from rtgauge.model import TraceEvent

TID = 500  # the measured thread: SCHED_FIFO 95, kernel prio 4
ME = dict(pid=TID, prio=4, name="rtgauge-probe")


def ev(t: int, kind: str, cur: int, **kw: object) -> TraceEvent:
    return TraceEvent(t=t, cpu=1, kind=kind, cur=cur, **kw)  # type: ignore[arg-type]


def sw(t: int, out: tuple[int, int, str], into: tuple[int, int, str], state: int = 1) -> TraceEvent:
    """A switch from out to into, each (pid, kernel prio, comm)."""
    return ev(
        t,
        "switch",
        out[0],
        pid=out[0],
        prio=out[1],
        name=out[2],
        state=state,
        pid2=into[0],
        prio2=into[1],
        name2=into[2],
    )


PROBE = (TID, 4, "rtgauge-probe")


def timer_wakeup(t: int, cur: int, dur: int = 4000) -> list[TraceEvent]:
    """The local timer interrupt at t that wakes the thread, dur ns long."""
    return [
        ev(t, "vec_entry", cur, name="local_timer", num=236),
        ev(t + 500, "timer_entry", cur, name="hrtimer_wakeup"),
        ev(t + 1000, "waking", cur, num=1, **ME),
        ev(t + 1500, "wakeup", cur, num=1, **ME),
        ev(t + 2000, "timer_exit", cur),
        ev(t + dur, "vec_exit", cur, name="local_timer", num=236),
    ]


def window(events: list[TraceEvent], sample: int, **kw: object) -> TraceWindow:
    base: dict[str, object] = dict(
        metric="timer.wakeup.clock_nanosleep.cpu1",
        sample_ns=sample,
        cpu=1,
        tid=TID,
        start=-1_000_000,
        complete=True,
        lost_events=0,
        events=tuple(events),
    )
    base.update(kw)
    return TraceWindow(**base)  # type: ignore[arg-type]


def test_fifo_hog_is_named_with_most_of_the_sample() -> None:
    evs = [
        sw(-900_000, PROBE, (1234, 0, "hog")),
        *timer_wakeup(2_000, 1234),
        # the hog keeps the CPU (higher priority) until it sleeps at 400 µs
        sw(400_000, (1234, 0, "hog"), PROBE),
    ]
    x = explain(window(evs, 403_000, policies={1234: "SCHED_FIFO", TID: "SCHED_FIFO"}))
    assert x.culprit.endswith("blocked by hog/1234 SCHED_FIFO 99")
    share = int(x.culprit.split(" %")[0])
    assert share >= 95
    assert x.culprit_kind == TASK
    assert sum(p.ns for p in x.parts) == 403_000
    assert x.wake_at == 3_000 and x.switch_at == 400_000
    kinds = [p.kind for p in x.parts]
    assert WAKE_IRQ in kinds and kinds[-1] != UNACCOUNTED


def test_a_stranger_is_called_one_and_the_runs_own_task_is_not() -> None:
    """A hog the record says is another program's is named as not part of
    the run; the same hog as the run's own task (a load it started), or with
    no origin recorded (older records), is named as before: the control."""
    evs = [
        sw(-900_000, PROBE, (1234, 0, "hog")),
        *timer_wakeup(2_000, 1234),
        sw(400_000, (1234, 0, "hog"), PROBE),
    ]
    policies = {1234: "SCHED_FIFO", TID: "SCHED_FIFO"}
    stranger = explain(window(evs, 403_000, policies=policies, origins={1234: "other"}))
    assert stranger.culprit.endswith(
        "blocked by hog/1234 SCHED_FIFO 99 (not part of the run: another program's task)"
    )
    assert stranger.named is not None and stranger.named.party[1] is not None
    assert stranger.named.party[1].origin == "other"
    for origins in ({1234: "run"}, {}):
        own = explain(window(evs, 403_000, policies=policies, origins=origins))
        assert own.culprit.endswith("blocked by hog/1234 SCHED_FIFO 99"), own.culprit
    # one that ended before its window was read, and was not the run's
    gone = explain(window(evs, 403_000, policies=policies, origins={1234: "ended"}))
    assert gone.culprit.endswith(
        "blocked by hog/1234 SCHED_FIFO 99 (not part of the run: it had ended before it "
        "could be told whose)"
    ), gone.culprit


def test_lower_priority_busy_task_is_never_the_culprit() -> None:
    evs = [
        sw(-500_000, PROBE, (777, 120, "busy")),
        # the interrupt came 60 µs late while busy ran: no event in between
        *timer_wakeup(60_000, 777),
        sw(66_000, (777, 120, "busy"), PROBE, state=0),
    ]
    x = explain(window(evs, 67_000, virtual_machine="KVM"))
    assert "busy" not in x.culprit and "777" not in x.culprit
    assert x.culprit_kind == NO_EVENT
    assert "hypervisor" in x.culprit
    switch = [p for p in x.parts if p.kind == SWITCH]
    assert switch and "could not legally delay" in switch[0].detail
    assert sum(p.ns for p in x.parts) == 67_000


def test_lower_priority_task_holding_the_cpu_long_blames_the_kernel_not_the_task() -> None:
    evs = [
        sw(-500_000, PROBE, (777, 120, "busy")),
        *timer_wakeup(1_000, 777),
        sw(300_000, (777, 120, "busy"), PROBE, state=0),
    ]
    x = explain(window(evs, 301_000))
    assert x.culprit_kind == SWITCH
    assert "busy" not in x.culprit
    assert "kernel's path to the switch" in x.culprit


def test_idle_cpu_on_a_vm_without_events_is_the_hypervisor() -> None:
    evs = [
        sw(-900_000, PROBE, (0, 120, "swapper/1")),
        *timer_wakeup(1_540_000, 0),
    ]
    x = explain(
        window(
            evs,
            1_580_000,
            virtual_machine="KVM",
            steal_ns=10_000_000,
            steal_over_ns=100_000_000,
            idle_exit_ns={0: 0, 1: 2_000},
        )
    )
    parts = {p.label: p for p in x.parts}
    assert parts["the CPU was idle"].kind == IDLE and parts["the CPU was idle"].ns == 2_000
    gap = parts["no kernel event at all (the CPU was idle)"]
    assert gap.kind == NO_EVENT and gap.ns == 1_538_000
    assert x.culprit.startswith("97 % no kernel event at all: the hypervisor (KVM guest")
    assert "steal time +10 ms within the 100 ms around it" in x.culprit
    # untraced switch out of idle: the time after the interrupt is the scheduler's
    assert any(p.kind == SWITCH and "from idle" in p.label for p in x.parts)
    assert sum(p.ns for p in x.parts) == 1_580_000


def test_softirq_run_at_interrupt_exit_is_named() -> None:
    evs = [
        sw(-100_000, PROBE, (888, 120, "sender")),
        *timer_wakeup(1_000, 888),
        ev(5_000, "softirq_entry", 888, num=3, name="NET_RX"),
        ev(85_000, "softirq_exit", 888, num=3, name="NET_RX"),
        sw(86_000, (888, 120, "sender"), PROBE, state=0),
    ]
    x = explain(window(evs, 87_000))
    net = [p for p in x.parts if p.kind == SOFTIRQ]
    assert net and net[0].label == "softirq NET_RX" and net[0].ns == 80_000
    assert x.culprit == "92 % softirq NET_RX"


def test_a_window_that_lost_events_blames_nobody() -> None:
    evs = [*timer_wakeup(1_000, 0)]
    x = explain(window(evs, 50_000, complete=False, lost_events=312))
    assert x.culprit == "incomplete: 312 events lost"
    assert x.culprit_kind is None


def test_a_capped_window_says_its_oldest_events_were_left_out() -> None:
    evs = [*timer_wakeup(30_000, 0)]
    x = explain(window(evs, 40_000, start=20_000, complete=False, capped=True))
    assert x.culprit.startswith("incomplete: more events than a window keeps")
    assert x.culprit_kind is None
    # control: capped, but the kept events still reach back to the release
    y = explain(window(evs, 40_000, start=-5_000, complete=True, capped=True))
    assert not y.culprit.startswith("incomplete")


def test_time_before_the_window_is_unaccounted() -> None:
    evs = [*timer_wakeup(30_000, 0)]
    x = explain(window(evs, 40_000, start=20_000, complete=False))
    assert x.parts[0].kind == UNACCOUNTED and x.parts[0].ns == 20_000
    assert sum(p.ns for p in x.parts) == 40_000


def test_rtos_priorities_count_upwards() -> None:
    # FreeRTOS: a task of priority 5 ran before the measured one (priority 3)
    me = dict(pid=TID, prio=3, name="rtg")
    evs = [
        ev(0, "vec_entry", 9, name="timer"),
        ev(100, "waking", 9, num=0, **me),
        ev(200, "vec_exit", 9, name="timer"),
        sw(300, (9, 1, "idle"), (42, 5, "hi")),
        sw(9_000, (42, 5, "hi"), (TID, 3, "rtg")),
    ]
    x = explain(window(evs, 9_100, prio_scale="rtos"))
    assert x.culprit_kind == TASK and "hi/42 (priority 5)" in x.culprit


def test_a_softirq_running_at_the_release_delays_the_wake_up_it_does_not_serve_it() -> None:
    evs = [
        sw(-100_000, PROBE, (888, 120, "sender")),
        ev(-5_000, "softirq_entry", 888, num=3, name="NET_RX"),
        *timer_wakeup(1_000, 888),  # nested in the softirq
        ev(60_000, "softirq_exit", 888, num=3, name="NET_RX"),
        sw(61_000, (888, 120, "sender"), PROBE, state=0),
    ]
    x = explain(window(evs, 62_000))
    kinds = {p.label: p.kind for p in x.parts}
    assert kinds["softirq NET_RX"] == SOFTIRQ
    assert kinds["local_timer interrupt (the wake-up)"] == WAKE_IRQ
    assert x.culprit.endswith("softirq NET_RX")


def test_a_softirq_begun_after_the_release_and_interrupted_is_not_the_wake_up() -> None:
    evs = [
        sw(-100_000, PROBE, (888, 120, "sender")),
        ev(200, "softirq_entry", 888, num=3, name="NET_RX"),
        *timer_wakeup(38_000, 888),
        ev(59_000, "softirq_exit", 888, num=3, name="NET_RX"),
        sw(62_000, (888, 120, "sender"), PROBE, state=0),
    ]
    x = explain(window(evs, 63_000))
    kinds = {p.label: p.kind for p in x.parts}
    assert kinds["softirq NET_RX"] == SOFTIRQ
    assert x.culprit.endswith("softirq NET_RX")


def test_a_lower_priority_task_an_interrupt_returned_to_is_non_preemptible_kernel_code() -> None:
    evs = [
        sw(-100_000, PROBE, (2686, 120, "pip")),
        *timer_wakeup(13_000, 2686),
        ev(306_000, "vec_entry", 2686, name="local_timer", num=236),
        ev(316_000, "vec_exit", 2686, name="local_timer", num=236),  # back to pip: held
        sw(542_000, (2686, 120, "pip"), PROBE, state=256),
    ]
    x = explain(window(evs, 545_000, preempt_model="none"))
    assert x.culprit_kind == NONPREEMPT
    assert "the kernel did not preempt pip/2686 SCHED_OTHER (preemption model none)" in x.culprit
    assert sum(p.ns for p in x.parts) == 545_000


def test_a_work_item_is_its_kworker_s_task_context_not_a_handler() -> None:
    kworker = (42, 120, "kworker/1:1")
    evs = [
        sw(-100_000, PROBE, kworker),
        ev(-50_000, "work_start", 42, name="vmstat_update"),
        *timer_wakeup(1_000, 42),
        ev(150_000, "vec_entry", 42, name="local_timer", num=236),
        ev(152_000, "vec_exit", 42, name="local_timer", num=236),  # back to the kworker
        ev(220_000, "work_end", 42, name="vmstat_update"),
        sw(226_000, kworker, PROBE, state=1),
    ]
    x = explain(window(evs, 228_000, preempt_model="none"))
    assert x.culprit_kind == NONPREEMPT
    assert "kworker/1:1/42 SCHED_OTHER (work vmstat_update)" in x.culprit


def test_a_softirq_at_the_interrupt_s_exit_is_no_proof_the_task_kept_the_cpu() -> None:
    # The timer softirq runs as the wake-up's interrupt leaves (irq_exit),
    # still on the busy task's stack; then the trace is silent (the
    # hypervisor) until the switch. The busy task never ran again: it must
    # not be named as the kernel's non-preemptible code.
    busy = (20761, 120, "python")
    evs = [
        sw(-100_000, PROBE, busy),
        *timer_wakeup(13_000, 20761),
        ev(17_500, "softirq_entry", 20761, num=1, name="TIMER"),
        ev(19_000, "softirq_exit", 20761, num=1, name="TIMER"),
        sw(60_000, busy, PROBE, state=0),
    ]
    x = explain(window(evs, 61_000, preempt_model="none"))
    assert x.culprit_kind != NONPREEMPT, x.culprit
    assert "20761" not in x.culprit, x.culprit
    assert not [p for p in x.parts if p.kind == NONPREEMPT]
    assert sum(p.ns for p in x.parts) == 61_000
    # the control: a hardware interrupt that finds the task again, and a
    # switch from kernel code (preempted there), is proof
    late_tick = [
        ev(40_000, "vec_entry", 20761, name="local_timer", num=236),
        ev(41_000, "vec_exit", 20761, name="local_timer", num=236),
        sw(60_000, busy, PROBE, state=256),
    ]
    held = explain(window(sorted([*evs[:-1], *late_tick], key=lambda e: e.t), 61_000))
    assert any(p.kind == NONPREEMPT for p in held.parts)


def _exit_path_window(switch_state: int) -> TraceWindow:
    """A recorded window (a busy Python loop, 2-CPU KVM guest): the
    timer's interrupt wakes the thread and leaves at 24.3 µs; 13.8 µs of
    silence; a virtio interrupt arrives on the loop, returns to it, and the
    switch follows 2.8 µs later."""
    busy = (9454, 120, "python")
    evs = [
        sw(-300_000, PROBE, busy),
        ev(9_316, "vec_entry", 9454, name="local_timer", num=236),
        ev(9_923, "timer_entry", 9454, name="hrtimer_wakeup"),
        ev(10_437, "waking", 9454, num=1, **ME),
        ev(11_404, "wakeup", 9454, num=1, **ME),
        ev(11_577, "timer_exit", 9454),
        ev(24_324, "vec_exit", 9454, name="local_timer", num=236),
        ev(38_099, "irq_entry", 9454, name="virtio3-tx", num=42),
        ev(47_030, "irq_exit", 9454, num=42),
        sw(49_837, busy, PROBE, state=switch_state),
    ]
    return window(evs, 51_080, preempt_model="none", virtual_machine="KVM")


def test_an_interrupt_on_a_task_s_way_back_to_user_space_is_no_proof_it_kept_the_cpu() -> None:
    # Switched out plainly runnable (R, not R+): the loop left from its
    # return to user space, where an interrupt held pending through the
    # previous one's exit is delivered. The kernel never held it.
    x = explain(_exit_path_window(switch_state=0))
    assert x.culprit_kind != NONPREEMPT, x.culprit
    assert "9454" not in x.culprit, x.culprit
    named = [p for p in x.parts if "9454" in p.label]
    assert named and all(p.kind == SWITCH for p in named), named
    assert sum(p.ns for p in x.parts) == 51_080
    # the control: preempted (R+), it left from kernel code: held
    held = explain(_exit_path_window(switch_state=256))
    assert held.culprit_kind == NONPREEMPT, held.culprit
    assert "the kernel did not preempt python/9454 SCHED_OTHER" in held.culprit


def _unrelated_irq(cur: int) -> list[TraceEvent]:
    """A device interrupt 10 µs after the release that wakes nobody."""
    return [
        ev(10_000, "irq_entry", cur, name="virtio0", num=24),
        ev(12_000, "irq_exit", cur, name="virtio0", num=24),
    ]


def test_a_task_an_interrupt_arrived_on_is_not_the_waker_and_its_wait_is_the_interrupt_s() -> None:
    # An unrelated interrupt comes after the release, returns to the busy
    # task, and the timer's interrupt that wakes the thread comes 48 µs
    # later (the hypervisor). That wait is the interrupt's lateness: the
    # busy task neither woke the thread nor held it back.
    busy = (777, 120, "busy")
    evs = [
        sw(-500_000, PROBE, busy),
        *_unrelated_irq(777),
        *timer_wakeup(60_000, 777),
        sw(66_000, busy, PROBE, state=0),
    ]
    x = explain(window(evs, 67_000, virtual_machine="KVM"))
    assert x.culprit_kind == NO_EVENT, x.culprit
    assert int(x.culprit.split(" %")[0]) >= 85, x.culprit  # 58 of 67 µs
    named = [p for p in x.parts if "777" in p.label]
    assert named and all(p.kind == SWITCH for p in named), named
    assert sum(p.ns for p in x.parts) == 67_000


def test_a_task_that_wakes_the_thread_is_its_waker_control() -> None:
    # The control: woken from task context (a post), the task current
    # before the wake-up is the waker, part of the mechanism.
    poster = (888, 120, "poster")
    evs = [
        sw(-500_000, PROBE, poster),
        *_unrelated_irq(888),
        ev(30_000, "waking", 888, num=1, **ME),
        ev(30_500, "wakeup", 888, num=1, **ME),
        sw(35_000, poster, PROBE, state=0),
    ]
    x = explain(window(evs, 36_000))
    waker = [p for p in x.parts if p.kind == WAKER]
    assert [p.label for p in waker] == ["poster/888 SCHED_OTHER (the waker)"]
    assert waker[0].ns == 18_000
