/* THR-P-NEW: thread create / delete, on one CPU. */
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
#include "thr_perf.h"

struct new_state {
    struct rtg_ctx *ctx;
    int64_t loops;
    int prio; /* the creator's */
    volatile uint64_t first, last;
    struct rtg_metric *m[6];
    int error;
};

static void *new_nothing(void *arg)
{
    (void)arg;
    return NULL;
}

static void *new_terminate(void *arg)
{
    struct new_state *s = arg;
    s->first = rtg_clock_ticks();
    s->last = rtg_clock_ticks();
    return NULL;
}

static void *new_block(void *arg)
{
    struct new_state *s = arg;
    s->first = rtg_clock_ticks();
    /* Gives the CPU back by lowering itself below the creator. */
    rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_FIFO, s->prio - 1);
    return NULL;
}

static void *new_creator(void *arg)
{
    struct new_state *s = arg;
    const struct rtg_ctx *ctx = s->ctx;
    rtg_thread_t t;
    for (int sc = 0; sc < 3 && !s->error; sc++) {
        for (int64_t i = 0; i < s->loops && !rtg_stop_requested(); i++) {
            int prio = sc == 0 ? s->prio - 1 : s->prio + 1;
            rtg_thread_fn fn = sc == 0 ? new_nothing : sc == 1 ? new_terminate : new_block;
            s->first = s->last = 0;
            uint64_t a = rtg_clock_ticks();
            int rc = rtg_thr_spawn(ctx, &t, prio, fn, s);
            uint64_t b = rtg_clock_ticks();
            if (rc) {
                s->error = rc;
                break;
            }
            uint64_t c = rtg_clock_ticks();
            rtg_thread_join(t, NULL);
            uint64_t d = rtg_clock_ticks();
            uint64_t at = rtg_test_elapsed_ns(ctx);
            if (sc == 0) {
                rtg_metric_ticks(s->m[0], a, b, rtg_clock_delta_ns(a, b), at);
                rtg_metric_ticks(s->m[1], c, d, rtg_clock_delta_ns(c, d), at);
            } else if (sc == 1) {
                rtg_metric_ticks(s->m[2], a, s->first, rtg_clock_delta_ns(a, s->first), at);
                rtg_metric_ticks(s->m[3], s->last, b, rtg_clock_delta_ns(s->last, b), at);
            } else {
                rtg_metric_ticks(s->m[4], a, s->first, rtg_clock_delta_ns(a, s->first), at);
                rtg_metric_ticks(s->m[5], c, d, rtg_clock_delta_ns(c, d), at);
            }
        }
    }
    return NULL;
}

static int new_p_run(struct rtg_ctx *ctx)
{
    int rc;
    if (!rtg_thr_need_levels(ctx, 2, &rc))
        return rc;
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the scenarios are defined by priorities");
    static const char *const names[6] = {
        "thread.create.never_run",     "thread.delete.never_run",
        "thread.create.run_terminate", "thread.exit.run_terminate",
        "thread.create.run_block",     "thread.delete.run_block"};
    struct new_state s = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops"),
                          .prio = rtg_prio(ctx) - 1};
    for (int i = 0; i < 6; i++)
        if (!(s.m[i] = rtg_metric_new(ctx, "%s", names[i])))
            return rtg_fail_error(ctx, "out of memory");
        else
            rtg_metric_explain_call(ctx, s.m[i]);
    rtg_thread_t c;
    rc = rtg_thr_spawn(ctx, &c, s.prio, new_creator, &s);
    if (!rc)
        rtg_thread_join(c, NULL);
    if (rc || s.error)
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc ? rc : s.error));
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "creator_prio", s.prio);
    rtg_json_kint(info, "stack_bytes", RTG_TEST_STACK);
    rtg_json_kstr(info, "delete",
                  "join of a thread whose function returns at its first instruction (POSIX "
                  "cannot remove a thread without letting it run)");
    return 0;
}

static double new_p_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 3 * 1e-4;
}

static const struct rtg_option new_p_options[] = {
    {"loops", RTG_OPT_INT, 3000, 400, 10, 1000000, NULL, RTG_OPT_SCALED,
     "threads created and deleted per scenario"},
};

const struct rtg_test_desc rtg_test_thr_p_new = {
    .id = "THR-P-NEW",
    .source = __FILE__,
    .recorded = true, /* its calls' worst samples are explained */
    .title = "Thread creation and deletion time (never run, run and terminate, run and block)",
    .kind = 'P',
    .options = RTG_OPTIONS(new_p_options),
    .run = new_p_run,
    .bound_s = new_p_bound,
};
