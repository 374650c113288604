/* Helpers of the THR behaviour tests (THR-B-*). */
#ifndef RTG_THR_BEHAV_H
#define RTG_THR_BEHAV_H
#include "rtg/osal.h"
#include "rtg/test.h"

/* The "policy" option: fifo (default), rr or other. */
enum rtg_policy rtg_thr_policy_opt(const struct rtg_ctx *ctx);
/* Runs fn(arg) in a thread of that policy and priority on the test's first
 * CPU and joins it; 0 or the creation's errno. */
int rtg_thr_run_in(const struct rtg_ctx *ctx, enum rtg_policy pol, int prio, rtg_thread_fn fn,
                   void *arg);

#endif
