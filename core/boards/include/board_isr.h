/* The interrupts the firmware owns, and the one place where each begins
 * and ends: core/boards/cortex_m/isr.c calls board_isr_enter first thing
 * and board_isr_exit last thing in each handler, on every board. A tracer
 * of the firmware hooks in here (and nowhere else): the OS layer's flight
 * recorder (core/osal/freertos/trace_hooks.c) sets board_isr_tracing while
 * it records, and board_isr_traced notes each entry and exit; otherwise
 * both hooks cost a test of that flag. */
#ifndef RTG_BOARD_ISR_H
#define RTG_BOARD_ISR_H
#include <stdbool.h>

enum board_isr {
    BOARD_ISR_TICK,      /* the OS tick (SysTick) */
    BOARD_ISR_IRQ_TIMER, /* the timer of IRQ-P-LAT */
};

/* Provided by the OS layer, as board_os_tick is. */
extern volatile unsigned char board_isr_tracing;
void board_isr_traced(enum board_isr which, bool entry);

static inline void board_isr_enter(enum board_isr which)
{
    if (board_isr_tracing)
        board_isr_traced(which, true);
}
static inline void board_isr_exit(enum board_isr which)
{
    if (board_isr_tracing)
        board_isr_traced(which, false);
}

#endif
