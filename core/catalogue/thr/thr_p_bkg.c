/* THR-P-BKG: wake-up under background processes, on one CPU. */
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
#include "common/tick_period.h"
#include "thr_perf.h"

struct bkg_state {
    struct rtg_ctx *ctx;
    int64_t loops;
    uint64_t period_ns;
    struct rtg_metric *m;
    uint64_t skipped; /* periods that passed while the measured thread was late */
};

static void *bkg_measured(void *arg)
{
    struct bkg_state *s = arg;
    uint64_t next = rtg_tick_deadline(rtg_mono_ns() + s->period_ns);
    for (int64_t i = 0; i < s->loops && !rtg_stop_requested(); i++) {
        rtg_sleep_until(next);
        uint64_t now = rtg_mono_ns();
        rtg_metric_interval(s->m, next, now, rtg_test_elapsed_ns(s->ctx));
        /* An absolute schedule: periods overrun are counted, not forgotten */
        next = rtg_tick_deadline(next + s->period_ns);
        while (next <= now) {
            next = rtg_tick_deadline(next + s->period_ns);
            s->skipped++;
        }
    }
    return NULL;
}

static int bkg_phase(struct rtg_ctx *ctx, struct bkg_state *s)
{
    rtg_thread_t t;
    int rc = rtg_thr_spawn(ctx, &t, rtg_prio(ctx) - 1, bkg_measured, s);
    if (!rc)
        rtg_thread_join(t, NULL);
    return rc;
}

static int bkg_run(struct rtg_ctx *ctx)
{
    int rc;
    if (!rtg_thr_need_levels(ctx, 1, &rc))
        return rc;
    rtg_thr_note_no_rt(ctx);
    int nproc = (int)rtg_opt_int(ctx, "processes");
    struct bkg_state s = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops"),
                          .period_ns = rtg_tick_adapt(
                              ctx, "period", (uint64_t)rtg_opt_int(ctx, "period_us") * NS_PER_US)};
    struct rtg_metric *idle = rtg_metric_new(ctx, "thread.wake.idle");
    struct rtg_metric *busy = rtg_metric_new(ctx, "thread.wake.background");
    int *cpus = malloc((size_t)nproc * sizeof *cpus);
    if (!idle || !busy || !cpus) {
        free(cpus);
        return rtg_fail_error(ctx, "out of memory");
    }
    rtg_metric_params_int(idle, "processes", 0);
    rtg_metric_params_int(busy, "processes", nproc);
    /* each a timer wake-up, recorded by the woken thread as soon as it ran */
    rtg_metric_explain(ctx, idle);
    rtg_metric_explain(ctx, busy);
    for (int i = 0; i < nproc; i++)
        cpus[i] = rtg_cpu_at(ctx, 0);
    s.m = idle;
    rc = bkg_phase(ctx, &s);
    uint64_t skipped_idle = s.skipped;
    s.skipped = 0;
    if (rc) {
        free(cpus);
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
    }
    struct rtg_load_set *set = NULL;
    struct rtg_load_cfg cfg = {.tool = RTG_LOAD_BUILTIN};
    rc = rtg_load_start(&set, RTG_LOAD_CPU, cpus, (size_t)nproc, &cfg);
    free(cpus);
    if (rc)
        return rtg_fail_error(ctx, "cannot start %d background processes: %s", nproc,
                              strerror(rc));
    /* Let them get going: the first sample waits until the background has
     * done work, at least 20 ms and at most a second (a busy machine may
     * not run them at once). Whether they ran while measured is checked
     * after, from the count, whatever happened here. */
    uint64_t give_up = rtg_mono_ns() + NS_PER_S;
    rtg_sleep_ns(20 * NS_PER_MS);
    while (rtg_load_ops_now(set) == 0 && rtg_mono_ns() < give_up)
        rtg_sleep_ns(NS_PER_MS);
    uint64_t ops0 = rtg_load_ops_now(set);
    s.m = busy;
    rc = bkg_phase(ctx, &s);
    uint64_t ops = 0;
    bool known = false;
    rtg_load_stop(set, &ops, &known); /* on every path */
    if (rc)
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "processes", nproc);
    rtg_json_kstr(info, "process_policy", "SCHED_OTHER, busy arithmetic, pinned to the measured CPU");
    rtg_json_kuint(info, "background_ops_during_measure", rtg_past(ops, ops0));
    /* The figure is "under background processes" only if they ran while it
     * was measured (a machine busy with other real-time work may starve
     * them): otherwise it says so, and the host does not rate it. */
    bool ran = !known || ops != ops0;
    rtg_json_key(info, "background_ran");
    if (known)
        rtg_json_bool(info, ran);
    else
        rtg_json_null(info);
    rtg_json_kstr(info, "background_op", rtg_load_op_unit(RTG_LOAD_CPU, RTG_LOAD_BUILTIN));
    rtg_json_kuint(info, "period_ns", s.period_ns);
    rtg_json_key(info, "skipped_periods");
    rtg_json_obj_begin(info);
    rtg_json_kuint(info, "idle", skipped_idle);
    rtg_json_kuint(info, "background", s.skipped);
    rtg_json_obj_end(info);
    if (!ran) {
        busy->condition_unmet = "the background processes did not run while it was measured";
        rtg_note(ctx, "the background processes did no work while measured: "
                      "thread.wake.background is not measured under them and is not rated");
    }
    return 0;
}

static double bkg_bound(const struct rtg_ctx *ctx)
{
    return 15.0 + 2.0 * (double)rtg_opt_int(ctx, "loops") * (double)rtg_opt_int(ctx, "period_us") *
                      1.5e-6 + 0.01 * (double)rtg_opt_int(ctx, "processes");
}

static const struct rtg_option bkg_options[] = {
    {"processes", RTG_OPT_INT, 50, 0, 1, 1000, NULL, 0,
     "busy SCHED_OTHER background processes on the measured CPU"},
    {"loops", RTG_OPT_INT, 2000, 300, 10, 10000000, NULL, RTG_OPT_SCALED,
     "timer wake-ups of the measured thread per phase (idle, background)"},
    {"period_us", RTG_OPT_INT, 500, 0, 50, 1000000, NULL, 0, "period of the measured thread"},
};

const struct rtg_test_desc rtg_test_thr_p_bkg = {
    .id = "THR-P-BKG",
    .source = __FILE__,
    .recorded = true, /* its wake-ups' worst samples are explained */
    .needs = RTG_OFFERS_PROCESSES,
    .title = "Wake-up of a real-time thread among busy background processes",
    .kind = 'P',
    .options = RTG_OPTIONS(bkg_options),
    .run = bkg_run,
    .bound_s = bkg_bound,
};
