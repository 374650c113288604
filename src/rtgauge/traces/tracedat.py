"""Kept windows as one trace-cmd trace.dat (docs/traces.md): what
`trace-cmd report` prints and KernelShark opens.

The windows follow each other on one time line: the first sample's release
is at 1 s, each next one at the next whole second at least 1 ms after the
previous window's end, so `trace-cmd report` reads each release as a round
number and no window overlaps another. Each window's events are the kernel's
tracepoints (tracedat_events.py; an RTOS's alike), on their own CPU, by the
task that was current.

A trace.dat has no span of time other than between two events, so the
explanation is written as markers (ftrace `print` events, what a write to
trace_marker makes), on the sample's CPU and by the task current there:

- at the window's start, `sample N: TEST METRIC X us on CPU c - CULPRIT`,
  then one line per part of the explanation (`part 1/3: LABEL: X us`);
- at each piece's start and end, `begin LABEL` and `end LABEL (X us)`;
- at the release, the wake-up, the switch-in and the end, `release`,
  `wake-up`, `switch-in`, `end`.

Every marker reads `rtgauge: sample N: …` (the `print` event names its
source), so a filter on it finds one window's.
"""

from __future__ import annotations

from collections.abc import Sequence

from rtgauge.model import TraceEvent
from rtgauge.traces.perfetto import ExportedWindow
from rtgauge.traces.tracedat_events import Catalogue
from rtgauge.traces.tracedat_format import Entry, trace_dat

SECOND = 1_000_000_000
GAP = 1_000_000  # at least 1 ms between one window's end and the next one's start


def _us(ns: int) -> str:
    return f"{ns / 1000:.1f} us"


def _span(w: ExportedWindow) -> tuple[int, int]:
    """The window's first and last instants, ns from its release."""
    x = w.explanation
    lo = [w.start, 0] + [e.t for e in w.events] + [s.start for s in x.segments]
    hi = [x.sample_ns] + [e.t for e in w.events] + [s.end for s in x.segments]
    return min(lo), max(hi)


def releases(windows: Sequence[ExportedWindow]) -> list[int]:
    """Each window's release on the file's time line (ns)."""
    out, end = [], 0
    for w in windows:
        lo, hi = _span(w)
        at = max(SECOND, -(-(end + GAP - lo) // SECOND) * SECOND)
        out.append(at)
        end = at + hi
    return out


class _Current:
    """The task current on each CPU of a window at a given time."""

    def __init__(self, events: Sequence[TraceEvent]) -> None:
        self.by_cpu: dict[int, list[tuple[int, int, int]]] = {}
        for e in events:  # (time, current before, current after)
            after = e.pid2 if e.kind == "switch" else e.cur
            self.by_cpu.setdefault(e.cpu, []).append((e.t, e.cur, after))

    def at(self, cpu: int, t: int) -> int:
        seen = self.by_cpu.get(cpu, [])
        if not seen:
            return 0
        current = seen[0][1]
        for when, _, after in seen:
            if when > t:
                break
            current = after
        return current


def _names(windows: Sequence[ExportedWindow]) -> dict[int, str]:
    names: dict[int, str] = {}
    for w in windows:
        for e in w.events:
            if e.kind == "switch":
                names[e.pid], names[e.pid2] = e.name, e.name2
            elif e.kind in ("waking", "wakeup"):
                names[e.pid] = e.name
    return {p: n for p, n in names.items() if p > 0 and n}


def _markers(n: int, w: ExportedWindow) -> list[tuple[int, int, str]]:
    """(time from the release, CPU, text) of the window's markers, in order."""
    x = w.explanation
    tag = f"sample {n}:"
    start = _span(w)[0]
    state = "" if x.complete else " (incomplete window)"
    lost = f", {x.lost_events} events lost" if x.lost_events else ""
    out = [(start, x.cpu, f"{tag} {w.title} {x.metric} {_us(x.sample_ns)} on CPU {x.cpu}"
                          f"{state}{lost} - {x.culprit}")]  # fmt: skip
    for i, p in enumerate(x.parts, 1):
        out.append((start, x.cpu, f"{tag} part {i}/{len(x.parts)}: {p.label}: {_us(p.ns)}"))
    for s in x.segments:
        label = s.label or s.kind
        if s.end > s.start:
            out.append((s.start, s.cpu, f"{tag} begin {label}"))
            out.append((s.end, s.cpu, f"{tag} end {label} ({_us(s.end - s.start)})"))
        else:
            out.append((s.start, s.cpu, f"{tag} {label}"))
    for name, at in (("release", 0), ("wake-up", x.wake_at), ("switch-in", x.switch_at),
                     ("end", x.sample_ns)):  # fmt: skip
        if at is not None:
            out.append((at, x.cpu, f"{tag} {name}"))
    return out


def trace_dat_bytes(windows: Sequence[ExportedWindow]) -> bytes:
    """The windows as one trace.dat file (see the module's docstring)."""
    cat = Catalogue()
    keyed: list[tuple[int, int, Entry]] = []  # (time, order at that time, entry)
    for n, (w, rel) in enumerate(zip(windows, releases(windows), strict=True), 1):
        current = _Current(sorted(w.events, key=lambda e: e.t))
        for i, (t, cpu, text) in enumerate(_markers(n, w)):
            # the window's heading first, a landmark after the events of its instant
            order = -1 if i <= len(w.explanation.parts) else 1
            pid = current.at(cpu, t if order > 0 else t - 1)
            keyed.append((rel + t, order, Entry(rel + t, cpu, cat.marker(pid, text))))
        for e in w.events:
            now = rel + (e.now if e.now is not None else e.t)
            keyed.append((rel + e.t, 0, Entry(rel + e.t, e.cpu, cat.record(e, now))))
    keyed.sort(key=lambda k: (k[0], k[1]))  # stable within an order
    entries = [k[2] for k in keyed]
    cmdlines = "".join(f"{p} {n}\n" for p, n in sorted(_names(windows).items()))
    return trace_dat(cat.ftrace_types(), cat.event_types(), cat.kallsyms(), cmdlines, entries)
