/* Every interrupt the firmware owns enters and leaves here, on every
 * board: the timer of IRQ-P-LAT (its vector is board_isr_irq_timer) and
 * the OS tick (SysTick). The hooks of board_isr.h mark the entry and the
 * exit; the board's part only acknowledges its timer. */
#include <errno.h>

#include "board.h"
#include "board_isr.h"

static void (*irq_timer_fn)(void *arg);
static void *irq_timer_arg;

int board_irq_timer_start(uint32_t first, uint32_t period, uint8_t prio, void (*fn)(void *arg),
                          void *arg, uint64_t *started)
{
    board_irq_timer_halt();
    irq_timer_fn = fn;
    irq_timer_arg = arg;
    int rc = board_irq_timer_program(first, period, prio, started);
    if (rc)
        irq_timer_fn = NULL;
    return rc;
}

void board_irq_timer_stop(void)
{
    board_irq_timer_halt();
    irq_timer_fn = NULL;
}

/* The clock's low 32 bits as the timer's interrupt entered: read before
 * the entry hook, so a tracer's cost is no part of the service figure. */
static uint32_t irq_timer_entry;

uint64_t board_irq_timer_entry(void) { return board_clock_extend(irq_timer_entry); }

void board_isr_irq_timer(void)
{
    irq_timer_entry = board_clock_low();
    board_isr_enter(BOARD_ISR_IRQ_TIMER);
    board_irq_timer_ack();
    if (irq_timer_fn)
        irq_timer_fn(irq_timer_arg);
    board_irq_timer_next(); /* after the handler: never inside its figure */
    board_isr_exit(BOARD_ISR_IRQ_TIMER);
}

/* The counter is read on every tick, so no 32-bit wrap goes unseen; that
 * read is kept as the tick's instant (board_tick_instant). */
static volatile uint64_t tick_clock;

uint64_t board_tick_instant(void)
{
    uint64_t a, b;
    do { /* a 64-bit load is two: read again if the tick came between */
        a = tick_clock;
        b = tick_clock;
    } while (a != b);
    return a;
}

void SysTick_Handler(void);
void SysTick_Handler(void)
{
    /* the tick's instant first: a deadline put on it (rtg_wait_tick_nearest)
     * then comes before the entry hook's event, which a window shows */
    tick_clock = board_clock_ticks();
    board_isr_enter(BOARD_ISR_TICK);
    board_os_tick();
    board_isr_exit(BOARD_ISR_TICK);
}
