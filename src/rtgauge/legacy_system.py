"""What system records written before the probe said it themselves leave unsaid.

A system record now names the port that wrote it ("probe.build.osal") and,
on an RTOS, how its trace windows name the kernel's own tasks and the tick
("rtos.trace_names"). A record written before has neither, and a stored
bundle must read as it always did, so this module answers for such records
only, with what the one RTOS port there was then (FreeRTOS) did. Never
extend it: a new port says it in its own records.
"""

from __future__ import annotations

from typing import Any

FREERTOS = "freertos"
# The FreeRTOS kernel's defaults (tasks.c, timers.c) and the flight
# recorder's name for the tick's vector, which the port used before it said them.
FREERTOS_IDLE_TASK = "IDLE"
FREERTOS_TIMER_TASK = "Tmr Svc"
FREERTOS_TICK = "tick"


def port(rtos: dict[str, Any] | None) -> str | None:
    """The port of a record that does not name it: FreeRTOS's for an RTOS
    that calls itself FreeRTOS; None (unknown) otherwise."""
    return FREERTOS if rtos and rtos.get("name") == "FreeRTOS" else None


def trace_names(
    port_name: str | None, rtos: dict[str, Any] | None
) -> tuple[str, str | None, str] | None:
    """The trace names (idle task, timer task, tick) of a record from before
    "rtos.trace_names": FreeRTOS's defaults on the FreeRTOS port (no timer
    task where the record says software timers were off), None on any other."""
    if port_name != FREERTOS:
        return None
    config = (rtos or {}).get("config")
    timers = config.get("configUSE_TIMERS") if isinstance(config, dict) else None
    timer_task = None if timers == 0 else FREERTOS_TIMER_TASK
    return FREERTOS_IDLE_TASK, timer_task, FREERTOS_TICK
