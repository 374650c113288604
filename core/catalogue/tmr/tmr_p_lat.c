/* TMR-P-LAT: periodic wake-up latency, one SCHED_FIFO thread per CPU, by
 * the wake-up mechanism the `variant` option names. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "common/tick_period.h"
#include "tmr_wake.h"

struct cpu_run {
    struct rtg_ctx *ctx;
    struct rtg_metric *m;
    struct rtg_waker w;
    int cpu;
};

static void on_sample(void *arg, uint64_t expiry_ns, uint64_t wake_ns)
{
    struct cpu_run *c = arg;
    rtg_metric_interval(c->m, expiry_ns, wake_ns, rtg_test_elapsed_ns(c->ctx));
}

static int run(struct rtg_ctx *ctx)
{
    size_t ncpu = rtg_cpu_count(ctx);
    uint64_t period =
        rtg_tick_adapt(ctx, "period", (uint64_t)rtg_opt_int(ctx, "period_us") * 1000u);
    uint64_t loops = (uint64_t)rtg_opt_int(ctx, "duration_ms") * 1000000u / period;
    int variant = rtg_wake_parse(rtg_opt_enum(ctx, "variant"));
    if (variant < 0)
        return rtg_fail_error(ctx, "unknown variant %s", rtg_opt_enum(ctx, "variant"));
    const char *vname = rtg_wake_name((enum rtg_wake_variant)variant);
    struct cpu_run *c = calloc(ncpu, sizeof *c);
    rtg_thread_t *t = calloc(ncpu, sizeof *t);
    if (!c || !t) {
        free(c);
        free(t);
        return rtg_fail_error(ctx, "out of memory");
    }
    /* staggered (as cyclictest without -A/--aligned): the CPUs' expiries
     * spread evenly over one period; same: every CPU's timer at once */
    bool same = strcmp(rtg_opt_enum(ctx, "align"), "same") == 0;
    uint64_t stagger = same ? 0 : period / ncpu;
    uint64_t start = rtg_mono_ns() + 2 * period;
    for (size_t i = 0; i < ncpu; i++) {
        c[i].ctx = ctx;
        c[i].cpu = rtg_cpu_at(ctx, (size_t)i);
        c[i].w = (struct rtg_waker){.variant = (enum rtg_wake_variant)variant, .period_ns = period,
                                    .start_ns = start + i * stagger, .loops = loops,
                                    .end_ns = UINT64_MAX,
                                    .sample = on_sample, .arg = &c[i]};
        c[i].m = rtg_metric_with_blocks(
            rtg_metric_new(ctx, "timer.wakeup.%s.cpu%d", vname, c[i].cpu));
        rtg_metric_explain(ctx, c[i].m);
        if (!c[i].m) {
            free(c);
            free(t);
            return rtg_fail_error(ctx, "out of memory");
        }
    }
    size_t started = 0;
    int rc = 0;
    for (; started < ncpu; started++) {
        struct rtg_thread_attr a = {.policy = rtg_rt_ok(ctx) ? RTG_SCHED_FIFO : RTG_SCHED_OTHER,
                                    .prio = rtg_prio(ctx), .cpu = c[started].cpu,
                                    .stack_size = RTG_TEST_STACK};
        rc = rtg_thread_create(&t[started], &a, rtg_wake_loop, &c[started].w);
        if (rc)
            break;
    }
    for (size_t i = 0; i < started; i++)
        rtg_thread_join(t[i], NULL);
    int ret = 0;
    if (rc) {
        ret = rtg_fail_error(ctx, "cannot start the thread for CPU %d: %s", c[started].cpu,
                             strerror(rc));
        goto out;
    }

    struct rtg_metric *all = rtg_metric_new(ctx, "timer.wakeup.%s.all", vname);
    if (!all) {
        ret = rtg_fail_error(ctx, "out of memory");
        goto out;
    }
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kstr(info, "variant", vname);
    rtg_json_kstr(info, "align", same ? "same" : "staggered");
    rtg_json_kuint(info, "stagger_ns", stagger);
    rtg_json_key(info, "missed_periods");
    rtg_json_obj_begin(info);
    for (size_t i = 0; i < ncpu; i++) {
        char key[16];
        snprintf(key, sizeof key, "cpu%d", c[i].cpu);
        rtg_json_kuint(info, key, c[i].w.missed);
        rtg_metric_merge(all, c[i].m);
    }
    rtg_json_obj_end(info);
    rtg_json_kuint(info, "early_wakeups", all->negative);
    rtg_json_kuint(info, "loops_per_cpu", loops);
    for (size_t i = 0; i < ncpu; i++)
        if (c[i].w.error == ENOTSUP) { /* a port without this kind of timer */
            ret = rtg_skip(ctx, "variant %s: %s is not offered by this OS", vname,
                           c[i].w.failed_call);
            break;
        } else if (c[i].w.error) {
            ret = rtg_fail_error(ctx, "%s failed on CPU %d: %s", c[i].w.failed_call, c[i].cpu,
                                 strerror(c[i].w.error));
            break;
        }
out:
    free(c);
    free(t);
    return ret;
}

static double bound(const struct rtg_ctx *ctx)
{
    return (double)rtg_opt_int(ctx, "duration_ms") / 1000.0 * 1.5 + 10.0;
}

static const struct rtg_option options[] = {
    {"period_us", RTG_OPT_INT, 1000, 0, 50, 1000000, NULL, 0, "wake-up period"},
    {"duration_ms", RTG_OPT_INT, 10000, 1000, 100, RTG_DURATION_MAX_MS, NULL,
     RTG_OPT_SCALED | RTG_OPT_DURATION,
     "how long to measure"},
    {"variant", RTG_OPT_ENUM, 0, 0, 0, 0, RTG_WAKE_CHOICES, 0,
     "the wake-up mechanism: clock_nanosleep (absolute), nanosleep (relative), posix_timer "
     "(periodic timer, signal waited for), timerfd, select or poll (ppoll) timeout"},
    {"align", RTG_OPT_ENUM, 0, 0, 0, 0, "staggered,same", 0,
     "the CPUs' first expiries: staggered evenly over one period (as cyclictest without "
     "-A), or all at the same instant (as cyclictest -A 0)"},
};

const struct rtg_test_desc rtg_test_tmr_p_lat = {
    .id = "TMR-P-LAT",
    .source = __FILE__,
    .title = "Periodic wake-up latency per CPU",
    .kind = 'P',
    .release_latency = "timer.wakeup.",
    .options = RTG_OPTIONS(options),
    .run = run,
    .bound_s = bound,
};
