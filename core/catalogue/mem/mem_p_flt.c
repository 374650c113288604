/* MEM-P-FLT: first touch of fresh pages with and without mlockall, on the
 * test's main thread; busy phases breathe (common/catalogue.h). */
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

struct flt_phase {
    struct rtg_metric *touch, *again, *map;
    uint64_t minor_faults;
};

/* 0, or -1 after rtg_fail_error; a locked mapping refused (RLIMIT_MEMLOCK)
 * ends the phase with a note instead. */
static int flt_phase(struct rtg_ctx *ctx, struct flt_phase *ph, size_t pages, size_t rounds,
                     bool no_huge, bool locked, struct rtg_breather *br)
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
        rtg_metric_ticks(ph->map, t0, t1, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
        volatile unsigned char *b = p;
        rtg_page_faults(&f0, NULL);
        for (size_t i = 0; i < pages; i++) { /* first touch: one write per page */
            uint64_t a = rtg_clock_ticks();
            b[i * page] = (unsigned char)i;
            uint64_t z = rtg_clock_ticks();
            rtg_metric_ticks(ph->touch, a, z, rtg_clock_delta_ns(a, z), rtg_test_elapsed_ns(ctx));
        }
        rtg_page_faults(&f1, NULL);
        ph->minor_faults += f1 - f0;
        for (size_t i = 0; i < pages; i++) { /* the same write again: no fault */
            uint64_t a = rtg_clock_ticks();
            b[i * page + 1] = (unsigned char)i;
            uint64_t z = rtg_clock_ticks();
            rtg_metric_ticks(ph->again, a, z, rtg_clock_delta_ns(a, z), rtg_test_elapsed_ns(ctx));
        }
        rtg_unmap(p, len);
        rtg_breathe(br);
    }
    return 0;
}

static int flt_run(struct rtg_ctx *ctx)
{
    size_t pages = (size_t)rtg_opt_int(ctx, "pages");
    size_t rounds = (size_t)rtg_opt_int(ctx, "rounds");
    bool no_huge = strcmp(rtg_opt_enum(ctx, "thp"), "off") == 0;
    uint64_t locked_start = rtg_locked_bytes();
    struct rtg_breather br = {0};
    struct flt_phase ph[2];
    const char *cond[2] = {"unlocked", "locked"};
    char nm[64];
    for (int k = 0; k < 2; k++) {
        snprintf(nm, sizeof nm, "mem.first_touch.%s", cond[k]);
        ph[k].touch = rtg_mem_metric_p(ctx, nm, "locking", cond[k], "pages", pages);
        snprintf(nm, sizeof nm, "mem.touch_again.%s", cond[k]);
        ph[k].again = rtg_mem_metric_p(ctx, nm, "locking", cond[k], "pages", pages);
        snprintf(nm, sizeof nm, "mem.map.%s", cond[k]);
        ph[k].map = rtg_mem_metric_p(ctx, nm, "locking", cond[k], "pages", pages);
        ph[k].minor_faults = 0;
        if (!ph[k].touch || !ph[k].again || !ph[k].map)
            return rtg_fail_error(ctx, "out of memory");
        rtg_metric_explain_call(ctx, ph[k].touch);
        rtg_metric_explain_call(ctx, ph[k].again);
        rtg_metric_explain_call(ctx, ph[k].map);
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

static const struct rtg_option flt_options[] = {
    {"pages", RTG_OPT_INT, 2048, 256, 16, 262144, NULL, 0, "fresh pages mapped per round"},
    {"rounds", RTG_OPT_INT, 5, 2, 1, 10000, NULL, RTG_OPT_SCALED, "rounds per phase"},
    {"thp", RTG_OPT_ENUM, 0, 0, 0, 0, "off,default", 0,
     "transparent huge pages on the fresh mapping: off (4 KiB faults) or the system default"},
};

const struct rtg_test_desc rtg_test_mem_p_flt = {
    .id = "MEM-P-FLT",
    .source = __FILE__,
    .recorded = true, /* its calls' worst samples are explained */
    .needs = RTG_OFFERS_FRESH_PAGES,
    .title = "First touch of fresh pages with and without mlockall",
    .kind = 'P',
    .options = RTG_OPTIONS(flt_options),
    .run = flt_run,
    .bound_s = flt_bound,
};
