/* TMR-S-SUS: the shortest period a periodic timer sustains with no missed
 * expiry over N expirations, searching down from 1 ms on a 1-2-5 ladder. */
#include <errno.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/osal_timer.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "tmr_calc.h"

struct try_result {
    uint64_t period_ns, expirations, misses, overruns, late;
    bool complete; /* all N expirations seen (not cut by the time bound) */
};

/* One period tried: N expirations of a periodic timer, every miss counted. */
static int try_period(struct rtg_ctx *ctx, enum rtg_timer_mode mode, uint64_t period, uint64_t n,
                      struct rtg_metric *m, struct try_result *res)
{
    struct rtg_timer *t = NULL;
    int rc = rtg_timer_create(&t, mode, NULL, NULL);
    uint64_t start = rtg_mono_ns() + 1000000u;
    if (!rc)
        rc = rtg_timer_arm(t, start, period);
    if (rc) {
        rtg_timer_delete(t);
        return rc;
    }
    /* a bound in time too: twice the nominal length, plus a second */
    uint64_t limit = start + 2 * n * period + 1000000000u;
    uint64_t next = start;
    *res = (struct try_result){.period_ns = period};
    while (res->expirations < n && !rtg_stop_requested()) {
        uint64_t exp = 0;
        rc = rtg_timer_wait(t, &exp);
        if (rc == EINTR) {
            rc = 0;
            continue;
        }
        if (rc)
            break;
        uint64_t now = rtg_mono_ns();
        if (!exp)
            continue;
        /* late from the first expiry not yet served (next), not the latest */
        rtg_metric_interval(m, next, now, rtg_test_elapsed_ns(ctx));
        uint64_t late = rtg_past(now, next); /* an early one misses nothing */
        uint64_t miss = rtg_sus_misses(exp, late, period);
        res->misses += miss;
        if (exp > 1)
            res->overruns += exp - 1;
        else if (miss)
            res->late++;
        res->expirations += exp;
        next += exp * period;
        if (now > limit)
            break;
    }
    res->complete = res->expirations >= n;
    rtg_timer_delete(t);
    return rc;
}

static int run(struct rtg_ctx *ctx)
{
    uint64_t n = (uint64_t)rtg_opt_int(ctx, "expirations");
    uint64_t min_ns = (uint64_t)rtg_opt_int(ctx, "min_period_us") * 1000u;
    bool fd = strcmp(rtg_opt_enum(ctx, "timer"), "timerfd") == 0;
    enum rtg_timer_mode mode = fd ? RTG_TIMER_FD : RTG_TIMER_SIGWAIT;
    struct rtg_timer *probe = NULL; /* whether the OS has this kind of timer at all */
    if (rtg_timer_create(&probe, mode, NULL, NULL) == ENOTSUP)
        return rtg_skip(ctx, "%s is not offered by this OS",
                        fd ? "a timerfd" : "a POSIX timer waited for with sigwaitinfo");
    rtg_timer_delete(probe);
    struct try_result tries[32];
    size_t nt = 0;
    uint64_t best = 0;
    int rc = 0;
    for (uint64_t p = 1000000u; p && nt < 32 && !rtg_stop_requested();
         p = rtg_sus_next_period(p, min_ns)) {
        struct rtg_metric *m = rtg_metric_new(ctx, "timer.expiry_late.period_%lluns",
                                              (unsigned long long)p);
        if (!m)
            return rtg_fail_error(ctx, "out of memory");
        rtg_metric_explain(ctx, m); /* from the expiry owed to the thread running */
        rtg_json_obj_begin(&m->params);
        rtg_json_kuint(&m->params, "period_ns", p);
        rtg_json_obj_end(&m->params);
        rc = try_period(ctx, mode, p, n, m, &tries[nt]);
        if (rc)
            break;
        nt++;
        if (tries[nt - 1].misses || !tries[nt - 1].complete)
            break; /* the first failing period ends the search */
        best = p;
    }
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kstr(info, "timer", fd ? "timerfd" : "posix_timer");
    rtg_json_kuint(info, "expirations_per_try", n);
    if (best)
        rtg_json_kuint(info, "shortest_period_ns", best);
    else
        rtg_json_knull(info, "shortest_period_ns");
    if (best)
        rtg_json_knum(info, "max_sustained_hz", 1e9 / (double)best);
    else
        rtg_json_knull(info, "max_sustained_hz");
    rtg_json_key(info, "tries");
    rtg_json_arr_begin(info);
    for (size_t i = 0; i < nt; i++) {
        rtg_json_obj_begin(info);
        rtg_json_kuint(info, "period_ns", tries[i].period_ns);
        rtg_json_kuint(info, "expirations", tries[i].expirations);
        rtg_json_kuint(info, "misses", tries[i].misses);
        rtg_json_kuint(info, "overruns", tries[i].overruns);
        rtg_json_kuint(info, "late_beyond_period", tries[i].late);
        rtg_json_kbool(info, "complete", tries[i].complete);
        rtg_json_kbool(info, "passed", tries[i].complete && !tries[i].misses);
        rtg_json_obj_end(info);
    }
    rtg_json_arr_end(info);
    if (nt && tries[nt - 1].misses == 0 && tries[nt - 1].complete)
        rtg_note(ctx, "no period down to %llu ns missed an expiry: the search ended at min_period_us",
                 (unsigned long long)tries[nt - 1].period_ns);
    if (rc)
        return rtg_fail_error(ctx, "%s failed: %s", fd ? "timerfd" : "POSIX timer", strerror(rc));
    return 0;
}

static double bound(const struct rtg_ctx *ctx)
{
    /* 1 ms + 500 us + 200 us + ... < 2 ms per expiration, each try bounded
     * at twice its nominal length plus a second */
    double n = (double)rtg_opt_int(ctx, "expirations");
    return 2.0 * n * 2e-3 + 15.0 + 10.0;
}

static const struct rtg_option options[] = {
    {"expirations", RTG_OPT_INT, 20000, 2000, 100, 10000000, NULL, RTG_OPT_SCALED,
     "N: expirations each period must deliver without a miss (the catalogue's 100 000 takes "
     "~3 min; see docs/methodology.md)"},
    {"min_period_us", RTG_OPT_INT, 1, 0, 1, 1000, NULL, 0, "the search stops below this period"},
    {"timer", RTG_OPT_ENUM, 0, 0, 0, 0, "posix_timer,timerfd", 0,
     "posix_timer (signal waited for, timer_getoverrun) or timerfd (expiration count)"},
};

const struct rtg_test_desc rtg_test_tmr_s_sus = {
    .id = "TMR-S-SUS",
    .source = __FILE__,
    .recorded = true, /* each expiry's lateness is explained */
    .needs = RTG_OFFERS_TIMERS,
    .title = "Maximum sustained timer frequency (no expiry missed)",
    .kind = 'S',
    .options = RTG_OPTIONS(options),
    .run = run,
    .bound_s = bound,
};
