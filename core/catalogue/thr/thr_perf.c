/* Helpers of the THR performance tests (thr_perf.h). */
#include "thr_perf.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/load.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"

int rtg_thr_spawn(const struct rtg_ctx *ctx, rtg_thread_t *t, int prio, rtg_thread_fn fn, void *arg)
{
    struct rtg_thread_attr a = rtg_attr_at(ctx, rtg_rt_policy(ctx), prio);
    return rtg_thread_create(t, &a, fn, arg);
}

void rtg_thr_note_no_rt(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "threads ran SCHED_OTHER: no priorities, figures are not real-time figures");
}

bool rtg_thr_need_levels(struct rtg_ctx *ctx, int below, int *rc)
{
    if (rtg_prio(ctx) <= below) {
        *rc = rtg_skip(ctx, "needs --prio >= %d (levels below it)", below + 1);
        return false;
    }
    return true;
}
