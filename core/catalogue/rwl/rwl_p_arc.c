/* RWL-P-ARC: reader-writer lock acquire and release. Uncontended read and
 * write lock/unlock, each call timed alone; then a writer waiting behind K
 * readers on one CPU: from just before the last reader's unlock until the
 * writer has returned from its lock. Records which side the implementation
 * favours (whether a waiting writer holds back a new reader) as a
 * property, not a verdict. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_rwlock.h"
#include "rtg/test.h"
#include "common/catalogue.h"

#define RWL_MAX_READERS 16
#define BOUND_NS (2000 * NS_PER_MS)

struct arc {
    struct rtg_ctx *ctx;
    struct rtg_rwlock *lock;
    int k;
    rtg_sem_t go[RWL_MAX_READERS], rel[RWL_MAX_READERS], w_go;
    atomic_int held;       /* readers holding the lock */
    atomic_bool w_calling; /* the writer is about to call, or is in, wrlock */
    atomic_bool w_done;    /* the writer got and released the lock */
    atomic_bool stop;
    volatile uint64_t t_unlock; /* ticks before the last reader's unlock */
    volatile uint64_t t_got;    /* ticks after the writer's lock returned */
    int32_t w_tid;              /* the writer, as the recorder names it */
    int errors;
};

struct reader {
    struct arc *a;
    int i;
};

static void *reader_main(void *arg)
{
    struct reader *r = arg;
    struct arc *a = r->a;
    for (;;) {
        if (rtg_sem_wait_until(&a->go[r->i], rtg_mono_ns() + BOUND_NS) || atomic_load(&a->stop))
            break;
        if (rtg_rwlock_rdlock(a->lock)) {
            a->errors++;
            break;
        }
        atomic_fetch_add(&a->held, 1);
        if (rtg_sem_wait_until(&a->rel[r->i], rtg_mono_ns() + BOUND_NS))
            a->errors++;
        if (atomic_fetch_sub(&a->held, 1) == 1)
            a->t_unlock = rtg_clock_ticks();
        rtg_rwlock_unlock(a->lock);
    }
    return NULL;
}

static void *writer_main(void *arg)
{
    struct arc *a = arg;
    a->w_tid = rtg_explain_tid(a->ctx); /* read once w_done is seen */
    for (;;) {
        if (rtg_sem_wait_until(&a->w_go, rtg_mono_ns() + BOUND_NS) || atomic_load(&a->stop))
            break;
        atomic_store(&a->w_calling, true);
        int rc = rtg_rwlock_wrlock(a->lock);
        a->t_got = rtg_clock_ticks();
        if (rc) {
            a->errors++;
            break;
        }
        rtg_rwlock_unlock(a->lock);
        atomic_store(&a->w_calling, false);
        atomic_store(&a->w_done, true);
    }
    return NULL;
}

/* Sleeps in short steps until cond(a) holds; false after 2 s. */
static bool sleep_until_true(struct arc *a, bool (*cond)(struct arc *))
{
    uint64_t until = rtg_mono_ns() + BOUND_NS;
    while (!cond(a)) {
        if (rtg_mono_ns() > until || rtg_stop_requested())
            return false;
        rtg_sleep_ns(50 * NS_PER_US);
    }
    return true;
}

static bool all_held(struct arc *a) { return atomic_load(&a->held) == a->k; }
static bool writer_done(struct arc *a) { return atomic_load(&a->w_done); }

static void uncontended(struct rtg_ctx *ctx, struct rtg_rwlock *l, int64_t loops)
{
    struct rtg_metric *rd = rtg_metric_new(ctx, "rwlock.rdlock.uncontended");
    struct rtg_metric *ru = rtg_metric_new(ctx, "rwlock.rdunlock.uncontended");
    struct rtg_metric *wr = rtg_metric_new(ctx, "rwlock.wrlock.uncontended");
    struct rtg_metric *wu = rtg_metric_new(ctx, "rwlock.wrunlock.uncontended");
    if (!rd || !ru || !wr || !wu)
        return;
    rtg_metric_explain_call(ctx, rd);
    rtg_metric_explain_call(ctx, ru);
    rtg_metric_explain_call(ctx, wr);
    rtg_metric_explain_call(ctx, wu);
    struct rtg_breather br = {.every = 64};
    for (int64_t i = 0; i < loops && !rtg_stop_requested(); i++) {
        uint64_t t0 = rtg_clock_ticks();
        rtg_rwlock_rdlock(l);
        uint64_t t1 = rtg_clock_ticks();
        rtg_rwlock_unlock(l);
        uint64_t t2 = rtg_clock_ticks();
        rtg_rwlock_wrlock(l);
        uint64_t t3 = rtg_clock_ticks();
        rtg_rwlock_unlock(l);
        uint64_t t4 = rtg_clock_ticks();
        uint64_t at = rtg_test_elapsed_ns(ctx);
        rtg_metric_ticks(rd, t0, t1, rtg_clock_delta_ns(t0, t1), at);
        rtg_metric_ticks(ru, t1, t2, rtg_clock_delta_ns(t1, t2), at);
        rtg_metric_ticks(wr, t2, t3, rtg_clock_delta_ns(t2, t3), at);
        rtg_metric_ticks(wu, t3, t4, rtg_clock_delta_ns(t3, t4), at);
        rtg_breathe(&br);
    }
}

/* One round of the writer behind k readers; the probe of a new reader
 * while the writer waits is made in the first round. */
static int contended_round(struct arc *a, struct rtg_metric *m, int round, int *new_reader_rc)
{
    atomic_store(&a->w_done, false);
    for (int i = 0; i < a->k; i++)
        rtg_sem_post(&a->go[i]);
    if (!sleep_until_true(a, all_held))
        return ETIMEDOUT;
    rtg_sem_post(&a->w_go);
    /* The writer is above the readers: when this thread sleeps it runs,
     * calls wrlock and blocks there. */
    rtg_sleep_ns(200 * NS_PER_US);
    if (!atomic_load(&a->w_calling) || atomic_load(&a->w_done))
        return EAGAIN;
    if (round == 0) {
        *new_reader_rc = rtg_rwlock_tryrdlock(a->lock);
        if (*new_reader_rc == 0)
            rtg_rwlock_unlock(a->lock);
    }
    for (int i = 0; i < a->k; i++)
        rtg_sem_post(&a->rel[i]);
    if (!sleep_until_true(a, writer_done))
        return ETIMEDOUT;
    /* the writer's wake-up, recorded here for the writer: its window */
    rtg_metric_ticks_of(m, a->t_unlock, a->t_got, rtg_clock_delta_ns(a->t_unlock, a->t_got),
                        rtg_test_elapsed_ns(a->ctx), a->w_tid);
    return 0;
}

static int arc_run(struct rtg_ctx *ctx)
{
    if (rtg_prio(ctx) < 3)
        return rtg_skip(ctx, "needs --prio >= 3 (two levels below it)");
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the contended case depends on priorities");
    struct arc a = {.ctx = ctx, .k = (int)rtg_opt_int(ctx, "readers")};
    int rc = rtg_rwlock_create(&a.lock);
    if (rc)
        return rtg_fail_error(ctx, "rwlock: %s", strerror(rc));
    uncontended(ctx, a.lock, rtg_opt_int(ctx, "loops"));
    struct rtg_metric *m = rtg_metric_new(ctx, "rwlock.writer_wake.last_reader");
    if (!m) {
        rtg_rwlock_delete(a.lock);
        return rtg_fail_error(ctx, "out of memory");
    }
    rtg_metric_params_int(m, "readers", a.k);
    rtg_metric_explain(ctx, m);
    atomic_init(&a.held, 0);
    atomic_init(&a.w_calling, false);
    atomic_init(&a.w_done, false);
    atomic_init(&a.stop, false);
    for (int i = 0; i < a.k; i++) {
        rtg_sem_init(&a.go[i], 0);
        rtg_sem_init(&a.rel[i], 0);
    }
    rtg_sem_init(&a.w_go, 0);
    rtg_thread_t rt[RWL_MAX_READERS], wt;
    struct reader rd[RWL_MAX_READERS];
    int made = 0;
    bool writer = false;
    for (; made < a.k && !rc; made++) {
        rd[made] = (struct reader){&a, made};
        struct rtg_thread_attr at = rtg_attr_at(ctx, RTG_SCHED_FIFO, rtg_prio(ctx) - 2);
        if ((rc = rtg_thread_create(&rt[made], &at, reader_main, &rd[made])))
            break;
    }
    if (!rc) {
        struct rtg_thread_attr at = rtg_attr_at(ctx, RTG_SCHED_FIFO, rtg_prio(ctx) - 1);
        writer = !(rc = rtg_thread_create(&wt, &at, writer_main, &a));
    }
    int new_reader_rc = -1;
    int64_t rounds = rtg_opt_int(ctx, "rounds");
    for (int64_t i = 0; i < rounds && !rc && !rtg_stop_requested(); i++)
        rc = contended_round(&a, m, (int)i, &new_reader_rc);
    atomic_store(&a.stop, true);
    for (int i = 0; i < made; i++) {
        rtg_sem_post(&a.rel[i]);
        rtg_sem_post(&a.go[i]);
    }
    rtg_sem_post(&a.w_go);
    for (int i = 0; i < made; i++)
        rtg_thread_join(rt[i], NULL);
    if (writer)
        rtg_thread_join(wt, NULL);
    for (int i = 0; i < a.k; i++) {
        rtg_sem_destroy(&a.go[i]);
        rtg_sem_destroy(&a.rel[i]);
    }
    rtg_sem_destroy(&a.w_go);
    rtg_rwlock_delete(a.lock);
    if (rc || a.errors)
        return rtg_fail_error(ctx, "contended case: %s",
                              rc == EAGAIN ? "the writer did not block behind the readers"
                                           : rc ? strerror(rc) : "a lock call failed");
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kstr(info, "rwlock_kind", rtg_rwlock_kind());
    rtg_json_kint(info, "readers", a.k);
    rtg_json_kint(info, "writer_prio", rtg_prio(ctx) - 1);
    rtg_json_kint(info, "reader_prio", rtg_prio(ctx) - 2);
    if (new_reader_rc >= 0) {
        rtg_json_kstr(info, "favours", new_reader_rc == 0 ? "readers" : "writers");
        rtg_json_kbool(info, "waiting_writer_blocks_new_readers", new_reader_rc != 0);
    }
    return 0;
}

static double arc_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 1e-6 +
           (double)rtg_opt_int(ctx, "rounds") * 2e-3;
}

static const struct rtg_option arc_options[] = {
    {"loops", RTG_OPT_INT, 100000, 10000, 10, 100000000, NULL, RTG_OPT_SCALED,
     "uncontended read and write lock/unlock pairs"},
    {"rounds", RTG_OPT_INT, 1000, 100, 1, 1000000, NULL, RTG_OPT_SCALED,
     "rounds of a writer waiting behind the readers"},
    {"readers", RTG_OPT_INT, 3, 0, 1, RWL_MAX_READERS, NULL, 0, "readers holding the lock"},
};

const struct rtg_test_desc rtg_test_rwl_p_arc = {
    .id = "RWL-P-ARC",
    .source = __FILE__,
    .recorded = true, /* its calls' worst samples are explained */
    .needs = RTG_OFFERS_RWLOCKS,
    .title = "Reader-writer lock acquire/release; writer woken by the last reader",
    .kind = 'P',
    .options = RTG_OPTIONS(arc_options),
    .run = arc_run,
    .bound_s = arc_bound,
};
