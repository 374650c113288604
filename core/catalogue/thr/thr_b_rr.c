/* THR-B-RR: round-robin fairness and slice length. Records evidence; the
 * verdicts come from thr_verdicts.c. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "thr_behav.h"
#include "thr_verdicts.h"

/* The rule both checks are judged by (paraphrased; the tolerances are the
 * catalogue's). */
static const struct rtg_standard STD_RR = {
    "POSIX", "XSH 2.8.4 SCHED_RR: a thread that has run for the interval sched_rr_get_interval() "
             "returns goes to the tail of the thread list for its priority"};

#define RR_SEGS 4096 /* segments kept per thread (fewer on a board's small heap) */

struct rr_state;

struct rr_thread {
    struct rr_state *st;
    int id;
    size_t n, cap;
    struct rtg_thr_slice *seg; /* cap of them, ticks until converted */
    /* Its stretches off the CPU: the others' slices, and anything that
     * took the CPU besides them, which the flight recorder names. */
    struct rtg_metric *off;
    const struct rtg_ctx *ctx;
};

struct rr_state {
    atomic_ullong begin; /* ticks; 0 until the window opens */
    uint64_t end;        /* ticks */
    uint64_t gap;        /* ticks: a longer pause between two reads ends a segment */
    struct rr_thread th[RTG_THR_RR_MAX];
};

static void seg_push(struct rr_thread *t, uint64_t a, uint64_t b)
{
    if (t->n < t->cap) {
        t->seg[t->n++] = (struct rtg_thr_slice){t->id, a, b, 0};
    } else {
        t->seg[t->cap - 1].end_ns = b; /* full: extend the last one */
    }
}

static void *rr_worker(void *arg)
{
    struct rr_thread *t = arg;
    struct rr_state *st = t->st;
    while (!atomic_load(&st->begin)) /* SCHED_OTHER may start early */
        rtg_thread_yield();
    uint64_t end = st->end, gap = st->gap;
    uint64_t start = rtg_clock_ticks(), last = start;
    for (unsigned i = 0;; i++) {
        uint64_t now = rtg_clock_ticks();
        if (now - last > gap) {
            seg_push(t, start, last);
            start = now;
            if (t->off)
                rtg_metric_ticks(t->off, last, now, rtg_clock_delta_ns(last, now),
                                 rtg_test_elapsed_ns(t->ctx));
        }
        last = now;
        if (now >= end || ((i & 1023) == 0 && rtg_stop_requested()))
            break;
    }
    seg_push(t, start, last);
    return NULL;
}

struct rr_ctl {
    const struct rtg_ctx *ctx;
    struct rr_state *st;
    enum rtg_policy pol;
    int n, prio;
    uint64_t window_ns;
    int error, started;
};

static void *rr_controller(void *arg)
{
    struct rr_ctl *c = arg;
    rtg_thread_t t[RTG_THR_RR_MAX];
    for (; c->started < c->n; c->started++) {
        struct rtg_thread_attr a = rtg_attr_at(c->ctx, c->pol, c->prio - 1);
        int rc = rtg_thread_create(&t[c->started], &a, rr_worker, &c->st->th[c->started]);
        if (rc) {
            c->error = rc;
            break;
        }
    }
    uint64_t now = rtg_clock_ticks();
    c->st->end = now + (uint64_t)((double)c->window_ns / rtg_clock_g.ns_per_tick);
    atomic_store(&c->st->begin, now);
    if (c->error)
        c->st->end = now; /* let the started ones finish at once */
    else
        rtg_sleep_until_intr(rtg_mono_ns() + c->window_ns);
    for (int i = 0; i < c->started; i++)
        rtg_thread_join(t[i], NULL);
    return NULL;
}

static void *rr_interval_probe(void *arg)
{
    uint64_t *ns = arg;
    if (rtg_rr_interval_ns(ns))
        *ns = 0;
    return NULL;
}

static int rr_b_run(struct rtg_ctx *ctx)
{
    enum rtg_policy pol = rtg_thr_policy_opt(ctx);
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_RR: round-robin needs real-time policies");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (levels below it)");
    int n = (int)rtg_opt_int(ctx, "threads");
    int rounds = (int)rtg_opt_int(ctx, "rounds");
    double tol = rtg_opt_float(ctx, "share_tolerance_pct");
    double stol = rtg_opt_float(ctx, "slice_tolerance_pct");
    uint64_t max_window = (uint64_t)rtg_opt_int(ctx, "max_window_ms") * NS_PER_MS;
    int prio = rtg_prio(ctx) - 2;

    uint64_t declared = 0;
    int rc = rtg_thr_run_in(ctx, RTG_SCHED_RR, prio - 1, rr_interval_probe, &declared);
    if (rc)
        return rtg_fail_error(ctx, "cannot create a SCHED_RR thread: %s", strerror(rc));
    /* Whole rounds fit the window, so every thread gets the same number
     * of slices; the window is capped to stay clear of RT throttling. */
    uint64_t slice = declared ? declared : 100 * NS_PER_MS;
    uint64_t window = (uint64_t)rounds * (uint64_t)n * slice;
    bool capped = false;
    if (window > max_window) {
        /* Fewer whole rounds; a window under one round cannot be fair. */
        uint64_t round = (uint64_t)n * slice;
        window = max_window >= round ? max_window / round * round : max_window;
        capped = true;
    }
    /* Each segment is kept, then copied once into the merged list. */
    size_t segs = (size_t)rtg_fit_count(
        ctx, "segments kept per thread", RR_SEGS, 2 * (size_t)n * sizeof(struct rtg_thr_slice),
        RTG_FIT_RESERVE + sizeof(struct rr_state) + (size_t)(n + 1) * rtg_thread_mem_bytes(RTG_TEST_STACK));
    if (segs < 2)
        return rtg_skip(ctx, "no room in the heap for the segments of %d threads", n);
    struct rr_state *st = calloc(1, sizeof *st);
    struct rtg_thr_slice *seg = calloc((size_t)n * segs, sizeof *seg);
    if (!st || !seg) {
        free(st);
        free(seg);
        return rtg_fail_error(ctx, "out of memory");
    }
    st->gap = (uint64_t)(20000.0 / rtg_clock_g.ns_per_tick); /* 20 us */
    for (int i = 0; i < n; i++) {
        st->th[i] = (struct rr_thread){.st = st, .id = i, .cap = segs, .seg = seg + i * segs,
                                       .ctx = ctx, .off = rtg_metric_new(ctx, "thread.rr.off_cpu.t%d", i)};
        rtg_metric_explain_call(ctx, st->th[i].off);
    }
    atomic_init(&st->begin, 0);
    struct rr_ctl c = {.ctx = ctx, .st = st, .pol = pol, .n = n, .prio = prio, .window_ns = window};
    /* The controller stays SCHED_FIFO above the workers, so it closes the
     * window on time whatever their policy. */
    rc = rtg_thr_run_in(ctx, RTG_SCHED_FIFO, prio, rr_controller, &c);
    if (rc || c.error) {
        free(seg);
        free(st);
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc ? rc : c.error));
    }
    /* Segments in ns from the window's start, clipped to the window. */
    uint64_t begin = atomic_load(&st->begin);
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += st->th[i].n;
    struct rtg_thr_slice *all = calloc(total ? total : 1, sizeof *all);
    if (!all) {
        free(seg);
        free(st);
        return rtg_fail_error(ctx, "out of memory");
    }
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        for (size_t j = 0; j < st->th[i].n; j++) {
            struct rtg_thr_slice s = st->th[i].seg[j];
            uint64_t a = s.start_ns < begin ? begin : s.start_ns;
            uint64_t b = s.end_ns > st->end ? st->end : s.end_ns;
            if (b <= a)
                continue;
            all[k++] = (struct rtg_thr_slice){i, rtg_clock_delta_ns(begin, a),
                                              rtg_clock_delta_ns(begin, b), 0};
        }
    }
    size_t ns = rtg_thr_rr_merge(all, k);
    struct rtg_thr_rr_summary sum;
    rtg_thr_rr_summarise(all, ns, n, &sum);
    /* Stretches where no measured thread ran (RT throttling, other work). */
    uint64_t idle = 0, cursor = 0;
    for (size_t i = 0; i < ns; i++) {
        if (all[i].start_ns > cursor + 100 * NS_PER_US)
            idle += all[i].start_ns - cursor;
        if (all[i].end_ns > cursor)
            cursor = all[i].end_ns;
    }

    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "policy", rtg_policy_name(pol));
    rtg_json_kint(&ev, "threads", n);
    rtg_json_kuint(&ev, "window_ns", window);
    rtg_json_key(&ev, "run_ns");
    rtg_json_arr_begin(&ev);
    for (int i = 0; i < n; i++)
        rtg_json_uint(&ev, sum.run_ns[i]);
    rtg_json_arr_end(&ev);
    rtg_json_kuint(&ev, "n_slices", ns);
    rtg_json_kstr(&ev, "slices_legend", "[thread, start_ns, end_ns, run_ns] from the window's start");
    rtg_json_key(&ev, "slices");
    rtg_json_arr_begin(&ev);
    for (size_t i = 0; i < ns && i < 64; i++) {
        rtg_json_arr_begin(&ev);
        rtg_json_int(&ev, all[i].thread);
        rtg_json_uint(&ev, all[i].start_ns);
        rtg_json_uint(&ev, all[i].end_ns);
        rtg_json_uint(&ev, all[i].run_ns);
        rtg_json_arr_end(&ev);
    }
    rtg_json_arr_end(&ev);
    rtg_json_kbool(&ev, "slices_truncated", ns > 64);
    rtg_json_kuint(&ev, "idle_ns", idle);
    rtg_json_obj_end(&ev);

    char exp[160], obs[200];
    snprintf(exp, sizeof exp, "each of %d threads runs within %.0f%% of the mean share", n, tol);
    snprintf(obs, sizeof obs, "worst deviation %.1f%% of the mean share (%zu slices)",
             sum.worst_share_dev_pct, ns);
    rtg_verdict(ctx, &STD_RR, "share_per_thread_within_tolerance", rtg_thr_rr_fair(&sum, tol), exp, obs,
                &ev);
    snprintf(exp, sizeof exp, "median full slice within %.0f%% of sched_rr_get_interval (%llu ns)",
             stol, (unsigned long long)declared);
    snprintf(obs, sizeof obs, "median full slice %llu ns over %zu slices (min %llu, max %llu)",
             (unsigned long long)sum.median_slice_ns, sum.n_full,
             (unsigned long long)sum.min_slice_ns, (unsigned long long)sum.max_slice_ns);
    rtg_verdict(ctx, &STD_RR, "slice_matches_rr_interval", rtg_thr_rr_slice_ok(&sum, declared, stol), exp,
                obs, &ev);
    rtg_json_free(&ev);

    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kstr(info, "policy", rtg_policy_name(pol));
    rtg_json_kuint(info, "rr_interval_ns", declared);
    rtg_json_kuint(info, "observed_median_slice_ns", sum.median_slice_ns);
    rtg_json_kuint(info, "window_ns", window);
    rtg_json_kbool(info, "window_capped", capped);
    rtg_json_kuint(info, "idle_ns", idle);
    rtg_json_key(info, "first_slice_ns");
    rtg_json_arr_begin(info);
    for (int i = 0; i < n; i++)
        rtg_json_uint(info, sum.first_slice_ns[i]);
    rtg_json_arr_end(info);
    rtg_json_key(info, "share_pct");
    rtg_json_arr_begin(info);
    uint64_t sum_run = 0;
    for (int i = 0; i < n; i++)
        sum_run += sum.run_ns[i];
    for (int i = 0; i < n; i++)
        rtg_json_num(info, sum_run ? 100.0 * (double)sum.run_ns[i] / (double)sum_run : 0);
    rtg_json_arr_end(info);
    if (capped)
        rtg_note(ctx, "window capped at %llu ms by max_window_ms%s",
                 (unsigned long long)(window / NS_PER_MS),
                 window < (uint64_t)n * slice ? ": shorter than one round, shares cannot be equal"
                                             : "");
    if (idle > 10 * NS_PER_MS)
        rtg_note(ctx, "no measured thread ran for %llu ms of the window (RT throttling?)",
                 (unsigned long long)(idle / NS_PER_MS));
    free(all);
    free(seg);
    free(st);
    return 0;
}

static double rr_b_bound(const struct rtg_ctx *ctx)
{
    return 5.0 + (double)rtg_opt_int(ctx, "max_window_ms") / 1000.0;
}

static const struct rtg_option rr_b_options[] = {
    {"threads", RTG_OPT_INT, 3, 2, 2, RTG_THR_RR_MAX, NULL, 0, "busy threads of equal priority"},
    {"rounds", RTG_OPT_INT, 2, 2, 1, 100, NULL, 0,
     "window = rounds x threads x the RR interval (capped by max_window_ms)"},
    {"max_window_ms", RTG_OPT_INT, 800, 450, 50, 5000, NULL, 0,
     "cap of the measured window (RT throttling stalls busy RT threads after 950 ms per s)"},
    {"share_tolerance_pct", RTG_OPT_FLOAT, 10, 0, 0.1, 100, NULL, 0,
     "largest allowed deviation of a thread's run time from the mean, percent"},
    {"slice_tolerance_pct", RTG_OPT_FLOAT, 10, 0, 0.1, 100, NULL, 0,
     "largest allowed deviation of the median slice from sched_rr_get_interval, percent"},
    {"policy", RTG_OPT_ENUM, 0, 0, 0, 0, "rr,fifo,other", 0,
     "policy of the busy threads; fifo and other are negative controls"},
};

const struct rtg_test_desc rtg_test_thr_b_rr = {
    .id = "THR-B-RR",
    .source = __FILE__,
    .recorded = true, /* what took the CPU from each thread */
    .title = "Round-robin fairness and time slice",
    .kind = 'B',
    .options = RTG_OPTIONS(rr_b_options),
    .run = rr_b_run,
    .bound_s = rr_b_bound,
};
