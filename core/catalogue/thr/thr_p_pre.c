/* THR-P-PRE: preemption of a lower-priority thread, on one CPU. */
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
#include "common/tick_period.h"
#include "thr_perf.h"

struct pre_state {
    struct rtg_ctx *ctx;
    rtg_sem_t sem;
    volatile uint64_t posted; /* ticks just before the post */
    atomic_int done;
    int64_t loops, timer_loops;
    uint64_t period_ns;
    volatile uint64_t deadline; /* the high thread's next expiry */
    atomic_int seq;             /* samples taken by the high thread */
    struct rtg_metric *m_sem, *m_timer;
    uint64_t skipped; /* timer periods that passed while the high thread was late */
    int timeouts;
};

static void *pre_high_sem(void *arg)
{
    struct pre_state *s = arg;
    while (!atomic_load(&s->done)) {
        int rc = rtg_sem_wait_until(&s->sem, rtg_mono_ns() + SEM_TIMEOUT_NS);
        uint64_t now = rtg_clock_ticks();
        if (rc) {
            s->timeouts++;
            break;
        }
        if (!atomic_load(&s->done)) /* a hand-over: from the post to this thread running */
            rtg_metric_ticks(s->m_sem, s->posted, now, rtg_clock_delta_ns(s->posted, now),
                             rtg_test_elapsed_ns(s->ctx));
    }
    return NULL;
}

static void *pre_low_sem(void *arg)
{
    struct pre_state *s = arg;
    for (int64_t i = 0; i < s->loops && !rtg_stop_requested(); i++) {
        s->posted = rtg_clock_ticks();
        rtg_sem_post(&s->sem);
    }
    atomic_store(&s->done, 1);
    rtg_sem_post(&s->sem);
    return NULL;
}

static void *pre_high_timer(void *arg)
{
    struct pre_state *s = arg;
    uint64_t next = s->deadline;
    for (int64_t i = 0; i < s->timer_loops && !rtg_stop_requested(); i++) {
        rtg_sleep_until(next);
        uint64_t now = rtg_mono_ns();
        rtg_metric_interval(s->m_timer, next, now, rtg_test_elapsed_ns(s->ctx));
        /* The schedule stays absolute: a late wake-up is measured from the
         * expiry it served, and the periods it overran are counted, not
         * hidden by restarting from the late wake time. */
        next = rtg_tick_deadline(next + s->period_ns);
        while (next <= now) {
            next = rtg_tick_deadline(next + s->period_ns);
            s->skipped++;
        }
        s->deadline = next;
        atomic_fetch_add(&s->seq, 1);
    }
    atomic_store(&s->done, 1);
    return NULL;
}

/* The low thread is running at every expiry, but only from a lead time
 * before it until the high thread has taken its sample: busy all the time,
 * it would be stopped by RT throttling (950 ms per s) and show as a 50 ms
 * "preemption". On a tick, its own sleep ends on a tick too: it wakes a
 * tick ahead, else it would wake with the high thread, not be running. */
static uint64_t pre_lead_ns(uint64_t period_ns)
{
    uint32_t hz = rtg_wait_tick_hz();
    if (hz)
        return 1000000000u / hz;
    return period_ns / 4 < 100 * NS_PER_US ? period_ns / 4 : 100 * NS_PER_US;
}

static void *pre_low_busy(void *arg)
{
    struct pre_state *s = arg;
    uint64_t lead = pre_lead_ns(s->period_ns);
    while (!atomic_load(&s->done) && !rtg_stop_requested()) {
        int seen = atomic_load(&s->seq);
        uint64_t d = s->deadline;
        if (d > lead)
            rtg_sleep_until(d - lead);
        for (unsigned i = 0; atomic_load(&s->seq) == seen && !atomic_load(&s->done); i++)
            if ((i & 4095) == 0 && rtg_stop_requested())
                break;
    }
    return NULL;
}

static int pre_pair(struct rtg_ctx *ctx, struct pre_state *s, rtg_thread_fn hi, rtg_thread_fn lo)
{
    rtg_thread_t h, l;
    atomic_store(&s->done, 0);
    int rc = rtg_thr_spawn(ctx, &h, rtg_prio(ctx) - 1, hi, s);
    if (rc)
        return rc;
    rc = rtg_thr_spawn(ctx, &l, rtg_prio(ctx) - 2, lo, s);
    if (rc) {
        atomic_store(&s->done, 1);
        rtg_sem_post(&s->sem);
    }
    rtg_thread_join(h, NULL);
    if (!rc)
        rtg_thread_join(l, NULL);
    return rc;
}

static int pre_run(struct rtg_ctx *ctx)
{
    int rc;
    if (!rtg_thr_need_levels(ctx, 2, &rc))
        return rc;
    rtg_thr_note_no_rt(ctx);
    struct pre_state s = {.ctx = ctx,
                          .loops = rtg_opt_int(ctx, "loops"),
                          .timer_loops = rtg_opt_int(ctx, "timer_loops"),
                          .period_ns = rtg_tick_adapt(
                              ctx, "timer_period",
                              (uint64_t)rtg_opt_int(ctx, "period_us") * NS_PER_US)};
    s.m_sem = rtg_metric_with_blocks(rtg_metric_new(ctx, "thread.preempt.sem"));
    s.m_timer = rtg_metric_with_blocks(rtg_metric_new(ctx, "thread.preempt.timer"));
    if (!s.m_sem || !s.m_timer)
        return rtg_fail_error(ctx, "out of memory");
    rtg_metric_explain(ctx, s.m_timer);
    rtg_metric_explain(ctx, s.m_sem); /* on the measuring clock: placed when kept */
    atomic_init(&s.done, 0);
    rc = rtg_sem_init(&s.sem, 0);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    rc = pre_pair(ctx, &s, pre_high_sem, pre_low_sem);
    atomic_init(&s.seq, 0);
    s.deadline = rtg_tick_deadline(rtg_mono_ns() + 5 * NS_PER_MS);
    if (!rc && !rtg_stop_requested())
        rc = pre_pair(ctx, &s, pre_high_timer, pre_low_busy);
    rtg_sem_destroy(&s.sem);
    if (rc)
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
    if (s.timeouts)
        return rtg_fail_error(ctx, "the high thread was not woken within 3 s");
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "high_prio", rtg_prio(ctx) - 1);
    rtg_json_kint(info, "low_prio", rtg_prio(ctx) - 2);
    rtg_json_kuint(info, "timer_period_ns", s.period_ns);
    rtg_json_kuint(info, "timer_skipped_periods", s.skipped);
    return 0;
}

static double pre_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 2e-5 +
           (double)rtg_opt_int(ctx, "timer_loops") * (double)rtg_opt_int(ctx, "period_us") * 2e-6;
}

static const struct rtg_option pre_options[] = {
    {"loops", RTG_OPT_INT, 20000, 3000, 10, 10000000, NULL, RTG_OPT_SCALED,
     "semaphore wake-ups of the high thread by the running low one"},
    {"timer_loops", RTG_OPT_INT, 1000, 300, 10, 1000000, NULL, RTG_OPT_SCALED,
     "timer wake-ups of the high thread while the low one is busy"},
    {"period_us", RTG_OPT_INT, 500, 0, 50, 1000000, NULL, 0, "timer period"},
};

const struct rtg_test_desc rtg_test_thr_p_pre = {
    .id = "THR-P-PRE",
    .source = __FILE__,
    .title = "Preemption time (semaphore and timer wake-up of a higher thread)",
    .kind = 'P',
    .release_latency = "thread.preempt.",
    .options = RTG_OPTIONS(pre_options),
    .run = pre_run,
    .bound_s = pre_bound,
};
