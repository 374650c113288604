/* MEM family: MEM-P-ALC (malloc / calloc / free with quasi-random sizes),
 * MEM-P-CPY (memcpy, memmove, memset, every result verified), MEM-P-FLT
 * (first touch of fresh pages with and without mlockall). All run on the
 * test's main thread (SCHED_FIFO at --prio, pinned); busy phases pause
 * 20 ms after every 200 ms so that RT throttling never cuts into them. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/mem_rand.h"
#include "rtg/osal.h"
#include "rtg/osal_mem.h"
#include "rtg/test.h"

struct breather {
    uint64_t since;
};

static void breathe(struct breather *b)
{
    uint64_t now = rtg_mono_ns();
    if (b->since == 0)
        b->since = now;
    else if (now - b->since > 200000000u) {
        rtg_sleep_ns(20000000u);
        b->since = rtg_mono_ns();
    }
}

static struct rtg_metric *metric_p(struct rtg_ctx *ctx, const char *name, const char *k1,
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

/* ---- MEM-P-ALC ---- */
struct alc_class {
    const char *name;
    uint64_t lo, hi;
    size_t batch;
};

static int alc_run(struct rtg_ctx *ctx)
{
    uint64_t seed = (uint64_t)rtg_opt_int(ctx, "seed");
    size_t rounds = (size_t)rtg_opt_int(ctx, "rounds");
    const struct alc_class cls[2] = {
        {"small", 1, 16384, (size_t)rtg_opt_int(ctx, "small_batch")},
        {"large", 16384, 1048576, (size_t)rtg_opt_int(ctx, "large_batch")},
    };
    struct rtg_rand rnd;
    rtg_rand_seed(&rnd, seed);
    uint64_t size_sum = 0, n_sizes = 0;
    uint64_t first_sizes[8];
    struct breather br = {0};
    void **ptr = calloc(cls[0].batch > cls[1].batch ? cls[0].batch : cls[1].batch, sizeof *ptr);
    uint64_t *sz = calloc(cls[0].batch > cls[1].batch ? cls[0].batch : cls[1].batch, sizeof *sz);
    if (!ptr || !sz)
        return rtg_fail_error(ctx, "out of memory");
    for (int c = 0; c < 2; c++) {
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
            if (!(m[k] = metric_p(ctx, nm[k], "sizes", range, "batch", cls[c].batch)))
                return rtg_fail_error(ctx, "out of memory");
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
                    rtg_metric_add(m[use_calloc ? 2 : 0], rtg_clock_delta_ns(t0, t1),
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
                    rtg_metric_add(m[use_calloc ? 3 : 1], rtg_clock_delta_ns(t0, t1),
                                   rtg_test_elapsed_ns(ctx));
                }
                breathe(&br);
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

/* ---- MEM-P-CPY ---- */
enum cpy_op { OP_CPY_FWD, OP_CPY_BWD, OP_MOVE_UP, OP_MOVE_DOWN, OP_SET, NOPS };
static const char *const OP_NAMES[NOPS] = {"memcpy_forward", "memcpy_backward", "memmove_up",
                                           "memmove_down", "memset"};
#define CPY_MAX (1024u * 1024u)
#define POISON 0xEE
#define FILL 123

static int cpy_run(struct rtg_ctx *ctx)
{
    size_t budget = (size_t)rtg_opt_int(ctx, "bytes_per_case");
    size_t max_iter = (size_t)rtg_opt_int(ctx, "max_iterations");
    size_t min_iter = 20;
    unsigned char *buf = malloc(2 * CPY_MAX), *ref = malloc(CPY_MAX), *ref_set = malloc(CPY_MAX);
    if (!buf || !ref || !ref_set) {
        free(buf);
        free(ref);
        free(ref_set);
        return rtg_fail_error(ctx, "out of memory");
    }
    for (size_t i = 0; i < CPY_MAX; i++)
        ref[i] = (unsigned char)(i * 131u + 17u + (i >> 8));
    memset(ref_set, FILL, CPY_MAX);
    struct breather br = {0};
    uint64_t verified = 0;
    int rc = 0;
    for (size_t size = 64; size <= CPY_MAX && !rc && !rtg_stop_requested(); size *= 4) {
        size_t iters = budget / size;
        if (iters > max_iter)
            iters = max_iter;
        if (iters < min_iter)
            iters = min_iter;
        for (int op = 0; op < NOPS && !rc && !rtg_stop_requested(); op++) {
            char name[64];
            snprintf(name, sizeof name, "mem.%s.s%zu", OP_NAMES[op], size);
            struct rtg_metric *m = metric_p(ctx, name, "op", OP_NAMES[op], "size", size);
            if (!m) {
                rc = rtg_fail_error(ctx, "out of memory");
                break;
            }
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
                rtg_metric_add(m, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
                breathe(&br);
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

/* ---- MEM-P-FLT ---- */
struct flt_phase {
    struct rtg_metric *touch, *again, *map;
    uint64_t minor_faults;
};

/* 0, or -1 after rtg_fail_error; a locked mapping refused (RLIMIT_MEMLOCK)
 * ends the phase with a note instead. */
static int flt_phase(struct rtg_ctx *ctx, struct flt_phase *ph, size_t pages, size_t rounds,
                     bool no_huge, bool locked, struct breather *br)
{
    size_t page = rtg_page_size(), len = pages * page;
    for (size_t r = 0; r < rounds && !rtg_stop_requested(); r++) {
        void *p;
        uint64_t f0, f1;
        uint64_t t0 = rtg_clock_ticks();
        int rc = rtg_map_fresh(&p, len, no_huge);
        uint64_t t1 = rtg_clock_ticks();
        if (rc && locked && (rc == EAGAIN || rc == ENOMEM)) {
            rtg_note(ctx, "with mlockall, mapping %zu pages was refused (%s, RLIMIT_MEMLOCK?): "
                          "locked figures from %zu rounds",
                     pages, strerror(rc), r);
            return 0;
        }
        if (rc)
            return rtg_fail_error(ctx, "cannot map %zu pages: %s", pages, strerror(rc));
        rtg_metric_add(ph->map, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
        volatile unsigned char *b = p;
        rtg_page_faults(&f0, NULL);
        for (size_t i = 0; i < pages; i++) { /* first touch: one write per page */
            uint64_t a = rtg_clock_ticks();
            b[i * page] = (unsigned char)i;
            uint64_t z = rtg_clock_ticks();
            rtg_metric_add(ph->touch, rtg_clock_delta_ns(a, z), rtg_test_elapsed_ns(ctx));
        }
        rtg_page_faults(&f1, NULL);
        ph->minor_faults += f1 - f0;
        for (size_t i = 0; i < pages; i++) { /* the same write again: no fault */
            uint64_t a = rtg_clock_ticks();
            b[i * page + 1] = (unsigned char)i;
            uint64_t z = rtg_clock_ticks();
            rtg_metric_add(ph->again, rtg_clock_delta_ns(a, z), rtg_test_elapsed_ns(ctx));
        }
        rtg_unmap(p, len);
        breathe(br);
    }
    return 0;
}

static int flt_run(struct rtg_ctx *ctx)
{
    size_t pages = (size_t)rtg_opt_int(ctx, "pages");
    size_t rounds = (size_t)rtg_opt_int(ctx, "rounds");
    bool no_huge = strcmp(rtg_opt_enum(ctx, "thp"), "off") == 0;
    uint64_t locked_start = rtg_locked_bytes();
    struct breather br = {0};
    struct flt_phase ph[2];
    const char *cond[2] = {"unlocked", "locked"};
    char nm[64];
    for (int k = 0; k < 2; k++) {
        snprintf(nm, sizeof nm, "mem.first_touch.%s", cond[k]);
        ph[k].touch = metric_p(ctx, nm, "locking", cond[k], "pages", pages);
        snprintf(nm, sizeof nm, "mem.touch_again.%s", cond[k]);
        ph[k].again = metric_p(ctx, nm, "locking", cond[k], "pages", pages);
        snprintf(nm, sizeof nm, "mem.map.%s", cond[k]);
        ph[k].map = metric_p(ctx, nm, "locking", cond[k], "pages", pages);
        ph[k].minor_faults = 0;
        if (!ph[k].touch || !ph[k].again || !ph[k].map)
            return rtg_fail_error(ctx, "out of memory");
    }
    /* without: munlockall, so fresh pages fault on first touch */
    int urc = rtg_unlock_memory();
    int rc = urc ? 0 : flt_phase(ctx, &ph[0], pages, rounds, no_huge, false, &br);
    if (urc)
        rtg_note(ctx, "munlockall failed (%s): no unlocked figures", strerror(urc));
    /* with: mlockall(MCL_CURRENT|MCL_FUTURE), so mmap populates the pages */
    int lrc = rtg_lock_memory();
    /* a call that succeeds but locks nothing (sanitizers make mlockall a
     * no-op) would make the locked figures a fake */
    bool effective = !lrc && rtg_locked_bytes() > 0;
    if (!lrc && !effective)
        rtg_note(ctx, "mlockall succeeded but nothing is locked (VmLck 0, a sanitizer build?): "
                      "no locked figures");
    if (!rc && effective)
        rc = flt_phase(ctx, &ph[1], pages, rounds, no_huge, true, &br);
    if (lrc)
        rtg_note(ctx, "mlockall failed (%s): no locked figures", strerror(lrc));
    /* the state the runner left: locked if it was, else unlocked */
    if (locked_start == 0 && !lrc)
        rtg_unlock_memory();
    if (rc)
        return rc;
    struct rtg_json *j = rtg_info(ctx);
    rtg_json_kuint(j, "page_size", rtg_page_size());
    rtg_json_kuint(j, "pages_per_round", pages);
    rtg_json_kuint(j, "rounds", rounds);
    rtg_json_kbool(j, "transparent_huge_pages_off", no_huge);
    rtg_json_kbool(j, "locked_at_start", locked_start > 0);
    rtg_json_kbool(j, "locked_at_end", rtg_locked_bytes() > 0);
    rtg_json_kbool(j, "locking_effective", effective);
    rtg_json_kuint(j, "minor_faults_first_touch_unlocked", ph[0].minor_faults);
    rtg_json_kuint(j, "minor_faults_first_touch_locked", ph[1].minor_faults);
    for (int k = 0; k < 2; k++) {
        char key[48];
        snprintf(key, sizeof key, "map_per_page_ns_%s", cond[k]);
        rtg_json_knum(j, key, ph[k].map->stats.count ? ph[k].map->stats.mean / (double)pages : 0.0);
    }
    return 0;
}

static double flt_bound(const struct rtg_ctx *ctx)
{
    /* up to 50 us per page and phase, generous for a loaded VM */
    return 10.0 + (double)rtg_opt_int(ctx, "pages") * (double)rtg_opt_int(ctx, "rounds") * 2 * 50e-6;
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
static const struct rtg_option cpy_options[] = {
    {"bytes_per_case", RTG_OPT_INT, 32 * 1048576, 4 * 1048576, 1024, 1073741824, NULL,
     RTG_OPT_SCALED, "bytes copied per operation and size (sets the iteration count)"},
    {"max_iterations", RTG_OPT_INT, 5000, 500, 20, 10000000, NULL, RTG_OPT_SCALED,
     "at most this many timed operations per operation and size"},
};
static const struct rtg_option flt_options[] = {
    {"pages", RTG_OPT_INT, 2048, 256, 16, 262144, NULL, 0, "fresh pages mapped per round"},
    {"rounds", RTG_OPT_INT, 5, 2, 1, 10000, NULL, RTG_OPT_SCALED, "rounds per phase"},
    {"thp", RTG_OPT_ENUM, 0, 0, 0, 0, "off,default", 0,
     "transparent huge pages on the fresh mapping: off (4 KiB faults) or the system default"},
};

const struct rtg_test_desc rtg_test_mem_p_alc = {
    .id = "MEM-P-ALC",
    .source = __FILE__,
    .title = "malloc, calloc and free with quasi-random sizes",
    .kind = 'P',
    .options = RTG_OPTIONS(alc_options),
    .run = alc_run,
    .bound_s = alc_bound,
};
const struct rtg_test_desc rtg_test_mem_p_cpy = {
    .id = "MEM-P-CPY",
    .source = __FILE__,
    .title = "memcpy, memmove and memset, verified",
    .kind = 'P',
    .options = RTG_OPTIONS(cpy_options),
    .run = cpy_run,
    .bound_s = cpy_bound,
};
const struct rtg_test_desc rtg_test_mem_p_flt = {
    .id = "MEM-P-FLT",
    .source = __FILE__,
    .needs = RTG_OFFERS_FRESH_PAGES,
    .title = "First touch of fresh pages with and without mlockall",
    .kind = 'P',
    .options = RTG_OPTIONS(flt_options),
    .run = flt_run,
    .bound_s = flt_bound,
};
