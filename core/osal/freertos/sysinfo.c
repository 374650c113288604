/* System facts on FreeRTOS (rtg/osal_sys.h). The board cannot see that it
 * is emulated: the host says so on the command line (--fw-qemu tcg, or
 * icount:SHIFT), and fw/main.c passes it on (rtg_fr_set_board_facts).
 * Beside "kernel", the port writes "rtos": the kernel, its port, the board
 * and the configuration values that change behaviour. */
#include <stdio.h>
#include <string.h>

#include "FreeRTOS.h"
#include "board/board.h"
#include "fr_internal.h"
#include "rtg/osal_sys.h"
#include "task.h"


/* Queues (msg.c) and a hardware timer with an interrupt handler (timer.c);
 * the topics FreeRTOS has no equivalent for link from core/osal/none/. */
unsigned rtg_osal_offers(void) { return RTG_OFFERS_MSG_QUEUES | RTG_OFFERS_TIMERS; }

static const char *qemu_mode; /* NULL: not said; "tcg"; "icount" */
static int icount_shift;

void rtg_fr_set_board_facts(const char *qemu, int shift)
{
    qemu_mode = qemu;
    icount_shift = shift;
}

void rtg_sys_privileges(int prio, bool no_rt, int cpu, struct rtg_privileges *p)
{
    (void)prio;
    *p = (struct rtg_privileges){.euid = -1, .sched_fifo = !no_rt, .mlockall = true};
    if (no_rt)
        snprintf(p->sched_fifo_reason, sizeof p->sched_fifo_reason, "--no-rt given");
    snprintf(p->mlockall_reason, sizeof p->mlockall_reason,
             "no virtual memory: everything is resident");
    p->affinity = rtg_pin_self(cpu) == 0;
}

bool rtg_sys_virtualized(void) { return false; }

/* The kernel's tick: configured, and known exactly. */
double rtg_sys_tick_hz(int cpu, const char **source)
{
    (void)cpu;
    *source = "CONFIG_HZ (FreeRTOS configTICK_RATE_HZ)";
    return configTICK_RATE_HZ;
}
/* The measuring clock here is the board's timer (clock.c), not a CPU counter
 * whose flags would need asking. */
bool rtg_sys_cpu_flag(const char *flag)
{
    (void)flag;
    return false;
}
bool rtg_sys_emulated(void) { return qemu_mode != NULL; }

void rtg_sys_hypervisor_vendor(char *out, size_t n)
{
    if (!qemu_mode)
        snprintf(out, n, "%s", "");
    else if (strcmp(qemu_mode, "icount") == 0)
        snprintf(out, n, "QEMU TCG, -icount shift=%d", icount_shift);
    else
        snprintf(out, n, "QEMU TCG");
}

void rtg_sys_emit_host(struct rtg_json *j)
{
    rtg_json_key(j, "host");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "hostname", BOARD_NAME);
    rtg_json_kstr(j, "os", "FreeRTOS");
    rtg_json_kstr(j, "os_pretty_name", "FreeRTOS-Kernel " tskKERNEL_VERSION_NUMBER " (GCC/ARM_CM3)");
    rtg_json_kstr(j, "release", tskKERNEL_VERSION_NUMBER);
    rtg_json_kstr(j, "version", "port GCC/ARM_CM3, heap_4, tick 1000 Hz");
    rtg_json_kstr(j, "machine", BOARD_CPU);
    rtg_json_obj_end(j);
}

static void emit_rtos(struct rtg_json *j)
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
    rtg_json_kstr(j, "malloc", "pvPortMalloc / vPortFree (heap_4)");
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
    rtg_json_kstr(j, "interrupt_source", "CMSDK TIMER0, IRQ 8");
    if (qemu_mode && strcmp(qemu_mode, "icount") == 0)
        rtg_json_kint(j, "icount_shift", icount_shift);
    rtg_json_obj_end(j);
}

/* "kernel" has the keys every record has (Linux's facts null here), then
 * "rtos" beside it. */
void rtg_sys_emit_kernel(struct rtg_json *j, int cpu)
{
    (void)cpu;
    rtg_json_key(j, "kernel");
    rtg_json_obj_begin(j);
    rtg_json_knull(j, "preempt_model"); /* Linux's preemption models do not apply */
    rtg_json_knull(j, "preempt_dynamic");
    rtg_json_kstr(j, "preempt_source", "FreeRTOSConfig.h: configUSE_PREEMPTION 1, fully preemptive");
    rtg_json_kbool(j, "realtime", true);
    rtg_json_kint(j, "hz_config", configTICK_RATE_HZ);
    rtg_json_knull(j, "hz_measured");
    rtg_json_knull(j, "cmdline");
    rtg_json_knull(j, "isolcpus");
    rtg_json_knull(j, "nohz_full");
    rtg_json_knull(j, "rt_runtime_us"); /* no RT throttling */
    rtg_json_knull(j, "rt_period_us");
    rtg_json_obj_end(j);
    emit_rtos(j);
}

void rtg_sys_emit_cpu_facts(struct rtg_json *j)
{
    rtg_json_kstr(j, "model", "ARM Cortex-M3, " BOARD_NAME);
    rtg_json_kint(j, "online", 1);
    rtg_json_kint(j, "configured", 1);
    rtg_json_knull(j, "governor");
}

void rtg_sys_emit_clock_facts(struct rtg_json *j)
{
    rtg_json_kstr(j, "kernel_clocksource", "CMSDK TIMER1");
    rtg_json_knum(j, "resolution_ns", 1e9 / BOARD_SYSCLK_HZ);
}

void rtg_sys_emit_warnings(struct rtg_json *j)
{
    if (qemu_mode && strcmp(qemu_mode, "icount") == 0)
        rtg_json_str(j, "QEMU instruction counting (-icount): timings are virtual time, a "
                        "reproducible cost in instructions, not a real CPU's");
}
