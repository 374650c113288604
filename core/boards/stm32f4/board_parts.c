/* The board's part of the firmware for every STM32F4 board, set by the
 * board's own stm32f4_board (its board.c): the clock tree it asks for, its
 * record USART on two GPIOA pins, TIM5 (32 bits) running free as the
 * counter the measuring clock falls back to, TIM2 (32 bits, IRQ 28) as
 * IRQ-P-LAT's timer. Both timers' clock is measured at boot against the
 * core clock (stm32f4_measure_timer_hz).
 *
 * On the part, TIM2 runs the period itself (an update every ARR + 1
 * ticks). QEMU 7.2's model of it does not: each register write and each
 * update schedule the next update ARR ticks after that moment, with an
 * offset taken from the last write of its count. Under it (no RCC: an
 * emulator, stm32f4_emulated) the count is never written and each
 * interrupt, after its handler, sets ARR to the time left until the next
 * expiry, so the interrupts keep to the schedule; each then comes the few
 * instructions between that write and its clock read after its due time
 * (board_irq_timer_next), which the service figure includes. */
#include <errno.h>

#include "board.h"
#include "stm32f4.h"

#define NVIC_ISER ((volatile uint32_t *)0xE000E100u)
#define NVIC_ICER ((volatile uint32_t *)0xE000E180u)
#define NVIC_IPR ((volatile uint8_t *)0xE000E400u)
#define RCC_APB1ENR (*(volatile uint32_t *)0x40023840u)
#define RCC_APB2ENR (*(volatile uint32_t *)0x40023844u)
#define TIM_CR1_CEN (1u << 0)
#define TIM_DIER_UIE (1u << 0)
#define TIM_EGR_UG (1u << 0)

uint32_t board_core_hz;
uint32_t board_timer_counter_hz;
const char board_timer_counter_name[] = "TIM5";
uint32_t board_irq_timer_hz;
const char board_irq_timer_name[] = "TIM2, IRQ 28";
static const char *clock_tree = "not set up";
static uint32_t irq_period;
static bool irq_first;
static bool rearm_each;    /* the emulator's timer model: see the top */
static uint64_t next_due;  /* the next expiry, in board_clock ticks (rearm_each) */
static uint64_t period_clock;
static uint32_t clock_per_tick; /* clock counts per timer tick, a whole number (else 0) */

const char *board_clock_tree(void) { return clock_tree; }

void board_init(void)
{
    const struct stm32f4_board *b = &stm32f4_board;
    board_core_hz = stm32f4_clocks_setup(&b->clocks, &clock_tree);
    if (b->usart_on_apb2)
        RCC_APB2ENR |= 1u << b->usart_enable_bit;
    else
        RCC_APB1ENR |= 1u << b->usart_enable_bit;
    RCC_APB1ENR |= (1u << 0) | (1u << 3); /* TIM2, TIM5 */
    stm32f4_gpioa_af(b->tx_pin, 7);
    stm32f4_gpioa_af(b->rx_pin, 7);
    stm32f4_usart_init(b->usart, b->usart_on_apb2 ? stm32f4_apb2_hz() : stm32f4_apb1_hz(),
                       115200);
    board_timer_counter_hz = stm32f4_measure_timer_hz(STM32_TIM5, board_core_hz);
    board_irq_timer_hz = board_timer_counter_hz; /* both on APB1 */
    rearm_each = stm32f4_emulated();
}

void board_uart_write(const char *p, size_t n) { stm32f4_usart_write(stm32f4_board.usart, p, n); }

int board_uart_getc(void) { return stm32f4_usart_getc(stm32f4_board.usart); }

void board_timer_counter_start(void)
{
    struct stm32_tim *t = STM32_TIM5;
    t->cr1 = 0;
    t->psc = 0;
    t->arr = 0xFFFFFFFFu;
    t->egr = TIM_EGR_UG;
    t->cnt = 0;
    t->cr1 = TIM_CR1_CEN;
}

volatile uint32_t *board_timer_counter_reg(uint32_t *flip)
{
    *flip = 0;
    return &STM32_TIM5->cnt;
}

static uint64_t to_clock(uint32_t ticks)
{
    return (uint64_t)ticks * board_clock_hz() / board_irq_timer_hz;
}

/* Counting up from 0, an update (the interrupt) comes as the count passes
 * ARR: first ticks after the store that starts the count (CEN; under the
 * emulator, the write of ARR), then ARR becomes period less one from the
 * first interrupt on (board_irq_timer_next). The measuring clock is read
 * right before that store, with interrupts masked (*started). */
int board_irq_timer_program(uint32_t first, uint32_t period, uint8_t prio, uint64_t *started)
{
    if (period < 2 || first < 1)
        return EINVAL;
    struct stm32_tim *t = STM32_TIM2;
    t->cr1 = 0;
    t->sr = 0;
    irq_period = period;
    irq_first = true;
    NVIC_IPR[STM32_TIM2_IRQ] = prio;
    NVIC_ISER[STM32_TIM2_IRQ / 32] = 1u << (STM32_TIM2_IRQ % 32);
    t->dier = TIM_DIER_UIE;
    if (rearm_each) {
        t->cr1 = TIM_CR1_CEN;
        period_clock = to_clock(period);
        clock_per_tick = board_clock_hz() % board_irq_timer_hz == 0
                             ? board_clock_hz() / board_irq_timer_hz
                             : 0;
        *started = board_clock_stamped_store(&t->arr, first); /* the update: first ticks on */
        next_due = *started + to_clock(first);
        return 0;
    }
    t->psc = 0;
    t->arr = first - 1u;
    t->egr = TIM_EGR_UG; /* counter and prescaler reloaded */
    t->cnt = 0;
    t->sr = 0;
    *started = board_clock_stamped_store(&t->cr1, TIM_CR1_CEN);
    return 0;
}

void board_irq_timer_halt(void)
{
    struct stm32_tim *t = STM32_TIM2;
    t->cr1 = 0;
    t->dier = 0;
    NVIC_ICER[STM32_TIM2_IRQ / 32] = 1u << (STM32_TIM2_IRQ % 32);
    t->sr = 0;
}

void board_irq_timer_ack(void) { STM32_TIM2->sr = 0; }

/* After the handler, so its figure holds none of this. Under the emulator
 * the next expiry is set from a clock load 4 instructions before the write
 * of ARR (board_clock_store_left): that much after its due time it comes,
 * and the figure holds it. With a clock that is no whole multiple of the
 * timer's a 64-bit division lies between them, and each expiry is that
 * late. */
void board_irq_timer_next(void)
{
    struct stm32_tim *t = STM32_TIM2;
    if (rearm_each && clock_per_tick) {
        next_due += period_clock; /* late: at once, the schedule kept */
        board_clock_store_left(&t->arr, (uint32_t)next_due, clock_per_tick);
        return;
    }
    if (rearm_each) { /* a clock not a whole multiple of the timer: a division between */
        next_due += period_clock;
        uint32_t primask = board_irq_mask();
        uint32_t left = (uint32_t)next_due - board_clock_low();
        uint32_t ticks = (int32_t)left > 0
                             ? (uint32_t)((uint64_t)left * board_irq_timer_hz / board_clock_hz())
                             : 0;
        t->arr = ticks ? ticks : 1u;
        board_irq_restore(primask);
        return;
    }
    if (irq_first) {
        t->arr = irq_period - 1u; /* no preload: the period runs from this update */
        irq_first = false;
    }
}
