/* The interrupts the firmware owns, and the one place where each begins
 * and ends: core/boards/cortex_m/isr.c calls board_isr_enter first thing
 * and board_isr_exit last thing in each handler, on every board. A tracer
 * of the firmware hooks in here (and nowhere else); by default both are
 * empty and cost nothing. */
#ifndef RTG_BOARD_ISR_H
#define RTG_BOARD_ISR_H

enum board_isr {
    BOARD_ISR_TICK,      /* the OS tick (SysTick) */
    BOARD_ISR_IRQ_TIMER, /* the timer of IRQ-P-LAT */
};

static inline void board_isr_enter(enum board_isr which) { (void)which; }
static inline void board_isr_exit(enum board_isr which) { (void)which; }

#endif
