/* SEM-B-LCK: which thread runs when a semaphore is posted to a waiter of
 * lower or higher priority. The verdicts come from sem_verdicts.c. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/sem_verdicts.h"
#include "rtg/test.h"
#include "common/catalogue.h"

struct wake_case {
    struct rtg_ctx *ctx;
    rtg_sem_t sem;
    struct rtg_evlog log;
    int waiter_prio, poster_prio;
    int sem_value_at_post;
    int error;
};

static void *lck_waiter(void *arg)
{
    struct wake_case *c = arg;
    rtg_ev_add(&c->log, 'b');
    int rc = rtg_sem_wait_until(&c->sem, rtg_mono_ns() + 2000 * NS_PER_MS);
    rtg_ev_add(&c->log, rc == 0 ? 'w' : 't');
    return NULL;
}

/* The poster: creates the waiter, lets it block, posts, logs around V. */
static void *lck_poster(void *arg)
{
    struct wake_case *c = arg;
    rtg_thread_t w;
    struct rtg_thread_attr a = rtg_attr_at(c->ctx, RTG_SCHED_FIFO, c->waiter_prio);
    int rc = rtg_thread_create(&w, &a, lck_waiter, c);
    if (rc) {
        c->error = rc;
        return NULL;
    }
    /* A higher waiter ran at once and blocked; a lower one needs the CPU:
     * sleeping hands it over until it blocks. */
    if (c->waiter_prio < c->poster_prio)
        rtg_sleep_ns(20 * NS_PER_MS);
    rtg_sem_value(&c->sem, &c->sem_value_at_post);
    rtg_ev_add(&c->log, 'p');
    rtg_sem_post(&c->sem);
    rtg_ev_add(&c->log, 'r');
    rtg_thread_join(w, NULL);
    return NULL;
}

static int wake_case_run(struct rtg_ctx *ctx, struct wake_case *c, bool higher)
{
    int top = rtg_prio(ctx);
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->poster_prio = top - 2;
    c->waiter_prio = higher ? top - 1 : top - 3;
    rtg_ev_reset(&c->log);
    int rc = rtg_sem_init(&c->sem, 0);
    if (rc)
        return rc;
    rtg_thread_t p;
    struct rtg_thread_attr a = rtg_attr_at(ctx, RTG_SCHED_FIFO, c->poster_prio);
    rc = rtg_thread_create(&p, &a, lck_poster, c);
    if (!rc) {
        rtg_thread_join(p, NULL);
        rc = c->error;
    }
    rtg_sem_destroy(&c->sem);
    return rc;
}

static void wake_verdict(struct rtg_ctx *ctx, struct wake_case *c, bool higher)
{
    int n = atomic_load(&c->log.n);
    c->log.ev[n < (int)sizeof c->log.ev ? n : (int)sizeof c->log.ev - 1] = '\0';
    bool ok = rtg_sem_wake_order_ok(c->log.ev, higher);
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "events", c->log.ev);
    rtg_json_kstr(&ev, "legend",
                  "b waiter blocks in P, p poster calls V, r V returns, w waiter woken, "
                  "t waiter timed out");
    rtg_json_kint(&ev, "poster_prio", c->poster_prio);
    rtg_json_kint(&ev, "waiter_prio", c->waiter_prio);
    rtg_json_kint(&ev, "count_at_post", c->sem_value_at_post);
    rtg_json_obj_end(&ev);
    char obs[96];
    snprintf(obs, sizeof obs, "event order %s", c->log.ev);
    rtg_verdict(ctx, higher ? "v_wakes_higher_waiter_at_once" : "v_wakes_lower_waiter_later", ok,
                higher ? "bpwr: the higher waiter runs inside V, before V returns"
                       : "bprw: V returns first, the lower waiter runs when the poster blocks",
                obs, &ev);
    rtg_json_free(&ev);
}

static int lck_run(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the wake-up checks depend on priorities");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (three levels below it)");
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_sem_t s;
    int rc = rtg_sem_init(&s, 2);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));

    /* 1. P on a positive count returns at once and takes one unit. */
    int before = -1, after = -1;
    rtg_sem_value(&s, &before);
    uint64_t t0 = rtg_mono_ns();
    rc = rtg_sem_wait_until(&s, t0 + 1000 * NS_PER_MS);
    uint64_t took = rtg_mono_ns() - t0;
    rtg_sem_value(&s, &after);
    rtg_json_obj_begin(&ev);
    rtg_json_kint(&ev, "count_before", before);
    rtg_json_kint(&ev, "count_after", after);
    rtg_json_kstr(&ev, "result", rc ? strerror(rc) : "acquired");
    rtg_json_kuint(&ev, "took_ns", took);
    rtg_json_obj_end(&ev);
    char obs[128];
    snprintf(obs, sizeof obs, "count %d -> %d, %s in %llu ns", before, after,
             rc ? strerror(rc) : "acquired", (unsigned long long)took);
    rtg_verdict(ctx, "p_on_positive_count_does_not_block", rtg_sem_p_free_ok(rc, before, after),
                "P returns at once and the count drops by one", obs, &ev);

    /* 2. P on zero blocks: it returns only at its timeout. */
    rtg_sem_trywait(&s); /* count 1 -> 0 */
    rtg_sem_value(&s, &before);
    uint64_t timeout = 20 * NS_PER_MS;
    t0 = rtg_mono_ns();
    rc = rtg_sem_wait_until(&s, t0 + timeout);
    took = rtg_mono_ns() - t0;
    rtg_json_reset(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kint(&ev, "count_before", before);
    rtg_json_kstr(&ev, "result", rc == ETIMEDOUT ? "timed out" : rc ? strerror(rc) : "acquired");
    rtg_json_kuint(&ev, "waited_ns", took);
    rtg_json_kuint(&ev, "timeout_ns", timeout);
    rtg_json_obj_end(&ev);
    snprintf(obs, sizeof obs, "count %d: P %s after %llu ns", before,
             rc == ETIMEDOUT ? "timed out" : rc ? strerror(rc) : "returned",
             (unsigned long long)took);
    rtg_verdict(ctx, "p_on_zero_blocks", rtg_sem_p_zero_blocks(rc == ETIMEDOUT, took, timeout),
                "P blocks until its 20 ms timeout", obs, &ev);

    /* 3. V with no waiter increments (twice). */
    int v0 = -1, v1 = -1, v2 = -1;
    rtg_sem_value(&s, &v0);
    rtg_sem_post(&s);
    rtg_sem_value(&s, &v1);
    rtg_sem_post(&s);
    rtg_sem_value(&s, &v2);
    rtg_json_reset(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_key(&ev, "counts");
    rtg_json_arr_begin(&ev);
    rtg_json_int(&ev, v0);
    rtg_json_int(&ev, v1);
    rtg_json_int(&ev, v2);
    rtg_json_arr_end(&ev);
    rtg_json_obj_end(&ev);
    snprintf(obs, sizeof obs, "count %d -> %d -> %d", v0, v1, v2);
    rtg_verdict(ctx, "v_increments", rtg_sem_v_increments(v0, v1) && rtg_sem_v_increments(v1, v2),
                "each V adds one", obs, &ev);
    rtg_sem_destroy(&s);
    rtg_json_free(&ev);

    /* 4 and 5. V on zero with a waiter: higher (reschedules at once), lower (does not). */
    for (int h = 1; h >= 0; h--) {
        struct wake_case c;
        rc = wake_case_run(ctx, &c, h);
        if (rc)
            return rtg_fail_error(ctx, "cannot run the wake-up case: %s", strerror(rc));
        wake_verdict(ctx, &c, h);
    }
    return 0;
}

static double lck_bound(const struct rtg_ctx *ctx)
{
    (void)ctx;
    return 10.0;
}

const struct rtg_test_desc rtg_test_sem_b_lck = {
    .id = "SEM-B-LCK",
    .source = __FILE__,
    .title = "Semaphore locking behaviour",
    .kind = 'B',
    .options = RTG_NO_OPTIONS,
    .run = lck_run,
    .bound_s = lck_bound,
};
