/* Timers on the board: RTG_TIMER_HANDLER is the CMSDK TIMER0 interrupt
 * (IRQ 8), whose handler is fn(arg), run in the interrupt: what IRQ-P-LAT
 * measures as interrupt service, and what wakes its task (rtg_sem_post
 * from an interrupt is FreeRTOS's xSemaphoreGiveFromISR). There is one
 * such timer. Signal and timerfd timers do not exist here: ENOTSUP (and
 * the relative waits through POSIX calls: core/osal/none/rel_waits.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "board/board.h"
#include "fr_internal.h"
#include "rtg/osal_timer.h"

#define NS_PER_COUNT (1000000000ull / BOARD_SYSCLK_HZ)

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

/* The timer counts down to 0 and interrupts as it reloads: a count of N
 * is N + 1 ticks, so the first delay and the period are loaded less one. */
int rtg_timer_arm(struct rtg_timer *t, uint64_t first_abs_ns, uint64_t period_ns)
{
    if (!t || period_ns == 0) /* one-shot: not needed by the catalogue here */
        return EINVAL;
    uint64_t now = rtg_mono_ns();
    uint64_t first = first_abs_ns > now ? (first_abs_ns - now) / NS_PER_COUNT : 1;
    uint64_t period = period_ns / NS_PER_COUNT;
    if (period == 0 || period > UINT32_MAX || first > UINT32_MAX)
        return EINVAL;
    board_timer0_start(first ? (uint32_t)first - 1u : 0u, (uint32_t)period - 1u, t->fn, t->arg);
    return 0;
}

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
    board_timer0_stop();
    in_use = false;
}


const char *rtg_timer_handler_context(void) { return "isr"; }

bool rtg_timerlat_available(char *why, size_t n)
{
    snprintf(why, n, "no kernel tracer on FreeRTOS: the handler runs in the interrupt itself");
    return false;
}
