"""`rtgauge explain RUN --format trace-dat` read by the real reader: the
kept windows of recorded runs (Linux with a SCHED_FIFO hog, FreeRTOS on the
emulated board) go through `trace-cmd report` (Debian's trace-cmd; `make
deps-trace`), and every window's events come back as they were kept, at
their times to the ns, with the explanation's markers where they belong;
a window of thousands of events with a long gap (several ring-buffer pages,
a time-extend entry) comes back whole."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.model import TraceEvent, load_bundle
from rtgauge.run import Run
from rtgauge.traces.perfetto import ExportedWindow, run_windows
from rtgauge.traces.tracecmd import Line, parse, read
from rtgauge.traces.tracecmd_events import to_event
from rtgauge.traces.tracedat import SECOND, releases, trace_dat_bytes
from rtgauge.traces.tracedat_events import Catalogue
from rtgauge.traces.tracedat_format import Entry, trace_dat

DATA = Path(__file__).resolve().parents[1] / "data" / "explain"
RUNS = ["hog_run.json", "freertos_run.json"]


def _trace_cmd() -> str:
    path = shutil.which("trace-cmd")
    if path is None:
        pytest.fail("trace-cmd is missing: make deps-trace")
    return path


def _windows(name: str) -> list[ExportedWindow]:
    a = AnalysedRun.of(load_bundle(DATA / name))
    return run_windows(a, [t for t in a.run.tests if t.explain is not None])


def _as_written(e: TraceEvent, release: int) -> TraceEvent:
    """The event as the file holds it: on the file's time line, a vector's
    name as a tracepoint's name, and no hrtimer `now` (the reader's mapping
    does not read it back)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", e.name) if e.kind.startswith("vec_") else e.name
    return dataclasses.replace(e, t=e.t + release, name=name, now=None)


def _events_back(lines: list[Line]) -> list[TraceEvent]:
    back = [to_event(ln, 0) for ln in lines if ln.event != "print"]
    assert None not in back, "an event the reader does not know"
    return sorted((e for e in back if e is not None), key=lambda e: (e.cpu, e.t))


def _markers(lines: list[Line]) -> list[tuple[int, int, str]]:
    return [(ln.ts, ln.cpu, ln.body.removeprefix("rtgauge: ")) for ln in lines
            if ln.event == "print"]  # fmt: skip


@pytest.mark.parametrize("name", RUNS)
def test_trace_cmd_reads_back_every_event_of_every_window(
    cli: Any, tmp_path: Path, name: str
) -> None:
    _trace_cmd()
    out = tmp_path / "windows.dat"
    code, printed, err = cli("explain", str(DATA / name), "--format", "trace-dat",
                             "--out", str(out))  # fmt: skip
    assert code == 0, err
    assert printed.strip() == str(out)
    windows = _windows(name)
    rels = releases(windows)
    want = sorted((_as_written(e, r) for w, r in zip(windows, rels, strict=True)
                   for e in w.events), key=lambda e: (e.cpu, e.t))  # fmt: skip
    assert _events_back(read(out).lines) == want


@pytest.mark.parametrize("name", RUNS)
def test_each_window_has_its_landmarks_parts_and_pieces_as_markers(
    tmp_path: Path, name: str
) -> None:
    _trace_cmd()
    windows = _windows(name)
    out = tmp_path / "windows.dat"
    out.write_bytes(trace_dat_bytes(windows))
    marks = _markers(read(out).lines)
    for n, (w, rel) in enumerate(zip(windows, releases(windows), strict=True), 1):
        x = w.explanation
        mine = [(ts - rel, cpu, text) for ts, cpu, text in marks
                if text.startswith(f"sample {n}: ")]  # fmt: skip
        texts = [m[2].removeprefix(f"sample {n}: ") for m in mine]
        assert texts[0].startswith(f"{w.title} {x.metric} ") and texts[0].endswith(x.culprit)
        for landmark, at in (("release", 0), ("wake-up", x.wake_at),
                             ("switch-in", x.switch_at), ("end", x.sample_ns)):  # fmt: skip
            if at is not None:
                assert (at, x.cpu, f"sample {n}: {landmark}") in mine
        for i, p in enumerate(x.parts, 1):
            assert f"part {i}/{len(x.parts)}: {p.label}: {p.ns / 1000:.1f} us" in texts
        for s in x.segments:
            if s.end > s.start:
                assert (s.start, s.cpu, f"sample {n}: begin {s.label or s.kind}") in mine
                assert any(t == s.end and text.startswith(f"sample {n}: end {s.label or s.kind} (")
                           for t, _, text in mine)  # fmt: skip
        # the windows do not overlap: every marker of the window is in its own second
        assert all(-rel < t < 1_000_000_000 for t, _, _ in mine)


def test_the_hogs_pid_is_in_the_report_as_trace_cmd_prints_it(tmp_path: Path) -> None:
    """Without -N, as a user runs it: trace-cmd's own plugins print the
    switches to the hog and the culprit marker names it."""
    exe = _trace_cmd()
    windows = _windows("hog_run.json")
    out = tmp_path / "hog.dat"
    out.write_bytes(trace_dat_bytes(windows))
    done = subprocess.run([exe, "report", str(out)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    test = Run.of(load_bundle(DATA / "hog_run.json")).test("TMR-P-LAT")
    assert test is not None and test.explain is not None
    rec = test.explain
    hog = {pid for w in rec.windows for pid, pol in w.policies.items()
           if pol == "SCHED_FIFO" and pid != w.tid}  # fmt: skip
    assert len(hog) == 1
    pid = hog.pop()
    for n in range(1, len(windows) + 1):
        head = next(
            ln for ln in done.stdout.splitlines() if f"rtgauge: sample {n}: TMR-P-LAT" in ln
        )
        assert f"python3/{pid} SCHED_FIFO 98" in head
    assert re.search(rf"sched_switch: .*==> python3:{pid} ", done.stdout)
    lines = parse(done.stdout).lines
    for w, rel in zip(windows, releases(windows), strict=True):
        # in every window the hog is the current task of events on the sample's CPU
        held = [ln for ln in lines if ln.pid == pid and ln.comm == "python3"
                and rel + w.start <= ln.ts <= rel + w.explanation.sample_ns]  # fmt: skip
        assert held and all(ln.cpu == w.explanation.cpu for ln in held)


def test_a_window_of_thousands_of_events_and_a_long_gap_comes_back_whole(tmp_path: Path) -> None:
    _trace_cmd()
    base = _windows("hog_run.json")[0]
    events = []
    for i in range(3000):  # 3000 events of ~40 bytes: many pages; a 300 ms gap halfway
        t = -900_000 + i * 997 + (300_000_000 if i >= 1500 else 0)
        if i % 3 == 0:
            events.append(TraceEvent(t=t, cpu=i % 2, kind="switch", cur=100 + i % 7,
                                     pid=100 + i % 7, prio=120, name=f"worker-{i % 7}",
                                     state=0x100 if i % 2 else 1, pid2=200 + i % 5,
                                     prio2=i % 140, name2="a-long-task-name"[: 15]))  # fmt: skip
        elif i % 3 == 1:
            events.append(TraceEvent(t=t, cpu=i % 2, kind="irq_entry", cur=200 + i % 5, num=i,
                                     name="an interrupt with a long name"[:31]))  # fmt: skip
        else:
            events.append(TraceEvent(t=t, cpu=i % 2, kind="softirq_entry", cur=7, num=i % 10,
                                     name=["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
                                           "TASKLET", "SCHED", "HRTIMER", "RCU"][i % 10]))  # fmt: skip
    big = dataclasses.replace(base, events=tuple(events))
    windows = [big, base]
    out = tmp_path / "big.dat"
    out.write_bytes(trace_dat_bytes(windows))
    assert out.stat().st_size > 30 * 4096
    rels = releases(windows)
    # the second window begins after the first ends
    assert rels[1] + min(e.t for e in base.events) > rels[0] + max(e.t for e in events)
    want = sorted((_as_written(e, r) for w, r in zip(windows, rels, strict=True)
                   for e in w.events), key=lambda e: (e.cpu, e.t))  # fmt: skip
    assert _events_back(read(out).lines) == want


def test_an_imported_cyclictest_trace_is_written_back_as_its_window(
    cli: Any, tmp_path: Path
) -> None:
    """`rtgauge explain T.dat --format trace-dat`: a trace.dat laid out as
    trace-cmd records cyclictest (the hog run's first window, then
    cyclictest's "hit latency threshold" marker by the measured thread) is
    imported through `trace-cmd report`, explained, and written back: the
    window's events come back, the hog is named."""
    _trace_cmd()
    w = _windows("hog_run.json")[0]
    x = w.explanation
    thread = next(e.pid2 for e in w.events if e.kind == "switch" and e.t == x.switch_at)
    cat, rel = Catalogue(), SECOND
    entries = [Entry(rel + e.t, e.cpu, cat.record(e, rel + (e.now if e.now is not None else e.t)))
               for e in w.events]  # fmt: skip
    text = f"hit latency threshold ({x.sample_ns // 1000} > 1000)"
    entries.append(Entry(rel + x.sample_ns + 1000, x.cpu, cat.marker(thread, text)))
    recorded = tmp_path / "cyclictest.dat"
    recorded.write_bytes(trace_dat(cat.ftrace_types(), cat.event_types(), cat.kallsyms(),
                                   "", sorted(entries, key=lambda e: e.ts)))  # fmt: skip
    out = tmp_path / "window.dat"
    code, _, err = cli("explain", str(recorded), "--format", "trace-dat", "--out", str(out))
    assert code == 0, err
    lines = read(out).lines
    hog = next(e.pid2 for e in w.events if e.kind == "switch" and e.name2 == "python3")
    head = next(
        ln.body for ln in lines if ln.event == "print" and "sample 1: cyclictest.dat" in ln.body
    )
    assert f"python3/{hog}" in head
    back = [dataclasses.replace(e, t=0) for e in _events_back(lines)]
    kept = [dataclasses.replace(_as_written(e, 0), t=0) for e in w.events]
    # the imported window: the recorded events from 1 ms before the release on
    assert all(e in kept for e in back)
    assert len(back) >= len([e for e in w.events if e.t >= -1_000_000])
