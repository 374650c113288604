/* CLK-P-DUR: gaps seen by a pinned SCHED_FIFO thread reading the clock in
 * a tight loop: time the kernel took from it (tick, interrupts, softirqs). */
#include <stdbool.h>
#include <stdlib.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_sys.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "clk_gaps.h"

#define MAX_KEPT 1000000 /* gaps kept at most (time, duration), for the tick analysis */
#define MIN_KEPT 64      /* halving stops here: a board short of memory keeps fewer */
/* The kept arrays grow by whole steps, before each burst to the room it may
 * need (rtg_gaps_room). The memory is locked, so all that is allocated is
 * resident: sized per burst, a default run holds ~6 MB where room for
 * MAX_KEPT at the start took 28 MB. */
#define KEPT_STEP 4096
#define TICK_MIN_NS 900000ull   /* HZ up to ~1100 */
#define TICK_MAX_NS 10500000ull /* HZ down to ~95 */
#define TICK_BIN_NS 20000ull
#define TICK_TOL_NS 10000ull /* a tick gap: another one period +- this away */
#define MAX_COMPONENTS 8
/* How far a component's rate may lie from the kernel's HZ and still be its
 * tick: the configured HZ is exact; the measured one counts every local
 * timer interrupt, so it reads high on a machine with other timers. */
#define TICK_MATCH_CONFIG 0.05
#define TICK_MATCH_MEASURED 0.15

/* The gaps kept for the tick analysis: four arrays grown together. */
struct kept {
    uint64_t *at;   /* ns since the first read */
    uint64_t *dur;  /* ns */
    uint64_t *when; /* ns since the test started */
    int *owner;     /* the periodic component of each (rtg_periodic_find) */
    size_t cap;
};

/* Room for want gaps. On failure every array keeps what it held (one grown
 * is merely larger) and cap stays. */
static bool kept_grow(struct kept *k, size_t want)
{
    uint64_t *at = realloc(k->at, want * sizeof *at);
    if (at)
        k->at = at;
    uint64_t *dur = realloc(k->dur, want * sizeof *dur);
    if (dur)
        k->dur = dur;
    uint64_t *when = realloc(k->when, want * sizeof *when);
    if (when)
        k->when = when;
    int *owner = realloc(k->owner, want * sizeof *owner);
    if (owner)
        k->owner = owner;
    if (!at || !dur || !when || !owner)
        return false;
    k->cap = want;
    return true;
}

static void kept_free(struct kept *k)
{
    free(k->at);
    free(k->dur);
    free(k->when);
    free(k->owner);
}

/* Every periodic component: its period, rate, cost and share of the CPU. */
static void emit_components(struct rtg_json *info, const struct rtg_periodic *c, size_t nc,
                            int tick, double loop_s)
{
    rtg_json_key(info, "periodic_components");
    rtg_json_arr_begin(info);
    for (size_t i = 0; i < nc; i++) {
        rtg_json_obj_begin(info);
        rtg_json_kuint(info, "period_ns", c[i].period_ns);
        rtg_json_knum(info, "rate_hz", 1e9 / (double)c[i].period_ns);
        rtg_json_kuint(info, "gaps", c[i].gaps);
        rtg_json_kuint(info, "occurrences", c[i].occurrences);
        rtg_json_knum(info, "occurrences_per_s",
                      loop_s > 0 ? (double)c[i].occurrences / loop_s : 0);
        rtg_json_kuint(info, "cost_ns", c[i].cost_ns);
        rtg_json_knum(info, "cpu_share", loop_s > 0 ? (double)c[i].busy_ns / (loop_s * 1e9) : 0);
        rtg_json_kbool(info, "is_tick", (int)i == tick);
        rtg_json_kuint(info, "peak_pairs", c[i].why.peak);
        rtg_json_kuint(info, "background_pairs", c[i].why.median);
        rtg_json_obj_end(info);
    }
    rtg_json_arr_end(info);
}

static int run(struct rtg_ctx *ctx)
{
    uint64_t loop_ns = (uint64_t)rtg_opt_int(ctx, "duration_ms") * 1000000u;
    uint64_t burst_ns = (uint64_t)rtg_opt_int(ctx, "burst_ms") * 1000000u;
    uint64_t pause_ns = (uint64_t)rtg_opt_int(ctx, "pause_ms") * 1000000u;
    uint64_t thr_ns = (uint64_t)rtg_opt_int(ctx, "threshold_ns");
    uint64_t throttle_ns = (uint64_t)rtg_opt_int(ctx, "throttle_ms") * 1000000u;
    double tick_ns = rtg_clock_g.ns_per_tick > 0 ? rtg_clock_g.ns_per_tick : 1.0;
    uint64_t thr_ticks = (uint64_t)((double)thr_ns / tick_ns);
    uint64_t burst_ticks = (uint64_t)((double)burst_ns / tick_ns);

    struct rtg_metric *all = rtg_metric_new(ctx, "clock.gap.loop");
    struct rtg_metric *tick = rtg_metric_new(ctx, "clock.gap.tick");
    struct rtg_metric *other = rtg_metric_new(ctx, "clock.gap.other");
    struct rtg_metric *thr = rtg_metric_new(ctx, "clock.gap.throttled");
    struct kept gaps = {0};
    /* At most as many as a board's heap holds (the record says so). Room
     * for the first burst, halved until the four arrays are found; before
     * each later burst, in the pause, room for that one. */
    size_t fitted = (size_t)rtg_fit_count(ctx, "gaps kept", MAX_KEPT,
                                          3 * sizeof *gaps.at + sizeof *gaps.owner,
                                          RTG_FIT_RESERVE);
    size_t wanted = rtg_gaps_room(0, burst_ticks, thr_ticks, KEPT_STEP, fitted);
    for (size_t want = wanted; want >= MIN_KEPT && !gaps.cap; want /= 2)
        kept_grow(&gaps, want);
    bool short_of_memory = gaps.cap < wanted;
    if (!all || !tick || !other || !thr || !gaps.cap) {
        kept_free(&gaps);
        return rtg_fail_error(ctx, "out of memory");
    }
    rtg_metric_explain_call(ctx, all);
    rtg_metric_explain_call(ctx, thr);
    rtg_metric_explain_call(ctx, tick); /* offered once the loop has ended: below */
    rtg_metric_explain_call(ctx, other);
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "SCHED_OTHER: gaps include other tasks' time slices, not only the kernel's");

    uint64_t loop_ticks_total = 0, floor_ticks = UINT64_MAX, bursts = 0, lost = 0;
    size_t n = 0;
    /* the tick's and the other gaps are offered once the loop has ended:
     * the recorder keeps the whole loop's events for them */
    rtg_explain_hold(ctx);
    uint64_t origin = rtg_clock_ticks();
    while (!rtg_stop_requested()) {
        uint64_t done_ns = (uint64_t)((double)loop_ticks_total * tick_ns);
        if (done_ns >= loop_ns)
            break;
        uint64_t this_ticks = burst_ticks;
        if (loop_ns - done_ns < burst_ns)
            this_ticks = (uint64_t)((double)(loop_ns - done_ns) / tick_ns);
        uint64_t first = rtg_clock_ticks();
        uint64_t end = first + this_ticks, prev = first, t = first;
        unsigned k = 0;
        for (;;) {
            t = rtg_clock_ticks();
            uint64_t d = t - prev;
            if (d < floor_ticks)
                floor_ticks = d;
            if (d > thr_ticks) {
                uint64_t ns = rtg_clock_delta_ns(prev, t);
                uint64_t now = rtg_test_elapsed_ns(ctx);
                /* offered at once, by this thread: what took the CPU */
                if (rtg_gap_classify(ns, thr_ns, throttle_ns) == RTG_GAP_THROTTLE) {
                    rtg_metric_ticks(thr, prev, t, ns, now);
                } else if (n < gaps.cap) {
                    rtg_metric_ticks(all, prev, t, ns, now);
                    gaps.at[n] = rtg_clock_delta_ns(origin, prev);
                    gaps.dur[n] = ns;
                    gaps.when[n++] = now;
                } else {
                    lost++;
                }
                t = rtg_clock_ticks(); /* the bookkeeping is not a gap */
            }
            prev = t;
            if (t >= end)
                break;
            if (++k == 4096) {
                k = 0;
                if (rtg_stop_requested())
                    break;
            }
        }
        loop_ticks_total += t - first;
        bursts++;
        if (!short_of_memory) { /* the next burst's room, outside every burst */
            size_t need = rtg_gaps_room(n, burst_ticks, thr_ticks, KEPT_STEP, fitted);
            if (need > gaps.cap && !kept_grow(&gaps, need)) {
                short_of_memory = true;
                wanted = need;
            }
        }
        rtg_sleep_ns(pause_ns); /* well inside the RT budget: no throttling */
    }

    /* Every periodic component of the gap times; the tick is the one at
     * the kernel's HZ, not merely the strongest (a VM may add others). */
    struct rtg_periodic comp[MAX_COMPONENTS];
    const struct rtg_periodic_search search = {TICK_MIN_NS, TICK_MAX_NS, TICK_BIN_NS, TICK_TOL_NS};
    size_t nc =
        rtg_periodic_find(gaps.at, gaps.dur, n, &search, comp, MAX_COMPONENTS, gaps.owner);
    const char *hz_source = "unknown";
    double hz = rtg_sys_tick_hz(rtg_cpu_at(ctx, 0), &hz_source);
    bool configured = hz_source[0] == 'C';
    int t = rtg_periodic_tick(comp, nc, hz, configured ? TICK_MATCH_CONFIG : TICK_MATCH_MEASURED);
    /* clock.gap.loop has them all already. Each gap is the tick's or not
     * only now: placed on the monotonic clock by when it was seen (the
     * test's time, read just after the gap's end), it is offered now, by
     * the thread it held up, and its window cut from the record of the
     * loop (one older than the reader's ring says so). */
    uint64_t start = rtg_mono_ns() - rtg_test_elapsed_ns(ctx);
    for (size_t i = 0; i < n; i++) {
        uint64_t to = start + gaps.when[i];
        rtg_metric_interval(t >= 0 && gaps.owner[i] == t ? tick : other, to - gaps.dur[i], to,
                            gaps.when[i]);
    }
    double loop_s = (double)loop_ticks_total * tick_ns / 1e9;
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "cpu", rtg_cpu_at(ctx, 0));
    rtg_json_knum(info, "loop_time_ms", loop_s * 1e3);
    rtg_json_kuint(info, "bursts", bursts);
    rtg_json_kuint(info, "threshold_ns", thr_ns);
    rtg_json_knum(info, "loop_floor_ns", floor_ticks == UINT64_MAX ? 0 : (double)floor_ticks * tick_ns);
    rtg_json_kuint(info, "gaps", all->stats.count);
    rtg_json_knum(info, "gaps_per_s", loop_s > 0 ? (double)all->stats.count / loop_s : 0);
    rtg_json_knum(info, "gap_time_fraction",
                  loop_s > 0 ? all->stats.mean * (double)all->stats.count / (loop_s * 1e9) : 0);
    emit_components(info, comp, nc, t, loop_s);
    if (hz > 0)
        rtg_json_knum(info, "kernel_hz", hz);
    else
        rtg_json_knull(info, "kernel_hz");
    rtg_json_kstr(info, "kernel_hz_source", hz_source);
    if (t >= 0) {
        rtg_json_kuint(info, "tick_period_ns", comp[t].period_ns);
        rtg_json_knum(info, "tick_hz", 1e9 / (double)comp[t].period_ns);
    } else {
        rtg_json_knull(info, "tick_period_ns");
        rtg_json_knull(info, "tick_hz");
    }
    rtg_json_key(info, "tick_search");
    rtg_json_obj_begin(info);
    rtg_json_kuint(info, "peak_pairs", t >= 0 ? comp[t].why.peak : 0);
    rtg_json_kuint(info, "peak_at_ns", t >= 0 ? comp[t].why.peak_at_ns : 0);
    rtg_json_kuint(info, "background_pairs", t >= 0 ? comp[t].why.median : 0);
    rtg_json_obj_end(info);
    uint64_t ticks = t >= 0 ? comp[t].occurrences : 0;
    rtg_json_kuint(info, "tick_gaps", ticks);
    rtg_json_knum(info, "tick_gaps_per_s", loop_s > 0 ? (double)ticks / loop_s : 0);
    rtg_json_kuint(info, "throttle_gaps", thr->stats.count);
    rtg_json_kuint(info, "throttle_threshold_ns", throttle_ns);
    if (lost)
        rtg_json_kuint(info, "gaps_not_kept", lost);
    if (short_of_memory)
        rtg_note(ctx, "memory for %zu gaps only (not %zu): later gaps are counted, not kept",
                 gaps.cap, wanted);
    if (thr->stats.count)
        rtg_note(ctx, "%llu gap(s) of %llu ms or more: RT throttling or a stalled virtual CPU, "
                      "reported apart (clock.gap.throttled)",
                 (unsigned long long)thr->stats.count, (unsigned long long)(throttle_ns / 1000000u));
    if (!nc)
        rtg_note(ctx, "no periodic component among the gaps: no tick on this CPU (nohz_full?) or "
                      "too few gaps");
    else if (hz <= 0)
        rtg_note(ctx, "the kernel's HZ is unknown: %zu periodic component(s) found, none named "
                      "the tick", nc);
    else if (t < 0)
        rtg_note(ctx, "no periodic component matches the kernel's HZ (%.0f, %s): %zu other "
                      "periodic component(s), none named the tick", hz, hz_source, nc);
    kept_free(&gaps);
    return 0;
}

static double bound(const struct rtg_ctx *ctx)
{
    double loop = (double)rtg_opt_int(ctx, "duration_ms");
    double burst = (double)rtg_opt_int(ctx, "burst_ms");
    double pause = (double)rtg_opt_int(ctx, "pause_ms");
    return (loop + (loop / burst + 1) * pause) / 1000.0 * 1.5 + 10.0;
}

static const struct rtg_option options[] = {
    {"duration_ms", RTG_OPT_INT, 5000, 600, 100, RTG_DURATION_MAX_MS, NULL,
     RTG_OPT_SCALED | RTG_OPT_DURATION,
     "total time spent in the clock-reading loop"},
    {"burst_ms", RTG_OPT_INT, 200, 0, 10, 500, NULL, 0,
     "length of one busy burst (kept well under the 950 ms RT budget)"},
    {"pause_ms", RTG_OPT_INT, 50, 0, 10, 1000, NULL, 0, "sleep between bursts"},
    {"threshold_ns", RTG_OPT_INT, 1000, 0, 20, 1000000, NULL, 0,
     "a step of the clock above this is a gap"},
    {"throttle_ms", RTG_OPT_INT, 30, 0, 1, 1000, NULL, 0,
     "gaps at least this long are counted apart, as RT throttling"},
};

const struct rtg_test_desc rtg_test_clk_p_dur = {
    .id = "CLK-P-DUR",
    .source = __FILE__,
    .recorded = true, /* what took the CPU from the loop */
    .title = "Clock tick (periodic interrupt) processing duration",
    .kind = 'P',
    .options = RTG_OPTIONS(options),
    .run = run,
    .bound_s = bound,
};
