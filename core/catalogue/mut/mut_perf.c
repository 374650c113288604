/* MUT-P-ARN (lock / unlock of a free mutex), MUT-P-ARC (contended
 * acquisition and release with inheritance) and MUT-P-PIR (how long H
 * waits while L finishes a fixed critical section).
 *
 * MUT-P-ARC and MUT-P-PIR run the MUT-B-ARC set-up in a loop with three
 * persistent threads on one CPU, L < M < H (SCHED_FIFO):
 *   L locks, wakes M; M wakes H; H asks for the mutex and blocks.
 *   With inheritance L (boosted above M) runs next, finishes its critical
 *   section and unlocks; H runs, unlocks, blocks for the next round; M
 *   then runs its short bounded busy phase and blocks; L loops.
 *   Without (protocol=none) M's busy phase passes before L can go on. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"

#define NS_PER_MS 1000000ull
#define NS_PER_US 1000ull

/* ---------------- MUT-P-ARN ---------------- */

static int arn_run(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "ran SCHED_OTHER: figures are not real-time figures");
    int64_t loops = rtg_opt_int(ctx, "loops");
    static const struct {
        enum rtg_mutex_protocol p;
        const char *cond;
    } kinds[] = {{RTG_PROTO_NONE, "default"}, {RTG_PROTO_INHERIT, "inherit"},
                 {RTG_PROTO_PROTECT, "protect"}};
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_key(info, "offered");
    rtg_json_obj_begin(info);
    int err = 0;
    const char *err_kind = NULL;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        rtg_mutex_t m;
        /* ceiling: --prio, so the locking thread is never above it */
        int rc = rtg_mutex_init(&m, kinds[k].p, rtg_prio(ctx));
        if (!rc) { /* one trial: a ceiling may be refused only when locking */
            int t = rtg_mutex_lock(&m);
            if (t) {
                rtg_mutex_destroy(&m);
                rc = t;
            } else {
                rtg_mutex_unlock(&m);
            }
        }
        rtg_json_kbool(info, kinds[k].cond, rc == 0);
        if (rc == ENOTSUP || rc == ENOSYS)
            continue;
        if (rc && !rtg_rt_ok(ctx) && kinds[k].p != RTG_PROTO_NONE) {
            /* e.g. raising to the ceiling needs the privileges this run lacks */
            rtg_note(ctx, "%s mutex refused without real-time privileges: %s", kinds[k].cond,
                     strerror(rc));
            continue;
        }
        if (rc) {
            err = rc;
            err_kind = kinds[k].cond;
            break;
        }
        struct rtg_metric *lk = rtg_metric_new(ctx, "mutex.lock.uncontended_%s", kinds[k].cond);
        struct rtg_metric *ul = rtg_metric_new(ctx, "mutex.unlock.uncontended_%s", kinds[k].cond);
        if (!lk || !ul) {
            rtg_mutex_destroy(&m);
            err = ENOMEM;
            err_kind = kinds[k].cond;
            break;
        }
        for (int64_t i = 0; i < loops && !rtg_stop_requested(); i++) {
            uint64_t a = rtg_clock_ticks();
            int r1 = rtg_mutex_lock(&m);
            uint64_t b = rtg_clock_ticks();
            int r2 = r1 ? 0 : rtg_mutex_unlock(&m);
            uint64_t c = rtg_clock_ticks();
            if (r1 || r2) {
                err = r1 ? r1 : r2;
                err_kind = kinds[k].cond;
                break;
            }
            uint64_t at = rtg_test_elapsed_ns(ctx);
            rtg_metric_add(lk, rtg_clock_delta_ns(a, b), at);
            rtg_metric_add(ul, rtg_clock_delta_ns(b, c), at);
        }
        rtg_mutex_destroy(&m);
        if (err)
            break;
    }
    rtg_json_obj_end(info);
    if (err)
        return rtg_fail_error(ctx, "%s mutex: %s", err_kind, strerror(err));
    return 0;
}

static double arn_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 3e-6;
}

static const struct rtg_option arn_options[] = {
    {"loops", RTG_OPT_INT, 200000, 20000, 10, 100000000, NULL, RTG_OPT_SCALED,
     "lock/unlock pairs per mutex kind"},
};

const struct rtg_test_desc rtg_test_mut_p_arn = {
    .id = "MUT-P-ARN",
    .source = __FILE__,
    .title = "Mutex lock / unlock without contention (default, inherit, protect)",
    .kind = 'P',
    .options = RTG_OPTIONS(arn_options),
    .run = arn_run,
    .bound_s = arn_bound,
};

/* ---------------- the L/M/H loop of MUT-P-ARC and MUT-P-PIR ---------------- */

struct lmh {
    struct rtg_ctx *ctx;
    rtg_mutex_t m;
    rtg_sem_t wake_m, wake_h;
    int64_t loops;
    uint64_t cs_ticks_ns, m_busy_ns;
    atomic_bool quit;
    atomic_bool h_asked;
    uint64_t t_req, t_h_acq; /* ticks, written by H */
    struct rtg_metric *acq, *rel, *wait;
    int64_t skipped; /* rounds where H had not asked when L resumed */
    int timeouts;
    int error;
};

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
        x->t_req = rtg_clock_ticks();
        atomic_store(&x->h_asked, true);
        rc = rtg_mutex_lock(&x->m);
        x->t_h_acq = rtg_clock_ticks();
        if (rc) {
            x->error = rc;
            break;
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
        /* the rest of a fixed critical section (MUT-P-PIR) */
        while (rtg_clock_delta_ns(t_lock, rtg_clock_ticks()) < x->cs_ticks_ns)
            ;
        uint64_t t_unlock = rtg_clock_ticks();
        rtg_mutex_unlock(&x->m); /* H preempts L here */
        if (!asked) {
            x->skipped++;
            continue;
        }
        uint64_t at = rtg_test_elapsed_ns(x->ctx);
        if (x->acq)
            rtg_metric_add(x->acq, rtg_clock_delta_ns(x->t_req, t_l_runs), at);
        if (x->rel)
            rtg_metric_add(x->rel, rtg_clock_delta_ns(t_unlock, x->t_h_acq), at);
        if (x->wait)
            rtg_metric_add(x->wait, rtg_clock_delta_ns(x->t_req, x->t_h_acq), at);
    }
    atomic_store(&x->quit, true);
    rtg_sem_post(&x->wake_m);
    rtg_sem_post(&x->wake_h);
    return NULL;
}

static int lmh_run(struct rtg_ctx *ctx, struct lmh *x, enum rtg_mutex_protocol proto)
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
                                    .cpu = rtg_cpu_at(ctx, 0), .stack_size = 64 * 1024};
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

static enum rtg_mutex_protocol proto_opt(const struct rtg_ctx *ctx)
{
    return strcmp(rtg_opt_enum(ctx, "protocol"), "none") == 0 ? RTG_PROTO_NONE
                                                               : RTG_PROTO_INHERIT;
}

static int lmh_check(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the L/M/H set-up needs priorities");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (L, M and H below it)");
    return 0;
}

/* ---------------- MUT-P-ARC ---------------- */

static int arc_run(struct rtg_ctx *ctx)
{
    if (lmh_check(ctx))
        return -1;
    enum rtg_mutex_protocol p = proto_opt(ctx);
    const char *c = p == RTG_PROTO_NONE ? "none" : "inherit";
    struct lmh x = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops"),
                    .m_busy_ns = (uint64_t)rtg_opt_int(ctx, "m_busy_us") * NS_PER_US};
    x.acq = rtg_metric_new(ctx, "mutex.acquire.contended_%s", c);
    x.rel = rtg_metric_new(ctx, "mutex.release.contended_%s", c);
    if (!x.acq || !x.rel)
        return rtg_fail_error(ctx, "out of memory");
    return lmh_run(ctx, &x, p);
}

static double lmh_bound(const struct rtg_ctx *ctx)
{
    double per = 50e-6 + (double)rtg_opt_int(ctx, "m_busy_us") * 1e-6;
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * per * 3.0;
}

static const struct rtg_option arc_options[] = {
    {"loops", RTG_OPT_INT, 20000, 2000, 10, 10000000, NULL, RTG_OPT_SCALED, "rounds"},
    {"protocol", RTG_OPT_ENUM, 0, 0, 0, 0, "inherit,none", 0,
     "inherit; none: L is not boosted (M's busy phase comes first)"},
    {"m_busy_us", RTG_OPT_INT, 20, 0, 0, 10000, NULL, 0, "M's busy phase per round"},
};

const struct rtg_test_desc rtg_test_mut_p_arc = {
    .id = "MUT-P-ARC",
    .source = __FILE__,
    .title = "Mutex acquire / release with contention (priority inheritance)",
    .kind = 'P',
    .options = RTG_OPTIONS(arc_options),
    .run = arc_run,
    .bound_s = lmh_bound,
};

/* ---------------- MUT-P-PIR ---------------- */

static int pir_run(struct rtg_ctx *ctx)
{
    if (lmh_check(ctx))
        return -1;
    enum rtg_mutex_protocol p = proto_opt(ctx);
    int64_t cs_us = rtg_opt_int(ctx, "cs_us");
    struct lmh x = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops"),
                    .cs_ticks_ns = (uint64_t)cs_us * NS_PER_US,
                    .m_busy_ns = (uint64_t)rtg_opt_int(ctx, "m_busy_us") * NS_PER_US};
    x.wait = rtg_metric_new(ctx, "mutex.lock_wait.%s", p == RTG_PROTO_NONE ? "none" : "inherit");
    if (!x.wait)
        return rtg_fail_error(ctx, "out of memory");
    rtg_json_obj_begin(&x.wait->params);
    rtg_json_kint(&x.wait->params, "cs_us", cs_us);
    rtg_json_kint(&x.wait->params, "m_busy_us", rtg_opt_int(ctx, "m_busy_us"));
    rtg_json_obj_end(&x.wait->params);
    return lmh_run(ctx, &x, p);
}

static const struct rtg_option pir_options[] = {
    {"loops", RTG_OPT_INT, 5000, 500, 10, 10000000, NULL, RTG_OPT_SCALED, "rounds"},
    {"cs_us", RTG_OPT_INT, 50, 0, 0, 10000, NULL, 0,
     "L's critical section, from its lock to its unlock"},
    {"protocol", RTG_OPT_ENUM, 0, 0, 0, 0, "inherit,none", 0,
     "inherit; none: H also waits for M's busy phase (the inversion)"},
    {"m_busy_us", RTG_OPT_INT, 100, 0, 0, 10000, NULL, 0, "M's busy phase per round"},
};

static double pir_bound(const struct rtg_ctx *ctx)
{
    double per = 50e-6 + (double)(rtg_opt_int(ctx, "m_busy_us") + rtg_opt_int(ctx, "cs_us")) * 1e-6;
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * per * 3.0;
}

const struct rtg_test_desc rtg_test_mut_p_pir = {
    .id = "MUT-P-PIR",
    .source = __FILE__,
    .title = "Priority inversion resolution time (H's wait for L's critical section)",
    .kind = 'P',
    .options = RTG_OPTIONS(pir_options),
    .run = pir_run,
    .bound_s = pir_bound,
};
