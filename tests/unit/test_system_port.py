"""The port a system record was written by (probe.build.osal) and an RTOS's
names in trace windows (rtos.trace_names), as the record says them, and
for records from before it said them, what the port did then."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from audit_records import Record, freertos_system, linux_system

from rtgauge.errors import UsageError
from rtgauge.model import System, TraceNames, check_record, load_bundle

DATA = Path(__file__).parents[1] / "data"


def system(make: Any = freertos_system, **rtos: Any) -> System:
    """A made system record's view, with these keys of "rtos" changed."""
    s = make()
    if rtos:
        s["rtos"].update(rtos)
    return System.read(check_record(s, "system"))


def with_osal(osal: str) -> Any:
    def make() -> Record:
        s = freertos_system()
        s["probe"]["build"]["osal"] = osal
        return s

    return make


def test_the_record_names_its_port_and_its_trace_names() -> None:
    names = {"idle_task": "IDLE", "timer_task": None, "tick": "tick"}
    s = system(with_osal("freertos"), trace_names=names)
    assert s.port == "freertos"
    assert s.trace_names() == TraceNames("IDLE", None, "tick")
    renamed = {"idle_task": "Idle", "timer_task": "TimerD", "tick": "SysTick"}
    assert system(with_osal("freertos"), trace_names=renamed).trace_names() == TraceNames(
        "Idle", "TimerD", "SysTick"
    )


def test_a_freertos_record_from_before_gets_the_kernels_defaults() -> None:
    s = system(with_osal("freertos"))
    assert s.trace_names() == TraceNames("IDLE", "Tmr Svc", "tick")
    # Software timers off in its configuration: there was no timer task.
    off = system(with_osal("freertos"), config={"configUSE_TIMERS": 0})
    assert off.trace_names() == TraceNames("IDLE", None, "tick")


def test_a_record_from_before_the_port_was_named_is_freertos_by_its_rtos_name() -> None:
    s = system()  # the hand-made board's record names no port
    assert s.probe.osal is None and s.port == "freertos"
    assert s.trace_names() == TraceNames("IDLE", "Tmr Svc", "tick")


def test_another_port_gets_no_freertos_default() -> None:
    zephyr = system(with_osal("zephyr"), name="Zephyr")
    assert zephyr.port == "zephyr" and zephyr.trace_names() is None
    own = {"idle_task": "idle", "timer_task": "sysworkq", "tick": "sys_clock"}
    assert system(with_osal("zephyr"), name="Zephyr", trace_names=own).trace_names() == (
        TraceNames("idle", "sysworkq", "sys_clock")
    )


def test_linux_has_no_trace_names() -> None:
    s = system(linux_system)
    assert s.port is None and s.trace_names() is None


def test_a_stored_freertos_run_reads_with_its_port() -> None:
    """A real firmware run from before the names: FreeRTOS's, no timer task."""
    s = load_bundle(DATA / "explain" / "freertos_run.json").system_view()
    assert s.port == "freertos"
    assert s.trace_names() == TraceNames("IDLE", None, "tick")


@pytest.mark.parametrize(
    "names",
    [
        {"idle_task": "IDLE", "timer_task": None},  # the tick's name missing
        {"idle_task": 0, "timer_task": None, "tick": "tick"},
        {"idle_task": "IDLE", "timer_task": 3, "tick": "tick"},
    ],
)
def test_trace_names_out_of_the_schema_are_refused(names: dict[str, Any]) -> None:
    s = freertos_system()
    s["rtos"]["trace_names"] = names
    with pytest.raises(UsageError, match="trace_names"):
        check_record(s, "system")
