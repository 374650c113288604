/* BAR-P-LAT: barrier release. N threads (2, the CPUs, 2 x CPUs, 4 x CPUs)
 * spread over the test's CPUs meet at a barrier, round after round. The
 * figure runs from the last arrival (the latest stamp taken just before a
 * thread calls the wait) until the last thread is past the barrier: each
 * member counts itself past once its wait returned, and the last to count
 * stamps the clock and records the sample at once, itself. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_barrier.h"
#include "rtg/test.h"
#include "common/catalogue.h"

#define BAR_MAX 64
/* The members only stamp the clock and meet at the barrier (the last past
 * also adds a sample to the figure set), and there are up
 * to BAR_MAX of them, each stack locked in memory: the leaf size
 * (common/catalogue.h). */
#define BAR_STACK RTG_TEST_STACK_LEAF
#define BOUND_NS (2000 * NS_PER_MS)

struct bar {
    struct rtg_ctx *ctx;
    struct rtg_barrier *b;
    int n;
    int64_t rounds;
    rtg_sem_t start;
    atomic_bool abort;
    uint64_t arrive[2][BAR_MAX]; /* double-buffered by round */
    atomic_int past[2];          /* members past the barrier this round */
    volatile bool go_on[2];
    struct rtg_metric *m;
    atomic_int errors;
};

struct member {
    struct bar *s;
    int i;
};

/* By the last member past the barrier, at once: from the last arrival
 * (every arrival was stamped before the barrier let anyone go) to now. */
static void sample(struct bar *s, int buf)
{
    uint64_t last_out = rtg_clock_ticks();
    uint64_t last_in = 0;
    for (int i = 0; i < s->n; i++)
        if (s->arrive[buf][i] > last_in)
            last_in = s->arrive[buf][i];
    rtg_metric_ticks(s->m, last_in, last_out, rtg_clock_delta_ns(last_in, last_out),
                     rtg_test_elapsed_ns(s->ctx));
}

static void *member_main(void *arg)
{
    struct member *me = arg;
    struct bar *s = me->s;
    if (rtg_sem_wait_until(&s->start, rtg_mono_ns() + BOUND_NS) || atomic_load(&s->abort))
        return NULL;
    for (int64_t r = 0;; r++) {
        int buf = (int)(r & 1);
        if (me->i == 0) {
            s->go_on[buf] = r + 1 < s->rounds && !rtg_stop_requested();
            atomic_store(&s->past[buf], 0); /* its last use ended two meetings ago */
        }
        s->arrive[buf][me->i] = rtg_clock_ticks();
        int rc = rtg_barrier_wait(s->b, NULL);
        if (!rc && atomic_fetch_add(&s->past[buf], 1) + 1 == s->n)
            sample(s, buf);
        /* Second meeting: the sample is recorded before the next round. */
        if (!rc)
            rc = rtg_barrier_wait(s->b, NULL);
        if (rc) {
            atomic_fetch_add(&s->errors, 1);
            return NULL; /* the others block: the watchdog ends the test */
        }
        if (!s->go_on[buf])
            break;
    }
    return NULL;
}

static int bar_case(struct rtg_ctx *ctx, int n, int64_t rounds)
{
    struct bar *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    *s = (struct bar){.ctx = ctx, .n = n, .rounds = rounds};
    atomic_init(&s->abort, false);
    atomic_init(&s->errors, 0);
    atomic_init(&s->past[0], 0);
    atomic_init(&s->past[1], 0);
    s->m = rtg_metric_new(ctx, "barrier.release.n%d", n);
    int rc = s->m ? 0 : ENOMEM;
    if (!rc) {
        rtg_metric_params_int(s->m, "threads", n);
        /* from the last arrival to the last member past, recorded by it */
        rtg_metric_explain(ctx, s->m);
        rc = rtg_barrier_create(&s->b, (unsigned)n);
    }
    if (rc) {
        free(s);
        return rc;
    }
    rtg_sem_init(&s->start, 0);
    rtg_thread_t t[BAR_MAX];
    struct member mem[BAR_MAX];
    int made = 0;
    for (; made < n; made++) {
        mem[made] = (struct member){s, made};
        struct rtg_thread_attr a = {.policy = rtg_rt_policy(ctx),
                                    .prio = rtg_rt_ok(ctx) ? rtg_prio(ctx) - 1 : 0,
                                    .cpu = rtg_cpu_at(ctx, (size_t)made % rtg_cpu_count(ctx)),
                                    .stack_size = BAR_STACK};
        if ((rc = rtg_thread_create(&t[made], &a, member_main, &mem[made])))
            break;
    }
    /* Only once every member exists do they start: none can wait at the
     * barrier for one that was never created. */
    if (rc)
        atomic_store(&s->abort, true);
    for (int i = 0; i < made; i++)
        rtg_sem_post(&s->start);
    for (int i = 0; i < made; i++)
        rtg_thread_join(t[i], NULL);
    if (!rc && atomic_load(&s->errors))
        rc = EIO;
    rtg_sem_destroy(&s->start);
    rtg_barrier_delete(s->b);
    free(s);
    return rc;
}

static int bar_run(struct rtg_ctx *ctx)
{
    if (rtg_prio(ctx) < 2)
        return rtg_skip(ctx, "needs --prio >= 2 (a level below it)");
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "threads ran SCHED_OTHER");
    int c = (int)rtg_cpu_count(ctx);
    int ns[4] = {2, c, 2 * c, 4 * c};
    int64_t rounds = rtg_opt_int(ctx, "rounds");
    int done[4], nd = 0;
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "cpus", c);
    rtg_json_key(info, "threads");
    rtg_json_arr_begin(info);
    for (int i = 0; i < 4 && !rtg_stop_requested(); i++) {
        int n = ns[i] < BAR_MAX ? ns[i] : BAR_MAX;
        bool seen = false;
        for (int k = 0; k < nd; k++)
            seen |= done[k] == n;
        if (seen || n < 2)
            continue;
        done[nd++] = n;
        rtg_json_int(info, n);
        int rc = bar_case(ctx, n, rounds);
        if (rc) {
            rtg_json_arr_end(info);
            return rtg_fail_error(ctx, "barrier of %d threads: %s", n, strerror(rc));
        }
    }
    rtg_json_arr_end(info);
    rtg_json_kint(info, "thread_prio", rtg_rt_ok(ctx) ? rtg_prio(ctx) - 1 : 0);
    rtg_json_kint(info, "stack_bytes", BAR_STACK);
    return 0;
}

static double bar_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "rounds") * 4e-4 * (double)rtg_cpu_count(ctx);
}

static const struct rtg_option bar_options[] = {
    {"rounds", RTG_OPT_INT, 5000, 500, 10, 10000000, NULL, RTG_OPT_SCALED,
     "barrier rounds per thread count"},
};

const struct rtg_test_desc rtg_test_bar_p_lat = {
    .id = "BAR-P-LAT",
    .source = __FILE__,
    .recorded = true, /* each release's worst samples are explained */
    .needs = RTG_OFFERS_BARRIERS,
    .title = "Barrier release: last arrival until every thread is past it",
    .kind = 'P',
    .options = RTG_OPTIONS(bar_options),
    .run = bar_run,
    .bound_s = bar_bound,
};
