/* SEM-P-PNG: ping-pong hand-over between two threads by semaphores. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_named.h"
#include "rtg/osal_timed.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "sem_perf.h"

struct png {
    struct rtg_ctx *ctx;
    rtg_sem_t to_b, to_a;
    int64_t loops;
    uint64_t t_post_a; /* A's stamp before V(to_b) */
    uint64_t t_post_b; /* B's stamp before V(to_a) */
    struct rtg_metric *ab, *ba, *all;
    atomic_bool stop;
    int timeouts;
};

/* Each wait's deadline is worked out before the stamp that starts the
 * hand-over, so the figure holds the post and the switch, not a clock
 * read of the test's. */
static void *png_b(void *arg)
{
    struct png *p = arg;
    uint64_t deadline = rtg_mono_ns() + 1000 * NS_PER_MS;
    for (;;) {
        int rc = rtg_sem_wait_until(&p->to_b, deadline);
        uint64_t now = rtg_clock_ticks();
        if (atomic_load(&p->stop))
            break;
        if (rc) {
            p->timeouts++;
            break;
        }
        uint64_t at = rtg_test_elapsed_ns(p->ctx);
        uint64_t d = rtg_clock_delta_ns(p->t_post_a, now);
        rtg_metric_ticks(p->ab, p->t_post_a, now, d, at);
        rtg_metric_ticks(p->all, p->t_post_a, now, d, at);
        /* the next wait's deadline before the stamp: at one priority, A
         * runs once B blocks, and the ns arithmetic is no part of it */
        deadline = rtg_mono_ns() + 1000 * NS_PER_MS;
        p->t_post_b = rtg_clock_ticks();
        rtg_sem_post(&p->to_a);
    }
    return NULL;
}

static void png_a(struct png *p)
{
    for (int64_t i = 0; i < p->loops && !rtg_stop_requested(); i++) {
        uint64_t deadline = rtg_mono_ns() + 1000 * NS_PER_MS; /* before the stamp */
        p->t_post_a = rtg_clock_ticks();
        rtg_sem_post(&p->to_b);
        int rc = rtg_sem_wait_until(&p->to_a, deadline);
        uint64_t now = rtg_clock_ticks();
        if (rc) {
            p->timeouts++;
            break;
        }
        uint64_t at = rtg_test_elapsed_ns(p->ctx);
        uint64_t d = rtg_clock_delta_ns(p->t_post_b, now);
        rtg_metric_ticks(p->ba, p->t_post_b, now, d, at);
        rtg_metric_ticks(p->all, p->t_post_b, now, d, at);
    }
    atomic_store(&p->stop, true);
    rtg_sem_post(&p->to_b);
}

static void *png_a_thread(void *arg)
{
    png_a(arg);
    return NULL;
}

static int png_run(struct rtg_ctx *ctx)
{
    rtg_sem_note_no_rt(ctx);
    struct png p = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops")};
    atomic_init(&p.stop, false);
    p.ab = rtg_metric_new(ctx, "sem.handover.a_to_b");
    p.ba = rtg_metric_new(ctx, "sem.handover.b_to_a");
    p.all = rtg_metric_new(ctx, "sem.handover.pingpong");
    if (!p.ab || !p.ba || !p.all)
        return rtg_fail_error(ctx, "out of memory");
    /* each a hand-over, recorded by the thread it woke as soon as it ran */
    rtg_metric_explain(ctx, p.ab);
    rtg_metric_explain(ctx, p.ba);
    rtg_metric_explain(ctx, p.all);
    int rc = rtg_sem_init(&p.to_b, 0);
    if (!rc)
        rc = rtg_sem_init(&p.to_a, 0);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    /* Both threads at one priority below --prio, pinned to one CPU. */
    int prio = rtg_prio(ctx) - 1 > 0 ? rtg_prio(ctx) - 1 : 1;
    struct rtg_thread_attr at = {.policy = rtg_rt_ok(ctx) ? RTG_SCHED_FIFO : RTG_SCHED_OTHER,
                                 .prio = prio, .cpu = rtg_cpu_at(ctx, 0),
                                 .stack_size = RTG_TEST_STACK};
    rtg_thread_t tb, ta;
    rc = rtg_thread_create(&tb, &at, png_b, &p);
    if (rc)
        return rtg_fail_error(ctx, "cannot create thread B: %s", strerror(rc));
    rc = rtg_thread_create(&ta, &at, png_a_thread, &p);
    if (rc) {
        atomic_store(&p.stop, true);
        rtg_sem_post(&p.to_b);
        rtg_thread_join(tb, NULL);
        return rtg_fail_error(ctx, "cannot create thread A: %s", strerror(rc));
    }
    rtg_thread_join(ta, NULL);
    rtg_thread_join(tb, NULL);
    rtg_sem_destroy(&p.to_a);
    rtg_sem_destroy(&p.to_b);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "thread_prio", prio);
    rtg_json_kint(info, "timeouts", p.timeouts);
    const char *adds = rtg_timed_port_adds("sem"); /* to each hand-over: the waits are timed */
    if (adds)
        rtg_json_kstr(info, "osal_adds", adds);
    if (p.timeouts)
        return rtg_fail_error(ctx, "a hand-over did not arrive within 1 s");
    return 0;
}

static double png_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 2e-5;
}

static const struct rtg_option png_options[] = {
    {"loops", RTG_OPT_INT, 50000, 5000, 10, 10000000, NULL, RTG_OPT_SCALED,
     "round trips (two hand-overs each)"},
};

const struct rtg_test_desc rtg_test_sem_p_png = {
    .id = "SEM-P-PNG",
    .source = __FILE__,
    .recorded = true, /* its hand-overs' worst samples are explained */
    .title = "Semaphore ping-pong hand-over between two threads",
    .kind = 'P',
    .options = RTG_OPTIONS(png_options),
    .run = png_run,
    .bound_s = png_bound,
};
