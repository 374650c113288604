"""A trace of the kernel's timerlat tracer, as the kernel prints it (rtla
timerlat -t saves the text trace) or as `trace-cmd report -N -t` prints a
recording of it, turned into the window of each CPU's worst thread sample:
its thread and CPU from the entry, its release from the irq entry of the
same activation. The texts are made here in the kernel's layout: this
machine's kernel has no timerlat tracer to record a real one (the cyclictest
import is checked on real recordings, tests/e2e/test_trace_import.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rtgauge.analysis.explain import TASK, explain
from rtgauge.traces.cyclictest_trace import imported
from rtgauge.traces.timerlat_trace import breaks
from rtgauge.traces.tracecmd import parse

S0 = 2000  # the trace's seconds at its start
TL, HOG = 88, 4200  # timerlat/1 (SCHED_FIFO 95: kernel prio 4), the hog (SCHED_FIFO 98: 1)
REL = 500  # the release of activation #5, µs into the trace


def _stamp(us: int) -> str:
    return f"{S0 + us // 10**6}.{us % 10**6:06d}"  # the kernel's local clock: µs


def _ev(comm: str, pid: int, cpu: int, us: int, event: str, body: str) -> str:
    return f"{comm:>16}-{pid:<7} [{cpu:03d}] d.h1. {_stamp(us)}: {event}: {body}"


def _entry(comm: str, pid: int, cpu: int, us: int, seq: int, ctx: str, ns: int) -> str:
    return f"{comm:>16}-{pid:<7} [{cpu:03d}] ..... {_stamp(us)}: #{seq} context {ctx:>6} timer_latency {ns:>9} ns"


def _activation(seq: int, at: int, late_us: int, *, hog: bool) -> list[str]:
    """timerlat/1's activation seq, due at `at` µs: the handler 3 µs late,
    the thread late_us late (behind the hog when there is one)."""
    cur, cur_pid = ("python3", HOG) if hog else ("<idle>", 0)
    return [
        _ev(cur, cur_pid, 1, at + 1, "local_timer_entry", "vector=236"),
        _ev(cur, cur_pid, 1, at + 2, "hrtimer_expire_entry",
            "hrtimer=0x0000ab function=timerlat_irq now=7000000000"),
        _entry(cur, cur_pid, 1, at + 3, seq, "irq", 3000),
        _ev(cur, cur_pid, 1, at + 4, "sched_waking", f"comm=timerlat/1 pid={TL} prio=4 target_cpu=001"),
        _ev(cur, cur_pid, 1, at + 5, "sched_wakeup", f"comm=timerlat/1 pid={TL} prio=4 target_cpu=001"),
        _ev(cur, cur_pid, 1, at + 6, "hrtimer_expire_exit", "hrtimer=0x0000ab"),
        _ev(cur, cur_pid, 1, at + 7, "local_timer_exit", "vector=236"),
        _ev(cur, cur_pid, 1, at + late_us - 1, "sched_switch",
            f"prev_comm={'python3' if hog else 'swapper/1'} prev_pid={cur_pid} "
            f"prev_prio={1 if hog else 120} prev_state={'S' if hog else 'R'} ==> "
            f"next_comm=timerlat/1 next_pid={TL} next_prio=4"),
        _entry("timerlat/1", TL, 1, at + late_us, seq, "thread", late_us * 1000),
        _ev("timerlat/1", TL, 1, at + late_us + 2, "sched_switch",
            f"prev_comm=timerlat/1 prev_pid={TL} prev_prio=4 prev_state=S ==> "
            "next_comm=swapper/1 next_pid=0 next_prio=120"),
    ]  # fmt: skip


def _trace(*, hog: bool, late_us: int = 300) -> str:
    out = ["# tracer: timerlat", "#", "#  TASK-PID  CPU#  TIMESTAMP  ID  CONTEXT  LATENCY"]
    out += [_ev("<idle>", 0, 0, 10, "irq_handler_entry", "irq=30 name=eth0")]
    out += [_ev("<idle>", 0, 0, 11, "irq_handler_exit", "irq=30 ret=handled")]
    out += _activation(4, 100, 9, hog=False)  # an ordinary activation before
    if hog:
        out += [
            _ev("<idle>", 0, 1, REL - 150, "sched_waking",
                f"comm=python3 pid={HOG} prio=1 target_cpu=001"),
            _ev("<idle>", 0, 1, REL - 149, "sched_switch",
                f"prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> "
                f"next_comm=python3 next_pid={HOG} next_prio=1"),
        ]  # fmt: skip
    out += _activation(5, REL, late_us if hog else 12, hog=hog)
    return "\n".join(out) + "\n"


def test_the_worst_thread_sample_is_found_with_its_release_from_the_irq_entry() -> None:
    (b,) = breaks(parse(_trace(hog=True)))
    assert (b.marker.pid, b.marker.cpu, b.latency_ns) == (TL, 1, 300_000)
    assert b.limit_ns is None and b.release_from == "irq sample"
    assert b.release == (S0 * 10**6 + REL) * 1000  # the irq entry's time minus its 3 µs


def test_the_hog_above_timerlat_is_named() -> None:
    (imp,) = imported(parse(_trace(hog=True)), breaks(parse(_trace(hog=True))))
    assert imp.lacks == () and imp.window.complete
    x = explain(imp.window)
    assert x.named is not None and x.culprit_kind == TASK, x.culprit
    assert x.named.party[1] is not None and x.named.party[1].pid == HOG
    assert sum(p.ns for p in x.parts) == x.sample_ns == 300_000


def test_without_a_hog_no_task_is_blamed() -> None:
    rep = parse(_trace(hog=False))
    (imp,) = imported(rep, breaks(rep))
    assert imp.brk.latency_ns == 12_000  # the worse of the two activations
    x = explain(imp.window)
    assert x.culprit_kind != TASK, x.culprit


def test_trace_cmds_print_of_the_entry_and_a_missing_irq_entry() -> None:
    line = (
        f"      timerlat/1-{TL} [001] {S0}.000100000: timerlat: seq:7 context:1 timer_latency:4500"
    )
    (b,) = breaks(parse(line + "\n"))
    assert (b.latency_ns, b.release_from) == (4500, "thread sample")
    assert b.release == S0 * 10**9 + 100_000 - 4500


def test_the_command_explains_a_saved_text_trace(cli: Any, tmp_path: Path) -> None:
    trace = tmp_path / "timerlat_trace.txt"
    trace.write_text(_trace(hog=True))
    code, out, err = cli("explain", str(trace), "--format", "json", "--out", "-")
    assert code == 0, err
    (w,) = json.loads(out)
    assert (w["source"], w["tid"], w["cpu"], w["limit_ns"]) == ("timerlat", TL, 1, None)
    assert w["culprit"]["kind"] == "task" and w["culprit"]["whom"]["pid"] == HOG
    code, out, err = cli("explain", str(trace), "--format", "md", "--out", "-")
    assert code == 0 and "the worst timerlat thread sample on its CPU" in out, err


def test_a_text_trace_without_samples_is_one_line_and_exit_2(cli: Any, tmp_path: Path) -> None:
    trace = tmp_path / "empty.txt"
    trace.write_text("# tracer: nop\n#\n")
    code, _, err = cli("explain", str(trace))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no timerlat" in err, err
