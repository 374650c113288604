"""Hand-made system and end records for the audit's unit tests: a Linux
machine set up for real time (every check passes), a FreeRTOS board, and the
audit of either after a change (each test changes what it judges)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from rtgauge.audit import Audit, Finding, judge
from rtgauge.model import End, System, TargetInfo, check_record

Record = dict[str, Any]
Change = Callable[[Record, Record], None]  # (system record, end record) -> None


def _idle() -> Record:
    return {
        "0": {"name": "POLL", "exit_latency_us": 0, "residency_us": 0, "disabled": 0},
        "1": {"name": "C1", "exit_latency_us": 2, "residency_us": 2, "disabled": 0},
        "2": {"name": "C6", "exit_latency_us": 133, "residency_us": 600, "disabled": 0},
    }


KCONFIG = {
    "source": "/boot/config-6.12.0-rt",
    "CONFIG_PREEMPT_RT": "y",
    "CONFIG_PREEMPT_DYNAMIC": "n",
    "CONFIG_HIGH_RES_TIMERS": "y",
    "CONFIG_NO_HZ_FULL": "y",
    "CONFIG_RCU_NOCB_CPU": "y",
    "CONFIG_RCU_BOOST": "y",
    "CONFIG_IRQ_FORCED_THREADING": "y",
    "CONFIG_KASAN": "n",
    "CONFIG_LOCKDEP": "n",
    "CONFIG_PROVE_LOCKING": "n",
    "CONFIG_DEBUG_PREEMPT": "n",
}


def linux_system() -> Record:
    """A 4-CPU machine, CPUs 2-3 isolated and measured, PREEMPT_RT."""
    return {
        "record": "system",
        "schema_version": 1,
        "probe": {
            "version": "0.1.0",
            "argv": ["rtgauge-probe", "--facts", "--cpus", "2-3"],
            "build": {"compiler": "gcc", "libc": "glibc", "static": False, "arch": "x86_64"},
        },
        "started_at": "2026-11-22T21:32:36Z",
        "host": {
            "hostname": "rt-box",
            "os": "Linux",
            "os_pretty_name": "Debian",
            "release": "6.12.0-rt",
            "version": "#1 SMP PREEMPT_RT",
            "machine": "x86_64",
        },
        "kernel": {
            "preempt_model": "rt",
            "preempt_dynamic": False,
            "preempt_source": "uname -v",
            "realtime": True,
            "hz_config": 1000,
            "hz_measured": None,
            "cmdline": "BOOT_IMAGE=/vmlinuz isolcpus=domain,managed_irq,2-3 nohz_full=2-3 "
            "rcu_nocbs=2-3 irqaffinity=0-1 -- init-arg",
            "isolcpus": "2-3",
            "nohz_full": "2-3",
            "rt_runtime_us": 950000,
            "rt_period_us": 1000000,
        },
        "cpu": {
            "model": "x",
            "online": 4,
            "configured": 4,
            "governor": "performance",
            "selected": [2, 3],
        },
        "clock": {
            "source": "tsc",
            "kernel_clocksource": "tsc",
            "freq_hz": 2.6e9,
            "floor_ns": {"count": 1, "min": 10, "mean": 10.0, "max": 10},
        },
        "virtualization": {"hypervisor": False, "vendor": None, "emulated": False},
        "privileges": {
            "euid": 0,
            "sched_fifo": True,
            "mlockall": True,
            "affinity": True,
            "cpu_dma_latency": True,
            "prio": 95,
        },
        "run": {"quick": False, "duration_scale": 1, "tests": []},
        "warnings": [],
        "audit": {
            "preempt": {"realtime_file": None, "debugfs": None},
            "kconfig": dict(KCONFIG),
            "cpus": {
                str(c): {
                    "siblings": str(c),
                    "governor": "performance",
                    "driver": "acpi-cpufreq",
                    "min_khz": 800000,
                    "max_khz": 3000000,
                    "hw_max_khz": 3000000,
                    "node": 0,
                    "idle": _idle(),
                }
                for c in (2, 3)
            },
            "cpufreq": {"boost": 0},
            "cpuidle": {"driver": "intel_idle", "governor": "menu"},
            "smt": {"control": "off", "active": 0},
            "affinity": "0-3",
            "cpuset": {"version": 2, "path": "/", "cpus": "0-3", "isolated": ""},
            "housekeeping": {"workqueue_cpumask": "3", "kthread_cpus": "0-1"},
            "irq": {"default_affinity": "3"},
            "irqs": {
                "24": {
                    "name": "IO-APIC 5-edge ACPI",
                    "affinity": "0-1",
                    "effective": "0",
                    "count": 0,
                },
                "30": {"name": "PCI-MSI eth0", "affinity": "0-1", "effective": "1", "count": 0},
            },
            "ipis": {"LOC": {"name": "Local timer interrupts", "count": 10}},
            "sysctl": {
                "timer_migration": 0,
                "nmi_watchdog": 0,
                "watchdog": 1,
                "soft_watchdog": 1,
                "watchdog_thresh": 10,
                "numa_balancing": 0,
                "watchdog_cpumask": "0-1",
            },
            "thp": {
                "enabled": "always [madvise] never",
                "defrag": "always defer defer+madvise [madvise] never",
                "khugepaged_defrag": 1,
            },
            "swap": {"total_kb": 0, "devices": 0},
            "clock": {
                "available": "tsc hpet acpi_pm",
                "tsc_constant": True,
                "tsc_nonstop": True,
                "tsc_reliable": False,
            },
            "numa": {"nodes": "0"},
            "steal": {"ticks": 0, "clk_tck": 100},
            "smi": {"count": 0, "source": "/dev/cpu/2/msr"},
            "rt_tasks": None,
            "rt_tasks_more": 0,
        },
    }


def linux_end() -> Record:
    return {
        "record": "end",
        "schema_version": 1,
        "status": "complete",
        "tests": 0,
        "passed": 0,
        "failed": 0,
        "errors": 0,
        "skipped": 0,
        "interrupted": 0,
        "exit_code": 0,
        "elapsed_ms": 1000,
        "audit": {
            "irqs": {"24": {"count": 0}, "30": {"count": 0}},
            "ipis": {"LOC": {"count": 11}},
            "steal": {"ticks": 0, "clk_tck": 100},
            "smi": {"count": 0},
        },
    }


def freertos_system() -> Record:
    """The rtgauge firmware's record, as on QEMU's MPS2 AN385 but not emulated."""
    s = linux_system()
    s["host"] = {
        "hostname": "mps2-an385",
        "os": "FreeRTOS",
        "os_pretty_name": "FreeRTOS-Kernel",
        "release": "11.1.0",
        "version": "port GCC/ARM_CM3",
        "machine": "cortex-m3",
    }
    s["kernel"] = {
        "preempt_model": None,
        "preempt_dynamic": None,
        "preempt_source": "FreeRTOSConfig.h",
        "realtime": True,
        "hz_config": 1000,
        "hz_measured": None,
        "cmdline": None,
        "isolcpus": None,
        "nohz_full": None,
        "rt_runtime_us": None,
        "rt_period_us": None,
    }
    s["cpu"] = {"model": "M3", "online": 1, "configured": 1, "governor": None, "selected": [0]}
    s["clock"]["kernel_clocksource"] = "CMSDK TIMER1"
    s["privileges"]["euid"] = -1
    s["rtos"] = {
        "name": "FreeRTOS",
        "tick_rate_hz": 1000,
        "heap": "heap_4",
        "heap_bytes": 1000000,
        "config": {
            "configUSE_PREEMPTION": 1,
            "configUSE_TIME_SLICING": 0,
            "configMAX_PRIORITIES": 101,
            "configCHECK_FOR_STACK_OVERFLOW": 2,
            "configUSE_TRACE_FACILITY": 0,
            "configGENERATE_RUN_TIME_STATS": 0,
            "configUSE_MALLOC_FAILED_HOOK": 0,
            "configUSE_TIMERS": 1,
            "configTIMER_TASK_PRIORITY": 10,
            "portUSING_MPU_WRAPPERS": 1,
            "configTICK_RATE_HZ": 1000,
        },
    }
    s["audit"] = {
        "asserts": True,
        "trace_hooks": "",
        "mpu_regions": 8,
        "heap_free_bytes": 900000,
        "heap_min_free_bytes": 800000,
    }
    return s


def freertos_end() -> Record:
    end = linux_end()
    end["audit"] = {"heap_free_bytes": 900000, "heap_min_free_bytes": 700000}
    return end


def audit_of(
    change: Change | None = None,
    system: Callable[[], Record] = linux_system,
    end: Callable[[], Record] | None = linux_end,
    target: Record | None = None,
    budget_ns: float = 100_000.0,
) -> Audit:
    s = copy.deepcopy(system())
    e = copy.deepcopy(end()) if end else None
    if change:
        change(s, e if e is not None else {})
    sv = System.read(check_record(s, "system"))
    ev = End.read(check_record(e, "end")) if e is not None else None
    return judge(sv, ev, TargetInfo.read(target or {"kind": "local"}), budget_ns)


def finding(check_id: str, change: Change | None = None, **kw: Any) -> Finding:
    f = audit_of(change, **kw).get(check_id)
    assert f is not None, check_id
    return f
