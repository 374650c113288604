/* DBG-P-CRASH, a test-only hook: a test that crashes, so the suite can
 * prove the crash isolation. Compiled into rtgauge-probe-hooks only
 * (RTG_TEST_HOOKS=1), never into the probe. */
#include "rtg/test.h"
#if RTG_TEST_HOOKS

static int crash(struct rtg_ctx *ctx)
{
    (void)ctx;
    volatile int *volatile p = NULL;
    return *p;
}

const struct rtg_test_desc rtg_test_dbg_p_crash = {
    .id = "DBG-P-CRASH",
    .source = __FILE__,
    .title = "Test hook: dereferences NULL",
    .kind = 'P',
    .options = RTG_NO_OPTIONS,
    .run = crash,
};
#endif
