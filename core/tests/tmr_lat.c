/* TMR-P-LAT: periodic wake-up latency, one SCHED_FIFO thread per CPU. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/test.h"

struct waker {
    struct rtg_ctx *ctx;
    struct rtg_metric *m;
    int cpu;
    uint64_t period_ns;
    uint64_t loops;
    uint64_t start_ns;
    uint64_t missed; /* periods skipped because the wake-up came too late */
    int error;
};

static void *wake_loop(void *arg)
{
    struct waker *w = arg;
    uint64_t next = w->start_ns;
    for (uint64_t i = 0; i < w->loops && !rtg_stop_requested(); i++) {
        int rc = rtg_sleep_until_intr(next); /* clock_nanosleep, TIMER_ABSTIME */
        if (rc == EINTR)
            continue; /* a stop request: the loop condition ends it */
        if (rc) {
            w->error = rc;
            break;
        }
        uint64_t now = rtg_mono_ns();
        rtg_metric_add(w->m, now > next ? now - next : 0, rtg_test_elapsed_ns(w->ctx));
        next += w->period_ns;
        while (next <= now) { /* do not queue up missed periods */
            next += w->period_ns;
            w->missed++;
        }
    }
    return NULL;
}

static int run(struct rtg_ctx *ctx)
{
    size_t ncpu = rtg_cpu_count(ctx);
    uint64_t period = (uint64_t)rtg_opt_int(ctx, "period_us") * 1000u;
    uint64_t loops = (uint64_t)rtg_opt_int(ctx, "duration_ms") * 1000000u / period;
    struct waker *w = calloc(ncpu, sizeof *w);
    rtg_thread_t *t = calloc(ncpu, sizeof *t);
    if (!w || !t)
        return rtg_fail_error(ctx, "out of memory");
    uint64_t start = rtg_mono_ns() + 2 * period;
    for (size_t i = 0; i < ncpu; i++) {
        w[i] = (struct waker){.ctx = ctx, .cpu = rtg_cpu_at(ctx, i), .period_ns = period,
                              .loops = loops, .start_ns = start};
        w[i].m = rtg_metric_new(ctx, "timer.wakeup.clock_nanosleep.cpu%d", w[i].cpu);
        if (!w[i].m)
            return rtg_fail_error(ctx, "out of memory");
    }
    size_t started = 0;
    int rc = 0;
    for (; started < ncpu; started++) {
        struct rtg_thread_attr a = {.policy = rtg_rt_ok(ctx) ? RTG_SCHED_FIFO : RTG_SCHED_OTHER,
                                    .prio = rtg_prio(ctx), .cpu = w[started].cpu,
                                    .stack_size = 64 * 1024};
        rc = rtg_thread_create(&t[started], &a, wake_loop, &w[started]);
        if (rc)
            break;
    }
    for (size_t i = 0; i < started; i++)
        rtg_thread_join(t[i], NULL);
    if (rc)
        return rtg_fail_error(ctx, "cannot start the thread for CPU %d: %s", w[started].cpu, strerror(rc));

    struct rtg_metric *all = rtg_metric_new(ctx, "timer.wakeup.clock_nanosleep.all");
    if (!all)
        return rtg_fail_error(ctx, "out of memory");
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_key(info, "missed_periods");
    rtg_json_obj_begin(info);
    for (size_t i = 0; i < ncpu; i++) {
        char key[16];
        snprintf(key, sizeof key, "cpu%d", w[i].cpu);
        rtg_json_kuint(info, key, w[i].missed);
        rtg_metric_merge(all, w[i].m);
    }
    rtg_json_obj_end(info);
    rtg_json_kuint(info, "loops_per_cpu", loops);
    for (size_t i = 0; i < ncpu; i++)
        if (w[i].error)
            return rtg_fail_error(ctx, "clock_nanosleep failed on CPU %d: %s", w[i].cpu,
                                  strerror(w[i].error));
    free(w);
    free(t);
    return 0;
}

static double bound(const struct rtg_ctx *ctx)
{
    return (double)rtg_opt_int(ctx, "duration_ms") / 1000.0 * 1.5 + 10.0;
}

static const struct rtg_option options[] = {
    {"period_us", RTG_OPT_INT, 1000, 0, 50, 1000000, NULL, 0, "wake-up period"},
    {"duration_ms", RTG_OPT_INT, 10000, 1000, 100, 3600000, NULL, RTG_OPT_SCALED,
     "how long to measure"},
    {"variant", RTG_OPT_ENUM, 0, 0, 0, 0, "clock_nanosleep", 0,
     "the wake-up mechanism (more come with the load tests)"},
};

const struct rtg_test_desc rtg_test_tmr_p_lat = {
    .id = "TMR-P-LAT",
    .title = "Periodic wake-up latency per CPU",
    .kind = 'P',
    .options = RTG_OPTIONS(options),
    .run = run,
    .bound_s = bound,
};
