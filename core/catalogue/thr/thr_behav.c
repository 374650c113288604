/* Helpers of the THR behaviour tests (thr_behav.h). */
#include "thr_behav.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "thr_verdicts.h"

enum rtg_policy rtg_thr_policy_opt(const struct rtg_ctx *ctx)
{
    const char *p = rtg_opt_enum(ctx, "policy");
    if (strcmp(p, "other") == 0)
        return RTG_SCHED_OTHER;
    if (strcmp(p, "rr") == 0)
        return RTG_SCHED_RR;
    return RTG_SCHED_FIFO;
}

/* Runs fn(arg) in a thread of the given policy and priority, joined. */
int rtg_thr_run_in(const struct rtg_ctx *ctx, enum rtg_policy pol, int prio, rtg_thread_fn fn,
                  void *arg)
{
    rtg_thread_t t;
    struct rtg_thread_attr a = rtg_attr_at(ctx, pol, prio);
    int rc = rtg_thread_create(&t, &a, fn, arg);
    if (!rc)
        rtg_thread_join(t, NULL);
    return rc;
}
