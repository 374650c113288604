"""Explanations of runs recorded on a 2-CPU KVM guest (tests/data/explain/):
TMR-P-LAT on CPU 1 with a SCHED_FIFO 98 spinner taking 10 ms every 100 ms,
and the same test on a machine whose other CPU ran a package install; and
on FreeRTOS, TMR-P-LAT, IRQ-P-LAT and THR-P-PRE on the emulated MPS2 board
under --icount. The command prints them as the report does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rtgauge.analysis.explain import NONPREEMPT, TASK, TICK_WAIT, WAKE_IRQ, explanations
from rtgauge.model import load_bundle
from rtgauge.run import Run

DATA = Path(__file__).resolve().parents[1] / "data" / "explain"


def _run(name: str) -> Run:
    return Run.of(load_bundle(DATA / name))


def test_the_recorded_hog_is_named_in_every_kept_window() -> None:
    run = _run("hog_run.json")
    test = run.test("TMR-P-LAT")
    assert test is not None and test.explain is not None
    hog = [pid for w in test.explain.windows for pid, pol in w.policies.items()
           if pol == "SCHED_FIFO" and pid != w.tid]  # fmt: skip
    xs = explanations(run, test)
    assert len(xs) == 3
    for x in xs:
        assert x.complete
        assert x.culprit_kind == TASK
        assert f"python3/{hog[0]} SCHED_FIFO 98" in x.culprit
        assert sum(p.ns for p in x.parts) == x.sample_ns


def test_the_recorded_package_install_held_the_cpu_in_the_kernel() -> None:
    run = _run("idle_vm_run.json")
    test = run.test("TMR-P-LAT")
    assert test is not None
    worst = explanations(run, test)[0]
    assert worst.culprit_kind == NONPREEMPT
    assert "(preemption model none)" in worst.culprit


def test_the_recorded_freertos_sleeps_waited_for_the_tick_and_the_timer_interrupt_is_named() -> (
    None
):
    run = _run("freertos_run.json")
    for tid in ("TMR-P-LAT", "THR-P-PRE"):  # sleeps that end on a tick
        test = run.test(tid)
        assert test is not None and test.explain is not None
        assert test.explain.prio_scale == "rtos"
        xs = explanations(run, test)
        assert len(xs) == 3
        for x in xs:
            assert x.complete and x.culprit_kind == TICK_WAIT, (tid, x.culprit)
            labels = {p.label: p.kind for p in x.parts}
            assert labels["tick interrupt (the wake-up)"] == WAKE_IRQ
            assert sum(p.ns for p in x.parts) == x.sample_ns
    irq = run.test("IRQ-P-LAT")
    assert irq is not None
    for x in explanations(run, irq):
        wake = [p for p in x.parts if p.kind == WAKE_IRQ]
        assert [p.label for p in wake] == ["CMSDK TIMER0, IRQ 8 interrupt (the wake-up)"]
        assert not any(p.kind == TASK for p in x.parts)  # nothing else ran: no task to blame


def test_explain_command_formats(cli: Any) -> None:
    code, out, _ = cli("explain", str(DATA / "hog_run.json"), "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc[0]["test"] == "TMR-P-LAT" and len(doc[0]["windows"]) == 3
    culprit = doc[0]["windows"][0]["culprit"]
    assert "SCHED_FIFO 98" in culprit["text"] and culprit["whom"]["comm"] == "python3"
    code, out, _ = cli("explain", str(DATA / "hog_run.json"), "--test", "TMR-P-LAT")
    assert code == 0 and "### Why the worst case: TMR-P-LAT" in out
    code, out, _ = cli("explain", str(DATA / "hog_run.json"), "--format", "html", "--out", "-")
    assert code == 0 and "<svg" in out and "release" in out


def test_explain_command_bad_input(cli: Any, tmp_path: Path) -> None:
    code, _, err = cli("explain", str(DATA / "hog_run.json"), "--test", "SEM-P-ARN")
    assert code == 2 and "no such test" in err
    code, _, err = cli("explain", str(tmp_path / "missing.json"))
    assert code == 2
    assert err.count("\n") == 1
