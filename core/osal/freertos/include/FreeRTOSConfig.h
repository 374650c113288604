/* FreeRTOS configuration of the rtgauge firmware, the same on every board
 * but for what the board's board_config.h says (its NVIC priority bits)
 * and its core clock, known once the board has set it up. The values that
 * change behaviour are reported in the system record
 * (core/osal/freertos/sysinfo.c): keep the two in step. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include <stdint.h>

#include "board_config.h"

/* The firmware's profile (RTG_PROFILE, core/boards/CMakeLists.txt):
 * "checked", the default, with the kernel's own checks on (configASSERT,
 * stack overflow checking, the generic task selection over a level per
 * catalogue priority); "lean", what a product ships: the checks off and
 * the port's optimised task selection (a count-leading-zeros over a
 * 32-bit map of the ready priorities), so at most 32 levels. The system
 * record names it (rtos.profile) beside the values it sets. */
#ifndef RTG_PROFILE_LEAN
#define RTG_PROFILE_LEAN 0
#endif
#if RTG_PROFILE_LEAN
#define RTG_PROFILE_NAME "lean"
#else
#define RTG_PROFILE_NAME "checked"
#endif

extern uint32_t board_core_hz; /* core/boards/<board>/board.c */
#define configCPU_CLOCK_HZ (board_core_hz)
#define configTICK_RATE_HZ 1000
#define configUSE_PREEMPTION 1
/* Off: equal priorities do not share the CPU by themselves, so a task made
 * RTG_SCHED_FIFO keeps it until it blocks or yields. Round robin is given
 * per task by the OSAL's tick hook (thread.c), one slice = RTG_FR_RR_TICKS. */
#define configUSE_TIME_SLICING 0
#if RTG_PROFILE_LEAN
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1
/* 0 idle, 1 the catalogue's SCHED_OTHER, 2..31 its FIFO/RR levels 1..30
 * (30 is the watchdog's, the default test level 29): the OSAL offers
 * SCHED_FIFO 1..30 here (thread.c), one FreeRTOS level per catalogue
 * level still. */
#define configMAX_PRIORITIES 32
#else
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
/* 0 idle, 1 the catalogue's SCHED_OTHER, 2..100 its FIFO/RR levels 1..99
 * (99 is the watchdog's): one FreeRTOS level per catalogue level. */
#define configMAX_PRIORITIES 101
#endif
/* The catalogue's highest FIFO/RR level: the watchdog's. */
#define RTG_FR_FIFO_MAX (configMAX_PRIORITIES - 2)
#define configMINIMAL_STACK_SIZE 256
#define configMAX_TASK_NAME_LEN 16
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configUSE_MUTEXES 1
#define configUSE_RECURSIVE_MUTEXES 0
#define configUSE_COUNTING_SEMAPHORES 1
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_QUEUE_SETS 0
#define configNUM_THREAD_LOCAL_STORAGE_POINTERS 1
#define configUSE_NEWLIB_REENTRANT 1
#define configENABLE_BACKWARD_COMPATIBILITY 0

#define configSUPPORT_STATIC_ALLOCATION 0
#define configSUPPORT_DYNAMIC_ALLOCATION 1
/* heap_5 (heap_4's first fit with coalescing, over regions given at
 * start) over the RAM the board leaves free: tasks, queues, semaphores,
 * and the C library's malloc (heap.c). */

#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1
#define configCHECK_FOR_STACK_OVERFLOW (RTG_PROFILE_LEAN ? 0 : 2)
#define configUSE_MALLOC_FAILED_HOOK 0
#define configUSE_DAEMON_TASK_STARTUP_HOOK 0

#define configGENERATE_RUN_TIME_STATS 0
/* On for the flight recorder: it gives each task its number (uxTCBNumber),
 * set once as the task is created; nothing is counted at a switch. */
#define configUSE_TRACE_FACILITY 1
#define configUSE_STATS_FORMATTING_FUNCTIONS 0
#define configUSE_CO_ROUTINES 0
#define configUSE_TIMERS 0

/* 8 priority bits of which the core implements the board's. */
#define configPRIO_BITS BOARD_NVIC_PRIO_BITS
#define configKERNEL_INTERRUPT_PRIORITY (((1 << configPRIO_BITS) - 1) << (8 - configPRIO_BITS))
/* Interrupts at 5 and below (numerically above) may call FreeRTOS's FromISR
 * functions. */
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (5 << (8 - configPRIO_BITS))

#define INCLUDE_vTaskPrioritySet 1
#define INCLUDE_uxTaskPriorityGet 1
#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_xTaskDelayUntil 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetSchedulerState 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_uxTaskGetStackHighWaterMark 1
#define INCLUDE_xTaskGetIdleTaskHandle 1
#define INCLUDE_eTaskGetState 1
#define INCLUDE_xTaskAbortDelay 1

void rtg_fr_assert_failed(const char *file, int line);
#if !RTG_PROFILE_LEAN
#define configASSERT(x)                                                                            \
    do {                                                                                           \
        if (!(x))                                                                                  \
            rtg_fr_assert_failed(__FILE__, __LINE__);                                              \
    } while (0)
#endif

/* The port's handlers under the names of the boards' vector tables; the
 * tick's SysTick_Handler is the boards' own (core/boards/cortex_m/isr.c),
 * which calls xPortSysTickHandler. */
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler

/* The flight recorder (core/osal/freertos/trace_hooks.c; docs/recorder.md,
 * "On FreeRTOS"): a switch, a task made ready, a task created. Each
 * tests one pointer (rtg_fr_w.ev) while no recorder is open, and while one
 * is stores its event inline (rtg_fr_trace.h). Expanded inside tasks.c, where
 * the running task (pxCurrentTCB), the ready lists and a task's fields are
 * in scope: a task switched out whose list item is still on its priority's
 * ready list was preempted or yielded, else it blocked. The tick and the
 * board's interrupts are recorded by the board's hooks (board_isr.h), so
 * no macro runs in the tick's path. */
#include "rtg_fr_trace.h"
#define traceTASK_SWITCHED_OUT()                                                                   \
    do {                                                                                           \
        if (rtg_fr_w.ev)                                                                           \
            rtg_fr_w.out = pxCurrentTCB;                                                           \
    } while (0)
#define traceTASK_SWITCHED_IN()                                                                    \
    do {                                                                                           \
        if (rtg_fr_w.ev) {                                                                         \
            const TCB_t *rtg_o = rtg_fr_w.out, *rtg_i = pxCurrentTCB;                              \
            uint32_t rtg_in = RTG_FR_TASK(rtg_i->uxTCBNumber, rtg_i->uxPriority);                  \
            if (rtg_o && rtg_o != rtg_i)                                                           \
                rtg_fr_switched(RTG_FR_TASK(rtg_o->uxTCBNumber, rtg_o->uxPriority),                \
                                listIS_CONTAINED_WITHIN(&pxReadyTasksLists[rtg_o->uxPriority],     \
                                                        &rtg_o->xStateListItem),                   \
                                rtg_in);                                                           \
            else                                                                                   \
                rtg_fr_w.cur = rtg_in;                                                             \
        }                                                                                          \
    } while (0)
#define traceMOVED_TASK_TO_READY_STATE(pxTCB)                                                      \
    do {                                                                                           \
        if (rtg_fr_w.ev)                                                                           \
            rtg_fr_ready((pxTCB)->uxTCBNumber, (pxTCB)->uxPriority);                               \
    } while (0)
#define traceTASK_CREATE(pxNewTCB)                                                                 \
    do {                                                                                           \
        if (rtg_fr_w.ev)                                                                           \
            rtg_fr_tr_created((pxNewTCB)->uxTCBNumber, (pxNewTCB)->pcTaskName);                    \
    } while (0)
/* The macros rtgauge's flight recorder defines (the system record's
 * audit.trace_recorder: sysinfo.c): the audit tells them from others. */
#define RTG_FR_RECORDER_HOOKS                                                                      \
    "traceTASK_SWITCHED_OUT traceTASK_SWITCHED_IN traceMOVED_TASK_TO_READY_STATE traceTASK_CREATE"

#endif
