/* CMSDK UART0 (0x40004000) and timers TIMER0 (0x40000000, IRQ 8) and
 * TIMER1 (0x40001000), all clocked at 25 MHz. */
#include <stdbool.h>

#include "FreeRTOS.h"
#include "board.h"
#include "task.h"

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

void board_uart_init(void)
{
    UART0->bauddiv = 16;
    UART0->ctrl = 1; /* TX enable */
}

void board_uart_write(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (UART0->state & 1u) /* TX buffer full */
            ;
        UART0->data = (uint8_t)p[i];
    }
}

/* ---- the measuring clock ---- */
static uint32_t last_low, high;

void board_counter_init(void)
{
    TIMER1->ctrl = 0;
    TIMER1->reload = 0xFFFFFFFFu;
    TIMER1->value = 0xFFFFFFFFu;
    TIMER1->ctrl = 1; /* enable, no interrupt */
    last_low = 0;
    high = 0;
}

/* The counter counts down; its complement counts up and wraps every
 * 172 s. Any read that sees a smaller value than the last carries one. */
uint64_t board_counter_ticks(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    uint32_t now = ~TIMER1->value;
    if (now < last_low)
        high++;
    last_low = now;
    uint64_t t = ((uint64_t)high << 32) | now;
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    return t;
}

/* ---- TIMER0: a periodic interrupt ---- */
static void (*timer0_fn)(void *);
static void *timer0_arg;

void board_timer0_start(uint32_t first_ticks, uint32_t period_ticks, void (*fn)(void *arg),
                        void *arg)
{
    TIMER0->ctrl = 0;
    timer0_fn = fn;
    timer0_arg = arg;
    TIMER0->intstatus = 1;
    TIMER0->reload = period_ticks; /* (also loads the count: so before VALUE) */
    TIMER0->value = first_ticks;
    /* the highest priority that may still call FreeRTOS's FromISR calls */
    NVIC_IPR[TIMER0_IRQ] = configMAX_SYSCALL_INTERRUPT_PRIORITY;
    NVIC_ISER0 = 1u << TIMER0_IRQ;
    TIMER0->ctrl = 1u | (1u << 3); /* enable, interrupt */
}

void board_timer0_stop(void)
{
    TIMER0->ctrl = 0;
    NVIC_ICER0 = 1u << TIMER0_IRQ;
    TIMER0->intstatus = 1;
    timer0_fn = NULL;
}

void TIMER0_Handler(void)
{
    TIMER0->intstatus = 1;
    if (timer0_fn)
        timer0_fn(timer0_arg);
}
