/* THR-P-SLS: switch between same-priority threads (N = 2, 10, 128, 1000),
 * all on one CPU. On a board with one small heap, N is as many threads as
 * fit (the figure is named after the N run, and the record says so). Each
 * switch is recorded at once by the thread it switched to. */
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

/* The workers only stamp the clock, yield and wait on two semaphores, and
 * there are up to 1000 of them, each stack locked in memory: the leaf size
 * (common/catalogue.h): 15.6 MiB for N = 1000, where 64 KiB stacks made
 * 62.5 MiB. */
#define SLS_STACK RTG_TEST_STACK_LEAF

struct sls_state {
    volatile uint64_t last;   /* ticks just before the last yield */
    volatile int last_owner;  /* who wrote it; -1: invalid (a thread exited) */
    struct rtg_ctx *ctx;
    struct rtg_metric *m;
    /* Around each sample's recording: the workers share one CPU and one
     * priority, so under SCHED_FIFO only a yield switches between them and
     * the lock is never contended; without it, it keeps the figure whole. */
    rtg_mutex_t lock;
    int rounds, n;
    rtg_sem_t go, done;
    atomic_int abort, finished;
};

struct sls_arg {
    struct sls_state *st;
    int id;
};

static void *sls_worker(void *arg)
{
    struct sls_arg *a = arg;
    struct sls_state *st = a->st;
    if (rtg_sem_wait_until(&st->go, rtg_mono_ns() + SEM_TIMEOUT_NS) || atomic_load(&st->abort))
        goto out;
    for (int r = 0; r < st->rounds && !rtg_stop_requested(); r++) {
        st->last_owner = a->id;
        st->last = rtg_clock_ticks();
        rtg_thread_yield();
        uint64_t now = rtg_clock_ticks();
        int owner = st->last_owner;
        if (owner >= 0 && owner != a->id) {
            uint64_t from = st->last;
            rtg_mutex_lock(&st->lock);
            rtg_metric_ticks(st->m, from, now, rtg_clock_delta_ns(from, now),
                             rtg_test_elapsed_ns(st->ctx));
            rtg_mutex_unlock(&st->lock);
        }
    }
out:
    st->last_owner = -1; /* the switch after an exit is not a yield */
    if (atomic_fetch_add(&st->finished, 1) + 1 == st->n)
        rtg_sem_post(&st->done);
    return NULL;
}

static int sls_one(struct rtg_ctx *ctx, int n, int64_t switches, struct rtg_metric *m,
                   int *created)
{
    struct sls_state st = {0};
    st.n = n;
    st.ctx = ctx;
    st.m = m;
    st.rounds = (int)(switches / n);
    if (st.rounds < 3)
        st.rounds = 3;
    st.last_owner = -1;
    rtg_thread_t *t = malloc((size_t)n * sizeof *t);
    struct sls_arg *args = malloc((size_t)n * sizeof *args);
    int rc = (!t || !args) ? ENOMEM : 0;
    if (!rc) {
        rc = rtg_mutex_init(&st.lock, RTG_PROTO_INHERIT, 0);
        if (rc == ENOTSUP)
            rc = rtg_mutex_init(&st.lock, RTG_PROTO_NONE, 0);
    }
    if (!rc) {
        rc = rtg_sem_init(&st.go, 0);
        if (rc)
            rtg_mutex_destroy(&st.lock);
    }
    if (!rc) {
        rc = rtg_sem_init(&st.done, 0);
        if (rc) {
            rtg_sem_destroy(&st.go);
            rtg_mutex_destroy(&st.lock);
        }
    }
    bool made = rc == 0; /* the lock and both semaphores exist */
    atomic_init(&st.abort, 0);
    atomic_init(&st.finished, 0);
    int k = 0;
    for (; !rc && k < n; k++) {
        args[k] = (struct sls_arg){&st, k};
        struct rtg_thread_attr a = rtg_attr_at(ctx, rtg_rt_policy(ctx), rtg_prio(ctx) - 1);
        a.stack_size = SLS_STACK;
        rc = rtg_thread_create(&t[k], &a, sls_worker, &args[k]);
        if (rc)
            break;
    }
    *created = k;
    if (rc) {
        atomic_store(&st.abort, 1);
        st.n = k;
    }
    /* All exist: open the gate. Under SCHED_FIFO none has run yet (this
     * thread is above them); they start when it blocks. */
    for (int i = 0; i < k; i++)
        rtg_sem_post(&st.go);
    if (k)
        rtg_sem_wait_until(&st.done, rtg_mono_ns() + SEM_TIMEOUT_NS + 10000 * NS_PER_MS);
    for (int i = 0; i < k; i++)
        rtg_thread_join(t[i], NULL);
    if (made) {
        rtg_sem_destroy(&st.go);
        rtg_sem_destroy(&st.done);
        rtg_mutex_destroy(&st.lock);
    }
    free(t);
    free(args);
    return rc;
}

static int sls_run(struct rtg_ctx *ctx)
{
    int rc;
    if (!rtg_thr_need_levels(ctx, 1, &rc))
        return rc;
    rtg_thr_note_no_rt(ctx);
    static const int sizes[] = {2, 10, 128, 1000};
    int64_t switches = rtg_opt_int(ctx, "switches");
    int64_t max_n = rtg_opt_int(ctx, "max_threads");
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_key(info, "rounds");
    rtg_json_arr_begin(info);
    int err_n = 0, created = 0, last_n = 0;
    size_t per_thread = rtg_thread_mem_bytes(SLS_STACK) + sizeof(rtg_thread_t) +
                        sizeof(struct sls_arg);
    rc = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && !rtg_stop_requested(); i++) {
        int n = sizes[i];
        if (n > max_n) {
            rtg_note(ctx, "N = %d skipped (max_threads %lld)", n, (long long)max_n);
            continue;
        }
        n = (int)rtg_fit_count(ctx, "N", n, per_thread, RTG_FIT_RESERVE);
        if (n < 2 || n <= last_n) {
            rtg_note(ctx, "N = %d not run: no more than %d threads fit", sizes[i],
                     n < last_n ? last_n : n);
            continue;
        }
        last_n = n;
        struct rtg_metric *m = rtg_metric_new(ctx, "thread.switch.yield.n%d", n);
        if (!m) {
            rc = ENOMEM;
            break;
        }
        rtg_metric_params_int(m, "threads", n);
        /* each switch, from the yield to the thread switched to running,
         * recorded by that thread at once */
        rtg_metric_explain(ctx, m);
        rtg_json_int(info, switches / n < 3 ? 3 : switches / n);
        rc = sls_one(ctx, n, switches, m, &created);
        if (rc) {
            err_n = n;
            break;
        }
    }
    rtg_json_arr_end(info);
    rtg_json_kint(info, "stack_bytes", SLS_STACK);
    if (!rc && !last_n)
        return rtg_skip(ctx, "fewer than two threads fit in the heap");
    if (rc == ENOMEM && !err_n)
        return rtg_fail_error(ctx, "out of memory");
    if (rc)
        return rtg_fail_error(ctx, "N = %d: could create only %d threads: %s", err_n, created,
                              strerror(rc));
    return 0;
}

static double sls_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "switches") * 4 * 2e-5;
}

static const struct rtg_option sls_options[] = {
    {"switches", RTG_OPT_INT, 20000, 3000, 100, 10000000, NULL, RTG_OPT_SCALED,
     "switches measured per N (at least 3 rounds of every thread)"},
    {"max_threads", RTG_OPT_INT, 1000, 0, 2, 1000, NULL, 0,
     "largest N run (N = 2, 10, 128, 1000)"},
};

const struct rtg_test_desc rtg_test_thr_p_sls = {
    .id = "THR-P-SLS",
    .source = __FILE__,
    .recorded = true, /* its switches' worst samples are explained */
    .title = "Switch between same-priority threads (sched_yield), N = 2, 10, 128, 1000",
    .kind = 'P',
    .options = RTG_OPTIONS(sls_options),
    .run = sls_run,
    .bound_s = sls_bound,
};
