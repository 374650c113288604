/* TMO-P-ACC: timed-wait accuracy. A semaphore, a mutex (held by another
 * thread), a message queue and a condition variable are each waited on
 * with an absolute CLOCK_MONOTONIC deadline that expires (nothing posts).
 * The figure is the return time minus the deadline, both read from
 * CLOCK_MONOTONIC: a late return is a worst case too. A return before the
 * deadline is a broken wait, counted apart (info.early). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/osal_cond.h"
#include "rtg/osal_msg.h"
#include "rtg/osal_timed.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "common/tick_period.h"

enum prim { P_SEM, P_MUTEX, P_QUEUE, P_COND, P_N };
static const char *const prim_names[P_N] = {"sem", "mutex", "queue", "cond"};

struct objs {
    rtg_sem_t sem;
    rtg_mutex_t mutex, cond_lock;
    struct rtg_cond *cond;
    struct rtg_msg_chan *chan;
    rtg_sem_t hold_release;
    rtg_sem_t held;
};

static void *mutex_holder(void *arg)
{
    struct objs *o = arg;
    rtg_mutex_lock(&o->mutex);
    rtg_sem_post(&o->held);
    /* Bounded: the test posts when done; the bound covers its run. */
    rtg_sem_wait_until(&o->hold_release, rtg_mono_ns() + 600 * NS_PER_S);
    rtg_mutex_unlock(&o->mutex);
    return NULL;
}

static int wait_once(enum prim p, struct objs *o, uint64_t deadline)
{
    char buf[64];
    switch (p) {
    case P_SEM: return rtg_sem_wait_until(&o->sem, deadline);
    case P_MUTEX: {
        int rc = rtg_mutex_lock_until(&o->mutex, deadline);
        if (rc == 0)
            rtg_mutex_unlock(&o->mutex);
        return rc;
    }
    case P_QUEUE: return rtg_msg_recv_until(o->chan, buf, sizeof buf, NULL, NULL, deadline);
    default: {
        rtg_mutex_lock(&o->cond_lock);
        int rc = rtg_cond_wait_until(o->cond, &o->cond_lock, deadline);
        rtg_mutex_unlock(&o->cond_lock);
        return rc;
    }
    }
}

static int measure(struct rtg_ctx *ctx, enum prim p, struct objs *o, int64_t loops,
                   uint64_t timeout_ns, struct rtg_json *early)
{
    struct rtg_metric *m = rtg_metric_new(ctx, "timeout.late.%s", prim_names[p]);
    if (!m)
        return ENOMEM;
    rtg_metric_explain(ctx, m);
    int64_t n_early = 0;
    for (int64_t i = 0; i < loops && !rtg_stop_requested(); i++) {
        uint64_t deadline = rtg_mono_ns() + timeout_ns;
        int rc = wait_once(p, o, deadline);
        uint64_t back = rtg_mono_ns();
        if (rc == 0)
            return EPROTO; /* nothing posts: a success is a broken wait */
        if (rc != ETIMEDOUT)
            return rc;
        if (back < deadline)
            n_early++;
        rtg_metric_interval(m, deadline, back, rtg_test_elapsed_ns(ctx)); /* early: negative */
    }
    rtg_json_kint(early, prim_names[p], n_early);
    return 0;
}

static int acc_run(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "waited SCHED_OTHER");
    int64_t loops = rtg_opt_int(ctx, "loops");
    /* A timeout below a tick, or between two, is served as whole ticks: it
     * is asked as such. Its start is not put on a tick: how far a timeout
     * set at any instant overshoots is what this test measures. */
    uint64_t timeout_ns =
        rtg_tick_adapt(ctx, "timeout", (uint64_t)rtg_opt_int(ctx, "timeout_us") * NS_PER_US);
    struct objs o = {0};
    int rc = rtg_sem_init(&o.sem, 0);
    if (!rc)
        rc = rtg_mutex_init(&o.mutex, RTG_PROTO_NONE, 0);
    if (!rc)
        rc = rtg_mutex_init(&o.cond_lock, RTG_PROTO_NONE, 0);
    if (!rc)
        rc = rtg_cond_create(&o.cond);
    if (!rc)
        rc = rtg_sem_init(&o.hold_release, 0);
    if (!rc)
        rc = rtg_sem_init(&o.held, 0);
    if (rc)
        return rtg_fail_error(ctx, "cannot create the objects: %s", strerror(rc));
    bool have_queue = (rtg_osal_offers() & RTG_OFFERS_MSG_QUEUES) &&
                      rtg_msg_open(&o.chan, RTG_MSG_MQ, 16, 0, false, NULL) == 0;
    rtg_thread_t holder;
    struct rtg_thread_attr a = rtg_attr_at(ctx, RTG_SCHED_OTHER, 0);
    a.cpu = -1;
    rc = rtg_thread_create(&holder, &a, mutex_holder, &o);
    if (!rc)
        rc = rtg_sem_wait_until(&o.held, rtg_mono_ns() + 2 * NS_PER_S);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_key(info, "early");
    rtg_json_obj_begin(info);
    for (int p = 0; p < P_N && !rc && !rtg_stop_requested(); p++) {
        if (p == P_QUEUE && !have_queue)
            continue;
        rc = measure(ctx, (enum prim)p, &o, loops, timeout_ns, info);
        if (rc) {
            rtg_json_obj_end(info);
            rtg_json_kstr(info, "failed_primitive", prim_names[p]);
        }
    }
    if (!rc)
        rtg_json_obj_end(info);
    rtg_sem_post(&o.hold_release);
    rtg_thread_join(holder, NULL);
    if (have_queue)
        rtg_msg_close(o.chan);
    rtg_cond_delete(o.cond);
    rtg_mutex_destroy(&o.cond_lock);
    rtg_mutex_destroy(&o.mutex);
    rtg_sem_destroy(&o.sem);
    rtg_sem_destroy(&o.hold_release);
    rtg_sem_destroy(&o.held);
    if (rc)
        return rtg_fail_error(ctx, "a timed wait: %s",
                              rc == EPROTO ? "returned success with nothing posted" : strerror(rc));
    rtg_json_kuint(info, "timeout_ns", timeout_ns);
    rtg_json_key(info, "clocks");
    rtg_json_obj_begin(info);
    for (int p = 0; p < P_N; p++)
        rtg_json_kstr(info, prim_names[p], rtg_timed_clock(prim_names[p]) ? rtg_timed_clock(prim_names[p])
                                                                          : "CLOCK_MONOTONIC");
    rtg_json_obj_end(info);
    if (!have_queue)
        rtg_note(ctx, "queue: not offered (no timed receive on this OSAL)");
    return 0;
}

static double acc_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + 4.0 * (double)rtg_opt_int(ctx, "loops") *
                      ((double)rtg_opt_int(ctx, "timeout_us") * 1e-6 + 1e-4);
}

static const struct rtg_option acc_options[] = {
    {"loops", RTG_OPT_INT, 1000, 100, 5, 1000000, NULL, RTG_OPT_SCALED,
     "expired waits per primitive"},
    {"timeout_us", RTG_OPT_INT, 1000, 0, 10, 1000000, NULL, 0, "timeout of each wait"},
};

const struct rtg_test_desc rtg_test_tmo_p_acc = {
    .id = "TMO-P-ACC",
    .source = __FILE__,
    .title = "Timed-wait accuracy: return time minus an expired absolute timeout",
    .kind = 'P',
    .options = RTG_OPTIONS(acc_options),
    .run = acc_run,
    .bound_s = acc_bound,
    .release_latency = "timeout.late.", /* from the timeout instant */
};
