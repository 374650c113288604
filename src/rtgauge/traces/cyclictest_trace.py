"""The sample cyclictest broke on, found in a trace-cmd recording and made a
window the explanation takes (analysis.explain.TraceWindow).

`cyclictest --tracemark -b LIMIT` writes "hit latency threshold (N > LIMIT)"
to trace_marker from the measuring thread when a latency N (µs) exceeds the
limit, then stops tracing. That marker names the sample: its thread is the
marker's task, its CPU the marker's CPU. Its release is where the thread's
timer was due: the hrtimer_start of the thread's sleep gives the due time
(softexpires, on the timer's clock) and the hrtimer_expire_entry that woke it
gives that clock's reading (now) at a trace time, so the release lies
now - softexpires before that entry; the end is the release plus N. Without
those events the release is the marker's time minus N (later than the true
one by what the thread did between reading its clock and writing the marker).

What the trace lacked is said: an event family the recorder reads that the
trace never shows (not enabled), events lost on the sample's CPU within the
window, a trace that starts after the look-back. Such a window is incomplete
and the explanation blames nobody."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rtgauge.analysis.explain import LINUX, TraceWindow
from rtgauge.traces.tracecmd import Line, Report, fields
from rtgauge.traces.tracecmd_events import to_event, vector_name

MARKER = re.compile(r"hit latency threshold \((?P<n>\d+) > (?P<limit>\d+)\)")
LOOKBACK_NS = 1_000_000  # as the probe's recorder: 1 ms before the release
METRIC = "cyclictest latency"

# what the recorder reads, by the trace-cmd option that records it
FAMILIES = (
    ("-e sched", "the scheduler's switches and wake-ups", ("sched_switch",)),
    ("-e irq", "interrupt handlers", ("irq_handler_entry", "softirq_entry")),
    ("-e timer", "hrtimer callbacks", ("hrtimer_expire_entry",)),
)


@dataclass(frozen=True)
class Break:
    """The sample cyclictest broke on, as its marker and the trace say it."""

    marker: Line  # the line that gives the sample (cyclictest's marker, timerlat's entry)
    latency_ns: int
    limit_ns: int | None  # cyclictest's -b limit; None: a timerlat trace's worst sample
    release: int  # trace clock, ns
    # "hrtimer" (the timer's due time), "marker" (its time minus N), "irq
    # sample" (timerlat's handler entry minus its latency) or "thread sample"
    release_from: str
    metric: str = METRIC

    @property
    def end(self) -> int:
        return self.release + self.latency_ns


@dataclass(frozen=True)
class Imported:
    """A breaking sample's window, and what the trace lacked for it."""

    brk: Break
    window: TraceWindow
    lacks: tuple[str, ...]


def breaks(rep: Report) -> list[Break]:
    """Every "hit latency threshold" marker, with its sample's release."""
    out = []
    for i, ln in enumerate(rep.lines):
        m = MARKER.search(ln.body) if ln.event == "print" else None
        if m is None:
            continue
        lat, limit = int(m["n"]) * 1000, int(m["limit"]) * 1000
        due = _timer_release(rep.lines[:i], ln, lat)
        if due is None:
            out.append(Break(ln, lat, limit, ln.ts - lat, "marker"))
        else:
            out.append(Break(ln, lat, limit, due, "hrtimer"))
    return out


def _timer_release(before: list[Line], marker: Line, lat: int) -> int | None:
    """The release from the thread's timer: the last hrtimer_wakeup expiry on
    its CPU before the marker whose timer the thread itself armed (other
    tasks' sleeps end on the CPU too)."""
    for j in range(len(before) - 1, -1, -1):
        e = before[j]
        if e.ts < marker.ts - 2 * lat - LOOKBACK_NS:
            return None
        if e.cpu != marker.cpu or e.event != "hrtimer_expire_entry":
            continue
        f = fields(e.body)
        if f.get("function") != "hrtimer_wakeup":
            continue
        armed = _armed_by(before[:j], f.get("hrtimer", ""), marker.pid)
        now = _int(f.get("now"))
        if armed is None or now is None:  # another task's sleep (cyclictest's main thread)
            continue
        release = e.ts - (now - armed)
        # the thread's own timer, due before the marker and within N of it
        ok = release <= marker.ts and marker.ts - release <= 2 * lat + LOOKBACK_NS
        return release if ok else None
    return None


def _armed_by(before: list[Line], timer: str, tid: int) -> int | None:
    """The due time (softexpires) of the last hrtimer_start of timer by tid."""
    for e in reversed(before):
        if e.event == "hrtimer_start" and e.pid == tid:
            f = fields(e.body)
            if f.get("hrtimer") == timer:
                return _int(f.get("softexpires") or f.get("expires"))
    return None


def _int(text: str | None) -> int | None:
    try:
        return int(text or "")
    except ValueError:
        return None


def lacking(rep: Report) -> list[str]:
    """The event families the recorder reads that the trace never shows."""
    seen = rep.events_seen
    out = [
        f"no {what} ({option} was not recorded)"
        for option, what, names in FAMILIES
        if not seen & set(names)
    ]
    if not any(vector_name(ln) for ln in rep.lines):
        out.append("no interrupt vector entries (-e irq_vectors was not recorded)")
    return out


def imported(rep: Report, found: list[Break] | None = None) -> list[Imported]:
    """Each breaking sample (cyclictest's, unless `found` gives others) as a
    window, with what the trace lacked for it."""
    absent = lacking(rep)
    first: dict[int, int] = {}
    for ln in rep.lines:
        first.setdefault(ln.cpu, ln.ts)
    out = []
    for b in breaks(rep) if found is None else found:
        cpu = b.marker.cpu
        want_from = b.release - LOOKBACK_NS
        start_abs = max(want_from, first.get(cpu, b.release))
        lost = [
            x
            for x in rep.losses
            if x.cpu == cpu and (x.ts is None or x.ts > start_abs) and (x.ts or 0) <= b.end
        ]
        lost_n = sum(x.count or 1 for x in lost)
        lacks = list(absent)
        if lost:
            counted = all(x.count is not None for x in lost)
            lacks.append(
                f"CPU {cpu} lost {lost_n if counted else 'an unknown number of'} events"
                " within the window"
            )
        if start_abs > b.release:
            lacks.append(f"the trace of CPU {cpu} starts after the sample's release")
        events = []
        for ln in rep.lines:
            if start_abs <= ln.ts <= b.end:
                e = to_event(ln, b.release)
                if e is not None:
                    events.append(e)
        w = TraceWindow(
            metric=b.metric,
            sample_ns=b.latency_ns,
            cpu=cpu,
            tid=b.marker.pid,
            start=start_abs - b.release,
            complete=not lacks,
            lost_events=lost_n,
            events=tuple(events),
            profile=LINUX,
        )
        out.append(Imported(b, w, tuple(lacks)))
    return out
