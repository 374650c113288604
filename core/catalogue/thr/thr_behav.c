/* THR-B-NEW (creation), THR-B-PRIO (priority preemption, lowered
 * priority's queue position), THR-B-RR (round-robin fairness and slice).
 * This file records evidence; the verdicts come from thr_verdicts.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "rtg/thr_verdicts.h"

#define STACK (64 * 1024)
#define NS_PER_MS 1000000ull
#define NS_PER_US 1000ull

/* ---------------- shared: an event log with time stamps ---------------- */

#define EV_MAX 15

struct evlog {
    char ev[EV_MAX + 1];
    uint64_t t[EV_MAX];
    atomic_int n;
};

static void ev_reset(struct evlog *l)
{
    memset(l->ev, 0, sizeof l->ev);
    atomic_store(&l->n, 0);
}

static void ev_add(struct evlog *l, char c)
{
    uint64_t now = rtg_clock_ticks();
    int i = atomic_fetch_add(&l->n, 1);
    if (i < EV_MAX) {
        l->t[i] = now;
        l->ev[i] = c;
    }
}

/* {"events": "crbn", "t_ns": [0, ...]} relative to the first event. */
static void ev_json(struct rtg_json *j, const struct evlog *l)
{
    int n = atomic_load(&l->n);
    if (n > EV_MAX)
        n = EV_MAX;
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "events", l->ev);
    rtg_json_key(j, "t_ns");
    rtg_json_arr_begin(j);
    for (int i = 0; i < n; i++)
        rtg_json_uint(j, rtg_clock_delta_ns(l->t[0], l->t[i]));
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);
}

static void spin_ns(uint64_t ns)
{
    uint64_t end = rtg_mono_ns() + ns;
    while (rtg_mono_ns() < end)
        ;
}

static struct rtg_thread_attr attr_at(const struct rtg_ctx *ctx, enum rtg_policy pol, int prio)
{
    return (struct rtg_thread_attr){.policy = pol, .prio = pol == RTG_SCHED_OTHER ? 0 : prio,
                                    .cpu = rtg_cpu_at(ctx, 0), .stack_size = STACK};
}

static enum rtg_policy policy_opt(const struct rtg_ctx *ctx)
{
    const char *p = rtg_opt_enum(ctx, "policy");
    if (strcmp(p, "other") == 0)
        return RTG_SCHED_OTHER;
    if (strcmp(p, "rr") == 0)
        return RTG_SCHED_RR;
    return RTG_SCHED_FIFO;
}

/* Runs fn(arg) in a thread of the given policy and priority, joined. */
static int run_in(const struct rtg_ctx *ctx, enum rtg_policy pol, int prio, rtg_thread_fn fn,
                  void *arg)
{
    rtg_thread_t t;
    struct rtg_thread_attr a = attr_at(ctx, pol, prio);
    int rc = rtg_thread_create(&t, &a, fn, arg);
    if (!rc)
        rtg_thread_join(t, NULL);
    return rc;
}

/* ---------------- THR-B-NEW ---------------- */

enum new_case { NEW_LOWER, NEW_SAME, NEW_HIGHER };

struct new_run {
    const struct rtg_ctx *ctx;
    enum rtg_policy pol;
    enum new_case c;
    int prio;
    struct evlog log;
    int error;
};

static void *new_child(void *arg)
{
    ev_add(&((struct new_run *)arg)->log, 'n');
    return NULL;
}

static void *new_creator(void *arg)
{
    struct new_run *r = arg;
    int np = r->c == NEW_LOWER ? r->prio - 1 : r->c == NEW_HIGHER ? r->prio + 1 : r->prio;
    rtg_thread_t t;
    struct rtg_thread_attr a = attr_at(r->ctx, r->pol, np);
    ev_add(&r->log, 'c');
    int rc = rtg_thread_create(&t, &a, new_child, r);
    ev_add(&r->log, 'r');
    if (rc) {
        r->error = rc;
        return NULL;
    }
    if (r->c != NEW_HIGHER)
        spin_ns(NS_PER_MS); /* keep the CPU: a new thread that preempts shows here */
    if (r->c == NEW_SAME) {
        ev_add(&r->log, 'y');
        rtg_thread_yield();
        ev_add(&r->log, 'Y');
    }
    ev_add(&r->log, 'b');
    rtg_thread_join(t, NULL);
    return NULL;
}

static void new_verdict(struct rtg_ctx *ctx, const char *name, const char *expected,
                        enum rtg_thr_new_check chk, struct new_run *runs, int n)
{
    bool ok = true;
    int bad = -1;
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "legend",
                  "c creator calls create, r create returned, n new thread's first instruction, "
                  "y creator yields, Y yield returned, b creator blocks (join)");
    rtg_json_kint(&ev, "creator_prio", runs[0].prio);
    rtg_json_kstr(&ev, "policy", rtg_policy_name(runs[0].pol));
    rtg_json_key(&ev, "runs");
    rtg_json_arr_begin(&ev);
    for (int i = 0; i < n; i++) {
        ev_json(&ev, &runs[i].log);
        if (!rtg_thr_new_ok(runs[i].log.ev, chk)) {
            ok = false;
            if (bad < 0)
                bad = i;
        }
    }
    rtg_json_arr_end(&ev);
    rtg_json_obj_end(&ev);
    char obs[160];
    if (ok)
        snprintf(obs, sizeof obs, "%d of %d runs in order (%s)", n, n, runs[0].log.ev);
    else
        snprintf(obs, sizeof obs, "run %d out of order: %s", bad, runs[bad].log.ev);
    rtg_verdict(ctx, name, ok, expected, obs, &ev);
    rtg_json_free(&ev);
}

static int new_b_run(struct rtg_ctx *ctx)
{
    enum rtg_policy pol = policy_opt(ctx);
    if (pol != RTG_SCHED_OTHER && !rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the creation checks depend on priorities");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (levels below it for the creator)");
    int reps = (int)rtg_opt_int(ctx, "repeats");
    struct new_run *runs = calloc(3 * (size_t)reps, sizeof *runs);
    if (!runs)
        return rtg_fail_error(ctx, "out of memory");
    int prio = rtg_prio(ctx) - 2;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < reps && !rtg_stop_requested(); i++) {
            struct new_run *r = &runs[c * reps + i];
            r->ctx = ctx;
            r->pol = pol;
            r->c = (enum new_case)c;
            r->prio = prio;
            ev_reset(&r->log);
            int rc = run_in(ctx, pol, prio, new_creator, r);
            if (!rc)
                rc = r->error;
            if (rc) {
                free(runs);
                return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
            }
        }
    }
    if (rtg_stop_requested()) {
        free(runs);
        return 0;
    }
    new_verdict(ctx, "lower_priority_waits_until_creator_blocks",
                "crbn: the lower-priority thread runs only once the creator blocks",
                RTG_THR_NEW_LOWER, &runs[0], reps);
    new_verdict(ctx, "same_priority_queued_at_tail",
                "cry..: the same-priority thread does not run before the creator yields",
                RTG_THR_NEW_SAME_TAIL, &runs[reps], reps);
    new_verdict(ctx, "same_priority_runs_after_yield",
                "..ynY: when the creator yields, the new thread runs before yield returns",
                RTG_THR_NEW_SAME_YIELD, &runs[reps], reps);
    new_verdict(ctx, "higher_priority_runs_before_create_returns",
                "cnr: the higher-priority thread runs inside the create call",
                RTG_THR_NEW_HIGHER, &runs[2 * reps], reps);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kstr(info, "policy", rtg_policy_name(pol));
    rtg_json_kint(info, "creator_prio", prio);
    rtg_json_kint(info, "repeats", reps);
    free(runs);
    return 0;
}

static double new_b_bound(const struct rtg_ctx *ctx)
{
    return 5.0 + 0.05 * (double)rtg_opt_int(ctx, "repeats");
}

static const struct rtg_option new_b_options[] = {
    {"repeats", RTG_OPT_INT, 10, 3, 1, 1000, NULL, 0,
     "runs of each case; a check passes only if every run is in order"},
    {"policy", RTG_OPT_ENUM, 0, 0, 0, 0, "fifo,rr,other", 0,
     "policy of creator and new thread; other = negative control (no priorities)"},
};

const struct rtg_test_desc rtg_test_thr_b_new = {
    .id = "THR-B-NEW",
    .source = __FILE__,
    .title = "Thread creation behaviour (lower, same, higher priority)",
    .kind = 'B',
    .options = RTG_OPTIONS(new_b_options),
    .run = new_b_run,
    .bound_s = new_b_bound,
};

/* ---------------- THR-B-PRIO ---------------- */

struct wake_run {
    const struct rtg_ctx *ctx;
    enum rtg_policy pol;
    bool higher;
    int prio;
    rtg_sem_t sem;
    struct evlog log;
    int error;
};

static void *wake_waiter(void *arg)
{
    struct wake_run *r = arg;
    if (rtg_sem_wait_until(&r->sem, rtg_mono_ns() + 2000 * NS_PER_MS) == 0)
        ev_add(&r->log, 'w');
    return NULL;
}

static void *wake_poster(void *arg)
{
    struct wake_run *r = arg;
    rtg_thread_t t;
    struct rtg_thread_attr a = attr_at(r->ctx, r->pol, r->higher ? r->prio + 1 : r->prio - 1);
    int rc = rtg_thread_create(&t, &a, wake_waiter, r);
    if (rc) {
        r->error = rc;
        return NULL;
    }
    /* A higher waiter has run and blocked already; a lower one needs the
     * CPU to reach its wait: sleeping hands it over. */
    rtg_sleep_ns(10 * NS_PER_MS);
    spin_ns(200 * NS_PER_US);
    ev_add(&r->log, 'p');
    rtg_sem_post(&r->sem);
    ev_add(&r->log, 'r');
    spin_ns(NS_PER_MS);
    ev_add(&r->log, 'b');
    rtg_thread_join(t, NULL);
    return NULL;
}

struct low_run {
    const struct rtg_ctx *ctx;
    enum rtg_policy pol;
    int prio;
    struct evlog log;
    int error;
};

static void *low_other(void *arg)
{
    ev_add(&((struct low_run *)arg)->log, 'x');
    return NULL;
}

static void *low_self(void *arg)
{
    struct low_run *r = arg;
    rtg_thread_t t;
    struct rtg_thread_attr a = attr_at(r->ctx, r->pol, r->prio - 1);
    int rc = rtg_thread_create(&t, &a, low_other, r); /* ready, not running */
    if (rc) {
        r->error = rc;
        return NULL;
    }
    spin_ns(200 * NS_PER_US);
    ev_add(&r->log, 'l');
    rc = rtg_thread_set_sched(rtg_thread_self(), r->pol, r->prio - 1);
    ev_add(&r->log, 'L');
    if (rc)
        r->error = rc;
    spin_ns(NS_PER_MS);
    ev_add(&r->log, 'b');
    rtg_thread_join(t, NULL);
    return NULL;
}

static void wake_verdict(struct rtg_ctx *ctx, struct wake_run *runs, int n, bool higher)
{
    bool ok = true;
    int bad = -1;
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "legend",
                  "p running thread posts the waiter's semaphore, r post returned, w waiter "
                  "runs, b poster blocks (join)");
    rtg_json_kint(&ev, "poster_prio", runs[0].prio);
    rtg_json_kint(&ev, "waiter_prio", higher ? runs[0].prio + 1 : runs[0].prio - 1);
    rtg_json_kstr(&ev, "policy", rtg_policy_name(runs[0].pol));
    rtg_json_key(&ev, "runs");
    rtg_json_arr_begin(&ev);
    for (int i = 0; i < n; i++) {
        ev_json(&ev, &runs[i].log);
        if (!rtg_thr_wake_ok(runs[i].log.ev, higher) && bad < 0) {
            ok = false;
            bad = i;
        }
    }
    rtg_json_arr_end(&ev);
    rtg_json_obj_end(&ev);
    char obs[160];
    if (ok)
        snprintf(obs, sizeof obs, "%d of %d runs in order (%s)", n, n, runs[0].log.ev);
    else
        snprintf(obs, sizeof obs, "run %d out of order: %s", bad, runs[bad].log.ev);
    rtg_verdict(ctx, higher ? "higher_woken_preempts_at_once" : "lower_woken_does_not_preempt",
                ok,
                higher ? "pwr: the woken higher-priority thread runs before post returns"
                       : "prbw: the woken lower-priority thread runs only once the poster blocks",
                obs, &ev);
    rtg_json_free(&ev);
}

static void low_verdict(struct rtg_ctx *ctx, struct low_run *runs, int n, enum rtg_policy pol,
                        const char *expect, struct rtg_json *positions)
{
    const char *logs[64];
    int m = n < 64 ? n : 64;
    for (int i = 0; i < m; i++)
        logs[i] = runs[i].log.ev;
    enum rtg_thr_queue_pos promised =
        strcmp(expect, "head") == 0 ? RTG_THR_POS_HEAD : RTG_THR_POS_TAIL;
    enum rtg_thr_queue_pos seen;
    bool ok = rtg_thr_lowered_ok(logs, (size_t)m, promised, &seen);
    const char *obs_pos = seen != RTG_THR_POS_UNKNOWN ? rtg_thr_pos_name(seen) : "mixed or unknown";
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "legend",
                  "l running thread lowers its own priority to that of ready thread X, "
                  "L the call returned, x X runs, b the lowered thread blocks (join)");
    rtg_json_kstr(&ev, "policy", rtg_policy_name(pol));
    rtg_json_kint(&ev, "from_prio", runs[0].prio);
    rtg_json_kint(&ev, "to_prio", runs[0].prio - 1);
    rtg_json_kstr(&ev, "observed", obs_pos);
    rtg_json_kstr(&ev, "promised", expect);
    rtg_json_key(&ev, "runs");
    rtg_json_arr_begin(&ev);
    for (int i = 0; i < n; i++)
        ev_json(&ev, &runs[i].log);
    rtg_json_arr_end(&ev);
    rtg_json_obj_end(&ev);
    char name[96], exp[160], obs[96];
    snprintf(name, sizeof name, "lowered_thread_goes_to_%s_%s", expect,
             pol == RTG_SCHED_RR ? "rr" : "fifo");
    snprintf(exp, sizeof exp, "%s: a %s thread that lowers its priority lands at the %s of the "
             "ready queue of its new priority",
             strcmp(expect, "head") == 0 ? "lLbx" : "lxL", rtg_policy_name(pol), expect);
    snprintf(obs, sizeof obs, "lands at the %s (%s)", obs_pos, runs[0].log.ev);
    rtg_verdict(ctx, name, ok, exp, obs, &ev);
    rtg_json_free(&ev);
    rtg_json_kstr(positions, rtg_policy_name(pol), obs_pos);
}

static int prio_b_run(struct rtg_ctx *ctx)
{
    enum rtg_policy pol = policy_opt(ctx);
    if (pol != RTG_SCHED_OTHER && !rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: preemption checks depend on priorities");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (levels below it)");
    int reps = (int)rtg_opt_int(ctx, "repeats");
    int prio = rtg_prio(ctx) - 2;
    struct wake_run *w = calloc(2 * (size_t)reps, sizeof *w);
    struct low_run *l = calloc(2 * (size_t)reps, sizeof *l);
    if (!w || !l) {
        free(w);
        free(l);
        return rtg_fail_error(ctx, "out of memory");
    }
    int rc = 0;
    for (int h = 0; h < 2 && !rc; h++) {
        for (int i = 0; i < reps && !rc && !rtg_stop_requested(); i++) {
            struct wake_run *r = &w[h * reps + i];
            *r = (struct wake_run){.ctx = ctx, .pol = pol, .higher = h == 0, .prio = prio};
            ev_reset(&r->log);
            rc = rtg_sem_init(&r->sem, 0);
            if (rc)
                break;
            rc = run_in(ctx, pol, prio, wake_poster, r);
            if (!rc)
                rc = r->error;
            rtg_sem_destroy(&r->sem);
        }
    }
    /* The lowered thread's queue position, under each real-time policy
     * (meaningless under SCHED_OTHER, which has no priority levels). */
    static const enum rtg_policy lpols[2] = {RTG_SCHED_FIFO, RTG_SCHED_RR};
    int nl = pol == RTG_SCHED_OTHER ? 0 : 2;
    for (int p = 0; p < nl && !rc; p++) {
        for (int i = 0; i < reps && !rc && !rtg_stop_requested(); i++) {
            struct low_run *r = &l[p * reps + i];
            *r = (struct low_run){.ctx = ctx, .pol = lpols[p], .prio = prio};
            ev_reset(&r->log);
            rc = run_in(ctx, lpols[p], prio, low_self, r);
            if (!rc)
                rc = r->error;
        }
    }
    if (rc) {
        free(w);
        free(l);
        return rtg_fail_error(ctx, "cannot run a case: %s", strerror(rc));
    }
    if (!rtg_stop_requested()) {
        wake_verdict(ctx, &w[0], reps, true);
        wake_verdict(ctx, &w[reps], reps, false);
        struct rtg_json *info = rtg_info(ctx);
        rtg_json_kstr(info, "policy", rtg_policy_name(pol));
        rtg_json_kint(info, "repeats", reps);
        if (nl) {
            struct rtg_json pos;
            rtg_json_init(&pos);
            rtg_json_obj_begin(&pos);
            const char *expect = rtg_opt_enum(ctx, "lowered_expect");
            for (int p = 0; p < nl; p++)
                low_verdict(ctx, &l[p * reps], reps, lpols[p], expect, &pos);
            rtg_json_obj_end(&pos);
            rtg_json_key(info, "lowered_position");
            rtg_json_raw_value(info, pos.buf, pos.len);
            rtg_json_free(&pos);
        } else {
            rtg_note(ctx, "policy other: the lowered-priority position is not checked "
                          "(SCHED_OTHER has no priority levels)");
        }
    }
    free(w);
    free(l);
    return 0;
}

static double prio_b_bound(const struct rtg_ctx *ctx)
{
    return 5.0 + 0.1 * (double)rtg_opt_int(ctx, "repeats");
}

static const struct rtg_option prio_b_options[] = {
    {"repeats", RTG_OPT_INT, 10, 3, 1, 64, NULL, 0,
     "runs of each case; a check passes only if every run is in order"},
    {"policy", RTG_OPT_ENUM, 0, 0, 0, 0, "fifo,rr,other", 0,
     "policy of the wake-up cases; other = negative control (no priorities)"},
    {"lowered_expect", RTG_OPT_ENUM, 0, 0, 0, 0, "head,tail", 0,
     "position promised to a thread that lowers its priority: head (Linux, sched(7); "
     "POSIX pthread_setschedprio) or tail (POSIX pthread_setschedparam)"},
};

const struct rtg_test_desc rtg_test_thr_b_prio = {
    .id = "THR-B-PRIO",
    .source = __FILE__,
    .title = "Strict priority preemption; queue position of a lowered thread",
    .kind = 'B',
    .options = RTG_OPTIONS(prio_b_options),
    .run = prio_b_run,
    .bound_s = prio_b_bound,
};

/* ---------------- THR-B-RR ---------------- */

#define RR_SEGS 4096

struct rr_state;

struct rr_thread {
    struct rr_state *st;
    int id;
    size_t n;
    struct rtg_thr_slice seg[RR_SEGS]; /* ticks until converted */
};

struct rr_state {
    atomic_ullong begin; /* ticks; 0 until the window opens */
    uint64_t end;        /* ticks */
    uint64_t gap;        /* ticks: a longer pause between two reads ends a segment */
    struct rr_thread th[RTG_THR_RR_MAX];
};

static void seg_push(struct rr_thread *t, uint64_t a, uint64_t b)
{
    if (t->n < RR_SEGS) {
        t->seg[t->n++] = (struct rtg_thr_slice){t->id, a, b, 0};
    } else {
        t->seg[RR_SEGS - 1].end_ns = b; /* full: extend the last one */
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
        struct rtg_thread_attr a = attr_at(c->ctx, c->pol, c->prio - 1);
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
    enum rtg_policy pol = policy_opt(ctx);
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
    int rc = run_in(ctx, RTG_SCHED_RR, prio - 1, rr_interval_probe, &declared);
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
    struct rr_state *st = calloc(1, sizeof *st);
    if (!st)
        return rtg_fail_error(ctx, "out of memory");
    st->gap = (uint64_t)(20000.0 / rtg_clock_g.ns_per_tick); /* 20 us */
    for (int i = 0; i < n; i++)
        st->th[i] = (struct rr_thread){.st = st, .id = i};
    atomic_init(&st->begin, 0);
    struct rr_ctl c = {.ctx = ctx, .st = st, .pol = pol, .n = n, .prio = prio, .window_ns = window};
    /* The controller stays SCHED_FIFO above the workers, so it closes the
     * window on time whatever their policy. */
    rc = run_in(ctx, RTG_SCHED_FIFO, prio, rr_controller, &c);
    if (rc || c.error) {
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
    rtg_verdict(ctx, "share_per_thread_within_tolerance", rtg_thr_rr_fair(&sum, tol), exp, obs,
                &ev);
    snprintf(exp, sizeof exp, "median full slice within %.0f%% of sched_rr_get_interval (%llu ns)",
             stol, (unsigned long long)declared);
    snprintf(obs, sizeof obs, "median full slice %llu ns over %zu slices (min %llu, max %llu)",
             (unsigned long long)sum.median_slice_ns, sum.n_full,
             (unsigned long long)sum.min_slice_ns, (unsigned long long)sum.max_slice_ns);
    rtg_verdict(ctx, "slice_matches_rr_interval", rtg_thr_rr_slice_ok(&sum, declared, stol), exp,
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
    .title = "Round-robin fairness and time slice",
    .kind = 'B',
    .options = RTG_OPTIONS(rr_b_options),
    .run = rr_b_run,
    .bound_s = rr_b_bound,
};
