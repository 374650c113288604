/* MUT-P-ARN: lock / unlock of a free mutex, for each protocol the OSAL
 * offers (default, inherit, protect). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"

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
        rtg_metric_explain_call(ctx, lk);
        rtg_metric_explain_call(ctx, ul);
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
            rtg_metric_ticks(lk, a, b, rtg_clock_delta_ns(a, b), at);
            rtg_metric_ticks(ul, b, c, rtg_clock_delta_ns(b, c), at);
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
    .recorded = true, /* its calls' worst samples are explained */
    .title = "Mutex lock / unlock without contention (default, inherit, protect)",
    .kind = 'P',
    .options = RTG_OPTIONS(arn_options),
    .run = arn_run,
    .bound_s = arn_bound,
};
