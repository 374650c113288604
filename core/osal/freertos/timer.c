/* Timers on the board: RTG_TIMER_HANDLER is the interrupt of the board's
 * IRQ-P-LAT timer (board_irq_timer_name: CMSDK TIMER0 on MPS2, a
 * general-purpose TIMx on an STM32), whose handler is fn(arg), run in the
 * interrupt (core/boards/cortex_m/isr.c): what IRQ-P-LAT
 * measures as interrupt service, and what wakes its task (rtg_sem_post
 * from an interrupt is FreeRTOS's xSemaphoreGiveFromISR). There is one
 * such timer. Signal and timerfd timers do not exist here: ENOTSUP (and
 * the relative waits through POSIX calls: core/osal/none/rel_waits.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "board.h"
#include "fr_internal.h"
#include "rtg/osal_timer.h"


/* ns as counts of the board's timer: exact for whole seconds, then the
 * rest; up (a first expiry never earlier than asked) or down. */
static uint64_t counts(uint64_t ns, bool up)
{
    uint64_t hz = board_irq_timer_hz, rest = ns % 1000000000u * hz;
    return ns / 1000000000u * hz + rest / 1000000000u + (up && rest % 1000000000u != 0);
}

struct rtg_timer {
    void (*fn)(void *arg);
    void *arg;
};

static struct rtg_timer the_timer;
static bool in_use;

int rtg_timer_create(struct rtg_timer **t, enum rtg_timer_mode mode, void (*fn)(void *arg),
                     void *arg)
{
    *t = NULL;
    if (mode != RTG_TIMER_HANDLER)
        return ENOTSUP;
    if (in_use)
        return EAGAIN;
    in_use = true;
    the_timer.fn = fn;
    the_timer.arg = arg;
    *t = &the_timer;
    return 0;
}

/* The first expiry rounded up to the timer's count, the period to the
 * nearest count below; the board's part says if they are out of range.
 * The ns arithmetic here (64-bit divisions: some 460 instructions on a
 * Cortex-M3) comes before the store that starts the timer, and the plan
 * is anchored at that store (board_irq_timer_program reads the clock next
 * to it), so none of it is inside a figure. */
int rtg_timer_arm_plan(struct rtg_timer *t, uint64_t first_abs_ns, uint64_t period_ns,
                       struct rtg_timer_plan *plan)
{
    if (!t || period_ns == 0) /* one-shot: not needed by the catalogue here */
        return EINVAL;
    uint64_t now = rtg_mono_ns();
    uint64_t first = first_abs_ns > now ? counts(first_abs_ns - now, true) : 1;
    uint64_t period = counts(period_ns, false);
    if (period == 0 || period > UINT32_MAX || first > UINT32_MAX)
        return EINVAL;
    first = first ? first : 1;
    uint64_t started;
    /* the highest priority that may still call FreeRTOS's FromISR calls */
    int rc = board_irq_timer_start((uint32_t)first, (uint32_t)period,
                                   configMAX_SYSCALL_INTERRUPT_PRIORITY, t->fn, t->arg, &started);
    if (rc || !plan)
        return rc;
    /* timer ticks as clock counts: exact when the clock's rate is a whole
     * multiple of the timer's (every board: the same clock, or DWT at 2x) */
    uint64_t clock_hz = board_clock_hz(), timer_hz = board_irq_timer_hz;
    plan->armed_ns = board_clock_ticks_ns(started);
    plan->first_ns = board_clock_ticks_ns(started + first * clock_hz / timer_hz);
    plan->period_ns = period * 1000000000u / timer_hz;
    return 0;
}

int rtg_timer_arm(struct rtg_timer *t, uint64_t first_abs_ns, uint64_t period_ns)
{
    return rtg_timer_arm_plan(t, first_abs_ns, period_ns, NULL);
}

/* The handler's read: the counter, its ns after (the task's side). */
uint64_t rtg_timer_stamp(void) { return board_clock_ticks(); }
uint64_t rtg_timer_entry_stamp(void) { return board_irq_timer_entry(); }
uint64_t rtg_timer_stamp_ns(uint64_t stamp) { return board_clock_ticks_ns(stamp); }

int rtg_timer_wait(struct rtg_timer *t, uint64_t *expirations)
{
    (void)t, (void)expirations;
    return ENOTSUP;
}

/* The interrupt is level with the timer: an expiry missed while the
 * previous one was handled is not counted by the hardware. */
int rtg_timer_overrun(struct rtg_timer *t)
{
    (void)t;
    return 0;
}

void rtg_timer_delete(struct rtg_timer *t)
{
    if (t != &the_timer)
        return;
    board_irq_timer_stop();
    in_use = false;
}


const char *rtg_timer_handler_context(void) { return "isr"; }

bool rtg_timerlat_available(char *why, size_t n)
{
    snprintf(why, n, "no kernel tracer on FreeRTOS: the handler runs in the interrupt itself");
    return false;
}
