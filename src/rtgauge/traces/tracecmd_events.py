"""trace-cmd's events in the flight recorder's vocabulary (schema/result-v1.json
trace_event): the same tracepoints the probe's recorder reads
(core/osal/linux/trace_events.c), from their printed fields, times in ns
from a given release."""

from __future__ import annotations

from rtgauge.model import TraceEvent
from rtgauge.traces.tracecmd import Line, fields

# the kernel's task-state letters (sched_switch's prev_state) as bits; only
# "running" (0) versus anything else is read by the explanation
_STATE_BITS = {"S": 1, "D": 2, "T": 4, "t": 8, "X": 16, "Z": 32, "P": 64, "I": 128}
PREEMPTED = 0x100  # "R+": switched out while runnable (the kernel's TASK_REPORT_MAX)
_IDLE_EXIT = 4294967295  # cpu_idle's state (u32)-1: the CPU left its idle state

_SIMPLE = {
    "irq_handler_entry": "irq_entry",
    "irq_handler_exit": "irq_exit",
    "softirq_raise": "softirq_raise",
    "softirq_entry": "softirq_entry",
    "softirq_exit": "softirq_exit",
    "hrtimer_expire_entry": "timer_entry",
    "hrtimer_expire_exit": "timer_exit",
    "sched_waking": "waking",
    "sched_wakeup": "wakeup",
    "sched_switch": "switch",
    "workqueue_execute_start": "work_start",
    "workqueue_execute_end": "work_end",
    "ipi_entry": "ipi_entry",
    "ipi_exit": "ipi_exit",
    "cpu_idle": "idle_entry",
}


def prev_state(text: str) -> int:
    """sched_switch's printed prev_state ("R", "R+", "S", "D|W" …) as a number."""
    s = text.split("==>")[0].strip()
    if s.startswith("R"):
        return PREEMPTED if s.endswith("+") else 0
    bits = 0
    for part in s.rstrip("+").split("|"):
        bits |= _STATE_BITS.get(part[:1], 1)
    return bits or 1


def _int(text: str | None, default: int = -1) -> int:
    """A printed number: decimal (target_cpu=001 included) or 0x… hex."""
    s = (text or "").strip()
    try:
        return int(s, 16) if s.lower().startswith("0x") else int(s, 10)
    except ValueError:
        return default


def vector_name(line: Line) -> str | None:
    """The vector of an irq_vectors entry or exit (local_timer, reschedule …),
    or None when the line is not one."""
    for suffix in ("_entry", "_exit"):
        if line.event.endswith(suffix) and line.body.startswith("vector="):
            return line.event.removesuffix(suffix)
    return None


def to_event(line: Line, release: int) -> TraceEvent | None:
    """The line as the recorder's event (t from the release), or None when it
    is not one of the recorder's tracepoints."""
    t, cur = line.ts - release, line.pid
    vec = vector_name(line)
    if vec is not None:
        kind = "vec_entry" if line.event.endswith("_entry") else "vec_exit"
        v = _int(fields(line.body).get("vector"))
        return TraceEvent(t=t, cpu=line.cpu, kind=kind, cur=cur, num=v, name=vec)
    known = _SIMPLE.get(line.event)
    if known is None:
        return None
    kind = known
    f = fields(line.body)
    e = TraceEvent(t=t, cpu=line.cpu, kind=kind, cur=cur)
    if kind == "switch":
        return TraceEvent(
            t=t, cpu=line.cpu, kind=kind, cur=cur,
            pid=_int(f.get("prev_pid"), 0), prio=_int(f.get("prev_prio"), 0),
            name=f.get("prev_comm", ""), state=prev_state(f.get("prev_state", "")),
            pid2=_int(f.get("next_pid"), 0), prio2=_int(f.get("next_prio"), 0),
            name2=f.get("next_comm", ""),
        )  # fmt: skip
    if kind in ("waking", "wakeup"):
        return TraceEvent(
            t=t, cpu=line.cpu, kind=kind, cur=cur, pid=_int(f.get("pid"), 0),
            prio=_int(f.get("prio"), 0), name=f.get("comm", ""),
            num=_int(f.get("target_cpu"), -1),
        )  # fmt: skip
    if kind in ("irq_entry", "irq_exit"):
        name = f.get("name", "") if kind == "irq_entry" else ""
        return TraceEvent(t=t, cpu=line.cpu, kind=kind, cur=cur, num=_int(f.get("irq")), name=name)
    if kind.startswith("softirq"):
        number, _, action = f.get("vec", "").partition(" ")
        name = action.strip("[]").removeprefix("action=")
        return TraceEvent(t=t, cpu=line.cpu, kind=kind, cur=cur, num=_int(number), name=name)
    if kind == "timer_entry":
        return TraceEvent(t=t, cpu=line.cpu, kind=kind, cur=cur, name=f.get("function", ""))
    if kind in ("work_start", "work_end"):
        fn = line.body.rpartition("function ")[2].strip() if "function " in line.body else ""
        return TraceEvent(t=t, cpu=line.cpu, kind=kind, cur=cur, name=fn)
    if kind in ("ipi_entry", "ipi_exit"):
        return TraceEvent(t=t, cpu=line.cpu, kind=kind, cur=cur, name=line.body.strip("()"))
    if kind == "idle_entry":
        state = _int(f.get("state"))
        if state == _IDLE_EXIT:
            return TraceEvent(t=t, cpu=line.cpu, kind="idle_exit", cur=cur)
        return TraceEvent(t=t, cpu=line.cpu, kind=kind, cur=cur, num=state)
    return e
