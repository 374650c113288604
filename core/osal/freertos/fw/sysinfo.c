/* The system record on FreeRTOS: the same shape as on Linux (the fields
 * that only Linux has are null), plus "rtos": the kernel, its port, the
 * board and the configuration values that change behaviour. */
#include <stdio.h>
#include <string.h>

#include "FreeRTOS.h"
#include "board/board.h"
#include "fr_internal.h"
#include "fw.h"
#include "rtg/clock.h"
#include "rtg/registry.h"
#include "rtg/version.h"
#include "task.h"

size_t board_libc_heap_bytes(void);

/* Back-to-back reads of the measuring clock: its floor. */
static void clock_floor(struct rtg_json *j)
{
    enum { N = 2000 };
    uint64_t mn = UINT64_MAX, mx = 0;
    double sum = 0;
    for (int i = 0; i < N; i++) {
        uint64_t a = rtg_clock_ticks(), b = rtg_clock_ticks();
        uint64_t d = rtg_clock_delta_ns(a, b);
        mn = d < mn ? d : mn;
        mx = d > mx ? d : mx;
        sum += (double)d;
    }
    rtg_json_key(j, "floor_ns");
    rtg_json_obj_begin(j);
    rtg_json_kint(j, "count", N);
    rtg_json_kuint(j, "min", mn);
    rtg_json_knum(j, "mean", sum / N);
    rtg_json_kuint(j, "max", mx);
    rtg_json_obj_end(j);
}

static void rtos_facts(struct rtg_json *j)
{
    uint64_t rr_ns = 0;
    rtg_rr_interval_ns(&rr_ns);
    rtg_json_key(j, "rtos");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "name", "FreeRTOS");
    rtg_json_kstr(j, "kernel_version", tskKERNEL_VERSION_NUMBER);
    rtg_json_kstr(j, "port", "GCC/ARM_CM3");
    rtg_json_kstr(j, "board", BOARD_NAME);
    rtg_json_kstr(j, "cpu", BOARD_CPU);
    rtg_json_kint(j, "cpu_clock_hz", configCPU_CLOCK_HZ);
    rtg_json_kint(j, "tick_rate_hz", configTICK_RATE_HZ);
    rtg_json_kstr(j, "heap", "heap_4");
    rtg_json_kuint(j, "heap_bytes", configTOTAL_HEAP_SIZE);
    rtg_json_kuint(j, "libc_heap_bytes", board_libc_heap_bytes());
    rtg_json_kuint(j, "stack_cap_bytes", RTG_FR_STACK_MAX);
    rtg_json_key(j, "config");
    rtg_json_obj_begin(j);
    rtg_json_kint(j, "configUSE_PREEMPTION", configUSE_PREEMPTION);
    rtg_json_kint(j, "configUSE_TIME_SLICING", configUSE_TIME_SLICING);
    rtg_json_kint(j, "configMAX_PRIORITIES", configMAX_PRIORITIES);
    rtg_json_kint(j, "configUSE_MUTEXES", configUSE_MUTEXES);
    rtg_json_kint(j, "configUSE_PORT_OPTIMISED_TASK_SELECTION",
                  configUSE_PORT_OPTIMISED_TASK_SELECTION);
    rtg_json_kint(j, "configIDLE_SHOULD_YIELD", configIDLE_SHOULD_YIELD);
    rtg_json_kint(j, "configCHECK_FOR_STACK_OVERFLOW", configCHECK_FOR_STACK_OVERFLOW);
    rtg_json_obj_end(j);
    rtg_json_kstr(j, "priority_map",
                  "SCHED_OTHER -> 1; SCHED_FIFO/SCHED_RR level p (1..99) -> p + 1; the watchdog "
                  "(99) -> 100, the highest; idle 0");
    rtg_json_kstr(j, "round_robin", "per task by the OSAL's tick hook (time slicing off)");
    rtg_json_knum(j, "rr_slice_ns", (double)rr_ns);
    rtg_json_kstr(j, "clock", "CMSDK TIMER1, free-running at 25 MHz, extended to 64 bits");
    rtg_json_obj_end(j);
}

void fw_sysinfo_emit(struct rtg_json *j, int argc, char **argv, const struct rtg_config *cfg,
                     const struct fw_board_facts *b)
{
    bool icount = b->qemu && strcmp(b->qemu, "icount") == 0;
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "record", "system");
    rtg_json_kint(j, "schema_version", 1);
    rtg_json_key(j, "probe");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "version", RTG_VERSION);
    rtg_json_key(j, "argv");
    rtg_json_arr_begin(j);
    for (int i = 0; i < argc; i++)
        rtg_json_str(j, argv[i]);
    rtg_json_arr_end(j);
    rtg_json_key(j, "build");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "compiler", "gcc " __VERSION__);
    rtg_json_kstr(j, "libc", "newlib " _NEWLIB_VERSION);
    rtg_json_kbool(j, "static", true);
    rtg_json_kstr(j, "arch", "armv7-m");
    rtg_json_kbool(j, "test_hooks", RTG_TEST_HOOKS);
    rtg_json_kstr(j, "osal", RTG_OSAL_NAME);
    rtg_json_obj_end(j);
    rtg_json_obj_end(j);

    rtg_json_key(j, "host");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "hostname", BOARD_NAME);
    rtg_json_kstr(j, "os", "FreeRTOS");
    rtg_json_kstr(j, "os_pretty_name", "FreeRTOS-Kernel " tskKERNEL_VERSION_NUMBER " (GCC/ARM_CM3)");
    rtg_json_kstr(j, "release", tskKERNEL_VERSION_NUMBER);
    rtg_json_kstr(j, "version", "port GCC/ARM_CM3, heap_4, tick 1000 Hz");
    rtg_json_kstr(j, "machine", BOARD_CPU);
    rtg_json_obj_end(j);

    rtg_json_key(j, "kernel");
    rtg_json_obj_begin(j);
    rtg_json_knull(j, "preempt_model"); /* Linux's models do not apply */
    rtg_json_knull(j, "preempt_dynamic");
    rtg_json_kstr(j, "preempt_source", "FreeRTOSConfig.h: configUSE_PREEMPTION 1, fully preemptive");
    rtg_json_kbool(j, "realtime", true);
    rtg_json_knull(j, "hz_measured");
    rtg_json_kint(j, "hz_config", configTICK_RATE_HZ);
    rtg_json_knull(j, "cmdline");
    rtg_json_knull(j, "isolcpus");
    rtg_json_knull(j, "nohz_full");
    rtg_json_knull(j, "rt_runtime_us"); /* no RT throttling */
    rtg_json_knull(j, "rt_period_us");
    rtg_json_obj_end(j);

    rtg_json_key(j, "cpu");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "model", "ARM Cortex-M3, " BOARD_NAME);
    rtg_json_kint(j, "online", 1);
    rtg_json_kint(j, "configured", 1);
    rtg_json_knull(j, "governor");
    rtg_json_key(j, "selected");
    rtg_json_arr_begin(j);
    rtg_json_int(j, 0);
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);

    rtg_json_key(j, "clock");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "source", rtg_clock_source_name());
    rtg_json_kstr(j, "kernel_clocksource", "CMSDK TIMER1");
    rtg_json_knum(j, "freq_hz", rtg_clock_g.freq_hz);
    rtg_json_knum(j, "resolution_ns", rtg_clock_g.ns_per_tick);
    rtg_json_knum(j, "calibration_error_ppm", 0.0);
    clock_floor(j);
    rtg_json_obj_end(j);

    rtg_json_key(j, "virtualization");
    rtg_json_obj_begin(j);
    if (b->qemu) {
        rtg_json_kbool(j, "hypervisor", false);
        rtg_json_kstr(j, "vendor", icount ? "QEMU TCG, -icount" : "QEMU TCG");
        rtg_json_kbool(j, "emulated", true);
        if (icount)
            rtg_json_kint(j, "icount_shift", b->icount_shift);
    } else {
        rtg_json_knull(j, "hypervisor");
        rtg_json_knull(j, "vendor");
        rtg_json_knull(j, "emulated");
    }
    rtg_json_obj_end(j);

    rtg_json_key(j, "privileges");
    rtg_json_obj_begin(j);
    rtg_json_kint(j, "euid", 0);
    rtg_json_kbool(j, "sched_fifo", true);
    rtg_json_kbool(j, "mlockall", true);
    rtg_json_kstr(j, "mlockall_reason", "no virtual memory: everything is resident");
    rtg_json_kbool(j, "affinity", true);
    rtg_json_kint(j, "prio", cfg->prio);
    rtg_json_obj_end(j);

    rtg_json_key(j, "run");
    rtg_json_obj_begin(j);
    rtg_json_kbool(j, "quick", cfg->quick);
    rtg_json_knum(j, "duration_scale", cfg->scale);
    rtg_json_key(j, "tests");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < cfg->n_selected; i++)
        rtg_json_str(j, rtg_registry[cfg->selected[i]]->id);
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);

    rtos_facts(j);

    rtg_json_key(j, "warnings");
    rtg_json_arr_begin(j);
    if (icount)
        rtg_json_str(j, "emulated CPU (QEMU TCG with -icount): timings are virtual time, a "
                        "reproducible cost in instructions, not a real CPU's; behaviour verdicts "
                        "are valid");
    else if (b->qemu)
        rtg_json_str(j, "emulated CPU (QEMU TCG): timings are not meaningful; behaviour verdicts "
                        "are");
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);
}
