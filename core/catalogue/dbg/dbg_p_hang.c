/* DBG-P-HANG, a test-only hook: a test that never ends by itself, so the
 * suite can prove the watchdog. Compiled into rtgauge-probe-hooks only
 * (RTG_TEST_HOOKS=1), never into the probe. */
#include "rtg/osal.h"
#include "rtg/test.h"
#if RTG_TEST_HOOKS
#include <signal.h>
#include <string.h>

static int hang(struct rtg_ctx *ctx)
{
    const char *mode = rtg_opt_enum(ctx, "mode");
    volatile unsigned long spins = 0;
    if (strcmp(mode, "spin") == 0) {
        while (!rtg_stop_requested()) /* busy at SCHED_FIFO */
            spins++;
    } else if (strcmp(mode, "deaf") == 0) {
        signal(SIGUSR1, SIG_IGN); /* ignores the watchdog's stop request */
        signal(SIGTERM, SIG_IGN);
        for (;;)
            rtg_sleep_ns(100000000u);
    } else {
        while (!rtg_stop_requested())
            rtg_sleep_ns(10000000u);
    }
    struct rtg_metric *m = rtg_metric_new(ctx, "debug.hang.partial");
    if (m)
        rtg_metric_add(m, 1, 0);
    return 0;
}

static double hang_bound(const struct rtg_ctx *ctx)
{
    return rtg_opt_float(ctx, "bound_s");
}

static const struct rtg_option hang_options[] = {
    {"mode", RTG_OPT_ENUM, 0, 0, 0, 0, "block,spin,deaf", 0,
     "block: sleeps; spin: busy loop; deaf: ignores the stop request"},
    {"bound_s", RTG_OPT_FLOAT, 1, 0, 0.1, 60, NULL, 0, "watchdog bound"},
};

const struct rtg_test_desc rtg_test_dbg_p_hang = {
    .id = "DBG-P-HANG",
    .source = __FILE__,
    .title = "Test hook: never ends by itself",
    .kind = 'P',
    .options = RTG_OPTIONS(hang_options),
    .run = hang,
    .bound_s = hang_bound,
};
#endif
