/* What the kernel calls back: the tick (from the board's SysTick handler,
 * core/boards/cortex_m/isr.c), a stack overflow and a failed assertion
 * (both end the board: neither can be contained). */
#include "FreeRTOS.h"
#include "board.h"
#include "task.h"

extern void xPortSysTickHandler(void);

void board_os_tick(void) { xPortSysTickHandler(); }

/* Detected in a context switch (an interrupt): not containable. */
void vApplicationStackOverflowHook(TaskHandle_t task, char *name)
{
    (void)task, (void)name;
    board_fatal("task stack overflow");
}

void rtg_fr_assert_failed(const char *file, int line)
{
    (void)file, (void)line;
    board_fatal("FreeRTOS assertion failed");
}
