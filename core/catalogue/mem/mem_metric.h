/* The MEM tests' metrics: a figure set with up to two parameters. */
#ifndef RTG_MEM_METRIC_H
#define RTG_MEM_METRIC_H
#include <stdint.h>

#include "rtg/metric.h"
#include "rtg/test.h"

/* A metric named name with params {k1: v1, k2: v2} (a NULL key leaves its
 * pair out); NULL on out-of-memory. */
struct rtg_metric *rtg_mem_metric_p(struct rtg_ctx *ctx, const char *name, const char *k1,
                                    const char *v1, const char *k2, uint64_t v2);

#endif
