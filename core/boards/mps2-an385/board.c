/* MPS2 AN385's devices: the CMSDK UART0 (0x40004000) for the records, the
 * CMSDK timers TIMER0 (0x40000000, IRQ 8: IRQ-P-LAT's) and TIMER1
 * (0x40001000: the free-running counter), all clocked at the board's
 * fixed 25 MHz. There is no clock tree to set up. */
#include <errno.h>

#include "board.h"

struct cmsdk_uart {
    volatile uint32_t data, state, ctrl, intstatus, bauddiv;
};
struct cmsdk_timer {
    volatile uint32_t ctrl, value, reload, intstatus;
};
#define UART0 ((struct cmsdk_uart *)0x40004000u)
#define TIMER0 ((struct cmsdk_timer *)0x40000000u)
#define TIMER1 ((struct cmsdk_timer *)0x40001000u)
#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
#define NVIC_ICER0 (*(volatile uint32_t *)0xE000E180u)
#define NVIC_IPR ((volatile uint8_t *)0xE000E400u)
#define TIMER0_IRQ 8
#define UART_TX_FULL (1u << 0)
#define UART_RX_FULL (1u << 1)
#define SYSCLK_HZ 25000000u

uint32_t board_core_hz = SYSCLK_HZ;
uint32_t board_timer_counter_hz = SYSCLK_HZ;
const char board_timer_counter_name[] = "CMSDK TIMER1";
uint32_t board_irq_timer_hz = SYSCLK_HZ;
const char board_irq_timer_name[] = "CMSDK TIMER0, IRQ 8";

const char *board_clock_tree(void) { return "fixed 25 MHz (no clock tree)"; }

void board_init(void)
{
    UART0->bauddiv = 16;
    UART0->ctrl = (1u << 0) | (1u << 1); /* TX and RX enable */
}

void board_uart_write(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (UART0->state & UART_TX_FULL)
            ;
        UART0->data = (uint8_t)p[i];
    }
}

int board_uart_getc(void)
{
    if (!(UART0->state & UART_RX_FULL))
        return -1;
    return (int)(UART0->data & 0xFFu);
}

/* TIMER1 counts down from its reload; its complement counts up. */
void board_timer_counter_start(void)
{
    TIMER1->ctrl = 0;
    TIMER1->reload = 0xFFFFFFFFu;
    TIMER1->value = 0xFFFFFFFFu;
    TIMER1->ctrl = 1; /* enable, no interrupt */
}

volatile uint32_t *board_timer_counter_reg(uint32_t *flip)
{
    *flip = 0xFFFFFFFFu; /* it counts down */
    return &TIMER1->value;
}

/* TIMER0 counts down to 0 and interrupts as it reloads: a count of N is
 * N + 1 ticks, so both are loaded less one. It counts from the store that
 * enables it: the measuring clock is read right before that store, with
 * interrupts masked (*started). */
int board_irq_timer_program(uint32_t first, uint32_t period, uint8_t prio, uint64_t *started)
{
    if (period == 0)
        return EINVAL;
    TIMER0->ctrl = 0;
    TIMER0->intstatus = 1;
    TIMER0->reload = period - 1u; /* (also loads the count: so before VALUE) */
    TIMER0->value = first ? first - 1u : 0u;
    NVIC_IPR[TIMER0_IRQ] = prio;
    NVIC_ISER0 = 1u << TIMER0_IRQ;
    *started = board_clock_stamped_store(&TIMER0->ctrl, 1u | (1u << 3)); /* enable, interrupt */
    return 0;
}

void board_irq_timer_halt(void)
{
    TIMER0->ctrl = 0;
    NVIC_ICER0 = 1u << TIMER0_IRQ;
    TIMER0->intstatus = 1;
}

void board_irq_timer_ack(void) { TIMER0->intstatus = 1; }

void board_irq_timer_next(void) {} /* the timer runs the period itself */
