/* CND-B-ORD: the wake order of a condition variable. N waiters of
 * distinct priorities wait on one condition variable on one CPU, the
 * lowest priority first; one signal at a time must wake the highest
 * waiter left, a broadcast must let them return highest first. Records
 * evidence; the verdicts come from cnd_verdicts.c. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/osal_cond.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "cnd_verdicts.h"

/* The rule both checks are judged by (paraphrased). */
static const struct rtg_standard STD_ORDER = {
    "POSIX", "XSH pthread_cond_signal(), pthread_cond_broadcast(): the scheduling policy "
             "determines the order in which blocked threads are unblocked (XSH 2.8.4: the highest "
             "priority first)"};

#define CND_MAX 8
#define WAIT_BOUND_NS (2000 * NS_PER_MS)

struct ord_run {
    rtg_mutex_t lock;
    struct rtg_cond *cond;
    rtg_sem_t ack;
    int waiting;   /* waiters inside the wait (under lock) */
    int tokens;    /* wake-ups handed out and not yet taken (under lock) */
    int order[CND_MAX * 2];
    atomic_int n_order;
    int timeouts;
};

struct waiter {
    struct ord_run *r;
    int rank;
};

static void *waiter_main(void *arg)
{
    struct waiter *w = arg;
    struct ord_run *r = w->r;
    uint64_t deadline = rtg_mono_ns() + WAIT_BOUND_NS;
    rtg_mutex_lock(&r->lock);
    r->waiting++;
    int rc = 0;
    while (r->tokens == 0 && rc == 0)
        rc = rtg_cond_wait_until(r->cond, &r->lock, deadline);
    if (rc == 0) {
        r->tokens--;
        int i = atomic_fetch_add(&r->n_order, 1);
        if (i < CND_MAX * 2)
            r->order[i] = w->rank;
    } else {
        r->timeouts++;
    }
    r->waiting--;
    rtg_mutex_unlock(&r->lock);
    rtg_sem_post(&r->ack);
    return NULL;
}

static int waiting_now(struct ord_run *r)
{
    rtg_mutex_lock(&r->lock);
    int n = r->waiting;
    rtg_mutex_unlock(&r->lock);
    return n;
}

/* One round: n waiters enter the wait lowest rank last (the lowest
 * priority waits first), then signal one at a time or broadcast. */
static int one_round(const struct rtg_ctx *ctx, int n, bool broadcast, bool equal,
                     struct ord_run *r)
{
    int rc = rtg_mutex_init(&r->lock, RTG_PROTO_NONE, 0);
    if (rc)
        return rc;
    if ((rc = rtg_cond_create(&r->cond)) || (rc = rtg_sem_init(&r->ack, 0))) {
        rtg_mutex_destroy(&r->lock);
        return rc;
    }
    atomic_init(&r->n_order, 0);
    rtg_thread_t t[CND_MAX];
    struct waiter w[CND_MAX];
    int made = 0;
    int top = rtg_prio(ctx) - 1;
    for (int i = n - 1; i >= 0 && !rc; i--) {
        w[i] = (struct waiter){r, i};
        struct rtg_thread_attr a = rtg_attr_at(ctx, RTG_SCHED_FIFO, equal ? top : top - i);
        rc = rtg_thread_create(&t[made], &a, waiter_main, &w[i]);
        if (rc)
            break;
        made++;
        /* It runs once this thread sleeps, and enters the wait before the
         * next one is created: arrival order is lowest priority first. */
        uint64_t until = rtg_mono_ns() + 500 * NS_PER_MS;
        while (waiting_now(r) < made && rtg_mono_ns() < until)
            rtg_sleep_ns(200 * NS_PER_US);
    }
    if (!rc && waiting_now(r) < n)
        rc = ETIMEDOUT;
    /* The creating thread runs above every waiter: a woken waiter runs
     * only once it blocks on the acknowledgement. */
    if (!rc && broadcast) {
        rtg_mutex_lock(&r->lock);
        r->tokens = n;
        rtg_cond_broadcast(r->cond);
        rtg_mutex_unlock(&r->lock);
    }
    for (int i = 0; i < made; i++) {
        if (!rc && !broadcast) {
            rtg_mutex_lock(&r->lock);
            r->tokens = 1;
            rtg_cond_signal(r->cond);
            rtg_mutex_unlock(&r->lock);
        }
        if (rtg_sem_wait_until(&r->ack, rtg_mono_ns() + 2 * WAIT_BOUND_NS))
            rc = rc ? rc : ETIMEDOUT;
    }
    for (int i = 0; i < made; i++)
        rtg_thread_join(t[i], NULL);
    rtg_sem_destroy(&r->ack);
    rtg_cond_delete(r->cond);
    rtg_mutex_destroy(&r->lock);
    return rc;
}

static void order_verdict(struct rtg_ctx *ctx, const char *name, struct ord_run *runs, int reps,
                          int n, bool equal)
{
    bool ok = true;
    int bad = -1, bad_at = -1;
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "legend", "each run: the waiters' ranks in the order they returned "
                                 "from the wait (0 the highest priority)");
    rtg_json_kstr(&ev, "priorities", equal ? "equal (control)" : "distinct");
    rtg_json_key(&ev, "runs");
    rtg_json_arr_begin(&ev);
    for (int i = 0; i < reps; i++) {
        int m = atomic_load(&runs[i].n_order);
        rtg_json_arr_begin(&ev);
        for (int k = 0; k < m && k < CND_MAX * 2; k++)
            rtg_json_int(&ev, runs[i].order[k]);
        rtg_json_arr_end(&ev);
        if (!rtg_cnd_order_ok(runs[i].order, (size_t)m, (size_t)n) && ok) {
            ok = false;
            bad = i;
            bad_at = rtg_cnd_first_out_of_order(runs[i].order, (size_t)m, (size_t)n);
        }
    }
    rtg_json_arr_end(&ev);
    rtg_json_obj_end(&ev);
    char obs[160];
    if (ok)
        snprintf(obs, sizeof obs, "%d of %d runs highest first", reps, reps);
    else
        snprintf(obs, sizeof obs, "run %d: position %d woke rank %d", bad, bad_at,
                 bad_at < atomic_load(&runs[bad].n_order) ? runs[bad].order[bad_at] : -1);
    rtg_verdict(ctx, &STD_ORDER, name, ok, "waiters return highest priority first, each once", obs,
                &ev);
    rtg_json_free(&ev);
}

static int ord_run(struct rtg_ctx *ctx)
{
    int n = (int)rtg_opt_int(ctx, "waiters");
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the wake order is an order of priorities");
    if (rtg_prio(ctx) < n + 2)
        return rtg_skip(ctx, "needs --prio >= %d (a level per waiter below it)", n + 2);
    bool equal = strcmp(rtg_opt_enum(ctx, "priorities"), "equal") == 0;
    int reps = (int)rtg_opt_int(ctx, "repeats");
    struct ord_run *runs = calloc(2 * (size_t)reps, sizeof *runs);
    if (!runs)
        return rtg_fail_error(ctx, "out of memory");
    int rc = 0, timeouts = 0;
    for (int b = 0; b < 2 && !rc; b++)
        for (int i = 0; i < reps && !rc && !rtg_stop_requested(); i++) {
            rc = one_round(ctx, n, b == 1, equal, &runs[b * reps + i]);
            timeouts += runs[b * reps + i].timeouts;
        }
    if (rc || timeouts) {
        free(runs);
        return rtg_fail_error(ctx, "a round did not complete: %s",
                              rc ? strerror(rc) : "a waiter timed out");
    }
    if (!rtg_stop_requested()) {
        order_verdict(ctx, "signal_wakes_highest_first", runs, reps, n, equal);
        order_verdict(ctx, "broadcast_releases_highest_first", runs + reps, reps, n, equal);
        struct rtg_json *info = rtg_info(ctx);
        rtg_json_kint(info, "waiters", n);
        rtg_json_kint(info, "repeats", reps);
        rtg_json_kint(info, "highest_waiter_prio", rtg_prio(ctx) - 1);
        rtg_json_kstr(info, "priorities", equal ? "equal" : "distinct");
    }
    free(runs);
    return 0;
}

static double ord_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + 0.05 * (double)rtg_opt_int(ctx, "repeats") * (double)rtg_opt_int(ctx, "waiters");
}

static const struct rtg_option ord_options[] = {
    {"waiters", RTG_OPT_INT, 4, 0, 2, CND_MAX, NULL, 0, "waiters of distinct priorities"},
    {"repeats", RTG_OPT_INT, 10, 3, 1, 64, NULL, 0,
     "rounds of each case; a check passes only if every round is in order"},
    {"priorities", RTG_OPT_ENUM, 0, 0, 0, 0, "distinct,equal", 0,
     "equal = negative control: one priority for all, which queue in arrival order "
     "(lowest rank first), so highest-first must fail"},
};

const struct rtg_test_desc rtg_test_cnd_b_ord = {
    .id = "CND-B-ORD",
    .source = __FILE__,
    .title = "Condition variable wake order (signal and broadcast, by priority)",
    .kind = 'B',
    .options = RTG_OPTIONS(ord_options),
    .run = ord_run,
    .bound_s = ord_bound,
};
