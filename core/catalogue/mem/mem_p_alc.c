/* MEM-P-ALC: malloc / calloc / free with quasi-random sizes, on the test's
 * main thread (SCHED_FIFO at --prio, pinned); busy phases breathe
 * (common/catalogue.h) so that RT throttling never cuts into them. On a
 * board with one small heap a batch holds as many of the class's largest
 * size as fit, and a class of which not one fits is not run (the record
 * says so). */
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
#include "mem_metric.h"
#include "mem_rand.h"

struct alc_class {
    const char *name;
    uint64_t lo, hi;
    size_t batch;
};

static int alc_run(struct rtg_ctx *ctx)
{
    uint64_t seed = (uint64_t)rtg_opt_int(ctx, "seed");
    size_t rounds = (size_t)rtg_opt_int(ctx, "rounds");
    struct alc_class cls[2] = {
        {"small", 1, 16384, (size_t)rtg_opt_int(ctx, "small_batch")},
        {"large", 16384, 1048576, (size_t)rtg_opt_int(ctx, "large_batch")},
    };
    struct rtg_rand rnd;
    rtg_rand_seed(&rnd, seed);
    uint64_t size_sum = 0, n_sizes = 0;
    uint64_t first_sizes[8];
    struct rtg_breather br = {0};
    for (int c = 0; c < 2; c++) {
        char what[32];
        snprintf(what, sizeof what, "%s_batch", cls[c].name);
        cls[c].batch = (size_t)rtg_fit_count(ctx, what, (int64_t)cls[c].batch, cls[c].hi + 16u,
                                             RTG_FIT_RESERVE + 4 * (size_t)(c + 1) * RTG_METRIC_BYTES +
                                                 cls[c].batch * (sizeof(void *) + 8u));
        if (cls[c].batch == 0)
            rtg_note(ctx, "%s: not run: not one allocation of up to %llu bytes fits the heap",
                     cls[c].name, (unsigned long long)cls[c].hi);
    }
    if (!cls[0].batch && !cls[1].batch)
        return rtg_skip(ctx, "not one allocation of either size class fits the heap");
    void **ptr = calloc(cls[0].batch > cls[1].batch ? cls[0].batch : cls[1].batch, sizeof *ptr);
    uint64_t *sz = calloc(cls[0].batch > cls[1].batch ? cls[0].batch : cls[1].batch, sizeof *sz);
    if (!ptr || !sz)
        return rtg_fail_error(ctx, "out of memory");
    for (int c = 0; c < 2; c++) {
        if (!cls[c].batch)
            continue;
        char range[48];
        snprintf(range, sizeof range, "%llu..%llu", (unsigned long long)cls[c].lo,
                 (unsigned long long)cls[c].hi);
        char nm[4][48];
        snprintf(nm[0], sizeof nm[0], "mem.malloc.%s", cls[c].name);
        snprintf(nm[1], sizeof nm[1], "mem.free.%s", cls[c].name);
        snprintf(nm[2], sizeof nm[2], "mem.calloc.%s", cls[c].name);
        snprintf(nm[3], sizeof nm[3], "mem.calloc_free.%s", cls[c].name);
        struct rtg_metric *m[4];
        for (int k = 0; k < 4; k++)
            if (!(m[k] = rtg_mem_metric_p(ctx, nm[k], "sizes", range, "batch", cls[c].batch)))
                return rtg_fail_error(ctx, "out of memory");
        for (int k = 0; k < 4; k++)
            rtg_metric_explain_call(ctx, m[k]);
        for (size_t r = 0; r < rounds && !rtg_stop_requested(); r++) {
            for (int use_calloc = 0; use_calloc < 2; use_calloc++) {
                size_t b = cls[c].batch;
                for (size_t i = 0; i < b; i++) {
                    sz[i] = rtg_rand_range(&rnd, cls[c].lo, cls[c].hi);
                    if (n_sizes < 8)
                        first_sizes[n_sizes] = sz[i];
                    n_sizes++;
                    size_sum += sz[i];
                }
                for (size_t i = 0; i < b; i++) {
                    uint64_t t0 = rtg_clock_ticks();
                    ptr[i] = use_calloc ? calloc(1, sz[i]) : malloc(sz[i]);
                    uint64_t t1 = rtg_clock_ticks();
                    if (!ptr[i]) {
                        for (size_t k = 0; k < i; k++)
                            free(ptr[k]);
                        return rtg_fail_error(ctx, "%s(%llu) failed", use_calloc ? "calloc" : "malloc",
                                              (unsigned long long)sz[i]);
                    }
                    rtg_metric_ticks(m[use_calloc ? 2 : 0], t0, t1, rtg_clock_delta_ns(t0, t1),
                                   rtg_test_elapsed_ns(ctx));
                }
                if (use_calloc) /* untimed check: calloc memory reads as zero */
                    for (size_t i = 0; i < b; i++) {
                        const unsigned char *p = ptr[i];
                        if (p[0] || p[sz[i] - 1] || p[sz[i] / 2]) {
                            for (size_t k = 0; k < b; k++)
                                free(ptr[k]);
                            return rtg_fail_error(ctx, "calloc returned memory that is not zero");
                        }
                    }
                for (size_t i = 0; i < b; i++) {
                    uint64_t t0 = rtg_clock_ticks();
                    free(ptr[i]);
                    uint64_t t1 = rtg_clock_ticks();
                    rtg_metric_ticks(m[use_calloc ? 3 : 1], t0, t1, rtg_clock_delta_ns(t0, t1),
                                   rtg_test_elapsed_ns(ctx));
                }
                rtg_breathe(&br);
            }
        }
    }
    free(ptr);
    free(sz);
    struct rtg_json *j = rtg_info(ctx);
    rtg_json_kuint(j, "seed", seed);
    rtg_json_kstr(j, "generator", "splitmix64, size = lo + next % (hi - lo + 1)");
    rtg_json_kuint(j, "sizes_drawn", n_sizes);
    rtg_json_kuint(j, "sizes_sum", size_sum); /* equal on two systems: same sequence */
    rtg_json_key(j, "first_sizes");
    rtg_json_arr_begin(j);
    for (uint64_t i = 0; i < n_sizes && i < 8; i++)
        rtg_json_uint(j, first_sizes[i]);
    rtg_json_arr_end(j);
    rtg_json_kuint(j, "rounds", rounds);
    return 0;
}

static double alc_bound(const struct rtg_ctx *ctx)
{
    double r = (double)rtg_opt_int(ctx, "rounds");
    double n = (double)rtg_opt_int(ctx, "small_batch") + 40.0 * (double)rtg_opt_int(ctx, "large_batch");
    return 10.0 + r * n * 0.0002;
}

static const struct rtg_option alc_options[] = {
    {"seed", RTG_OPT_INT, 123, 0, 0, 2147483647, NULL, 0, "seed of the quasi-random sizes"},
    {"rounds", RTG_OPT_INT, 20, 4, 1, 100000, NULL, RTG_OPT_SCALED,
     "batches of each kind (malloc, calloc) per size class"},
    {"small_batch", RTG_OPT_INT, 256, 0, 1, 100000, NULL, 0,
     "allocations of 1 B..16 KB held at once before they are freed"},
    {"large_batch", RTG_OPT_INT, 16, 0, 1, 1000, NULL, 0,
     "allocations of 16 KB..1 MB held at once before they are freed"},
};

const struct rtg_test_desc rtg_test_mem_p_alc = {
    .id = "MEM-P-ALC",
    .source = __FILE__,
    .recorded = true, /* its calls' worst samples are explained */
    .title = "malloc, calloc and free with quasi-random sizes",
    .kind = 'P',
    .options = RTG_OPTIONS(alc_options),
    .run = alc_run,
    .bound_s = alc_bound,
};
