"""Every FreeRTOS check of the audit fed its pass, warn and fail facts, from
the firmware's own record ("rtos" and "audit"), and the FreeRTOS port's
record judged by them."""

from __future__ import annotations

from typing import Any

import pytest
from audit_records import Record, audit_of, freertos_end, freertos_system

from rtgauge.audit.checks import FREERTOS


def config(**values: Any) -> Any:
    def change(s: Record, e: Record) -> None:
        s["rtos"]["config"].update(values)

    return change


def audit(**values: Any) -> Any:
    def change(s: Record, e: Record) -> None:
        s["audit"].update(values)

    return change


def heap_low(free: int) -> Any:
    def change(s: Record, e: Record) -> None:
        e["audit"]["heap_min_free_bytes"] = free

    return change


RECORDER = "traceTASK_SWITCHED_OUT traceTASK_SWITCHED_IN traceMOVED_TASK_TO_READY_STATE"

CASES: list[tuple[str, str, Any, str]] = [
    ("rtos-preemption", "preemptive, 101 levels", None, "pass"),
    ("rtos-preemption", "preemptive, 4 levels", config(configMAX_PRIORITIES=4), "warn"),
    ("rtos-preemption", "cooperative", config(configUSE_PREEMPTION=0), "fail"),
    ("rtos-time-slicing", "off", None, "pass"),
    ("rtos-time-slicing", "on, 10 kHz tick: slices under the budget",
     config(configUSE_TIME_SLICING=1, configTICK_RATE_HZ=100000), "warn"),
    ("rtos-time-slicing", "on, 1 kHz tick: a slice of 1 ms", config(configUSE_TIME_SLICING=1), "fail"),
    ("rtos-tick-rate", "1 kHz", None, "pass"),
    ("rtos-tick-rate", "250 Hz", config(configTICK_RATE_HZ=250), "warn"),
    ("rtos-tick-rate", "50 Hz", config(configTICK_RATE_HZ=50), "fail"),
    ("rtos-assertions", "configASSERT defined", None, "pass"),
    ("rtos-assertions", "no assertion, a malloc-failed hook",
     lambda s, e: (audit(asserts=False)(s, e), config(configUSE_MALLOC_FAILED_HOOK=1)(s, e)), "warn"),
    ("rtos-assertions", "neither", audit(asserts=False), "fail"),
    ("rtos-stack-check", "method 2", None, "pass"),
    ("rtos-stack-check", "method 1", config(configCHECK_FOR_STACK_OVERFLOW=1), "warn"),
    ("rtos-stack-check", "off", config(configCHECK_FOR_STACK_OVERFLOW=0), "fail"),
    ("rtos-mpu", "the MPU port", None, "pass"),
    ("rtos-mpu", "an MPU unused", config(portUSING_MPU_WRAPPERS=0), "warn"),
    ("rtos-mpu", "an MPU unused, no stack check",
     config(portUSING_MPU_WRAPPERS=0, configCHECK_FOR_STACK_OVERFLOW=0), "fail"),
    ("rtos-mpu", "no MPU on the core", lambda s, e: (
        config(portUSING_MPU_WRAPPERS=0)(s, e), audit(mpu_regions=0)(s, e)), "n/a"),
    ("rtos-trace-hooks", "none", None, "pass"),
    ("rtos-trace-hooks", "run-time stats", config(configGENERATE_RUN_TIME_STATS=1), "warn"),
    ("rtos-trace-hooks", "the trace facility", config(configUSE_TRACE_FACILITY=1), "warn"),
    ("rtos-trace-hooks", "hooks in the switch path", audit(trace_hooks="traceTASK_SWITCHED_IN"), "fail"),
    ("rtos-trace-hooks", "only the flight recorder's hooks, and the facility it needs",
     lambda s, e: (audit(trace_hooks=RECORDER, trace_recorder=RECORDER)(s, e),
                   config(configUSE_TRACE_FACILITY=1)(s, e)), "pass"),
    ("rtos-trace-hooks", "the recorder's and a tracer's",
     audit(trace_hooks=f"{RECORDER} traceQUEUE_SEND", trace_recorder=RECORDER), "fail"),
    ("rtos-trace-hooks", "the recorder's, with run-time stats",
     lambda s, e: (audit(trace_hooks=RECORDER, trace_recorder=RECORDER)(s, e),
                   config(configGENERATE_RUN_TIME_STATS=1)(s, e)), "warn"),
    ("rtos-heap", "heap_4, 70 % left at the lowest", None, "pass"),
    ("rtos-heap", "5 % left", heap_low(50000), "warn"),
    ("rtos-heap", "heap_3", lambda s, e: s["rtos"].update(heap="heap_3"), "warn"),
    ("rtos-heap", "ran out", heap_low(0), "fail"),
    ("rtos-timer-task", "below the measured tasks", None, "pass"),
    ("rtos-timer-task", "at their level", config(configTIMER_TASK_PRIORITY=96), "warn"),
    ("rtos-timer-task", "above them", config(configTIMER_TASK_PRIORITY=100), "fail"),
    ("rtos-timer-task", "no software timers", config(configUSE_TIMERS=0), "n/a"),
    ("hypervisor", "a board", None, "pass"),
    ("hypervisor", "on a hypervisor", lambda s, e: s["virtualization"].update(hypervisor=True), "warn"),
    ("hypervisor", "emulated", lambda s, e: s["virtualization"].update(emulated=True), "fail"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("check", "what", "change", "status"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES]
)
def test_check(check: str, what: str, change: Any, status: str) -> None:
    f = audit_of(change, freertos_system, freertos_end).get(check)
    assert f is not None
    assert f.status == status, (f.summary, f.evidence)
    assert f.evidence and f.why
    assert (f.fix is not None) == (status in ("warn", "fail"))


def test_the_recorders_hooks_are_named_in_the_evidence_and_only_others_fail() -> None:
    f = audit_of(
        audit(trace_hooks=f"{RECORDER} traceQUEUE_SEND", trace_recorder=RECORDER),
        freertos_system,
        freertos_end,
    ).get("rtos-trace-hooks")
    assert f is not None and f.status == "fail"
    assert f.summary.endswith(": traceQUEUE_SEND")
    assert any(
        e.startswith("rtgauge's flight recorder's: traceTASK_SWITCHED_OUT") for e in f.evidence
    )


def test_every_rtos_check_has_its_pass_warn_and_fail_facts() -> None:
    seen = {(c, s) for c, _, _, s in CASES}
    for check in FREERTOS:
        for status in ("pass", "warn", "fail"):
            assert (check.id, status) in seen, (check.id, status)


def test_a_board_gets_the_freertos_checks_only() -> None:
    audit = audit_of(None, freertos_system, freertos_end)
    assert [f.id for f in audit.findings] == [c.id for c in FREERTOS]
    assert {f.status for f in audit.findings} == {"pass"}


def test_the_port_named_by_the_record_chooses_the_checks() -> None:
    """A record that names its port (probe.build.osal) gets that port's
    checks; the hand-made one above names none and is FreeRTOS's by its
    "rtos" name, as records from before the key were."""
    named = audit_of(
        lambda s, e: s["probe"]["build"].update(osal="freertos"), freertos_system, freertos_end
    )
    assert [f.id for f in named.findings] == [c.id for c in FREERTOS]


def timer_names(timer_task: str | None) -> Any:
    def change(s: Record, e: Record) -> None:
        s["rtos"]["trace_names"] = {"idle_task": "IDLE", "timer_task": timer_task, "tick": "tick"}

    return change


def test_the_timer_task_is_named_as_the_record_names_it() -> None:
    f = audit_of(timer_names("TimerD"), freertos_system, freertos_end).get("rtos-timer-task")
    assert f is not None and f.status == "pass"
    assert '"TimerD"' in f.summary and f.details == {"task": "TimerD"}
    # A record from before the names: the kernel's default name.
    f = audit_of(None, freertos_system, freertos_end).get("rtos-timer-task")
    assert f is not None and '"Tmr Svc"' in f.summary and f.details == {"task": "Tmr Svc"}


def test_the_heap_is_judged_at_its_lowest_during_the_run() -> None:
    """The end record's low-water mark, else the start's."""
    f = audit_of(heap_low(0), freertos_system, freertos_end).get("rtos-heap")
    assert f is not None and f.status == "fail" and "at the run's end" in " ".join(f.evidence)
    f = audit_of(None, freertos_system, None).get("rtos-heap")
    assert f is not None and f.status == "pass" and "at the start" in " ".join(f.evidence)
