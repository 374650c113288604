/* MUT-P-PIR: how long H waits while L finishes a fixed critical section
 * (priority inversion resolution), in the L/M/H loop (mut_lmh.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"

#include "mut_lmh.h"

static int pir_run(struct rtg_ctx *ctx)
{
    if (rtg_mut_lmh_check(ctx))
        return -1;
    enum rtg_mutex_protocol p = rtg_mut_proto_opt(ctx);
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
    /* H's lock call, from its request to its return, recorded by H at once */
    rtg_metric_explain_call(ctx, x.wait);
    return rtg_mut_lmh_run(ctx, &x, p);
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
    .recorded = true, /* H's waits' worst samples are explained */
    .title = "Priority inversion resolution time (H's wait for L's critical section)",
    .kind = 'P',
    .options = RTG_OPTIONS(pir_options),
    .run = pir_run,
    .bound_s = pir_bound,
};
