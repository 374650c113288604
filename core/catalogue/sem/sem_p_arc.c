/* SEM-P-ARC: acquire / release with contention, 128 waiters.
 * A low-priority creator creates the waiters one by one; each has a higher
 * priority, runs at once and blocks in P on a semaphore at zero.
 *   acquisition = the waiter's stamp before P -> the creator's stamp when
 *                 its create call returns (one switch: waiter -> creator);
 *   release     = the creator's stamp before V -> the woken waiter's stamp
 *                 after P returns (one switch: creator -> waiter).
 * Figures are kept per number of waiters on the semaphore at that moment
 * (grouped, see docs/methodology.md). Each sample is recorded at once by
 * the thread that ran: the creator its acquisitions, each waiter its
 * release. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"

/* The waiters only stamp the clock and wait on the semaphore, and there
 * are up to 1024 of them, each stack locked in memory: the leaf size
 * (common/catalogue.h). The creator, which records, keeps RTG_TEST_STACK. */
#define ARC_WAITER_STACK RTG_TEST_STACK_LEAF

struct arc;

struct arc_waiter {
    struct arc *a;
    int idx;        /* creation order, 0 = first */
    int prio;
    uint64_t t_before_p;
    uint64_t t_woken;
    int release_pos; /* 0-based order of release */
    int rc;
};

struct arc {
    struct rtg_ctx *ctx;
    int n, rounds, group;
    int creator_prio;
    enum rtg_policy policy;
    rtg_sem_t sem;
    struct arc_waiter *w;
    rtg_thread_t *t;
    uint64_t *t_post; /* creator's stamp before the k-th V */
    int round_n;      /* waiters of this round, set before the first V */
    atomic_int released;
    rtg_mutex_t rel_lock; /* the release figures: written by one waiter at a time */
    /* per waiter position (1..n): sums for the info arrays */
    double *acq_sum, *rel_sum;
    uint64_t *acq_cnt, *rel_cnt;
    struct rtg_metric *acq_all, *rel_all;
    struct rtg_metric **acq_g, **rel_g;
    int out_of_order, timeouts, error;
};

static void add_pos(struct arc *a, bool acq, int waiters, uint64_t from, uint64_t to);

static void *arc_waiter(void *arg)
{
    struct arc_waiter *w = arg;
    struct arc *a = w->a;
    uint64_t deadline = rtg_mono_ns() + 5000 * NS_PER_MS; /* before the stamp */
    w->t_before_p = rtg_clock_ticks();
    w->rc = rtg_sem_wait_until(&a->sem, deadline);
    w->t_woken = rtg_clock_ticks();
    int pos = atomic_fetch_add(&a->released, 1);
    w->release_pos = pos;
    /* The pos-th V woke this waiter, which ran inside it: its release
     * sample, recorded now, by the thread it measures. */
    if (!w->rc && pos < a->round_n) {
        rtg_mutex_lock(&a->rel_lock);
        add_pos(a, false, a->round_n - pos, a->t_post[pos], w->t_woken);
        rtg_mutex_unlock(&a->rel_lock);
    }
    return NULL;
}

/* Priorities: the creator at lo, the waiters on the levels lo+1..top, the
 * first created highest. With more waiters than levels, consecutive
 * waiters share a level, spread evenly. */
static int waiter_prio(int idx, int n, int lo, int top)
{
    int levels = top - lo;
    if (n <= levels)
        return top - idx;
    return top - (int)((long)idx * levels / n);
}

/* A sample from tick `from` to `to`, with that many waiters on the
 * semaphore, by the thread that ran at `to`. */
static void add_pos(struct arc *a, bool acq, int waiters, uint64_t from, uint64_t to)
{
    uint64_t at = rtg_test_elapsed_ns(a->ctx);
    uint64_t ns = rtg_clock_delta_ns(from, to);
    int g = (waiters - 1) / a->group;
    if (acq) {
        rtg_metric_ticks(a->acq_all, from, to, ns, at);
        rtg_metric_ticks(a->acq_g[g], from, to, ns, at);
        a->acq_sum[waiters - 1] += (double)ns;
        a->acq_cnt[waiters - 1]++;
    } else {
        rtg_metric_ticks(a->rel_all, from, to, ns, at);
        rtg_metric_ticks(a->rel_g[g], from, to, ns, at);
        a->rel_sum[waiters - 1] += (double)ns;
        a->rel_cnt[waiters - 1]++;
    }
}

static void *arc_creator(void *arg)
{
    struct arc *a = arg;
    int top = rtg_prio(a->ctx);
    for (int r = 0; r < a->rounds && !rtg_stop_requested() && !a->error; r++) {
        atomic_store(&a->released, 0);
        int started = 0;
        uint64_t *t_back = a->t_post; /* reused: creator's stamp after create */
        for (; started < a->n && !rtg_stop_requested(); started++) {
            struct arc_waiter *w = &a->w[started];
            *w = (struct arc_waiter){.a = a, .idx = started,
                                     .prio = waiter_prio(started, a->n, a->creator_prio, top)};
            struct rtg_thread_attr at = {.policy = a->policy, .prio = w->prio,
                                         .cpu = rtg_cpu_at(a->ctx, 0),
                                         .stack_size = ARC_WAITER_STACK};
            int rc = rtg_thread_create(&a->t[started], &at, arc_waiter, w);
            t_back[started] = rtg_clock_ticks();
            if (rc) {
                a->error = rc;
                break;
            }
            /* Acquisition: the waiter blocked; the creator ran again. */
            if (w->t_before_p && t_back[started] > w->t_before_p)
                add_pos(a, true, started + 1, w->t_before_p, t_back[started]);
        }
        /* Release: one V at a time; the highest waiter runs inside V and
         * records its sample. */
        a->round_n = started;
        for (int k = 0; k < started; k++) {
            a->t_post[k] = rtg_clock_ticks();
            rtg_sem_post(&a->sem);
        }
        for (int k = 0; k < started; k++)
            rtg_thread_join(a->t[k], NULL);
        /* The k-th release should wake waiter k (first created = highest). */
        for (int k = 0; k < started; k++) {
            struct arc_waiter *w = &a->w[k];
            if (w->rc) {
                a->timeouts++;
                continue;
            }
            int pos = w->release_pos;
            if (pos < 0 || pos >= started)
                continue;
            /* Created highest first (equal levels in creation order): the
             * k-th V must release waiter k. */
            if (pos != k)
                a->out_of_order++;
        }
    }
    return NULL;
}

static int arc_run(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: waiters must preempt the creator");
    struct arc a = {.ctx = ctx, .n = (int)rtg_opt_int(ctx, "waiters"),
                    .rounds = (int)rtg_opt_int(ctx, "rounds"),
                    .group = (int)rtg_opt_int(ctx, "group"), .policy = RTG_SCHED_FIFO};
    int top = rtg_prio(ctx);
    a.creator_prio = rtg_prio_min(RTG_SCHED_FIFO);
    if (a.creator_prio < 1)
        a.creator_prio = 1;
    if (top - a.creator_prio < 1)
        return rtg_skip(ctx, "needs --prio >= %d", a.creator_prio + 1);
    /* On a board's small heap, as many waiters as fit: each a thread, its
     * bookkeeping, its share of the figure sets. */
    size_t per_waiter = rtg_thread_mem_bytes(ARC_WAITER_STACK) + sizeof *a.w + 6 * sizeof(uint64_t) +
                        2 * RTG_METRIC_BYTES / (size_t)a.group + 1;
    a.n = (int)rtg_fit_count(ctx, "waiters", a.n, per_waiter,
                             RTG_FIT_RESERVE + 4 * RTG_METRIC_BYTES +
                                 rtg_thread_mem_bytes(RTG_TEST_STACK));
    if (a.n < 2)
        return rtg_skip(ctx, "fewer than two waiters fit in the heap");
    int ngroups = (a.n + a.group - 1) / a.group;
    a.w = calloc((size_t)a.n, sizeof *a.w);
    a.t = calloc((size_t)a.n, sizeof *a.t);
    a.t_post = calloc((size_t)a.n, sizeof *a.t_post);
    a.acq_sum = calloc((size_t)a.n, sizeof(double));
    a.rel_sum = calloc((size_t)a.n, sizeof(double));
    a.acq_cnt = calloc((size_t)a.n, sizeof(uint64_t));
    a.rel_cnt = calloc((size_t)a.n, sizeof(uint64_t));
    a.acq_g = calloc((size_t)ngroups, sizeof *a.acq_g);
    a.rel_g = calloc((size_t)ngroups, sizeof *a.rel_g);
    a.acq_all = rtg_metric_new(ctx, "sem.acquire.contended");
    a.rel_all = rtg_metric_new(ctx, "sem.release.contended");
    if (!a.w || !a.t || !a.t_post || !a.acq_sum || !a.rel_sum || !a.acq_cnt || !a.rel_cnt ||
        !a.acq_g || !a.rel_g || !a.acq_all || !a.rel_all)
        return rtg_fail_error(ctx, "out of memory");
    for (int g = 0; g < ngroups; g++) {
        int lo = g * a.group + 1, hi = (g + 1) * a.group < a.n ? (g + 1) * a.group : a.n;
        for (int d = 0; d < 2; d++) {
            struct rtg_metric *m = rtg_metric_new(ctx, "sem.%s.contended.w%03d_%03d",
                                                  d ? "release" : "acquire", lo, hi);
            if (!m)
                return rtg_fail_error(ctx, "out of memory");
            rtg_json_obj_begin(&m->params);
            rtg_json_kint(&m->params, "waiters", (lo + hi) / 2);
            rtg_json_kint(&m->params, "waiters_min", lo);
            rtg_json_kint(&m->params, "waiters_max", hi);
            rtg_json_obj_end(&m->params);
            (d ? a.rel_g : a.acq_g)[g] = m;
        }
    }
    for (int g = 0; g < ngroups; g++) {
        rtg_metric_explain(ctx, a.acq_g[g]);
        rtg_metric_explain(ctx, a.rel_g[g]);
    }
    rtg_metric_explain(ctx, a.acq_all);
    rtg_metric_explain(ctx, a.rel_all);
    int rc = rtg_mutex_init(&a.rel_lock, RTG_PROTO_INHERIT, 0);
    if (rc == ENOTSUP)
        rc = rtg_mutex_init(&a.rel_lock, RTG_PROTO_NONE, 0);
    if (rc)
        return rtg_fail_error(ctx, "mutex init: %s", strerror(rc));
    rc = rtg_sem_init(&a.sem, 0);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    atomic_init(&a.released, 0);
    rtg_thread_t c;
    struct rtg_thread_attr at = {.policy = RTG_SCHED_FIFO, .prio = a.creator_prio,
                                 .cpu = rtg_cpu_at(ctx, 0), .stack_size = RTG_TEST_STACK};
    rc = rtg_thread_create(&c, &at, arc_creator, &a);
    if (!rc)
        rtg_thread_join(c, NULL);
    rtg_sem_destroy(&a.sem);
    rtg_mutex_destroy(&a.rel_lock);

    struct rtg_json *info = rtg_info(ctx);
    int levels = top - a.creator_prio;
    rtg_json_kint(info, "creator_prio", a.creator_prio);
    rtg_json_kint(info, "waiter_prio_max", top);
    rtg_json_kint(info, "waiter_prio_min", waiter_prio(a.n - 1, a.n, a.creator_prio, top));
    rtg_json_kint(info, "distinct_levels", a.n <= levels ? a.n : levels);
    rtg_json_kint(info, "waiters_sharing_a_level", a.n <= levels ? 0 : 2 * (a.n - levels));
    rtg_json_kint(info, "out_of_order_releases", a.out_of_order);
    rtg_json_kint(info, "timeouts", a.timeouts);
    rtg_json_kint(info, "waiter_stack_bytes", ARC_WAITER_STACK);
    for (int d = 0; d < 2; d++) {
        rtg_json_key(info, d ? "release_mean_ns_by_waiters" : "acquire_mean_ns_by_waiters");
        rtg_json_arr_begin(info);
        for (int k = 0; k < a.n; k++) {
            uint64_t cnt = d ? a.rel_cnt[k] : a.acq_cnt[k];
            double sum = d ? a.rel_sum[k] : a.acq_sum[k];
            if (cnt)
                rtg_json_num(info, (double)(int64_t)(sum / (double)cnt + 0.5));
            else
                rtg_json_null(info);
        }
        rtg_json_arr_end(info);
    }
    free(a.w);
    free(a.t);
    free(a.t_post);
    free(a.acq_sum);
    free(a.rel_sum);
    free(a.acq_cnt);
    free(a.rel_cnt);
    free(a.acq_g);
    free(a.rel_g);
    if (rc || a.error)
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc ? rc : a.error));
    if (a.timeouts)
        return rtg_fail_error(ctx, "%d waiters were never released within 5 s", a.timeouts);
    return 0;
}

static double arc_bound(const struct rtg_ctx *ctx)
{
    return 15.0 + (double)rtg_opt_int(ctx, "rounds") * (double)rtg_opt_int(ctx, "waiters") * 2e-4;
}

static const struct rtg_option arc_options[] = {
    {"waiters", RTG_OPT_INT, 128, 0, 2, 1024, NULL, 0, "threads blocked on the semaphore"},
    {"rounds", RTG_OPT_INT, 40, 5, 1, 100000, NULL, RTG_OPT_SCALED,
     "create-block-release rounds (one sample per waiter position per round)"},
    {"group", RTG_OPT_INT, 16, 0, 1, 1024, NULL, 0,
     "waiter positions per figure set (1: one per position)"},
};

const struct rtg_test_desc rtg_test_sem_p_arc = {
    .id = "SEM-P-ARC",
    .source = __FILE__,
    .recorded = true, /* its hand-overs' worst samples are explained */
    .title = "Semaphore acquire / release with contention (128 waiters)",
    .kind = 'P',
    .options = RTG_OPTIONS(arc_options),
    .run = arc_run,
    .bound_s = arc_bound,
};
