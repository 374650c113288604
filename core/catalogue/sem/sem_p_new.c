/* SEM-P-NEW: semaphore create / delete (unnamed and named, used or not). */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_named.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "sem_perf.h"

struct new_metrics {
    struct rtg_metric *create, *del;
};

static int new_metrics(struct rtg_ctx *ctx, struct new_metrics *m, const char *cond)
{
    m->create = rtg_metric_new(ctx, "sem.create.%s", cond);
    m->del = rtg_metric_new(ctx, "sem.delete.%s", cond);
    rtg_metric_explain_call(ctx, m->create);
    rtg_metric_explain_call(ctx, m->del);
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
        rtg_metric_ticks(m->create, a, b, rtg_clock_delta_ns(a, b), at);
        rtg_metric_ticks(m->del, c, d, rtg_clock_delta_ns(c, d), at);
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
        rtg_metric_ticks(m->create, a, b, rtg_clock_delta_ns(a, b), at);
        rtg_metric_ticks(m->del, c, d, rtg_clock_delta_ns(c, d), at);
    }
    return 0;
}

static int new_run(struct rtg_ctx *ctx)
{
    rtg_sem_note_no_rt(ctx);
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
    .recorded = true, /* its calls' worst samples are explained */
    .title = "Semaphore create and delete (unnamed and named)",
    .kind = 'P',
    .options = RTG_OPTIONS(new_options),
    .run = new_run,
    .bound_s = new_bound,
};
