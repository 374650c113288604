/* CND-P-LAT: condition variable hand-over on one CPU. Signal: a
 * lower-priority thread signals, under the mutex, a higher-priority waiter;
 * the figure runs from just before the signal until the waiter has
 * returned from the wait with the mutex re-acquired (it includes the
 * signaller's unlock). Broadcast: N higher-priority waiters; from just
 * before the broadcast until the last of them has returned. The waiter
 * that returns last records the sample, under the mutex, as it returns. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_cond.h"
#include "rtg/test.h"
#include "common/catalogue.h"

#define LAT_MAX_WAITERS 16
#define BOUND_NS (2000 * NS_PER_MS)

struct lat {
    struct rtg_ctx *ctx;
    rtg_mutex_t lock;
    struct rtg_cond *cond;
    int64_t rounds;
    int n_waiters;
    uint64_t gen;          /* under lock: bumped by each signal or broadcast */
    int back;              /* under lock: waiters that took the current gen */
    bool stop;             /* under lock */
    uint64_t t_sent;       /* ticks just before the signal or broadcast */
    struct rtg_metric *m;  /* under lock: recorded by the last waiter back */
    int timeouts;
};

static void *lat_waiter(void *arg)
{
    struct lat *s = arg;
    uint64_t seen = 0;
    rtg_mutex_lock(&s->lock);
    for (;;) {
        int rc = 0;
        uint64_t deadline = rtg_mono_ns() + BOUND_NS;
        while (s->gen == seen && !s->stop && rc == 0)
            rc = rtg_cond_wait_until(s->cond, &s->lock, deadline);
        uint64_t now = rtg_clock_ticks();
        if (s->stop)
            break;
        if (rc) {
            s->timeouts++;
            break;
        }
        seen = s->gen;
        /* the waiters return one after the other, each holding the mutex:
         * the last one back is the latest, and records the hand-over */
        if (++s->back == s->n_waiters)
            rtg_metric_ticks(s->m, s->t_sent, now, rtg_clock_delta_ns(s->t_sent, now),
                             rtg_test_elapsed_ns(s->ctx));
    }
    rtg_mutex_unlock(&s->lock);
    return NULL;
}

/* Waits (bounded) until every waiter has taken the current generation. */
static bool all_back(struct lat *s)
{
    uint64_t until = rtg_mono_ns() + BOUND_NS;
    for (;;) {
        rtg_mutex_lock(&s->lock);
        bool done = s->back == s->n_waiters;
        rtg_mutex_unlock(&s->lock);
        if (done)
            return true;
        if (rtg_mono_ns() > until || rtg_stop_requested())
            return false;
        rtg_thread_yield();
        rtg_sleep_ns(20 * NS_PER_US);
    }
}

static void *lat_sender(void *arg)
{
    struct lat *s = arg;
    /* The waiters are higher: they are all inside the wait whenever this
     * thread runs, except at the start. */
    rtg_sleep_ns(2 * NS_PER_MS);
    for (int64_t i = 0; i < s->rounds && !rtg_stop_requested(); i++) {
        rtg_mutex_lock(&s->lock);
        s->back = 0;
        s->gen++;
        s->t_sent = rtg_clock_ticks();
        if (s->n_waiters == 1)
            rtg_cond_signal(s->cond);
        else
            rtg_cond_broadcast(s->cond);
        rtg_mutex_unlock(&s->lock);
        if (!all_back(s)) {
            s->timeouts++;
            break;
        }
    }
    rtg_mutex_lock(&s->lock);
    s->stop = true;
    rtg_cond_broadcast(s->cond);
    rtg_mutex_unlock(&s->lock);
    return NULL;
}

static int lat_case(struct rtg_ctx *ctx, int n, int64_t rounds, int *timeouts)
{
    struct lat s = {.ctx = ctx, .rounds = rounds, .n_waiters = n};
    s.m = n == 1 ? rtg_metric_new(ctx, "cond.signal.handover")
                 : rtg_metric_new(ctx, "cond.broadcast.last_released");
    if (!s.m)
        return ENOMEM;
    if (n > 1)
        rtg_metric_params_int(s.m, "waiters", n);
    /* from the signal to the last waiter back, recorded by it at once */
    rtg_metric_explain(ctx, s.m);
    int rc = rtg_mutex_init(&s.lock, RTG_PROTO_NONE, 0);
    if (rc)
        return rc;
    if ((rc = rtg_cond_create(&s.cond))) {
        rtg_mutex_destroy(&s.lock);
        return rc;
    }
    enum rtg_policy pol = rtg_rt_policy(ctx);
    rtg_thread_t w[LAT_MAX_WAITERS], snd;
    int made = 0;
    for (; made < n && !rc; made++) {
        struct rtg_thread_attr a = rtg_attr_at(ctx, pol, rtg_prio(ctx) - 1);
        rc = rtg_thread_create(&w[made], &a, lat_waiter, &s);
        if (rc)
            break;
    }
    if (!rc) {
        struct rtg_thread_attr a = rtg_attr_at(ctx, pol, rtg_prio(ctx) - 2);
        rc = rtg_thread_create(&snd, &a, lat_sender, &s);
        if (!rc)
            rtg_thread_join(snd, NULL);
    }
    if (rc) {
        rtg_mutex_lock(&s.lock);
        s.stop = true;
        rtg_cond_broadcast(s.cond);
        rtg_mutex_unlock(&s.lock);
    }
    for (int i = 0; i < made; i++)
        rtg_thread_join(w[i], NULL);
    rtg_cond_delete(s.cond);
    rtg_mutex_destroy(&s.lock);
    *timeouts += s.timeouts;
    return rc;
}

static int lat_run(struct rtg_ctx *ctx)
{
    if (rtg_prio(ctx) < 3)
        return rtg_skip(ctx, "needs --prio >= 3 (two levels below it)");
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "threads ran SCHED_OTHER: no priority order between sender and waiters");
    int timeouts = 0;
    int64_t rounds = rtg_opt_int(ctx, "rounds");
    int rc = lat_case(ctx, 1, rounds, &timeouts);
    int n = (int)rtg_opt_int(ctx, "waiters");
    if (!rc && !rtg_stop_requested())
        rc = lat_case(ctx, n, rounds / 4 > 10 ? rounds / 4 : 10, &timeouts);
    if (rc)
        return rtg_fail_error(ctx, "cannot run a case: %s", strerror(rc));
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "waiter_prio", rtg_prio(ctx) - 1);
    rtg_json_kint(info, "sender_prio", rtg_prio(ctx) - 2);
    rtg_json_kint(info, "broadcast_waiters", n);
    rtg_json_kint(info, "timeouts", timeouts);
    if (timeouts)
        return rtg_fail_error(ctx, "a hand-over did not complete within 2 s");
    return 0;
}

static double lat_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "rounds") * 1e-4;
}

static const struct rtg_option lat_options[] = {
    {"rounds", RTG_OPT_INT, 20000, 2000, 10, 10000000, NULL, RTG_OPT_SCALED,
     "signal hand-overs (broadcast rounds: a quarter of it)"},
    {"waiters", RTG_OPT_INT, 4, 0, 2, LAT_MAX_WAITERS, NULL, 0, "waiters of a broadcast"},
};

const struct rtg_test_desc rtg_test_cnd_p_lat = {
    .id = "CND-P-LAT",
    .source = __FILE__,
    .recorded = true, /* each hand-over's worst samples are explained */
    .title = "Condition variable hand-over (signal to a higher waiter, broadcast to N)",
    .kind = 'P',
    .options = RTG_OPTIONS(lat_options),
    .run = lat_run,
    .bound_s = lat_bound,
};
