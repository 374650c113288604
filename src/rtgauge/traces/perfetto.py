"""Kept windows in the Chrome/Perfetto trace-event format (JSON): what
ui.perfetto.dev and chrome://tracing open.

Each kept sample's CPUs are processes of their own (named after the sample
and the CPU), so samples line up on their release, which is at the same
timestamp for every sample. In a process: lane 1 holds the explanation's
pieces as complete ("X") slices named by their label, lane 2 the sample's
landmarks (release, wake-up, switch-in, end) as instants, and one lane per
task the raw events that happened while it was current, as instants with
their fields in args. Linux and RTOS windows are written alike (an RTOS's
tasks are its lanes). Timestamps are µs (the format's unit), every one >= 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.explain import Explanation
from rtgauge.model import TestRecord, TraceEvent

PARTS_LANE = 1
MARKS_LANE = 2
FIRST_TASK_LANE = 3
_CPU_STRIDE = 1000  # process ids: sample * stride + cpu + 1


@dataclass(frozen=True)
class ExportedWindow:
    """One kept sample as written: its title (the test or trace it came
    from), its explanation, and the raw events of its window."""

    title: str
    explanation: Explanation
    events: tuple[TraceEvent, ...]
    start: int  # the window's start, ns from the release


def _us(ns: int, offset: int) -> float:
    return (ns + offset) / 1000.0


def _event_name(e: TraceEvent) -> str:
    if e.kind == "switch":
        return f"switch {e.name}/{e.pid} -> {e.name2}/{e.pid2}"
    if e.kind in ("waking", "wakeup"):
        return f"{e.kind} {e.name}/{e.pid}"
    if e.name:
        return f"{e.kind} {e.name}"
    return e.kind if e.num < 0 else f"{e.kind} {e.num}"


def _event_args(e: TraceEvent) -> dict[str, Any]:
    d = {k: v for k, v in asdict(e).items() if k not in ("t", "cpu", "kind")}
    return {k: v for k, v in d.items() if v not in ("", None)}


def _task_names(events: Sequence[TraceEvent]) -> dict[int, str]:
    names: dict[int, str] = {0: "idle"}
    for e in events:
        if e.kind in ("waking", "wakeup") and e.name:
            names[e.pid] = e.name
        elif e.kind == "switch":
            names.setdefault(e.pid, e.name)
            names[e.pid2] = e.name2 or names.get(e.pid2, "")
    return names


class _Process:
    """One (sample, CPU) process and its lanes."""

    def __init__(self, out: list[dict[str, Any]], pid: int, name: str, sort_index: int) -> None:
        self.out, self.pid = out, pid
        self.lanes: dict[int, int] = {}
        out.append(_meta("process_name", pid, 0, name))
        out.append(
            {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
             "args": {"sort_index": sort_index}}
        )  # fmt: skip
        self.thread(PARTS_LANE, "explanation")
        self.thread(MARKS_LANE, "landmarks")

    def thread(self, tid: int, name: str) -> None:
        self.out.append(_meta("thread_name", self.pid, tid, name))
        self.out.append(
            {"ph": "M", "name": "thread_sort_index", "pid": self.pid, "tid": tid,
             "args": {"sort_index": tid}}
        )  # fmt: skip

    def task_lane(self, task: int, name: str) -> int:
        if task not in self.lanes:
            tid = FIRST_TASK_LANE + len(self.lanes)
            self.lanes[task] = tid
            self.thread(tid, f"{name or '?'}/{task}" if task > 0 else name or "unknown")
        return self.lanes[task]


def _meta(what: str, pid: int, tid: int, name: str) -> dict[str, Any]:
    return {"ph": "M", "name": what, "pid": pid, "tid": tid, "args": {"name": name}}


def _instant(
    pid: int, tid: int, ts: float, name: str, cat: str, args: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {"ph": "i", "s": "t", "name": name, "cat": cat, "pid": pid, "tid": tid,
            "ts": ts, "args": args or {}}  # fmt: skip


def trace_document(windows: Sequence[ExportedWindow]) -> dict[str, Any]:
    """The trace-event document of the windows (see the module's docstring)."""
    earliest = [w.start for w in windows] + [e.t for w in windows for e in w.events]
    earliest += [s.start for w in windows for s in w.explanation.segments]
    offset = max(0, -min(earliest, default=0))
    meta: list[dict[str, Any]] = []
    timed: list[dict[str, Any]] = []
    for i, w in enumerate(windows):
        _window(meta, timed, i, w, offset)
    timed.sort(key=lambda ev: (ev["pid"], ev["tid"], ev["ts"]))
    return {
        "displayTimeUnit": "ns",
        "otherData": {
            "writer": "rtgauge explain --format perfetto",
            "release_ts_us": offset / 1000.0,
        },
        "traceEvents": meta + timed,
    }


def _window(
    meta: list[dict[str, Any]], timed: list[dict[str, Any]], i: int, w: ExportedWindow, offset: int
) -> None:
    x = w.explanation
    cpus = sorted({x.cpu} | {s.cpu for s in x.segments} | {e.cpu for e in w.events})
    title = f"sample {i + 1}: {w.title} {x.metric} {x.sample_ns / 1000:.1f} µs"
    procs = {
        c: _Process(meta, i * _CPU_STRIDE + c + 1, f"{title} — CPU {c}", i * _CPU_STRIDE + c)
        for c in cpus
    }
    for s in x.segments:
        p = procs[s.cpu]
        if s.end > s.start:
            timed.append(
                {"ph": "X", "name": s.label or s.kind, "cat": s.kind, "pid": p.pid,
                 "tid": PARTS_LANE, "ts": _us(s.start, offset),
                 "dur": (s.end - s.start) / 1000.0, "args": {"kind": s.kind}}
            )  # fmt: skip
        else:
            timed.append(_instant(p.pid, PARTS_LANE, _us(s.start, offset), s.label or s.kind,
                                  s.kind))  # fmt: skip
    home = procs[x.cpu]
    marks = [("release", 0), ("wake-up", x.wake_at), ("switch-in", x.switch_at)]
    marks.append(("end", x.sample_ns))
    for name, at in marks:
        if at is not None:
            timed.append(_instant(home.pid, MARKS_LANE, _us(at, offset), name, "landmark",
                                  {"culprit": x.culprit}))  # fmt: skip
    names = _task_names(w.events)
    for e in sorted(w.events, key=lambda e: e.t):
        p = procs[e.cpu]
        tid = p.task_lane(e.cur, names.get(e.cur, ""))
        timed.append(_instant(p.pid, tid, _us(e.t, offset), _event_name(e), e.kind, _event_args(e)))


def run_windows(a: AnalysedRun, tests: Sequence[TestRecord]) -> list[ExportedWindow]:
    """The kept windows of the tests, worst first within each test, with
    their explanations (the analysed run's, made from the same windows)."""
    out = []
    for t in tests:
        e = a.test_explained(t)
        if e is None or t.explain is None:
            continue
        for rec, w in zip(t.explain.windows, e.windows, strict=True):
            out.append(ExportedWindow(t.id, w.explanation, rec.events, rec.start))
    return out
