/* DLN-P-LAT: a SCHED_DEADLINE task's activation latency and missed
 * deadlines over a run, and beside it the same period slept by a
 * SCHED_FIFO thread (absolute sleeps, TMR-P-LAT's method) in the same run.
 * Deadline: from the activation instant (t_set + k x period, dln_common.c)
 * until the task runs again after giving up its period (sched_yield). FIFO:
 * from the absolute wake-up time until the thread runs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/osal_deadline.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "dln_common.h"

static void fifo_reference(struct rtg_ctx *ctx, struct rtg_metric *m, uint64_t period, int periods)
{
    uint64_t next = rtg_mono_ns() + period;
    for (int i = 0; i < periods && !rtg_stop_requested(); i++) {
        rtg_sleep_until(next);
        uint64_t now = rtg_mono_ns();
        rtg_metric_interval(m, next, now, rtg_test_elapsed_ns(ctx));
        next += period;
        if (next < now)
            next = now + period;
    }
}

static int lat_run(struct rtg_ctx *ctx)
{
    uint64_t period = (uint64_t)rtg_opt_int(ctx, "period_us") * NS_PER_US;
    uint64_t runtime = (uint64_t)rtg_opt_int(ctx, "runtime_us") * NS_PER_US;
    int periods = (int)rtg_opt_int(ctx, "periods");
    if (runtime > period / 5)
        return rtg_fail_error(ctx, "runtime_us above a fifth of period_us: kept low on purpose");
    struct rtg_metric *dl = rtg_metric_new(ctx, "deadline.activation.sched_deadline");
    struct rtg_metric *ff = rtg_metric_new(ctx, "deadline.activation.sched_fifo_sleep");
    if (!dl || !ff)
        return rtg_fail_error(ctx, "out of memory");
    rtg_metric_explain(ctx, dl);
    rtg_metric_explain(ctx, ff);
    rtg_sem_t answered, release;
    rtg_sem_init(&answered, 0);
    rtg_sem_init(&release, 0);
    struct dln_task task = {.p = {runtime, period, period},
                            .periods = periods,
                            .answered = &answered,
                            .release = &release,
                            .lat = dl};
    rtg_thread_t t;
    int rc = rtg_dln_start(ctx, &task, &t);
    if (rc == 0 || rc == ETIMEDOUT)
        rtg_thread_join(t, NULL);
    rtg_sem_destroy(&answered);
    rtg_sem_destroy(&release);
    if (rc)
        return rtg_fail_error(ctx, "cannot start the deadline task: %s", strerror(rc));
    if (task.rc && rtg_dln_skip_unoffered(ctx, task.rc))
        return -1;
    if (task.rc)
        return rtg_fail_error(ctx, "admission refused for %.1f %% of a CPU: %s",
                              100.0 * (double)runtime / (double)period, strerror(task.rc));
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "the reference thread slept SCHED_OTHER");
    fifo_reference(ctx, ff, period, periods);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kuint(info, "runtime_ns", runtime);
    rtg_json_kuint(info, "period_ns", period);
    rtg_json_kint(info, "periods", periods);
    rtg_json_kint(info, "periods_run", task.periods_run);
    rtg_json_kuint(info, "missed_deadlines", task.missed);
    rtg_json_kuint(info, "missed_while_the_hypervisor_stole_time", task.stalls.in_steal);
    rtg_json_kint(info, "grid_re_anchored", task.re_anchored);
    rtg_json_kint(info, "untimed_after_skip", task.untimed);
    if (task.re_anchored)
        rtg_note(ctx, "a period was skipped: the %d activations after it are not timed",
                 task.untimed);
    rtg_json_kstr(info, "reference_policy", rtg_rt_ok(ctx) ? "SCHED_FIFO" : "SCHED_OTHER");
    return 0;
}

static double lat_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + 2.5 * (double)rtg_opt_int(ctx, "periods") *
                      (double)rtg_opt_int(ctx, "period_us") * 1e-6;
}

static const struct rtg_option lat_options[] = {
    {"periods", RTG_OPT_INT, 2000, 300, 10, 1000000, NULL, RTG_OPT_SCALED,
     "activations measured (and as many reference sleeps)"},
    {"period_us", RTG_OPT_INT, 1000, 0, 100, 1000000, NULL, 0, "period = relative deadline"},
    {"runtime_us", RTG_OPT_INT, 100, 0, 10, 200000, NULL, 0,
     "runtime per period (at most a fifth of the period)"},
};

const struct rtg_test_desc rtg_test_dln_p_lat = {
    .id = "DLN-P-LAT",
    .source = __FILE__,
    .needs = RTG_OFFERS_DEADLINE,
    .title = "SCHED_DEADLINE activation latency and missed deadlines, beside SCHED_FIFO sleeps",
    .kind = 'P',
    .options = RTG_OPTIONS(lat_options),
    .run = lat_run,
    .bound_s = lat_bound,
    .release_latency = "deadline.activation.", /* from activation instant (deadline) or absolute wake-up time (FIFO) */
};
