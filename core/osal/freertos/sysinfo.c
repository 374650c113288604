/* System facts on FreeRTOS (rtg/osal_sys.h). The board cannot see that it
 * is emulated: the host says so on the command line (--fw-qemu tcg, or
 * icount:SHIFT), and core/boards/firmware/main.c passes it on
 * (rtg_fr_set_board_facts). Beside "kernel", the port names the facts of
 * "rtos" (rtg_sys_extra): the kernel, its port and the configuration
 * values that change behaviour; and of "board": the part, its clock, its
 * flash and RAM and what the firmware takes of them, the heap left once
 * the firmware has started. The stacks' high-water marks come at the end
 * (stacks.c), and the host adds them to "board". */
#include <stdio.h>
#include <string.h>

/* The configuration first, alone: which trace hooks it defines itself is
 * known only before FreeRTOS.h fills in its empty defaults. */
#include "FreeRTOSConfig.h"
static const char config_trace_hooks[] = ""
#ifdef traceTASK_SWITCHED_IN
                                         " traceTASK_SWITCHED_IN"
#endif
#ifdef traceTASK_SWITCHED_OUT
                                         " traceTASK_SWITCHED_OUT"
#endif
#ifdef traceTASK_INCREMENT_TICK
                                         " traceTASK_INCREMENT_TICK"
#endif
#ifdef traceMOVED_TASK_TO_READY_STATE
                                         " traceMOVED_TASK_TO_READY_STATE"
#endif
#ifdef traceTASK_CREATE
                                         " traceTASK_CREATE"
#endif
#ifdef traceQUEUE_SEND
                                         " traceQUEUE_SEND"
#endif
#ifdef traceQUEUE_RECEIVE
                                         " traceQUEUE_RECEIVE"
#endif
#ifdef traceTASK_DELAY_UNTIL
                                         " traceTASK_DELAY_UNTIL"
#endif
#ifdef traceISR_ENTER
                                         " traceISR_ENTER"
#endif
    ;
/* Of those, the flight recorder's (FreeRTOSConfig.h says which): the
 * audit tells them from a tracer built into the system measured. */
#ifdef RTG_FR_RECORDER_HOOKS
static const char config_recorder_hooks[] = RTG_FR_RECORDER_HOOKS;
#else
static const char config_recorder_hooks[] = "";
#endif
#ifdef configASSERT
#define RTG_FR_ASSERTS true
#else
#define RTG_FR_ASSERTS false
#endif

#include "FreeRTOS.h"
#include "board.h"
#include "fr_internal.h"
#include "rtg/hist.h"
#include "rtg/osal_sys.h"
#include "task.h"

#define PORT_NAME "GCC/" RTG_FREERTOS_PORT

extern char __data_load__, __data_start__, __data_end__, __bss_start__, __bss_end__;

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

bool rtg_sys_steal_ns(uint64_t *ns)
{
    (void)ns;
    return false;
}

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

static void host_facts(struct rtg_sys_host *h)
{
    rtg_sys_text_set(&h->hostname, BOARD_NAME);
    rtg_sys_text_set(&h->os, "FreeRTOS");
    rtg_sys_text_set(&h->os_pretty_name,
                     "FreeRTOS-Kernel " tskKERNEL_VERSION_NUMBER " (" PORT_NAME ")");
    rtg_sys_text_set(&h->release, tskKERNEL_VERSION_NUMBER);
    rtg_sys_text_set(&h->version,
                     "port " PORT_NAME ", heap_5, tick 1000 Hz, profile " RTG_PROFILE_NAME);
    rtg_sys_text_set(&h->machine, BOARD_CPU);
}

/* "kernel" has the keys every record has; Linux's facts stay unknown. */
static void kernel_facts(struct rtg_sys_kernel *k)
{
    /* preempt_model, preempt_dynamic: Linux's preemption models do not apply */
    rtg_sys_text_set(&k->preempt_source,
                     "FreeRTOSConfig.h: configUSE_PREEMPTION 1, fully preemptive");
    k->realtime = (struct rtg_sys_bool){.known = true, .v = true};
    k->hz_config = (struct rtg_sys_int){.known = true, .v = configTICK_RATE_HZ};
    /* hz_measured, cmdline, isolcpus, nohz_full: none; rt_*: no RT throttling */
}

/* The part and what the firmware takes of it. */
static void board_facts(struct rtg_sys_extra *x)
{
    size_t data = (size_t)(&__data_end__ - &__data_start__);
    size_t bss = (size_t)(&__bss_end__ - &__bss_start__);
    rtg_sys_extra_text(x, "board.name", BOARD_NAME);
    rtg_sys_extra_text(x, "board.cpu", BOARD_CPU);
    rtg_sys_extra_uint(x, "board.core_clock_hz", board_core_hz);
    rtg_sys_extra_text(x, "board.clock_tree", board_clock_tree());
    rtg_sys_extra_uint(x, "board.flash_bytes", BOARD_FLASH_BYTES);
    rtg_sys_extra_uint(x, "board.ram_bytes", BOARD_RAM_BYTES);
    rtg_sys_extra_text(x, "board.ram", BOARD_RAM_KIND);
    rtg_sys_extra_uint(x, "board.flash_used_bytes",
                       (size_t)(uintptr_t)&__data_load__ + data - BOARD_FLASH_ORIGIN);
    rtg_sys_extra_uint(x, "board.static_ram_bytes", data + bss);
    rtg_sys_extra_uint(x, "board.interrupt_stack_bytes", board_msp_stack_bytes());
    rtg_sys_extra_uint(x, "board.heap_bytes", rtg_fr_heap_total());
    rtg_sys_extra_uint(x, "board.heap_free_after_start_bytes", xPortGetFreeHeapSize());
    rtg_sys_extra_text(x, "board.uart", BOARD_UART_NAME);
    rtg_sys_extra_text(x, "board.irq_timer", board_irq_timer_name);
    rtg_sys_extra_uint(x, "board.irq_timer_hz", board_irq_timer_hz);
    rtg_sys_extra_uint(x, "board.histogram_sub_bucket_bits", RTG_HIST_SUB_BITS);
}

static void rtos_facts(struct rtg_sys_extra *x)
{
    uint64_t rr_ns = 0;
    rtg_rr_interval_ns(&rr_ns);
    rtg_sys_extra_text(x, "rtos.name", "FreeRTOS");
    rtg_sys_extra_text(x, "rtos.kernel_version", tskKERNEL_VERSION_NUMBER);
    rtg_sys_extra_text(x, "rtos.port", PORT_NAME);
    rtg_sys_extra_text(x, "rtos.board", BOARD_NAME);
    rtg_sys_extra_text(x, "rtos.cpu", BOARD_CPU);
    rtg_sys_extra_int(x, "rtos.cpu_clock_hz", configCPU_CLOCK_HZ);
    rtg_sys_extra_int(x, "rtos.tick_rate_hz", configTICK_RATE_HZ);
    rtg_sys_extra_text(x, "rtos.profile", RTG_PROFILE_NAME);
    rtg_sys_extra_text(x, "rtos.heap", "heap_5");
    rtg_sys_extra_uint(x, "rtos.heap_bytes", rtg_fr_heap_total());
    rtg_sys_extra_text(x, "rtos.malloc", "pvPortMalloc / vPortFree (heap_5)");
    rtg_sys_extra_uint(x, "rtos.stack_cap_bytes", RTG_FR_STACK_MAX);
    rtg_sys_extra_int(x, "rtos.config.configUSE_PREEMPTION", configUSE_PREEMPTION);
    rtg_sys_extra_int(x, "rtos.config.configUSE_TIME_SLICING", configUSE_TIME_SLICING);
    rtg_sys_extra_int(x, "rtos.config.configMAX_PRIORITIES", configMAX_PRIORITIES);
    rtg_sys_extra_int(x, "rtos.config.configUSE_MUTEXES", configUSE_MUTEXES);
    rtg_sys_extra_int(x, "rtos.config.configUSE_PORT_OPTIMISED_TASK_SELECTION",
                      configUSE_PORT_OPTIMISED_TASK_SELECTION);
    rtg_sys_extra_int(x, "rtos.config.configIDLE_SHOULD_YIELD", configIDLE_SHOULD_YIELD);
    rtg_sys_extra_int(x, "rtos.config.configCHECK_FOR_STACK_OVERFLOW",
                      configCHECK_FOR_STACK_OVERFLOW);
    rtg_sys_extra_int(x, "rtos.config.configUSE_TRACE_FACILITY", configUSE_TRACE_FACILITY);
    rtg_sys_extra_int(x, "rtos.config.configUSE_TICK_HOOK", configUSE_TICK_HOOK);
    rtg_sys_extra_int(x, "rtos.config.configUSE_NEWLIB_REENTRANT", configUSE_NEWLIB_REENTRANT);
    rtg_sys_extra_int(x, "rtos.config.configTICK_RATE_HZ", configTICK_RATE_HZ);
    rtg_sys_extra_int(x, "rtos.config.configGENERATE_RUN_TIME_STATS",
                      configGENERATE_RUN_TIME_STATS);
    rtg_sys_extra_int(x, "rtos.config.configUSE_TICKLESS_IDLE", configUSE_TICKLESS_IDLE);
    rtg_sys_extra_int(x, "rtos.config.configUSE_MALLOC_FAILED_HOOK", configUSE_MALLOC_FAILED_HOOK);
    rtg_sys_extra_int(x, "rtos.config.configUSE_TIMERS", configUSE_TIMERS);
#ifdef configTIMER_TASK_PRIORITY
    rtg_sys_extra_int(x, "rtos.config.configTIMER_TASK_PRIORITY", configTIMER_TASK_PRIORITY);
#else
    rtg_sys_extra_add(x, "rtos.config.configTIMER_TASK_PRIORITY", RTG_FACT_NULL);
#endif
    rtg_sys_extra_int(x, "rtos.config.portUSING_MPU_WRAPPERS", portUSING_MPU_WRAPPERS);
#if RTG_PROFILE_LEAN
    rtg_sys_extra_text(x, "rtos.priority_map",
                       "SCHED_OTHER -> 1; SCHED_FIFO/SCHED_RR level p (1..30) -> p + 1; the "
                       "watchdog (30) -> 31, the highest; idle 0");
#else
    rtg_sys_extra_text(x, "rtos.priority_map",
                       "SCHED_OTHER -> 1; SCHED_FIFO/SCHED_RR level p (1..99) -> p + 1; the "
                       "watchdog (99) -> 100, the highest; idle 0");
#endif
    rtg_sys_extra_text(x, "rtos.round_robin", "per task by the OSAL's tick hook (time slicing off)");
    rtg_sys_extra_num(x, "rtos.rr_slice_ns", (double)rr_ns);
    rtg_sys_extra_text(x, "rtos.interrupt_source", board_irq_timer_name);
    /* How the trace windows name the idle task, the timer task (none
     * without software timers) and the tick: the host reads names here. */
    rtg_sys_extra_text(x, "rtos.trace_names.idle_task", configIDLE_TASK_NAME);
#if configUSE_TIMERS
    rtg_sys_extra_text(x, "rtos.trace_names.timer_task", configTIMER_SERVICE_TASK_NAME);
#else
    rtg_sys_extra_add(x, "rtos.trace_names.timer_task", RTG_FACT_NULL);
#endif
    rtg_sys_extra_text(x, "rtos.trace_names.tick", RTG_FR_TICK_NAME);
    if (qemu_mode && strcmp(qemu_mode, "icount") == 0)
        rtg_sys_extra_int(x, "rtos.icount_shift", icount_shift);
}

/* The MPU's region count, from the Armv7-M MPU_TYPE register (DREGION,
 * bits 15:8): 0 when the core has none. The runner's task is privileged
 * (the non-MPU port), so it may read the System Control Space. */
static unsigned mpu_regions(void)
{
    return (unsigned)((*(volatile uint32_t *)0xE000ED90u >> 8) & 0xffu);
}

/* The audit's own facts (docs/audit.md): what the configuration holds
 * beyond its values, the MPU, and the heap now. */
static void audit_facts(struct rtg_sys_extra *x)
{
    rtg_sys_extra_bool(x, "audit.asserts", RTG_FR_ASSERTS);
    rtg_sys_extra_text(x, "audit.trace_hooks", config_trace_hooks[0] ? config_trace_hooks + 1 : "");
    rtg_sys_extra_text(x, "audit.trace_recorder", config_recorder_hooks);
    rtg_sys_extra_int(x, "audit.mpu_regions", mpu_regions());
    rtg_sys_extra_uint(x, "audit.heap_free_bytes", xPortGetFreeHeapSize());
    rtg_sys_extra_uint(x, "audit.heap_min_free_bytes", xPortGetMinimumEverFreeHeapSize());
}

/* At the run's end: how low the heap went while the tests ran. */
void rtg_sys_end_facts(const int *cpus, size_t n_cpus, struct rtg_sys_extra *x)
{
    (void)cpus;
    (void)n_cpus;
    rtg_sys_extra_uint(x, "audit.heap_free_bytes", xPortGetFreeHeapSize());
    rtg_sys_extra_uint(x, "audit.heap_min_free_bytes", xPortGetMinimumEverFreeHeapSize());
}

void rtg_sys_facts(const int *cpus, size_t n_cpus, struct rtg_sys_facts *f)
{
    (void)cpus;
    (void)n_cpus;
    host_facts(&f->host);
    kernel_facts(&f->kernel);
    rtos_facts(&f->extra);
    board_facts(&f->extra);
    audit_facts(&f->extra);
    rtg_sys_text_set(&f->cpu.model, BOARD_CPU_MODEL);
    f->cpu.online = 1;
    f->cpu.configured = 1;
    rtg_sys_text_set(&f->clock.kernel_clocksource, board_clock_name());
    rtg_sys_extra_num(&f->extra, "clock.resolution_ns", 1e9 / board_clock_hz());
    rtg_sys_extra_text(&f->extra, "clock.counter",
                       board_clock_is_cycle_counter()
                           ? "the core's DWT cycle counter (it counts: checked at boot)"
                           : "a hardware timer: the core's DWT cycle counter is absent or does "
                             "not count (checked at boot)");
    if (qemu_mode && strcmp(qemu_mode, "icount") == 0)
        rtg_sys_warning(&f->warnings,
                        "QEMU instruction counting (-icount): timings are virtual time, a "
                        "reproducible cost in instructions, not a real CPU's");
}
