/* The MEM tests' metrics (mem_metric.h). */
#include "mem_metric.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_mem.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "mem_rand.h"

struct rtg_metric *rtg_mem_metric_p(struct rtg_ctx *ctx, const char *name, const char *k1,
                                   const char *v1, const char *k2, uint64_t v2)
{
    struct rtg_metric *m = rtg_metric_new(ctx, "%s", name);
    if (!m)
        return NULL;
    rtg_json_obj_begin(&m->params);
    if (k1)
        rtg_json_kstr(&m->params, k1, v1);
    if (k2)
        rtg_json_kuint(&m->params, k2, v2);
    rtg_json_obj_end(&m->params);
    return m;
}
