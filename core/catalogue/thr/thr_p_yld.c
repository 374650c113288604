/* THR-P-YLD: yield with no other thread ready. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/load.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "thr_perf.h"

static int yld_run(struct rtg_ctx *ctx)
{
    rtg_thr_note_no_rt(ctx);
    struct rtg_metric *m = rtg_metric_new(ctx, "thread.yield.alone");
    if (!m)
        return rtg_fail_error(ctx, "out of memory");
    int64_t loops = rtg_opt_int(ctx, "loops");
    for (int64_t i = 0; i < loops && !rtg_stop_requested(); i++) {
        uint64_t a = rtg_clock_ticks();
        rtg_thread_yield();
        uint64_t b = rtg_clock_ticks();
        rtg_metric_add(m, rtg_clock_delta_ns(a, b), rtg_test_elapsed_ns(ctx));
    }
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "prio", rtg_rt_ok(ctx) ? rtg_prio(ctx) : 0);
    rtg_json_kint(info, "cpu", rtg_cpu_at(ctx, 0));
    return 0;
}

static double yld_bound(const struct rtg_ctx *ctx)
{
    return 5.0 + (double)rtg_opt_int(ctx, "loops") * 1e-5;
}

static const struct rtg_option yld_options[] = {
    {"loops", RTG_OPT_INT, 200000, 20000, 10, 100000000, NULL, RTG_OPT_SCALED,
     "yields of the lone thread"},
};

const struct rtg_test_desc rtg_test_thr_p_yld = {
    .id = "THR-P-YLD",
    .source = __FILE__,
    .title = "Yield with nothing else ready",
    .kind = 'P',
    .options = RTG_OPTIONS(yld_options),
    .run = yld_run,
    .bound_s = yld_bound,
};
