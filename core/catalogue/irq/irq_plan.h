/* IRQ-P-LAT's reference instant: the k-th expiry of the timer as it was
 * actually started (rtg_timer_plan), never a clock read made before the
 * arming's arithmetic. An expiry before the arming returned (a set-up
 * slower than its lead) would hold the arming in its figure: no sample. */
#ifndef RTG_IRQ_PLAN_H
#define RTG_IRQ_PLAN_H
#include <stdbool.h>
#include <stdint.h>

#include "rtg/osal_timer.h"

static inline bool rtg_irq_expiry(const struct rtg_timer_plan *p, uint64_t k, uint64_t *at_ns)
{
    *at_ns = p->first_ns + k * p->period_ns;
    return *at_ns >= p->armed_ns;
}

#endif
