/* Shared inside the FreeRTOS port. */
#ifndef RTG_FR_INTERNAL_H
#define RTG_FR_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "FreeRTOS.h"
#include "rtg/osal.h"
#include "task.h"

/* Round robin: a slice of this many ticks (1 ms each). */
#define RTG_FR_RR_TICKS 10u
/* Stacks, the same on every board, sized from what the catalogue uses (the
 * system record's "board.stacks" says it for each run): the runner's and
 * a test's body write records (JSON, number formatting); the threads a
 * test creates only measure, and their stacks are capped (the catalogue
 * asks 64 KiB, a microcontroller has 128 KB in all). A task that overflows
 * its stack ends the board with "task stack overflow". */
#define RTG_FR_STACK_MAX (3u * 1024u)
#define RTG_FR_STACK_DEFAULT (3u * 1024u)
#define RTG_FR_RUNNER_STACK (10u * 1024u)
#define RTG_FR_TEST_STACK (10u * 1024u)
/* The names a trace window gives the kernel's own tasks and the tick's
 * vector, which the system record says (sysinfo.c, "rtos.trace_names"):
 * the idle and timer tasks' as tasks.c and timers.c default them when
 * FreeRTOSConfig.h does not name them, the tick's the flight recorder's
 * (trace_window.c). */
#ifndef configIDLE_TASK_NAME
#define configIDLE_TASK_NAME "IDLE"
#endif
#ifndef configTIMER_SERVICE_TASK_NAME
#define configTIMER_SERVICE_TASK_NAME "Tmr Svc"
#endif
#define RTG_FR_TICK_NAME "tick"
/* The catalogue's levels on FreeRTOS's (FreeRTOSConfig.h). */
#define RTG_FR_PRIO_OTHER 1u
#define RTG_FR_PRIO_WATCHDOG (configMAX_PRIORITIES - 1u)

UBaseType_t rtg_fr_priority(enum rtg_policy policy, int prio);
/* Ticks to wait until the absolute rtg_mono_ns deadline, rounded up. */
TickType_t rtg_fr_ticks_until(uint64_t deadline_ns);
/* sync.c: a semaphore or mutex handle taken until deadline_ns (UINT64_MAX:
 * no bound). One that is free is taken without reading a clock; a wait
 * that blocks works out its ticks once a round and ends only once the
 * deadline has passed (a tick count can end it early): 0, ETIMEDOUT, EINTR. */
int rtg_fr_take_until(void *handle, uint64_t deadline_ns);
/* Tasks that the OSAL created and nobody joined yet (the runner's check). */
unsigned rtg_fr_live_threads(void);
/* Makes the calling task (created outside the OSAL) known to it. */
void rtg_fr_adopt_self(enum rtg_policy policy, int prio);
/* Whether the running task is one the OSAL created (a test's). */
bool rtg_fr_is_test_task(void);
/* Wakes every OSAL task from its delay (a stop request was made). */
void rtg_fr_abort_delays(void);
/* What the host said it started the board under (core/boards/firmware,
 * sysinfo.c): qemu NULL (not said), "tcg" or "icount" with its shift. */
void rtg_fr_set_board_facts(const char *qemu, int icount_shift);
/* The heap's size once the OS layer set it up (heap.c). */
size_t rtg_fr_heap_total(void);
/* Stacks (stacks.c): the runner's task; each test as it begins; each task
 * before it is deleted (its high-water mark); what they came to, written
 * into the end record (rtg_fr_stacks_write: "board": {"stacks": ...}). */
void rtg_fr_stacks_adopt_runner(TaskHandle_t task);
void rtg_fr_stacks_test_begin(const char *id);
void rtg_fr_stacks_test_body(TaskHandle_t task);
/* A thread with exactly the stack asked for, not capped (a test's body). */
int rtg_fr_thread_create_exact(rtg_thread_t *out, const struct rtg_thread_attr *a,
                               rtg_thread_fn fn, void *arg);
/* The task of an OSAL thread (thread.c). */
TaskHandle_t rtg_fr_thread_task(rtg_thread_t t);
void rtg_fr_stacks_task_ended(TaskHandle_t task, size_t stack_bytes);
struct rtg_json;
void rtg_fr_stacks_write(struct rtg_json *j);
/* Deletes every OSAL task but the caller's (the watchdog's last resort). */
unsigned rtg_fr_delete_all_threads(void);

#endif
