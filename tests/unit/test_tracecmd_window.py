"""A trace-cmd recording of cyclictest, as `trace-cmd report -N -t` prints
it, turned into the window the explanation takes: the breaking sample's
thread, CPU and release (from its timer, else from the marker), every event
in the recorder's vocabulary, and what the trace lacked (a family not
recorded, lost events), in which case nobody is blamed. The texts are made
here in trace-cmd's layout; tests/e2e/test_trace_import.py reads real ones."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from rtgauge.analysis.explain import TASK, explain
from rtgauge.traces import tracecmd
from rtgauge.traces.cyclictest_trace import imported
from rtgauge.traces.tracecmd import parse
from rtgauge.traces.tracecmd_events import PREEMPTED, prev_state, to_event

S0 = 1000  # the trace's seconds at its start
CT, HOG = 4100, 4200  # cyclictest's thread, the hog (SCHED_FIFO 88: kernel prio 11)
DUE = 7_000_000_000  # the timer's due time, on its own clock


def _line(comm: str, pid: int, cpu: int, us: float, event: str, body: str) -> str:
    ns = round(us * 1000)
    return f"{comm:>16}-{pid:<5} [{cpu:03d}] {S0 + ns // 10**9}.{ns % 10**9:09d}: {event + ':':<21} {body}"


def _hog_trace(
    *, timer: bool = True, irq: bool = True, lost: str = "", late_us: float = 300.0
) -> str:
    """cyclictest sleeps on CPU 1, its timer fires 0.5 µs late while the hog
    spins, the hog keeps the CPU for late_us, cyclictest writes the marker."""
    rel = 100.0  # the release, µs into the trace
    out = [
        "cpus=2",
        _line("cyclictest", CT, 1, rel - 200, "hrtimer_start",
              f"hrtimer=0x0000ab function=hrtimer_wakeup expires={DUE} softexpires={DUE} "
              "mode=ABS"),
        _line("cyclictest", CT, 1, rel - 199, "sched_switch",
              f"prev_comm=cyclictest prev_pid={CT} prev_prio=19 prev_state=S ==> "
              "next_comm=<idle> next_pid=0 next_prio=120"),
        _line("<idle>", 0, 1, rel - 150, "sched_waking",
              f"comm=python3 pid={HOG} prio=11 target_cpu=001"),
        _line("<idle>", 0, 1, rel - 149, "sched_switch",
              f"prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> "
              f"next_comm=python3 next_pid={HOG} next_prio=11"),
        _line("python3", HOG, 1, rel + 0.2, "local_timer_entry", "vector=236"),
        _line("python3", HOG, 1, rel + 0.5, "hrtimer_expire_entry",
              f"hrtimer=0x0000ab function=hrtimer_wakeup now={DUE + 300}"),
        _line("python3", HOG, 1, rel + 1.0, "sched_waking",
              f"comm=cyclictest pid={CT} prio=19 target_cpu=001"),
        _line("python3", HOG, 1, rel + 1.5, "sched_wakeup",
              f"comm=cyclictest pid={CT} prio=19 target_cpu=001"),
        _line("python3", HOG, 1, rel + 2.0, "hrtimer_expire_exit", "hrtimer=0x0000ab"),
        _line("python3", HOG, 1, rel + 2.5, "local_timer_exit", "vector=236"),
        # another task's sleep ends on the CPU too (cyclictest's main thread)
        _line("python3", HOG, 1, rel + 40, "hrtimer_expire_entry",
              f"hrtimer=0x0000cd function=hrtimer_wakeup now={DUE + 99_000}"),
        _line("python3", HOG, 1, rel + 41, "hrtimer_expire_exit", "hrtimer=0x0000cd"),
        _line("python3", HOG, 1, rel + late_us, "sched_switch",
              f"prev_comm=python3 prev_pid={HOG} prev_prio=11 prev_state=S ==> "
              f"next_comm=cyclictest next_pid={CT} next_prio=19"),
        _line("cyclictest", CT, 1, rel + late_us + 8, "print",
              f"tracing_mark_write: hit latency threshold ({int(late_us + 5)} > 200)"),
    ]  # fmt: skip
    if irq:
        out.insert(2, _line("<idle>", 0, 0, rel - 180, "irq_handler_entry", "irq=30 name=eth0"))
        out.insert(3, _line("<idle>", 0, 0, rel - 179, "irq_handler_exit", "irq=30 ret=handled"))
        out.insert(4, _line("<idle>", 0, 0, rel - 178, "softirq_entry", "vec=3 [action=NET_RX]"))
    if lost:
        out.insert(-3, lost)
    if not timer:
        out = [ln for ln in out if "hrtimer" not in ln]
    return "\n".join(out) + "\n"


def _only(xs: Iterable[object]) -> object:
    (x,) = list(xs)
    return x


def test_the_hog_above_cyclictest_is_named_from_the_imported_window() -> None:
    (imp,) = imported(parse(_hog_trace()))
    w = imp.window
    assert imp.lacks == () and w.complete
    assert (w.tid, w.cpu) == (CT, 1)
    assert imp.brk.release_from == "hrtimer"
    # the release: 300 ns before the timer's entry (its clock read DUE + 300)
    assert w.sample_ns == 305_000
    assert {e.kind for e in w.events} >= {"switch", "waking", "wakeup", "vec_entry", "timer_entry"}
    # the window reaches back to CPU 1's first event (within the 1 ms look-back):
    # 200 µs before the marked release, which is 0.2 µs into the trace's 100th µs
    assert w.start == -200_200
    x = explain(w)
    assert x.named is not None and x.culprit_kind == TASK, x.culprit
    assert x.named.party[1] is not None and x.named.party[1].pid == HOG
    assert f"python3/{HOG} SCHED_FIFO/RR 88" in x.culprit
    assert sum(p.ns for p in x.parts) == x.sample_ns


def test_without_timer_events_the_release_is_the_marker_minus_the_latency() -> None:
    text = _hog_trace(timer=False)
    (imp,) = imported(parse(text))
    marker = _only(ln for ln in parse(text).lines if ln.event == "print")
    assert imp.brk.release_from == "marker"
    assert imp.brk.release == marker.ts - 305_000  # type: ignore[attr-defined]
    assert any("-e timer" in why for why in imp.lacks)
    x = explain(imp.window)
    assert not x.complete and x.named is None


def test_lost_events_on_the_samples_cpu_make_it_incomplete_and_blame_nobody() -> None:
    (imp,) = imported(parse(_hog_trace(lost="CPU:1 [7 EVENTS DROPPED]")))
    assert imp.window.lost_events == 7 and not imp.window.complete
    assert imp.lacks == ("CPU 1 lost 7 events within the window",)
    x = explain(imp.window)
    assert x.named is None and x.culprit == "incomplete: 7 events lost"


def test_uncounted_losses_and_the_other_cpus_losses() -> None:
    (imp,) = imported(parse(_hog_trace(lost="CPU:1 [EVENTS DROPPED]")))
    assert imp.lacks == ("CPU 1 lost an unknown number of events within the window",)
    assert explain(imp.window).named is None
    (imp,) = imported(parse(_hog_trace(lost="CPU:0 [12 EVENTS DROPPED]")))
    assert imp.lacks == () and explain(imp.window).named is not None


def test_a_family_not_recorded_is_said_and_blames_nobody() -> None:
    (imp,) = imported(parse(_hog_trace(irq=False)))
    assert imp.lacks == ("no interrupt handlers (-e irq was not recorded)",)
    assert explain(imp.window).named is None


def test_no_marker_no_sample() -> None:
    text = "\n".join(ln for ln in _hog_trace().splitlines() if "print:" not in ln)
    assert imported(parse(text)) == []


def test_the_printed_fields_map_as_the_recorder_maps_them() -> None:
    (e,) = parse(_line("a b-c", 7, 2, 1.0, "softirq_exit", "vec=9 [action=RCU]")).lines
    assert (e.comm, e.pid, e.cpu) == ("a b-c", 7, 2)
    ev = to_event(e, S0 * 10**9)
    assert ev is not None and (ev.kind, ev.num, ev.name, ev.t) == ("softirq_exit", 9, "RCU", 1000)
    assert prev_state("R+ ") == PREEMPTED and prev_state("R") == 0
    assert prev_state("S") != 0 and prev_state("D|W") != 0
    (idle,) = parse(_line("<idle>", 0, 0, 2.0, "cpu_idle", "state=4294967295 cpu_id=0")).lines
    left = to_event(idle, 0)
    assert left is not None and left.kind == "idle_exit"


def test_the_command_explains_the_trace_as_json_text_and_perfetto(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "T.dat"
    trace.write_bytes(b"")  # read through trace-cmd, here its text as made above
    monkeypatch.setattr(tracecmd, "read", lambda path: parse(_hog_trace()))
    code, out, err = cli("explain", str(trace), "--format", "json", "--out", "-")
    assert code == 0, err
    (w,) = json.loads(out)
    assert (w["tid"], w["comm"], w["cpu"], w["lacks"]) == (CT, "cyclictest", 1, [])
    assert w["culprit"]["kind"] == "task" and w["culprit"]["whom"]["pid"] == HOG
    code, out, err = cli("explain", str(trace), "--format", "md", "--out", "-")
    assert code == 0 and f"python3/{HOG} SCHED_FIFO/RR 88" in out, err
    code, out, err = cli("explain", str(trace), "--format", "perfetto", "--out", "-")
    assert code == 0 and any(e["ph"] == "X" for e in json.loads(out)["traceEvents"]), err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["explain", "missing.dat"], "missing.dat: no such file"),
        (["explain", "{bad}", "--test", "X"], "--test"),
        (["explain", "{bad}"], "trace-cmd report cannot read it"),
    ],
)
def test_bad_traces_are_one_line_and_exit_2(
    cli: Any, tmp_path: Path, argv: list[str], message: str
) -> None:
    bad = tmp_path / "bad.dat"
    bad.write_bytes(b"not a trace")
    code, _, err = cli(*[a.replace("{bad}", str(bad)) for a in argv])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and message in lines[0], err


def test_a_trace_without_a_breaking_sample_is_one_line_and_exit_2(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "T.dat"
    trace.write_bytes(b"")
    quiet = "\n".join(ln for ln in _hog_trace().splitlines() if "print:" not in ln)
    monkeypatch.setattr(tracecmd, "read", lambda path: parse(quiet))
    code, _, err = cli("explain", str(trace))
    assert code == 2 and "no sample broke cyclictest's limit" in err
