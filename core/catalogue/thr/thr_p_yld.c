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

static double yld_bound(const struct rtg_ctx *ctx)
{
    return 5.0 + (double)rtg_opt_int(ctx, "loops") * 1e-5;
}

static int yld_run(struct rtg_ctx *ctx)
{
    rtg_thr_note_no_rt(ctx);
    struct rtg_metric *m = rtg_metric_new(ctx, "thread.yield.alone");
    if (!m)
        return rtg_fail_error(ctx, "out of memory");
    rtg_metric_explain_call(ctx, m);
    int64_t loops = rtg_opt_int(ctx, "loops");
    /* Bounded in time too, at half the watchdog's bound: where another task
     * is ready on the CPU (SCHED_OTHER on a busy machine, or one at the same
     * FIFO level) each yield hands it the CPU for a slice. */
    uint64_t until = rtg_mono_ns() + (uint64_t)(yld_bound(ctx) / 2 * 1e9);
    int64_t done = 0;
    bool cut = false;
    for (; done < loops && !rtg_stop_requested(); done++) {
        if (done % 64 == 0 && rtg_mono_ns() >= until) {
            cut = true;
            break;
        }
        uint64_t a = rtg_clock_ticks();
        rtg_thread_yield();
        uint64_t b = rtg_clock_ticks();
        rtg_metric_ticks(m, a, b, rtg_clock_delta_ns(a, b), rtg_test_elapsed_ns(ctx));
    }
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "prio", rtg_rt_ok(ctx) ? rtg_prio(ctx) : 0);
    rtg_json_kint(info, "cpu", rtg_cpu_at(ctx, 0));
    rtg_json_kint(info, "yields", done);
    if (cut) {
        m->condition_unmet = "other tasks were ready on the CPU: yields handed it to them";
        rtg_note(ctx, "stopped at its time bound after %lld of %lld yields: other tasks were "
                      "ready on the CPU, so thread.yield.alone is not a lone yield and is not rated",
                 (long long)done, (long long)loops);
    }
    return 0;
}

static const struct rtg_option yld_options[] = {
    {"loops", RTG_OPT_INT, 200000, 20000, 10, 100000000, NULL, RTG_OPT_SCALED,
     "yields of the lone thread"},
};

const struct rtg_test_desc rtg_test_thr_p_yld = {
    .id = "THR-P-YLD",
    .source = __FILE__,
    .recorded = true, /* its calls' worst samples are explained */
    .title = "Yield with nothing else ready",
    .kind = 'P',
    .options = RTG_OPTIONS(yld_options),
    .run = yld_run,
    .bound_s = yld_bound,
};
