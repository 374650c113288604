/* SEM-P-NEW (create / delete), SEM-P-ARN (acquire / release without
 * contention), SEM-P-PNG (ping-pong hand-over between two threads). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_named.h"
#include "rtg/test.h"

#define NS_PER_MS 1000000ull

static void note_no_rt(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "threads ran SCHED_OTHER: figures are not real-time figures");
}

/* ---------------- SEM-P-NEW ---------------- */

struct new_metrics {
    struct rtg_metric *create, *del;
};

static int new_metrics(struct rtg_ctx *ctx, struct new_metrics *m, const char *cond)
{
    m->create = rtg_metric_new(ctx, "sem.create.%s", cond);
    m->del = rtg_metric_new(ctx, "sem.delete.%s", cond);
    return m->create && m->del ? 0 : ENOMEM;
}

static void use_once(rtg_sem_t *s)
{
    rtg_sem_post(s);
    rtg_sem_trywait(s);
}

static int new_unnamed(struct rtg_ctx *ctx, struct new_metrics *m, int64_t loops, bool used)
{
    rtg_sem_t s;
    for (int64_t i = 0; i < loops && !rtg_stop_requested(); i++) {
        uint64_t a = rtg_clock_ticks();
        int rc = rtg_sem_init(&s, 0);
        uint64_t b = rtg_clock_ticks();
        if (rc)
            return rc;
        if (used)
            use_once(&s);
        uint64_t c = rtg_clock_ticks();
        rc = rtg_sem_destroy(&s);
        uint64_t d = rtg_clock_ticks();
        if (rc)
            return rc;
        uint64_t at = rtg_test_elapsed_ns(ctx);
        rtg_metric_add(m->create, rtg_clock_delta_ns(a, b), at);
        rtg_metric_add(m->del, rtg_clock_delta_ns(c, d), at);
    }
    return 0;
}

static int new_named(struct rtg_ctx *ctx, struct new_metrics *m, int64_t loops, bool used)
{
    char name[RTG_NAMED_SEM_NAME_MAX];
    rtg_sem_t *s;
    for (int64_t i = 0; i < loops && !rtg_stop_requested(); i++) {
        int rc = rtg_named_sem_name(name, sizeof name, used ? "u" : "n");
        if (rc)
            return rc;
        uint64_t a = rtg_clock_ticks();
        rc = rtg_named_sem_create(&s, name, 0);
        uint64_t b = rtg_clock_ticks();
        if (rc)
            return rc;
        if (used)
            use_once(s);
        /* Delete = close + unlink: the name lives only between the two. */
        uint64_t c = rtg_clock_ticks();
        int rc1 = rtg_named_sem_close(s);
        int rc2 = rtg_named_sem_unlink(name);
        uint64_t d = rtg_clock_ticks();
        if (rc1 || rc2)
            return rc1 ? rc1 : rc2;
        uint64_t at = rtg_test_elapsed_ns(ctx);
        rtg_metric_add(m->create, rtg_clock_delta_ns(a, b), at);
        rtg_metric_add(m->del, rtg_clock_delta_ns(c, d), at);
    }
    return 0;
}

static int new_run(struct rtg_ctx *ctx)
{
    note_no_rt(ctx);
    int64_t loops = rtg_opt_int(ctx, "loops");
    int64_t nloops = rtg_opt_int(ctx, "named_loops");
    struct new_metrics m[4];
    static const char *const conds[4] = {"unnamed_unused", "unnamed_used", "named_unused",
                                         "named_used"};
    for (int i = 0; i < 4; i++)
        if (new_metrics(ctx, &m[i], conds[i]))
            return rtg_fail_error(ctx, "out of memory");
    int stale = 0;
    rtg_named_sem_sweep(&stale); /* names a killed earlier run left behind */
    int rc = new_unnamed(ctx, &m[0], loops, false);
    if (!rc)
        rc = new_unnamed(ctx, &m[1], loops, true);
    if (rc)
        return rtg_fail_error(ctx, "unnamed semaphore: %s", strerror(rc));
    rc = new_named(ctx, &m[2], nloops, false);
    if (!rc)
        rc = new_named(ctx, &m[3], nloops, true);
    int left = 0;
    rtg_named_sem_sweep(&left); /* on every path, before reporting */
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "stale_names_removed_at_start", stale);
    rtg_json_kint(info, "names_left_removed_at_end", left);
    rtg_json_kstr(info, "used", "one V and one trywait between creation and deletion");
    if (rc == ENOSYS || rc == ENOTSUP || rc == EACCES || rc == ENOENT) {
        rtg_note(ctx, "named semaphores unavailable (%s): named figures empty", strerror(rc));
        return 0;
    }
    if (rc)
        return rtg_fail_error(ctx, "named semaphore: %s", strerror(rc));
    return 0;
}

static double new_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 2e-6 +
           (double)rtg_opt_int(ctx, "named_loops") * 2e-4;
}

static const struct rtg_option new_options[] = {
    {"loops", RTG_OPT_INT, 20000, 2000, 10, 10000000, NULL, RTG_OPT_SCALED,
     "create/delete pairs per unnamed case"},
    {"named_loops", RTG_OPT_INT, 5000, 500, 10, 1000000, NULL, RTG_OPT_SCALED,
     "create/delete pairs per named case"},
};

const struct rtg_test_desc rtg_test_sem_p_new = {
    .id = "SEM-P-NEW",
    .source = __FILE__,
    .title = "Semaphore create and delete (unnamed and named)",
    .kind = 'P',
    .options = RTG_OPTIONS(new_options),
    .run = new_run,
    .bound_s = new_bound,
};

/* ---------------- SEM-P-ARN ---------------- */

static int arn_run(struct rtg_ctx *ctx)
{
    note_no_rt(ctx);
    int64_t loops = rtg_opt_int(ctx, "loops");
    struct rtg_metric *acq = rtg_metric_new(ctx, "sem.acquire.uncontended");
    struct rtg_metric *rel = rtg_metric_new(ctx, "sem.release.uncontended");
    if (!acq || !rel)
        return rtg_fail_error(ctx, "out of memory");
    rtg_sem_t s;
    int rc = rtg_sem_init(&s, 1);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    for (int64_t i = 0; i < loops && !rtg_stop_requested(); i++) {
        uint64_t a = rtg_clock_ticks();
        int r1 = rtg_sem_wait(&s);
        uint64_t b = rtg_clock_ticks();
        int r2 = rtg_sem_post(&s);
        uint64_t c = rtg_clock_ticks();
        if (r1 || r2) {
            rc = r1 ? r1 : r2;
            break;
        }
        uint64_t at = rtg_test_elapsed_ns(ctx);
        rtg_metric_add(acq, rtg_clock_delta_ns(a, b), at);
        rtg_metric_add(rel, rtg_clock_delta_ns(b, c), at);
    }
    rtg_sem_destroy(&s);
    if (rc)
        return rtg_fail_error(ctx, "sem_wait/sem_post: %s", strerror(rc));
    return 0;
}

static double arn_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 1e-6;
}

static const struct rtg_option arn_options[] = {
    {"loops", RTG_OPT_INT, 200000, 20000, 10, 100000000, NULL, RTG_OPT_SCALED,
     "P/V pairs on a free semaphore"},
};

const struct rtg_test_desc rtg_test_sem_p_arn = {
    .id = "SEM-P-ARN",
    .source = __FILE__,
    .title = "Semaphore acquire / release without contention",
    .kind = 'P',
    .options = RTG_OPTIONS(arn_options),
    .run = arn_run,
    .bound_s = arn_bound,
};

/* ---------------- SEM-P-PNG ---------------- */

struct png {
    struct rtg_ctx *ctx;
    rtg_sem_t to_b, to_a;
    int64_t loops;
    uint64_t t_post_a; /* A's stamp before V(to_b) */
    uint64_t t_post_b; /* B's stamp before V(to_a) */
    struct rtg_metric *ab, *ba, *all;
    atomic_bool stop;
    int timeouts;
};

static void *png_b(void *arg)
{
    struct png *p = arg;
    for (;;) {
        int rc = rtg_sem_wait_until(&p->to_b, rtg_mono_ns() + 1000 * NS_PER_MS);
        uint64_t now = rtg_clock_ticks();
        if (atomic_load(&p->stop))
            break;
        if (rc) {
            p->timeouts++;
            break;
        }
        uint64_t at = rtg_test_elapsed_ns(p->ctx);
        uint64_t d = rtg_clock_delta_ns(p->t_post_a, now);
        rtg_metric_add(p->ab, d, at);
        rtg_metric_add(p->all, d, at);
        p->t_post_b = rtg_clock_ticks();
        rtg_sem_post(&p->to_a);
    }
    return NULL;
}

static void png_a(struct png *p)
{
    for (int64_t i = 0; i < p->loops && !rtg_stop_requested(); i++) {
        p->t_post_a = rtg_clock_ticks();
        rtg_sem_post(&p->to_b);
        int rc = rtg_sem_wait_until(&p->to_a, rtg_mono_ns() + 1000 * NS_PER_MS);
        uint64_t now = rtg_clock_ticks();
        if (rc) {
            p->timeouts++;
            break;
        }
        uint64_t at = rtg_test_elapsed_ns(p->ctx);
        uint64_t d = rtg_clock_delta_ns(p->t_post_b, now);
        rtg_metric_add(p->ba, d, at);
        rtg_metric_add(p->all, d, at);
    }
    atomic_store(&p->stop, true);
    rtg_sem_post(&p->to_b);
}

static void *png_a_thread(void *arg)
{
    png_a(arg);
    return NULL;
}

static int png_run(struct rtg_ctx *ctx)
{
    note_no_rt(ctx);
    struct png p = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops")};
    atomic_init(&p.stop, false);
    p.ab = rtg_metric_new(ctx, "sem.handover.a_to_b");
    p.ba = rtg_metric_new(ctx, "sem.handover.b_to_a");
    p.all = rtg_metric_new(ctx, "sem.handover.pingpong");
    if (!p.ab || !p.ba || !p.all)
        return rtg_fail_error(ctx, "out of memory");
    int rc = rtg_sem_init(&p.to_b, 0);
    if (!rc)
        rc = rtg_sem_init(&p.to_a, 0);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    /* Both threads at one priority below --prio, pinned to one CPU. */
    int prio = rtg_prio(ctx) - 1 > 0 ? rtg_prio(ctx) - 1 : 1;
    struct rtg_thread_attr at = {.policy = rtg_rt_ok(ctx) ? RTG_SCHED_FIFO : RTG_SCHED_OTHER,
                                 .prio = prio, .cpu = rtg_cpu_at(ctx, 0),
                                 .stack_size = 64 * 1024};
    rtg_thread_t tb, ta;
    rc = rtg_thread_create(&tb, &at, png_b, &p);
    if (rc)
        return rtg_fail_error(ctx, "cannot create thread B: %s", strerror(rc));
    rc = rtg_thread_create(&ta, &at, png_a_thread, &p);
    if (rc) {
        atomic_store(&p.stop, true);
        rtg_sem_post(&p.to_b);
        rtg_thread_join(tb, NULL);
        return rtg_fail_error(ctx, "cannot create thread A: %s", strerror(rc));
    }
    rtg_thread_join(ta, NULL);
    rtg_thread_join(tb, NULL);
    rtg_sem_destroy(&p.to_a);
    rtg_sem_destroy(&p.to_b);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "thread_prio", prio);
    rtg_json_kint(info, "timeouts", p.timeouts);
    if (p.timeouts)
        return rtg_fail_error(ctx, "a hand-over did not arrive within 1 s");
    return 0;
}

static double png_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 2e-5;
}

static const struct rtg_option png_options[] = {
    {"loops", RTG_OPT_INT, 50000, 5000, 10, 10000000, NULL, RTG_OPT_SCALED,
     "round trips (two hand-overs each)"},
};

const struct rtg_test_desc rtg_test_sem_p_png = {
    .id = "SEM-P-PNG",
    .source = __FILE__,
    .title = "Semaphore ping-pong hand-over between two threads",
    .kind = 'P',
    .options = RTG_OPTIONS(png_options),
    .run = png_run,
    .bound_s = png_bound,
};
