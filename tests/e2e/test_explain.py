"""The flight recorder and the explanation against known disturbances, as
root: a SCHED_FIFO hog is named with most of the sample; softirq load is a
part by name; a SCHED_OTHER busy task is never the culprit; two hogs
stalling both CPUs at once are each named for their CPU's worst sample; a
look-back longer than the record holds is cut where the record begins,
complete only when that reaches back to the release (else it says
incomplete and blames nobody). After each, no
instance of ours is left and the top-level tracing state is as it was.
Bounded: every disturbance ends on its own and is killed on leaving."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from probe_run import ProbeRun, rt, run_probe
from stall_injector import injected_stall

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.explain import (
    NO_EVENT,
    NONPREEMPT,
    SOFTIRQ,
    SWITCH,
    TASK,
    Explanation,
    explanations,
)
from rtgauge.model import bundle_from_records
from rtgauge.run import Run

CPU = 1 if (os.cpu_count() or 1) > 1 else 0
PRIO = 90  # the probe's; the hog runs above it
TRACEFS = Path("/sys/kernel/tracing")
TOP_LEVEL = ("tracing_on", "current_tracer", "trace_clock", "buffer_size_kb", "set_event")

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the kernel's tracer needs root")


def _mounted() -> bool:
    return (TRACEFS / "trace_clock").exists()


def _top_level() -> dict[str, str]:
    """The top-level tracing state, read through a mount of our own if needs be."""
    was = _mounted()
    if not was:
        subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], check=True)
    try:
        return {f: (TRACEFS / f).read_text() for f in TOP_LEVEL}
    finally:
        if not was:
            subprocess.run(["umount", str(TRACEFS)], check=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].startswith(" Z")


# Where the probe finds tracefs (core/osal/linux/trace_fs.c): the second
# where another tool (cyclictest, trace-cmd) mounted it under debugfs.
ROOTS = (TRACEFS, Path("/sys/kernel/debug/tracing"))


def _instances() -> list[str]:
    """rtgauge instances under every mount of tracefs the probe may use."""
    found = {
        p.name
        for root in ROOTS
        if (root / "trace_clock").exists()
        for p in (root / "instances").iterdir()
        if p.name.startswith("rtgauge-")
    }
    return sorted(found)


def _ours_left() -> list[str]:
    """rtgauge instances whose probe is gone (a live one is another run's)."""
    return [n for n in _instances() if not _alive(int(n.split("-")[1]))]


@contextmanager
def _untouched() -> Iterator[None]:
    """The block leaves tracefs as it found it: mounted or not, top level
    unchanged, no instance of ours."""
    mounted, before = _mounted(), _top_level()
    yield
    assert _ours_left() == []
    assert _mounted() == mounted or _others_running()
    assert _top_level() == before


def _others_running() -> bool:
    """Another run's recorder keeps tracefs mounted (a shared machine)."""
    return _mounted() and bool(_instances())


def _tmr(*extra: str, ms: int = 3000) -> ProbeRun:
    r = run_probe(
        "--tests", "TMR-P-LAT", "--cpus", str(CPU), "--prio", str(PRIO),
        "--opt", f"TMR-P-LAT.duration_ms={ms}", *extra, timeout=300,
    )  # fmt: skip
    if not rt(r):
        pytest.skip("the probe could not obtain SCHED_FIFO")
    return r


def _explained(r: ProbeRun) -> list[Explanation]:
    t = r.tests["TMR-P-LAT"]
    assert t["status"] == "ok", t["reason"]
    assert t["explain"]["state"] == "on", t["explain"]
    run = Run.of(bundle_from_records(r.records, "the probe's output"))
    test = run.test("TMR-P-LAT")
    assert test is not None
    return explanations(run, test)


@contextmanager
def _process(code: str, seconds: float = 300) -> Iterator[subprocess.Popen[str]]:
    """A Python process on CPU running code until the block ends (seconds:
    its own bound, should the test die first)."""
    prog = (
        f"import os,time\nos.sched_setaffinity(0,{{{CPU}}})\nEND=time.monotonic()+{seconds}\n"
        "print('running',flush=True)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", prog + code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "running"  # on CPU before the measurement
        yield proc
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_a_fifo_hog_is_named_with_most_of_the_worst_sample() -> None:
    with _untouched(), injected_stall(CPU, PRIO + 8, 300, spin_ms=20, every_ms=200) as hog:
        r = _tmr()
        if hog.poll() == 2:
            pytest.skip("the hog could not obtain SCHED_FIFO")
    worst = _explained(r)[0]
    assert worst.complete
    assert worst.culprit_kind == TASK, worst.culprit
    assert f"/{hog.pid} SCHED_FIFO {PRIO + 8}" in worst.culprit
    assert int(worst.culprit.split(" %")[0]) >= 50
    assert sum(p.ns for p in worst.parts) == worst.sample_ns
    # the hog is another program's (this test's, not the probe's): a stranger,
    # called one; the measured thread is the run's own
    assert "not part of the run" in worst.culprit
    kept = r.tests["TMR-P-LAT"]["explain"]["windows"]
    win = next(w for w in kept if w["sample_ns"] == worst.sample_ns)
    origins = {t["pid"]: t.get("origin") for t in win["tasks"]}
    assert origins[hog.pid] == "other" and origins[win["tid"]] == "run"


def test_a_stranger_that_ended_before_its_window_was_read_is_named_as_one() -> None:
    """Each stall is spun by a thread that ends with it: nothing else runs
    on the CPU before it is gone from /proc, so the window is read after;
    the forks the recorder followed say it was not the run's."""
    with (
        _untouched(),
        injected_stall(CPU, PRIO + 8, 300, spin_ms=20, every_ms=200, ending=True) as hog,
    ):
        r = _tmr()
        if hog.poll() == 2:
            pytest.skip("the hog could not obtain SCHED_FIFO")
    xs = _explained(r)
    # the stalls' samples (a host pause may be larger still): each names the
    # thread that ended, as a stranger
    named = [x for x in xs if "stall-ended/" in x.culprit]
    assert named and max(x.sample_ns for x in named) >= 15_000_000, [x.culprit for x in xs]
    for x in named:
        assert x.complete and x.culprit_kind == TASK, x.culprit
        assert "(not part of the run: it had ended before it could be told whose)" in x.culprit
    worst = max(named, key=lambda x: x.sample_ns)
    kept = r.tests["TMR-P-LAT"]["explain"]["windows"]
    win = next(w for w in kept if w["sample_ns"] == worst.sample_ns)
    origins = {t["pid"]: t.get("origin") for t in win["tasks"]}
    ended = [pid for pid, o in origins.items() if o == "ended"]
    assert ended and all(pid != hog.pid for pid in ended), origins
    assert origins[win["tid"]] == "run"


def test_the_runs_own_tasks_that_ended_stay_the_runs() -> None:
    """The control: THR-P-NEW's and PRC-P-NEW's threads and processes end
    before their windows are read; each is the run's, never a stranger."""
    with _untouched():
        r = run_probe(
            "--tests", "THR-P-NEW,PRC-P-NEW", "--cpus", str(CPU), "--prio", str(PRIO),
            "--quick", timeout=300,
        )  # fmt: skip
    if not rt(r):
        pytest.skip("the probe could not obtain SCHED_FIFO")
    seen = ended = 0
    for tid in ("THR-P-NEW", "PRC-P-NEW"):
        t = r.tests[tid]
        assert t["status"] == "ok" and t["explain"]["state"] == "on", t["explain"]
        for w in t["explain"]["windows"]:
            probe = {e[k] for e in w["events"] if e["k"] == "switch"
                     for k, n in (("pid", "name"), ("pid2", "name2"))
                     if e.get(n) == "rtgauge-probe"}  # fmt: skip
            for task in w["tasks"]:
                if task["pid"] in probe:
                    seen += 1
                    ended += task["policy"] is None  # gone when its window was read
                    assert task.get("origin") == "run", (tid, task)
    assert seen > 0 and ended > 0, (seen, ended)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two CPUs")
def test_two_hogs_stalling_both_cpus_at_once_each_cpus_worst_is_kept_and_names_its_hog() -> None:
    """The samples of both CPUs end together after each stall: each is cut
    from the same unbroken record, and each CPU's worst names its own hog."""
    with (
        _untouched(),
        injected_stall(0, PRIO + 8, 300, spin_ms=20, every_ms=200, aligned=True) as hog0,
        injected_stall(1, PRIO + 8, 300, spin_ms=20, every_ms=200, aligned=True) as hog1,
    ):
        r = run_probe(
            "--tests", "TMR-P-LAT", "--cpus", "0,1", "--prio", str(PRIO),
            "--opt", "TMR-P-LAT.duration_ms=3000", timeout=300,
        )  # fmt: skip
        if hog0.poll() == 2 or hog1.poll() == 2 or not rt(r):
            pytest.skip("SCHED_FIFO could not be obtained")
    t = r.tests["TMR-P-LAT"]
    assert t["status"] == "ok", t["reason"]
    rec = t["explain"]
    assert rec["uncaptured"] == 0
    run = Run.of(bundle_from_records(r.records, "the probe's output"))
    test = run.test("TMR-P-LAT")
    assert test is not None
    xs = explanations(run, test)
    for cpu, hog in ((0, hog0), (1, hog1)):
        name = f"timer.wakeup.clock_nanosleep.cpu{cpu}"
        top = test.metric(name)
        assert top is not None and top.max is not None
        assert top.max >= 15e6  # the stall shows at full size
        x = next(x for x in xs if x.metric == name and x.sample_ns == int(top.max))
        assert x.cpu == cpu and x.complete, (x.culprit, x.lost_events)
        assert f"/{hog.pid} SCHED_FIFO {PRIO + 8}" in x.culprit, x.culprit


def test_softirq_load_on_the_cpu_is_a_part_by_name() -> None:
    flood = (
        "import socket\n"
        "r=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);r.bind(('127.0.0.1',0));"
        "r.setblocking(False)\n"
        "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);a=r.getsockname();m=b'x'*1024\n"
        "while time.monotonic()<END:\n"
        "  for _ in range(64): s.sendto(m,a)\n"
        "  try:\n"
        "    while True: r.recv(2048)\n"
        "  except BlockingIOError: pass\n"
    )
    with _untouched(), _process(flood):
        r = _tmr("--explain-keep", "16")
    parts = [p for x in _explained(r) for p in x.parts if p.kind == SOFTIRQ]
    assert any(p.label in ("softirq NET_RX", "softirq NET_TX") for p in parts), parts


def _kept(r: ProbeRun, tmp_path: Path) -> str:
    """The run's records, kept where a failure can be read again."""
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(rec) + "\n" for rec in r.records))
    return f"(records in {path})"


def test_a_lower_priority_busy_task_is_never_the_culprit(tmp_path: Path) -> None:
    with _untouched(), _process("while time.monotonic()<END: pass\n") as busy:
        r = _tmr()
    xs = _explained(r)
    assert xs
    for x in xs:
        assert str(busy.pid) not in x.culprit, (x.culprit, _kept(r, tmp_path))
        # A task may be named only when it could legally delay a SCHED_FIFO
        # thread (a kernel thread above it, say): never a SCHED_OTHER one.
        if x.culprit_kind == TASK:
            assert "SCHED_OTHER" not in x.culprit, (x.culprit, _kept(r, tmp_path))
    # it was seen, and not blamed
    seen = [p for x in xs for p in x.parts if str(busy.pid) in p.label]
    wrong = [p for p in seen if p.kind not in (NO_EVENT, SWITCH, NONPREEMPT)]
    assert not wrong, (wrong, _kept(r, tmp_path))


def test_a_lookback_longer_than_the_record_is_complete_only_from_the_release() -> None:
    # 10 s of look-back in a 2 s test: every window reaches back before the
    # recorder began, or before the oldest page its ring still held
    lookback = 10_000_000_000
    with _untouched():
        r = _tmr(
            "--explain-buffer-kb", "4", "--explain-lookback-us", str(lookback // 1000), ms=2000
        )
    windows = r.tests["TMR-P-LAT"]["explain"]["windows"]
    assert windows
    for w in windows:
        # complete: every event of the CPU from the release to the end, so
        # the window holds them from a start at or before the release
        assert w["complete"] == (w["start"] <= 0), w["start"]
        # the window begins where the record does, not where it was asked to
        assert w["start"] > -lookback, w["start"]
        if w["first_event"] is not None and not w["lost_events"] and not w["capped"]:
            # held from the oldest event on at the latest (later: where the
            # kernel's 4 KB lost some unread, or more than max_events came)
            assert w["start"] <= w["first_event"], w
    for x in _explained(r):
        if not x.complete:
            assert x.culprit_kind is None
            assert x.culprit.startswith("incomplete:")


def test_a_probe_killed_with_sigkill_leaves_instances_the_next_run_removes() -> None:
    with _untouched():
        before = set(_instances())  # before the probe starts: its recorder may be quick
        probe = subprocess.Popen(
            [os.environ.get("RTGAUGE_PROBE", "build/rtgauge-probe"), "--tests", "TMR-P-LAT",
             "--cpus", str(CPU), "--opt", "TMR-P-LAT.duration_ms=20000"],
            stdout=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while not set(_instances()) - before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert set(_instances()) - before, "the recorder never started"
        os.killpg(probe.pid, signal.SIGKILL)  # the runner and its test child
        probe.wait()
        # Its test process is gone once reaped (it was the probe's child)
        deadline = time.monotonic() + 60
        while not _ours_left() and time.monotonic() < deadline:
            time.sleep(0.05)
        left = _ours_left()
        assert left  # nothing could clean up after SIGKILL
        run_probe("--tests", "CLK-P-RES", "--quick", timeout=300)  # the janitor's run
        assert _ours_left() == []


def test_without_root_the_record_says_why() -> None:
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    exe = os.environ.get("RTGAUGE_PROBE", "build/rtgauge-probe")
    out = subprocess.run(
        [*nobody, exe, "--tests", "TMR-P-LAT", "--quick", "--cpus", str(CPU)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    rec: dict[str, Any] = next(
        r for r in map(json.loads, out.stdout.splitlines()) if r.get("record") == "test"
    )
    assert rec["explain"]["state"] == "not explained"
    assert "root" in rec["explain"]["why"]


# Tests whose every figure's worst sample is recorded by the thread it
# measures, at once, with what each window's interval is: a wake-up
# ("release") or the thread's own call ("operation"). MEM-P-CPY and
# MSG-P-FIL have more figures than the recorder's old room of 32.
EXPLAINED = {
    "THR-P-SLS": "release", "THR-P-BKG": "release", "THR-P-WKL": "release",
    "SEM-P-ARC": "release", "MUT-P-ARC": "release", "MUT-P-PIR": "operation",
    "MSG-P-LAT": "release", "MSG-P-RTT": "operation", "MSG-P-ALT": "release",
    "SIG-P-LAT": "release", "CND-P-LAT": "release", "BAR-P-LAT": "release",
    "MEM-P-CPY": "operation", "MSG-P-FIL": "operation",
    # recorded later, for the thread measured (rtg_metric_interval_of, _ticks_of)
    "IRQ-P-LAT": "release", "RWL-P-ARC": "operation",
    # offered once the loop has ended, by the thread it held up
    "CLK-P-DUR": "operation",
}  # fmt: skip
# figures whose interval differs from their test's
FIGURE_INTERVAL = {"rwlock.writer_wake.last_reader": "release"}
SHORTER = ("--opt", "THR-P-BKG.processes=10", "--opt", "THR-P-BKG.loops=100",
           "--opt", "THR-P-SLS.max_threads=128")  # fmt: skip


@pytest.fixture(scope="module")
def explained_run() -> ProbeRun:
    r = run_probe("--quick", "--tests", ",".join(EXPLAINED), *SHORTER, timeout=900)
    if not rt(r):
        pytest.skip("the probe could not obtain SCHED_FIFO")
    return r


@pytest.mark.parametrize("tid", sorted(EXPLAINED))
def test_each_figures_worst_sample_is_kept_and_explained(explained_run: ProbeRun, tid: str) -> None:
    """Every figure's maximum is held by a kept window whose sample is that
    very maximum, of the figure's kind of interval, and the host takes it
    apart into parts that add up to it; nothing is beyond the room."""
    t = explained_run.tests[tid]
    assert t["status"] == "ok", t["reason"]
    rec = t["explain"]
    assert rec["state"] == "on", rec
    assert rec["figures_untracked"] == 0
    figures = {m["name"]: m["max"] for m in t["metrics"] if m["count"]}
    assert figures and not [m["name"] for m in t["metrics"] if m.get("unexplained")]
    kept = {w["metric"]: w for w in rec["windows"] if w["figure_max"]}
    assert set(kept) == set(figures) - {n for n in figures if n.endswith(".all")}
    for name, w in kept.items():
        assert w["end_ns"] - w["release_ns"] == figures[name], name
        assert w["interval"] == FIGURE_INTERVAL.get(name, EXPLAINED[tid]), name
    analysed = AnalysedRun.of(bundle_from_records(explained_run.records, "the probe's output"))
    test = analysed.run.test(tid)
    assert test is not None
    cover = analysed.test_explained(test)
    assert cover is not None and cover.why_not is None
    for f in cover.figures:
        assert f.window is not None, (f.metric, f.why_not)
        x = f.window.explanation
        assert x.sample_ns == f.max_ns and sum(p.ns for p in x.parts) == x.sample_ns, f.metric


def test_a_figure_recorded_for_another_thread_is_that_threads_window(
    explained_run: ProbeRun,
) -> None:
    """IRQ-P-LAT's service response is recorded by the task thread for the
    thread the signal handler ran on: its window is that thread's, not the
    recorder's; RWL-P-ARC's writer wake-up is the writer's, not the main
    thread's that times the uncontended calls."""

    def tids(test: str, prefix: str) -> set[int]:
        ws = explained_run.tests[test]["explain"]["windows"]
        return {w["tid"] for w in ws if w["figure_max"] and w["metric"].startswith(prefix)}

    service, task = tids("IRQ-P-LAT", "irq.service."), tids("IRQ-P-LAT", "irq.task.")
    assert len(service) == 1 and len(task) == 1 and service != task, (service, task)
    writer, calls = tids("RWL-P-ARC", "rwlock.writer_wake"), tids("RWL-P-ARC", "rwlock.rd")
    assert len(writer) == 1 and len(calls) == 1 and writer != calls, (writer, calls)


def test_a_forked_sides_samples_say_why_they_are_not_explained() -> None:
    """MSG-P-ALT with peer=process: side A is a forked process, where the
    recorder is not, so its direction's samples are never offered. The
    figure says so, and when its maximum is one of them the host gives that
    reason; the thread side's samples are still kept."""
    r = run_probe(
        "--quick", "--tests", "MSG-P-ALT", "--opt", "MSG-P-ALT.peer=process",
        "--opt", "MSG-P-ALT.mechanism=pipe", "--opt", "MSG-P-ALT.size=16", timeout=300,
    )  # fmt: skip
    t = r.tests["MSG-P-ALT"]
    assert t["status"] == "ok", t["reason"]
    (m,) = t["metrics"]
    assert "forked process" in m["unexplained"]
    assert t["explain"]["state"] == "on"
    analysed = AnalysedRun.of(bundle_from_records(r.records, "the probe's output"))
    test = analysed.run.test("MSG-P-ALT")
    assert test is not None
    cover = analysed.test_explained(test)
    assert cover is not None
    (f,) = cover.figures
    assert f.window is not None or f.why_not == m["unexplained"]
    kept = [w for w in t["explain"]["windows"] if w["figure_max"]]
    assert len(kept) == 1 and kept[0]["end_ns"] - kept[0]["release_ns"] <= m["max"]
