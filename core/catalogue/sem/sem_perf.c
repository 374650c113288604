/* Helpers of the SEM performance tests (sem_perf.h). */
#include "sem_perf.h"

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

void rtg_sem_note_no_rt(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "threads ran SCHED_OTHER: figures are not real-time figures");
}
