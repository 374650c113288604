/* MEM-P-CPY: memcpy, memmove and memset, every result verified, on the
 * test's main thread; busy phases breathe (common/catalogue.h). On a board
 * with one small heap the sizes stop at the largest whose buffers and
 * figures fit (the record says so). */
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

enum cpy_op { OP_CPY_FWD, OP_CPY_BWD, OP_MOVE_UP, OP_MOVE_DOWN, OP_SET, NOPS };
static const char *const OP_NAMES[NOPS] = {"memcpy_forward", "memcpy_backward", "memmove_up",
                                           "memmove_down", "memset"};
#define CPY_MAX (1024u * 1024u)
#define POISON 0xEE
#define FILL 123

/* The largest size of 64, 256, ... CPY_MAX whose four buffers (one of
 * them twice the size) and the figures of every size up to it fit. */
static size_t largest_size(void)
{
    size_t free_bytes, largest;
    if (rtg_mem_available(&free_bytes, &largest))
        return CPY_MAX;
    size_t best = 0, figures = 0;
    for (size_t size = 64; size <= CPY_MAX; size *= 4) {
        figures += NOPS * RTG_METRIC_BYTES;
        if (2 * size > largest || 4 * size + figures + RTG_FIT_RESERVE > free_bytes)
            break;
        best = size;
    }
    return best;
}

static int cpy_run(struct rtg_ctx *ctx)
{
    size_t budget = (size_t)rtg_opt_int(ctx, "bytes_per_case");
    size_t max_iter = (size_t)rtg_opt_int(ctx, "max_iterations");
    size_t min_iter = 20;
    size_t max_size = largest_size();
    if (max_size == 0)
        return rtg_skip(ctx, "the buffers of the smallest size (64 bytes) do not fit the heap");
    if (max_size < CPY_MAX)
        rtg_fit_note(ctx, "largest size", CPY_MAX, (int64_t)max_size);
    unsigned char *buf = malloc(2 * max_size), *ref = malloc(max_size),
                  *ref_set = malloc(max_size);
    if (!buf || !ref || !ref_set) {
        free(buf);
        free(ref);
        free(ref_set);
        return rtg_fail_error(ctx, "out of memory");
    }
    for (size_t i = 0; i < max_size; i++)
        ref[i] = (unsigned char)(i * 131u + 17u + (i >> 8));
    memset(ref_set, FILL, max_size);
    struct rtg_breather br = {0};
    uint64_t verified = 0;
    int rc = 0;
    for (size_t size = 64; size <= max_size && !rc && !rtg_stop_requested(); size *= 4) {
        size_t iters = budget / size;
        if (iters > max_iter)
            iters = max_iter;
        if (iters < min_iter)
            iters = min_iter;
        for (int op = 0; op < NOPS && !rc && !rtg_stop_requested(); op++) {
            char name[64];
            snprintf(name, sizeof name, "mem.%s.s%zu", OP_NAMES[op], size);
            struct rtg_metric *m = rtg_mem_metric_p(ctx, name, "op", OP_NAMES[op], "size", size);
            if (!m) {
                rc = rtg_fail_error(ctx, "out of memory");
                break;
            }
            rtg_metric_explain_call(ctx, m);
            for (size_t it = 0; it < iters && !rtg_stop_requested(); it++) {
                unsigned char *dst, *src = NULL;
                const unsigned char *want = ref;
                /* set up (untimed): the source holds the pattern, the
                 * destination is poisoned, so a skipped copy cannot pass */
                switch (op) {
                case OP_CPY_FWD:
                    src = buf, dst = buf + size;
                    memcpy(src, ref, size);
                    memset(dst, POISON, size);
                    break;
                case OP_CPY_BWD:
                    src = buf + size, dst = buf;
                    memcpy(src, ref, size);
                    memset(dst, POISON, size);
                    break;
                case OP_MOVE_UP: /* overlapping, destination above */
                    src = buf, dst = buf + size / 2;
                    memcpy(src, ref, size);
                    memset(buf + size, POISON, size);
                    break;
                case OP_MOVE_DOWN: /* overlapping, destination below */
                    src = buf + size / 2, dst = buf;
                    memset(buf, POISON, size / 2);
                    memcpy(src, ref, size);
                    break;
                default:
                    dst = buf;
                    memset(dst, POISON, size);
                    want = ref_set;
                    break;
                }
                uint64_t t0 = rtg_clock_ticks();
                switch (op) {
                case OP_CPY_FWD:
                case OP_CPY_BWD: memcpy(dst, src, size); break;
                case OP_MOVE_UP:
                case OP_MOVE_DOWN: memmove(dst, src, size); break;
                default: memset(dst, FILL, size); break;
                }
                uint64_t t1 = rtg_clock_ticks();
                if (memcmp(dst, want, size) != 0) {
                    rc = rtg_fail_error(ctx, "%s of %zu bytes: the result differs from the source",
                                        OP_NAMES[op], size);
                    break;
                }
                verified++;
                rtg_metric_ticks(m, t0, t1, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
                rtg_breathe(&br);
            }
        }
    }
    free(buf);
    free(ref);
    free(ref_set);
    if (rc)
        return rc;
    struct rtg_json *j = rtg_info(ctx);
    rtg_json_kuint(j, "verified_operations", verified);
    rtg_json_kuint(j, "bytes_per_case", budget);
    rtg_json_kuint(j, "max_iterations", max_iter);
    rtg_json_kuint(j, "min_iterations", min_iter);
    return 0;
}

static double cpy_bound(const struct rtg_ctx *ctx)
{
    /* 8 sizes x 5 operations; each case at most max(budget, 20 MB) of
     * copying plus three times that in set-up and checks, at >= 100 MB/s */
    double b = (double)rtg_opt_int(ctx, "bytes_per_case");
    if (b < 20.0 * 1048576.0)
        b = 20.0 * 1048576.0;
    return 10.0 + 40.0 * b * 4.0 / 1e8;
}

static const struct rtg_option cpy_options[] = {
    {"bytes_per_case", RTG_OPT_INT, 32 * 1048576, 4 * 1048576, 1024, 1073741824, NULL,
     RTG_OPT_SCALED, "bytes copied per operation and size (sets the iteration count)"},
    {"max_iterations", RTG_OPT_INT, 5000, 500, 20, 10000000, NULL, RTG_OPT_SCALED,
     "at most this many timed operations per operation and size"},
};

const struct rtg_test_desc rtg_test_mem_p_cpy = {
    .id = "MEM-P-CPY",
    .source = __FILE__,
    .recorded = true, /* its calls' worst samples are explained */
    .title = "memcpy, memmove and memset, verified",
    .kind = 'P',
    .options = RTG_OPTIONS(cpy_options),
    .run = cpy_run,
    .bound_s = cpy_bound,
};
