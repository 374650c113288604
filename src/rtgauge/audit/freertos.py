"""The FreeRTOS port's checks (probe.build.osal "freertos"), from the
firmware's own record: its configuration values ("rtos.config"), the heap,
and what the configuration holds beyond values (assertions, trace hooks,
the MPU: "audit"). Pure functions."""

from __future__ import annotations

from rtgauge.audit import rtos_generic
from rtgauge.audit.facts import Facts
from rtgauge.audit.finding import Check, Verdict
from rtgauge.audit.linux_kernel import unknown
from rtgauge.audit.rtos_generic import as_int

CONFIG = "FreeRTOSConfig.h"


def _config(f: Facts, key: str) -> tuple[int | None, str]:
    v = f.rtos_config(key)
    return v, f"{CONFIG}: {key} {v if v is not None else 'not recorded'}"


# ---- rtos-preemption ----
def preemption(f: Facts) -> Verdict:
    v, ev = _config(f, "configUSE_PREEMPTION")
    levels, ev2 = _config(f, "configMAX_PRIORITIES")
    evidence = [ev, ev2]
    if v is None:
        return unknown("configUSE_PREEMPTION is not in the record", evidence)
    return rtos_generic.preemption_verdict(
        v != 0,
        levels,
        evidence,
        "#define configUSE_PREEMPTION 1",
        "#define configMAX_PRIORITIES with a level per urgency "
        f"({rtos_generic.MIN_PRIORITY_LEVELS} or more)",
    )


# ---- rtos-time-slicing ----
def time_slicing(f: Facts) -> Verdict:
    v, ev = _config(f, "configUSE_TIME_SLICING")
    hz, ev2 = _config(f, "configTICK_RATE_HZ")
    hz = hz if hz is not None else as_int(f.rtos_fact("tick_rate_hz"))
    evidence = [ev, f"tick rate: {hz} Hz"]
    if v is None:
        return unknown("configUSE_TIME_SLICING is not in the record", evidence)
    if v == 0:
        return Verdict(
            "pass",
            "no time slicing: a task keeps the CPU until it blocks or a higher one preempts",
            evidence,
            value="off",
        )
    fix = "#define configUSE_TIME_SLICING 0 (give real-time tasks priorities of their own)"
    slice_us = 1e6 / hz if hz else None
    budget_us = f.budget_ns / 1000
    if slice_us is None or slice_us >= budget_us:
        length = f"{slice_us:.0f} µs" if slice_us else "a tick"
        return Verdict(
            "fail",
            f"time slicing on: a task of equal priority keeps the CPU for a slice of {length}, "
            f"beyond the {budget_us:.0f} µs budget",
            evidence,
            fix,
            "on",
        )
    return Verdict(
        "warn",
        f"time slicing on: equal-priority tasks share the CPU in {slice_us:.0f} µs slices",
        evidence,
        fix,
        "on",
    )


# ---- rtos-tick-rate ----
def tick_rate(f: Facts) -> Verdict:
    hz, ev = _config(f, "configTICK_RATE_HZ")
    hz = hz if hz is not None else as_int(f.rtos_fact("tick_rate_hz"))
    evidence = [f"{CONFIG}: configTICK_RATE_HZ {hz}"]
    if not hz:
        return unknown("the tick rate is not in the record", evidence)
    return rtos_generic.tick_verdict(
        hz,
        evidence,
        "#define configTICK_RATE_HZ 1000 (or time the real-time work with a hardware timer)",
    )


# ---- rtos-assertions ----
def assertions(f: Facts) -> Verdict:
    asserts = f.a.asserts
    hook, ev = _config(f, "configUSE_MALLOC_FAILED_HOOK")
    evidence = [
        f"{CONFIG}: configASSERT {'defined' if asserts else 'not defined' if asserts is False else 'not recorded'}",
        ev,
    ]
    if asserts is None:
        return unknown("whether configASSERT is defined is not in the record", evidence)
    if asserts:
        return Verdict(
            "pass", "configASSERT stops the board on a broken invariant", evidence, value="on"
        )
    fix = "#define configASSERT(x) to stop (and report) when x is false"
    if not hook:
        return Verdict(
            "fail",
            "no assertion and no malloc-failed hook: a misuse of the kernel or "
            "a failed allocation runs on unnoticed",
            evidence,
            fix + "; #define configUSE_MALLOC_FAILED_HOOK 1",
            "off",
        )
    return Verdict(
        "warn",
        "no assertion: a misuse of the kernel (a blocking call from an "
        "interrupt) corrupts it silently",
        evidence,
        fix,
        "off",
    )


# ---- rtos-stack-check ----
def stack_check(f: Facts) -> Verdict:
    v, ev = _config(f, "configCHECK_FOR_STACK_OVERFLOW")
    if v is None:
        return unknown("configCHECK_FOR_STACK_OVERFLOW is not in the record", [ev])
    fix = "#define configCHECK_FOR_STACK_OVERFLOW 2 (and a vApplicationStackOverflowHook)"
    if v == 0:
        return Verdict(
            "fail",
            "no stack overflow check: an overflow corrupts the next task's memory unnoticed",
            [ev],
            fix,
            "off",
        )
    if v == 1:
        return Verdict(
            "warn",
            "method 1 checks only the stack pointer at a switch: an overflow "
            "that came back is missed",
            [ev],
            fix,
            "method 1",
        )
    return Verdict(
        "pass",
        "method 2: the stack's end pattern is checked at every switch (a few cycles per switch)",
        [ev],
        value=f"method {v}",
    )


# ---- rtos-mpu ----
def mpu(f: Facts) -> Verdict:
    used, ev = _config(f, "portUSING_MPU_WRAPPERS")
    regions = f.a.mpu_regions
    stack, ev2 = _config(f, "configCHECK_FOR_STACK_OVERFLOW")
    evidence = [
        f"MPU_TYPE (0xE000ED90): {regions if regions is not None else 'not read'} regions",
        ev,
    ]
    if regions is None and used is None:
        return unknown("the MPU is not in the record", evidence)
    if used:
        return Verdict(
            "pass", "the MPU port: tasks cannot write outside their regions", evidence, value="used"
        )
    if not regions:
        return Verdict("n/a", "the core has no MPU", evidence, value="none")
    fix = "the kernel's MPU port (portable/GCC/ARM_CM3_MPU) with restricted tasks"
    if not stack:
        return Verdict(
            "fail",
            f"an MPU of {regions} regions unused and no stack check: nothing "
            "stops a task writing over another's memory",
            evidence + [ev2],
            fix,
            "unused",
        )
    return Verdict(
        "warn",
        f"an MPU of {regions} regions, unused: a stray write from any task can corrupt the kernel",
        evidence,
        fix,
        "unused",
    )


# ---- rtos-trace-hooks ----
def trace_hooks(f: Facts) -> Verdict:
    """rtgauge's own flight recorder is told apart (audit.trace_recorder):
    its macros test one flag while no explained test records, and it needs
    the trace facility for task numbers only (set once, at a task's creation)."""
    hooks = f.a.trace_hooks
    recorder = set((f.a.trace_recorder or "").split())
    others = " ".join(h for h in (hooks or "").split() if h not in recorder)
    mine = " ".join(h for h in (hooks or "").split() if h in recorder)
    facility, ev = _config(f, "configUSE_TRACE_FACILITY")
    stats, ev2 = _config(f, "configGENERATE_RUN_TIME_STATS")
    evidence = [
        f"{CONFIG}: trace macros defined: {hooks or 'none' if hooks is not None else 'not recorded'}",
        ev,
        ev2,
    ]
    if mine:
        evidence.append(
            f"rtgauge's flight recorder's: {mine} (each a test of a flag while no explained "
            "test records)"
        )
    if hooks is None and facility is None:
        return unknown("the trace configuration is not in the record", evidence)
    fix = "leave the trace macros undefined and configUSE_TRACE_FACILITY, configGENERATE_RUN_TIME_STATS 0 for timing runs"
    if others:
        return Verdict(
            "fail",
            f"trace hooks run in the kernel's switch and tick paths: {others}",
            evidence,
            fix,
            "hooks",
        )
    if (facility and not mine) or stats:
        what = " and ".join(
            n
            for n, on in (("the trace facility", facility and not mine), ("run-time stats", stats))
            if on
        )
        return Verdict("warn", f"{what} on: bookkeeping at every switch", evidence, fix, what)
    if mine:
        return Verdict(
            "pass",
            "only rtgauge's flight recorder's hooks, idle but during explained tests",
            evidence,
            value="flight recorder",
        )
    return Verdict("pass", "no trace hook, no run-time statistics", evidence, value="none")


# ---- rtos-heap ----
def heap(f: Facts) -> Verdict:
    scheme = f.rtos_fact("heap")
    size = as_int(f.rtos_fact("heap_bytes"))
    low, when = rtos_generic.heap_low(f)
    evidence = [
        f"heap scheme: {scheme or 'not recorded'}, {size if size is not None else '?'} bytes",
        f"lowest free (xPortGetMinimumEverFreeHeapSize): {low if low is not None else 'not recorded'}"
        + when,
    ]
    if scheme is None or low is None or not size:
        return unknown("the heap is not in the record", evidence)
    return rtos_generic.heap_verdict(
        str(scheme),
        size,
        low,
        evidence,
        "heap_3 wraps the C library's malloc: its time is not bounded"
        if scheme == "heap_3"
        else None,
        (
            "a larger configTOTAL_HEAP_SIZE, or fewer allocations at run time",
            "heap_4 (or heap_1 with no frees), sized with room to spare",
        ),
    )


# ---- rtos-timer-task ----
def timer_task(f: Facts) -> Verdict:
    timers, ev = _config(f, "configUSE_TIMERS")
    prio, ev2 = _config(f, "configTIMER_TASK_PRIORITY")
    measured = f.system.privileges.prio + 1  # the OSAL's map: SCHED_FIFO p -> level p + 1
    evidence = [
        ev,
        ev2,
        f"the measured tasks' level: {measured} (SCHED_FIFO {f.system.privileges.prio})",
    ]
    if timers is None:
        return unknown("configUSE_TIMERS is not in the record", evidence)
    if not timers:
        return Verdict("n/a", "software timers off: no timer task", evidence, value="off")
    if prio is None:
        return unknown("configTIMER_TASK_PRIORITY is not in the record", evidence)
    # Its name as the trace windows give it (the record's, else the kernel's default).
    names = f.system.trace_names()
    name = names.timer_task if names else None
    who = f'the timer task "{name}"' if name else "the timer task"
    details = {"task": name} if name else {}
    fix = f"#define configTIMER_TASK_PRIORITY below the real-time tasks (under {measured})"
    if prio > measured:
        return Verdict(
            "fail",
            f"{who} (level {prio}) preempts the measured tasks: every timer callback runs first",
            evidence,
            fix,
            f"level {prio}",
            details,
        )
    if prio == measured:
        return Verdict(
            "warn",
            f"{who} shares the measured tasks' level {prio}",
            evidence,
            fix,
            f"level {prio}",
            details,
        )
    return Verdict(
        "pass",
        f"{who} (level {prio}) runs below the measured tasks",
        evidence,
        value=f"level {prio}",
        details=details,
    )


CHECKS = [
    Check(
        "rtos-preemption",
        "Preemptive scheduling",
        "With cooperative scheduling a task made ready waits for the running one to "
        "yield, however urgent: its latency is the other task's run.",
        preemption,
    ),
    Check(
        "rtos-time-slicing",
        "Time slicing",
        "With time slicing, tasks of equal priority take turns at every tick: a real-time "
        "task waits up to a slice for its turn.",
        time_slicing,
    ),
    Check(
        "rtos-tick-rate",
        "Tick rate",
        "Delays, timeouts and time slices count in ticks: the tick's length is their resolution.",
        tick_rate,
    ),
    Check(
        "rtos-assertions",
        "Assertions",
        "configASSERT catches a kernel misused (a blocking call from an interrupt, a "
        "priority out of range) before it corrupts the scheduler's lists; without it the "
        "board runs on, with figures nobody can trust.",
        assertions,
    ),
    Check(
        "rtos-stack-check",
        "Stack overflow checking",
        "A task's stack overflowing writes over another's memory: the scheduler then "
        "runs on corrupted state.",
        stack_check,
    ),
    Check(
        "rtos-mpu",
        "Memory protection (MPU)",
        "Without the MPU every task may write anywhere: a stray pointer in one task can "
        "corrupt the kernel and every other task.",
        mpu,
    ),
    Check(
        "rtos-trace-hooks",
        "Trace hooks",
        "Trace hooks and run-time statistics run in the kernel's own switch and tick "
        "paths, with interrupts masked: their time is in every figure.",
        trace_hooks,
    ),
    Check(
        "rtos-heap",
        "Heap scheme and free heap",
        "An allocator whose time is unbounded, or a heap near exhaustion, makes any "
        "allocation in the measured path late or failing.",
        heap,
    ),
    Check(
        "rtos-timer-task",
        "Timer task priority",
        "Software timer callbacks run in the timer task at its priority: above the "
        "real-time tasks, every callback delays them.",
        timer_task,
    ),
]
