"""The worst samples of the kernel's timerlat tracer (what `rtla timerlat`
drives), found in a trace and made the same windows as cyclictest's
(cyclictest_trace.imported), so the same explanation reads them.

timerlat arms a timer per CPU; at each expiry its handler writes an entry
"#SEQ context irq timer_latency N ns" (N: how late the handler ran), then
its per-CPU thread (timerlat/CPU) wakes and writes "#SEQ context thread
timer_latency N ns" (N: how late the thread ran: the wake-up latency, what
cyclictest measures). In the kernel's text trace (rtla's saved
timerlat_trace.txt) the entry has no event name; `trace-cmd report -N`
prints it as the `timerlat` event with the fields of its print format
("seq:SEQ context:1 timer_latency:N"; context 0 is irq, 1 thread, 2 the
return to a user-space workload).

The sample explained is each CPU's worst thread-context entry: `rtla
timerlat -T LIMIT -t` stops tracing on the sample that broke the limit,
which is then that CPU's worst. Its thread is the entry's task, its CPU the
entry's CPU. Its release is the timer's expiry: the irq entry of the same
activation (same CPU and SEQ) was written by the handler right after it
read the clock, so the expiry is that entry's time minus its latency;
without the irq entry, the thread entry's time minus the thread's latency
(later than the expiry by what the thread did between its clock read and
its entry: well under a µs)."""

from __future__ import annotations

import re

from rtgauge.traces.cyclictest_trace import Break
from rtgauge.traces.tracecmd import Line, Report

METRIC = "timerlat thread latency"
_TEXT = re.compile(r"#(?P<seq>\d+)\s+context\s+(?P<ctx>[\w-]+)\s+timer_latency\s+(?P<ns>\d+)")
_FIELDS = re.compile(r"seq(?:num)?:(?P<seq>\d+)\s+context:(?P<ctx>\d+)\s+timer_latency:(?P<ns>\d+)")
_CONTEXTS = {"0": "irq", "1": "thread", "2": "user-ret"}


def sample(ln: Line) -> tuple[int, str, int] | None:
    """(activation, context, latency ns) of a timerlat entry, else None."""
    if ln.event != "timerlat":
        return None
    m = _TEXT.search(ln.body) or _FIELDS.search(ln.body)
    if m is None:
        return None
    return int(m["seq"]), _CONTEXTS.get(m["ctx"], m["ctx"]), int(m["ns"])


def breaks(rep: Report) -> list[Break]:
    """Each CPU's worst thread-context sample, with its release."""
    irq: dict[tuple[int, int], Line] = {}
    worst: dict[int, tuple[Line, int, int]] = {}  # cpu -> (entry, seq, latency)
    for ln in rep.lines:
        s = sample(ln)
        if s is None:
            continue
        seq, ctx, lat = s
        if ctx == "irq":
            irq[(ln.cpu, seq)] = ln
        elif ctx == "thread" and (ln.cpu not in worst or lat > worst[ln.cpu][2]):
            worst[ln.cpu] = (ln, seq, lat)
    out = []
    for cpu in sorted(worst):
        ln, seq, lat = worst[cpu]
        handler = irq.get((cpu, seq))
        hs = None if handler is None else sample(handler)
        if handler is not None and hs is not None and handler.ts <= ln.ts:
            release, source = handler.ts - hs[2], "irq sample"
        else:
            release, source = ln.ts - lat, "thread sample"
        out.append(Break(ln, lat, None, release, source, METRIC))
    return out
