/* Faults: the handler names the fault to the sink the runner set (which
 * writes the test's error record), then ends the board with exit code 3.
 * A task's stack overflow and a failed kernel assertion end the same way. */
#include <stddef.h>

#include "FreeRTOS.h"
#include "board.h"
#include "task.h"

static void (*fault_sink)(const char *);

void board_set_fault_sink(void (*sink)(const char *fault)) { fault_sink = sink; }

static __attribute__((noreturn)) void fault(const char *what)
{
    __asm__ volatile("cpsid i" ::: "memory");
    void (*sink)(const char *) = fault_sink;
    fault_sink = NULL; /* a fault inside the sink does not loop */
    if (sink)
        sink(what);
    board_exit(3);
}

void Default_Handler(void) { fault("unexpected interrupt"); }
void HardFault_Handler(void) { fault("HardFault"); }
void MemManage_Handler(void) { fault("MemManage fault"); }
void BusFault_Handler(void) { fault("BusFault"); }
void UsageFault_Handler(void) { fault("UsageFault"); }

void vApplicationStackOverflowHook(TaskHandle_t task, char *name)
{
    (void)task, (void)name;
    fault("task stack overflow");
}

void rtg_fr_assert_failed(const char *file, int line)
{
    (void)file, (void)line;
    fault("FreeRTOS assertion failed");
}
