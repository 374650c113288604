"""The flight recorder on FreeRTOS: the firmware records the kernel's trace
hooks around each explained test's worst samples, on the emulated boards
under --icount (docs/recorder.md, "On FreeRTOS").

Under instruction counting the board's time is a function of the
instructions run, so two runs keep the same windows and must give the
same explanation, line for line. No timing thresholds: states, shapes,
names, and the equality of two runs. The rules' controls (a higher-priority
task named, a lower-priority one never) are hand-made windows in
tests/unit/test_explain_rtos_windows.py: no condition on the board puts a task
between the wake-up and the switch-in without a test-only hook."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from test_freertos import SMALL, _run, _tests

EXPLAINED = ("TMR-P-LAT", "IRQ-P-LAT", "THR-P-PRE", "TMO-P-ACC")
ARGS = ["--quick", "--tests", ",".join(EXPLAINED)]
PREFIX = {  # each test's explained figures (the catalogue's release_latency)
    "TMR-P-LAT": "timer.wakeup.",
    "IRQ-P-LAT": "irq.task.",
    "THR-P-PRE": "thread.preempt.",  # the timer's wake-up and the semaphore's hand-over
    "TMO-P-ACC": "timeout.late.",
}
REDUCED = re.compile(
    r"^buffer_kb 512 reduced to (\d+), max_events 1000 reduced to (\d+), figures 32 to (\d+): "
    r"(\d+) KB of heap free$"
)


def _stream(records: list[Any], path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[list[Any], Path]]:
    """The explained tests twice on the MPS2 board, each run's records and
    its probe stream (what `rtgauge explain` reads)."""
    out = []
    for i in range(2):
        run, records = _run(ARGS)
        assert run.error is None and run.exit_code == 0, (run.error, run.output_tail)
        out.append((records, _stream(records, tmp_path_factory.mktemp(f"run{i}") / "run.jsonl")))
    return out


def _explain(cli: Any, stream: Path, fmt: str = "json") -> str:
    code, out, err = cli("explain", str(stream), "--format", fmt)
    assert code == 0, err
    return out


def test_every_explained_test_keeps_windows_of_the_kernels_events(
    runs: list[tuple[list[Any], Path]],
) -> None:
    records = runs[0][0]
    clock = records[0]["clock"]["kernel_clocksource"]
    tests = _tests(records)
    for tid in EXPLAINED:
        x = tests[tid]["explain"]
        assert x["state"] == "on" and x["why"] is None, (tid, x)
        assert (x["source"], x["clock"], x["prio_scale"]) == ("FreeRTOS trace hooks", clock, "rtos")
        assert (x["buffer_kb"], x["max_events"]) == (512, 1000)
        # the 16 MB board gives up a few figures' windows, never the ring's or K's
        assert x.get("reduced", "figures ").startswith("figures "), x.get("reduced")
        assert x["figures"] >= 16, x["figures"]
        worst = [w for w in x["windows"] if w["worst"]]
        assert x["freezes"] >= len(worst) == x["keep"] == 3, tid
        samples = [w["sample_ns"] for w in x["windows"]]
        assert samples == sorted(samples, reverse=True), tid
        for w in x["windows"]:
            assert w["metric"].startswith(PREFIX[tid]), (tid, w["metric"])
            assert w["complete"] and not w["capped"] and w["cpu"] == 0, (tid, w)
            assert w["sample_ns"] == w["end_ns"] - w["release_ns"]
            kinds = {e["k"] for e in w["events"]}
            assert kinds <= {"switch", "wakeup", "vec_entry", "vec_exit"}, kinds
            into = [e for e in w["events"] if e["k"] == "switch" and e["pid2"] == w["tid"]]
            assert into and into[-1]["t"] <= w["sample_ns"], (tid, w["events"])
            assert any(e["k"] == "wakeup" and e["pid"] == w["tid"] for e in w["events"])
            assert {t["policy"] for t in w["tasks"]} == {"FreeRTOS"}
            assert w["tid"] in {t["pid"] for t in w["tasks"]}


def test_the_idle_task_and_the_boards_interrupts_are_named_in_the_events(
    runs: list[tuple[list[Any], Path]],
) -> None:
    """By the names the system record says the windows use (rtos.trace_names)."""
    names = runs[0][0][0]["rtos"]["trace_names"]
    assert names == {"idle_task": "IDLE", "timer_task": None, "tick": "tick"}  # no timers
    tests = _tests(runs[0][0])
    events = [e for w in tests["IRQ-P-LAT"]["explain"]["windows"] for e in w["events"]]
    vectors = {(e["name"], e["num"]) for e in events if e["k"] == "vec_entry"}
    assert ("CMSDK TIMER0, IRQ 8", 24) in vectors  # IRQ 8 is exception 16 + 8
    switches = [e for e in events if e["k"] == "switch"]
    assert any(e["pid2"] == 0 and e["name2"] == names["idle_task"] for e in switches)
    ticks = [e for w in tests["TMR-P-LAT"]["explain"]["windows"] for e in w["events"]]
    assert (names["tick"], 15) in {(e["name"], e["num"]) for e in ticks if e["k"] == "vec_entry"}
    # the port names the idle task 0 everywhere, so the host need not: in a
    # switch's two tasks, a wake-up's, and every event's current task
    every = [e for t in EXPLAINED for w in tests[t]["explain"]["windows"] for e in w["events"]]
    named = {(e["pid"], e["name"]) for e in every if e["k"] in ("switch", "wakeup")}
    named |= {(e["pid2"], e["name2"]) for e in every if e["k"] == "switch"}
    assert {pid for pid, name in named if name == names["idle_task"]} == {0}
    assert {name for pid, name in named if pid == 0} == {names["idle_task"]}
    assert {e["cur"] for e in every} <= {pid for pid, _ in named}


def test_rtgauge_explain_names_the_tick_and_the_timer_interrupt(
    runs: list[tuple[list[Any], Path]], cli: Any
) -> None:
    found = {t["test"]: t for t in json.loads(_explain(cli, runs[0][1]))}
    assert set(found) == set(EXPLAINED)
    for tid, t in found.items():
        assert t["state"] == "on" and sum(w["worst"] for w in t["windows"]) == 3, tid
        for w in t["windows"]:
            assert w["complete"] and w["culprit"]["kind"] is not None, (tid, w["culprit"])
            assert sum(p["ns"] for p in w["parts"]) == w["sample_ns"], tid
            assert not any(p["kind"] == "unaccounted" for p in w["parts"]), (tid, w["parts"])
    wake = {tid: {p["label"] for w in t["windows"] for p in w["parts"] if p["kind"] == "wake-irq"}
            for tid, t in found.items()}  # fmt: skip
    assert wake["IRQ-P-LAT"] == {"CMSDK TIMER0, IRQ 8 interrupt (the wake-up)"}
    for tid in ("TMR-P-LAT", "THR-P-PRE", "TMO-P-ACC"):  # sleeps and timed waits end on a tick
        assert wake[tid] == {"tick interrupt (the wake-up)"}, (tid, wake[tid])
        for w in found[tid]["windows"]:
            if w["metric"] == "thread.preempt.sem":
                continue  # a hand-over: a task wakes it, no tick
            if tid == "TMO-P-ACC":  # a timeout set at any moment waits for the next tick
                assert w["culprit"]["kind"] == "tick-wait", (tid, w["culprit"])
                assert w["culprit"]["text"].endswith("the tick's granularity: the sleep ended "
                                                     "on the first tick after its deadline")  # fmt: skip
            else:  # periods on the tick: the deadline is the tick's instant, no wait for it
                assert w["culprit"]["kind"] == "wake-irq", (tid, w["culprit"])
                assert "(tick interrupt)" in w["culprit"]["text"], (tid, w["culprit"])
    irq = found["IRQ-P-LAT"]["windows"][0]
    assert irq["culprit"]["kind"] in ("wake-irq", "idle"), irq["culprit"]
    line = irq["culprit"]["text"]
    assert "CMSDK TIMER0, IRQ 8 interrupt" in line or "arrival" in line


def test_two_icount_runs_give_the_identical_explanation(
    runs: list[tuple[list[Any], Path]], cli: Any
) -> None:
    (first, a), (second, b) = runs
    for tid in EXPLAINED:
        assert _tests(first)[tid]["explain"] == _tests(second)[tid]["explain"], tid
    assert _explain(cli, a, "md") == _explain(cli, b, "md")
    parts = [
        [(w["culprit"], w["parts"]) for t in json.loads(_explain(cli, s)) for w in t["windows"]]
        for s in (a, b)
    ]
    worst = [w for t in json.loads(_explain(cli, a)) for w in t["windows"] if w["worst"]]
    assert parts[0] == parts[1] and len(worst) == 3 * len(EXPLAINED)


def test_the_audit_tells_the_recorders_hooks_from_a_tracers(
    runs: list[tuple[list[Any], Path]],
) -> None:
    audit = runs[0][0][0]["audit"]
    hooks, recorder = audit["trace_hooks"].split(), audit["trace_recorder"].split()
    assert hooks and set(hooks) == set(recorder)
    assert {"traceTASK_SWITCHED_IN", "traceMOVED_TASK_TO_READY_STATE"} <= set(recorder)


def test_the_128k_board_reduces_its_recorder_and_says_so(cli: Any, tmp_path: Path) -> None:
    run, records = _run(ARGS, board=SMALL)
    assert run.error is None and run.exit_code == 0, (run.error, run.output_tail)
    for tid, r in _tests(records).items():
        x = r["explain"]
        assert x["state"] == "on", (tid, x)
        m = REDUCED.match(x["reduced"])
        assert m, x["reduced"]
        assert (int(m[1]), int(m[2]), int(m[3])) == (x["buffer_kb"], x["max_events"], x["figures"])
        assert 0 < x["buffer_kb"] < 512 and 16 <= x["max_events"] < 1000
        assert int(m[4]) * 1024 < 128 * 1024
        worst = [w for w in x["windows"] if w["worst"]]
        assert len(worst) == 3 and all(w["complete"] and w["events"] for w in x["windows"])
    found = json.loads(_explain(cli, _stream(records, tmp_path / "small.jsonl")))
    assert {t["test"] for t in found} == set(EXPLAINED)
    assert all(w["culprit"]["kind"] is not None for t in found for w in t["windows"])


def test_without_the_recorder_nothing_is_recorded() -> None:
    """--no-explain: the hooks stay idle, the record says why."""
    run, records = _run(["--no-explain", *ARGS])
    assert run.exit_code == 0, run.error
    for tid, r in _tests(records).items():
        assert r["explain"] == {"state": "off", "why": "--no-explain"}, tid
