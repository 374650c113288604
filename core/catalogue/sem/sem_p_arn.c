/* SEM-P-ARN: acquire / release of a semaphore without contention. */
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

static int arn_run(struct rtg_ctx *ctx)
{
    rtg_sem_note_no_rt(ctx);
    int64_t loops = rtg_opt_int(ctx, "loops");
    struct rtg_metric *acq = rtg_metric_new(ctx, "sem.acquire.uncontended");
    struct rtg_metric *rel = rtg_metric_new(ctx, "sem.release.uncontended");
    if (!acq || !rel)
        return rtg_fail_error(ctx, "out of memory");
    rtg_metric_explain_call(ctx, acq);
    rtg_metric_explain_call(ctx, rel);
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
        rtg_metric_ticks(acq, a, b, rtg_clock_delta_ns(a, b), at);
        rtg_metric_ticks(rel, b, c, rtg_clock_delta_ns(b, c), at);
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
    .recorded = true, /* its calls' worst samples are explained */
    .title = "Semaphore acquire / release without contention",
    .kind = 'P',
    .options = RTG_OPTIONS(arn_options),
    .run = arn_run,
    .bound_s = arn_bound,
};
