/* The L/M/H loop of MUT-P-ARC and MUT-P-PIR (mut_lmh.h). */
#include "mut_lmh.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"

static void *lmh_h(void *arg)
{
    struct lmh *x = arg;
    for (;;) {
        int rc = rtg_sem_wait_until(&x->wake_h, rtg_mono_ns() + 2000 * NS_PER_MS);
        if (atomic_load(&x->quit))
            break;
        if (rc) {
            x->timeouts++;
            break;
        }
        uint64_t t_req = rtg_clock_ticks();
        x->t_req = t_req;
        atomic_store(&x->h_asked, true);
        rc = rtg_mutex_lock(&x->m);
        uint64_t t_acq = rtg_clock_ticks();
        if (rc) {
            x->error = rc;
            break;
        }
        if (x->round_counts) {
            uint64_t at = rtg_test_elapsed_ns(x->ctx);
            if (x->rel)
                rtg_metric_ticks(x->rel, x->t_unlock, t_acq,
                                 rtg_clock_delta_ns(x->t_unlock, t_acq), at);
            if (x->wait)
                rtg_metric_ticks(x->wait, t_req, t_acq, rtg_clock_delta_ns(t_req, t_acq), at);
        }
        rtg_mutex_unlock(&x->m);
    }
    return NULL;
}

static void *lmh_m(void *arg)
{
    struct lmh *x = arg;
    for (;;) {
        int rc = rtg_sem_wait_until(&x->wake_m, rtg_mono_ns() + 2000 * NS_PER_MS);
        if (atomic_load(&x->quit))
            break;
        if (rc) {
            x->timeouts++;
            break;
        }
        rtg_sem_post(&x->wake_h); /* H preempts M here */
        uint64_t end = rtg_mono_ns() + x->m_busy_ns;
        while (rtg_mono_ns() < end && !rtg_stop_requested())
            ; /* M's bounded busy phase */
    }
    return NULL;
}

static void *lmh_l(void *arg)
{
    struct lmh *x = arg;
    for (int64_t i = 0; i < x->loops && !rtg_stop_requested() && !x->timeouts && !x->error; i++) {
        atomic_store(&x->h_asked, false);
        int rc = rtg_mutex_lock(&x->m);
        if (rc) {
            x->error = rc;
            break;
        }
        uint64_t t_lock = rtg_clock_ticks();
        rtg_sem_post(&x->wake_m); /* M, then H, preempt L here */
        uint64_t t_l_runs = rtg_clock_ticks();
        bool asked = atomic_load(&x->h_asked);
        if (asked && x->acq)
            rtg_metric_ticks(x->acq, x->t_req, t_l_runs, rtg_clock_delta_ns(x->t_req, t_l_runs),
                             rtg_test_elapsed_ns(x->ctx));
        /* the rest of a fixed critical section (MUT-P-PIR) */
        while (rtg_clock_delta_ns(t_lock, rtg_clock_ticks()) < x->cs_ticks_ns)
            ;
        x->round_counts = asked;
        x->t_unlock = rtg_clock_ticks();
        rtg_mutex_unlock(&x->m); /* H preempts L here */
        if (!asked)
            x->skipped++;
    }
    atomic_store(&x->quit, true);
    rtg_sem_post(&x->wake_m);
    rtg_sem_post(&x->wake_h);
    return NULL;
}

int rtg_mut_lmh_run(struct rtg_ctx *ctx, struct lmh *x, enum rtg_mutex_protocol proto)
{
    int top = rtg_prio(ctx);
    atomic_init(&x->quit, false);
    atomic_init(&x->h_asked, false);
    int rc = rtg_mutex_init(&x->m, proto, top - 1);
    if (rc)
        return rtg_fail_error(ctx, "%s mutex: %s", rtg_mutex_protocol_name(proto), strerror(rc));
    rtg_sem_init(&x->wake_m, 0);
    rtg_sem_init(&x->wake_h, 0);
    rtg_thread_t th[3];
    int prios[3] = {top - 1, top - 2, top - 3};
    rtg_thread_fn fns[3] = {lmh_h, lmh_m, lmh_l};
    int started = 0;
    for (; started < 3; started++) {
        struct rtg_thread_attr a = {.policy = RTG_SCHED_FIFO, .prio = prios[started],
                                    .cpu = rtg_cpu_at(ctx, 0), .stack_size = RTG_TEST_STACK};
        rc = rtg_thread_create(&th[started], &a, fns[started], x);
        if (rc)
            break;
    }
    if (rc) { /* L never started: stop H and M */
        atomic_store(&x->quit, true);
        rtg_sem_post(&x->wake_m);
        rtg_sem_post(&x->wake_h);
    }
    for (int i = 0; i < started; i++)
        rtg_thread_join(th[i], NULL);
    rtg_sem_destroy(&x->wake_m);
    rtg_sem_destroy(&x->wake_h);
    rtg_mutex_destroy(&x->m);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kstr(info, "protocol", rtg_mutex_protocol_name(proto));
    rtg_json_kint(info, "prio_l", top - 3);
    rtg_json_kint(info, "prio_m", top - 2);
    rtg_json_kint(info, "prio_h", top - 1);
    rtg_json_kuint(info, "m_busy_ns", x->m_busy_ns);
    rtg_json_kint(info, "rounds_without_request", x->skipped);
    if (rc)
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
    if (x->error)
        return rtg_fail_error(ctx, "mutex lock failed: %s", strerror(x->error));
    if (x->timeouts)
        return rtg_fail_error(ctx, "a wake-up did not arrive within 2 s");
    return 0;
}

enum rtg_mutex_protocol rtg_mut_proto_opt(const struct rtg_ctx *ctx)
{
    return strcmp(rtg_opt_enum(ctx, "protocol"), "none") == 0 ? RTG_PROTO_NONE
                                                               : RTG_PROTO_INHERIT;
}

int rtg_mut_lmh_check(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the L/M/H set-up needs priorities");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (L, M and H below it)");
    return 0;
}
