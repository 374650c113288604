#ifndef RTG_FR_FW_ISOLATE_H
#define RTG_FR_FW_ISOLATE_H
#include "rtg/ctx.h"

enum fw_state { FW_RAN, FW_STOPPED, FW_KILLED, FW_CRASHED };

struct fw_outcome {
    enum fw_state state; /* STOPPED: overran, then stopped within the grace */
    int rc;              /* the run function's */
    double duration_ms;
    unsigned tasks_left; /* tasks of the test deleted after it */
    char fault[48];      /* FW_CRASHED: which fault */
};

/* Runs ctx's test in a fresh task under the calling (watchdog) task. */
int fw_isolate_run(struct rtg_ctx *ctx, double bound_s, struct fw_outcome *o);

#endif
