/* FreeRTOS configuration of the rtgauge firmware (MPS2 AN385, Cortex-M3,
 * 25 MHz). The values that change behaviour are reported in the system
 * record (core/osal/freertos/sysinfo.c): keep the two in step. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ 25000000UL
#define configTICK_RATE_HZ 1000
#define configUSE_PREEMPTION 1
/* Off: equal priorities do not share the CPU by themselves, so a task made
 * RTG_SCHED_FIFO keeps it until it blocks or yields. Round robin is given
 * per task by the OSAL's tick hook (thread.c), one slice = RTG_FR_RR_TICKS. */
#define configUSE_TIME_SLICING 0
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
/* 0 idle, 1 the catalogue's SCHED_OTHER, 2..100 its FIFO/RR levels 1..99
 * (99 is the watchdog's): one FreeRTOS level per catalogue level. */
#define configMAX_PRIORITIES 101
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
/* heap_4 (first fit, coalescing) over the 16 MB PSRAM: tasks, queues,
 * semaphores, and the C library's malloc (board/newlib.c). */
#define configTOTAL_HEAP_SIZE (16u * 1024u * 1024u - 64u)
#define configAPPLICATION_ALLOCATED_HEAP 1

#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1
#define configCHECK_FOR_STACK_OVERFLOW 2
#define configUSE_MALLOC_FAILED_HOOK 0
#define configUSE_DAEMON_TASK_STARTUP_HOOK 0

#define configGENERATE_RUN_TIME_STATS 0
#define configUSE_TRACE_FACILITY 0
#define configUSE_STATS_FORMATTING_FUNCTIONS 0
#define configUSE_CO_ROUTINES 0
#define configUSE_TIMERS 0

/* Cortex-M3 has 8 priority bits of which the CMSDK core implements 3. */
#define configPRIO_BITS 3
#define configKERNEL_INTERRUPT_PRIORITY (7 << (8 - configPRIO_BITS))
/* Interrupts at 5..7 may call FreeRTOS's FromISR functions. */
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (5 << (8 - configPRIO_BITS))

#define INCLUDE_vTaskPrioritySet 1
#define INCLUDE_uxTaskPriorityGet 1
#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_xTaskDelayUntil 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetSchedulerState 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_uxTaskGetStackHighWaterMark 0
#define INCLUDE_xTaskGetIdleTaskHandle 0
#define INCLUDE_eTaskGetState 1
#define INCLUDE_xTaskAbortDelay 1

void rtg_fr_assert_failed(const char *file, int line);
#define configASSERT(x)                                                                            \
    do {                                                                                           \
        if (!(x))                                                                                  \
            rtg_fr_assert_failed(__FILE__, __LINE__);                                              \
    } while (0)

/* The port's handlers under the names of the vector table (board/startup.c). */
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler

#endif
