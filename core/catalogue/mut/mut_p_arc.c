/* MUT-P-ARC: contended mutex acquisition and release with priority
 * inheritance, measured in the L/M/H loop (mut_lmh.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"

#include "mut_lmh.h"

static int arc_run(struct rtg_ctx *ctx)
{
    if (rtg_mut_lmh_check(ctx))
        return -1;
    enum rtg_mutex_protocol p = rtg_mut_proto_opt(ctx);
    const char *c = p == RTG_PROTO_NONE ? "none" : "inherit";
    struct lmh x = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops"),
                    .m_busy_ns = (uint64_t)rtg_opt_int(ctx, "m_busy_us") * NS_PER_US};
    x.acq = rtg_metric_new(ctx, "mutex.acquire.contended_%s", c);
    x.rel = rtg_metric_new(ctx, "mutex.release.contended_%s", c);
    if (!x.acq || !x.rel)
        return rtg_fail_error(ctx, "out of memory");
    /* wake-ups, each recorded at once by the thread that ran: L after H's
     * request (acquire), H after L's unlock (release) */
    rtg_metric_explain(ctx, x.acq);
    rtg_metric_explain(ctx, x.rel);
    return rtg_mut_lmh_run(ctx, &x, p);
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
    .recorded = true, /* both hand-overs' worst samples are explained */
    .title = "Mutex acquire / release with contention (priority inheritance)",
    .kind = 'P',
    .options = RTG_OPTIONS(arc_options),
    .run = arc_run,
    .bound_s = lmh_bound,
};
