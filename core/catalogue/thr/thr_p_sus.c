/* THR-P-SUS: suspend / resume, on one CPU. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/load.h"
#include "rtg/osal.h"
#include "rtg/osal_timed.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "thr_perf.h"

struct sus_state {
    struct rtg_ctx *ctx;
    rtg_sem_t sem; /* the suspended thread's own semaphore */
    volatile uint64_t t_resume, t_suspend;
    atomic_int done;
    int64_t loops;
    struct rtg_metric *m[4];
    int stolen_misses, timeouts;
};

/* ping: the high thread suspends itself; the low one resumes it. */
static void *sus_ping_high(void *arg)
{
    struct sus_state *s = arg;
    for (;;) {
        uint64_t deadline = rtg_mono_ns() + SEM_TIMEOUT_NS; /* before the stamp */
        s->t_suspend = rtg_clock_ticks();
        int rc = rtg_sem_wait_until(&s->sem, deadline);
        uint64_t now = rtg_clock_ticks();
        if (rc) {
            s->timeouts++;
            break;
        }
        if (atomic_load(&s->done))
            break;
        rtg_metric_ticks(s->m[0], s->t_resume, now, rtg_clock_delta_ns(s->t_resume, now),
                         rtg_test_elapsed_ns(s->ctx));
    }
    return NULL;
}

static void *sus_ping_low(void *arg)
{
    struct sus_state *s = arg;
    for (int64_t i = 0; i < s->loops && !rtg_stop_requested(); i++) {
        s->t_resume = rtg_clock_ticks();
        rtg_sem_post(&s->sem); /* the high thread runs, suspends again */
        uint64_t now = rtg_clock_ticks();
        rtg_metric_ticks(s->m[1], s->t_suspend, now, rtg_clock_delta_ns(s->t_suspend, now),
                         rtg_test_elapsed_ns(s->ctx));
    }
    atomic_store(&s->done, 1);
    rtg_sem_post(&s->sem);
    return NULL;
}

/* local: the low thread waits on its semaphore (suspended); the high one
 * resumes it (post) and suspends it again (takes the unit back before the
 * low one could run): no switch. */
static void *sus_local_low(void *arg)
{
    struct sus_state *s = arg;
    while (!atomic_load(&s->done))
        if (rtg_sem_wait_until(&s->sem, rtg_mono_ns() + SEM_TIMEOUT_NS))
            break;
    return NULL;
}

static void *sus_local_high(void *arg)
{
    struct sus_state *s = arg;
    rtg_thread_t l;
    int rc = rtg_thr_spawn(s->ctx, &l, rtg_prio(s->ctx) - 2, sus_local_low, s);
    if (rc)
        return (void *)(intptr_t)rc;
    rtg_sleep_ns(5 * NS_PER_MS); /* the low thread blocks on its semaphore */
    for (int64_t i = 0; i < s->loops && !rtg_stop_requested(); i++) {
        uint64_t a = rtg_clock_ticks();
        rtg_sem_post(&s->sem);
        uint64_t b = rtg_clock_ticks();
        int r = rtg_sem_trywait(&s->sem);
        uint64_t c = rtg_clock_ticks();
        if (r) {
            s->stolen_misses++;
            continue;
        }
        uint64_t at = rtg_test_elapsed_ns(s->ctx);
        rtg_metric_ticks(s->m[2], a, b, rtg_clock_delta_ns(a, b), at);
        rtg_metric_ticks(s->m[3], b, c, rtg_clock_delta_ns(b, c), at);
    }
    atomic_store(&s->done, 1);
    rtg_sem_post(&s->sem);
    rtg_thread_join(l, NULL);
    return NULL;
}

static int sus_run(struct rtg_ctx *ctx)
{
    int rc;
    if (!rtg_thr_need_levels(ctx, 2, &rc))
        return rc;
    rtg_thr_note_no_rt(ctx);
    struct sus_state s = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops")};
    static const char *const names[4] = {"thread.resume.ping", "thread.suspend.ping",
                                         "thread.resume.local", "thread.suspend.local"};
    for (int i = 0; i < 4; i++)
        if (!(s.m[i] = rtg_metric_new(ctx, "%s", names[i])))
            return rtg_fail_error(ctx, "out of memory");
    /* ping: a hand-over, from the other thread's post or block to the
     * thread that records it running; local: the high thread's own call */
    rtg_metric_explain(ctx, s.m[0]);
    rtg_metric_explain(ctx, s.m[1]);
    rtg_metric_explain_call(ctx, s.m[2]);
    rtg_metric_explain_call(ctx, s.m[3]);
    atomic_init(&s.done, 0);
    rc = rtg_sem_init(&s.sem, 0);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    rtg_thread_t h, l;
    rc = rtg_thr_spawn(ctx, &h, rtg_prio(ctx) - 1, sus_ping_high, &s);
    if (!rc) {
        int rc2 = rtg_thr_spawn(ctx, &l, rtg_prio(ctx) - 2, sus_ping_low, &s);
        if (rc2) {
            atomic_store(&s.done, 1);
            rtg_sem_post(&s.sem);
        }
        rtg_thread_join(h, NULL);
        if (!rc2)
            rtg_thread_join(l, NULL);
        rc = rc2;
    }
    rtg_sem_destroy(&s.sem);
    if (!rc && !rtg_stop_requested()) {
        atomic_store(&s.done, 0);
        rc = rtg_sem_init(&s.sem, 0);
        void *res = NULL;
        if (!rc)
            rc = rtg_thr_spawn(ctx, &h, rtg_prio(ctx) - 1, sus_local_high, &s);
        if (!rc) {
            rtg_thread_join(h, &res);
            rc = (int)(intptr_t)res;
        }
        rtg_sem_destroy(&s.sem);
    }
    if (rc)
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
    if (s.timeouts)
        return rtg_fail_error(ctx, "a suspended thread was not resumed within 3 s");
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kstr(info, "primitive", "a per-thread counting semaphore (POSIX has no suspend)");
    rtg_json_kint(info, "local_unit_consumed_by_low", s.stolen_misses);
    const char *adds = rtg_timed_port_adds("sem"); /* to suspend.ping: its wait is timed */
    if (adds)
        rtg_json_kstr(info, "osal_adds", adds);
    return 0;
}

static double sus_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 2e-5;
}

static const struct rtg_option sus_options[] = {
    {"loops", RTG_OPT_INT, 20000, 3000, 10, 10000000, NULL, RTG_OPT_SCALED,
     "suspend/resume rounds per scenario"},
};

const struct rtg_test_desc rtg_test_thr_p_sus = {
    .id = "THR-P-SUS",
    .source = __FILE__,
    .recorded = true, /* its hand-overs' and calls' worst samples are explained */
    .title = "Suspend / resume (ping between two threads; local, no switch)",
    .kind = 'P',
    .options = RTG_OPTIONS(sus_options),
    .run = sus_run,
    .bound_s = sus_bound,
};
