/* THR-P-WKL: the hand-overs of THR-P-PRE, SEM-P-PNG and MSG-P-LAT, run
 * once on an idle system and once while lower-priority work keeps every
 * selected CPU busy (RTOSBench's workload variants): one SCHED_OTHER
 * thread spinning per CPU, below every measuring thread. The figures are
 * those tests' own (their bodies are called, not rewritten), named with
 * ".idle" and ".busy" appended; info.difference holds busy minus idle of
 * the mean, p99 and max of each. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/hist.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"

extern const struct rtg_test_desc rtg_test_thr_p_pre;
extern const struct rtg_test_desc rtg_test_sem_p_png;
extern const struct rtg_test_desc rtg_test_msg_p_lat;

#define WKL_MAX_CPUS 256
/* The busy threads only spin, one per CPU (up to WKL_MAX_CPUS), each stack
 * locked in memory: the leaf size (common/catalogue.h). */
#define WKL_BUSY_STACK RTG_TEST_STACK_LEAF

struct busy {
    atomic_bool stop;
    atomic_ullong ops;
};

static void *busy_main(void *arg)
{
    struct busy *b = arg;
    unsigned long long n = 0;
    while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
        for (volatile int i = 0; i < 1000; i++)
            ;
        if ((++n & 1023) == 0 && rtg_stop_requested())
            break;
    }
    atomic_fetch_add(&b->ops, n);
    return NULL;
}

static int run_parts(struct rtg_ctx *ctx, const char *suffix)
{
    const struct rtg_test_desc *parts[] = {&rtg_test_thr_p_pre, &rtg_test_sem_p_png,
                                           &rtg_test_msg_p_lat};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0] && !rtg_stop_requested(); i++) {
        if (parts[i]->needs & ~rtg_osal_offers()) {
            rtg_note(ctx, "%s left out: not offered by this OSAL", parts[i]->id);
            continue;
        }
        if (rtg_run_part(ctx, parts[i], suffix))
            return -1;
    }
    return 0;
}

static const struct rtg_metric *find(const struct rtg_ctx *ctx, const char *name)
{
    const struct rtg_metric *m;
    for (size_t i = 0; (m = rtg_metric_at(ctx, i)); i++)
        if (strcmp(m->name, name) == 0)
            return m;
    return NULL;
}

/* busy minus idle for every figure set run both ways. */
static void difference(struct rtg_ctx *ctx)
{
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_key(info, "difference");
    rtg_json_obj_begin(info);
    const struct rtg_metric *a;
    for (size_t i = 0; (a = rtg_metric_at(ctx, i)); i++) {
        size_t len = strlen(a->name);
        if (len < 5 || strcmp(a->name + len - 5, ".idle") != 0)
            continue;
        char base[RTG_METRIC_NAME_MAX], busy[RTG_METRIC_NAME_MAX + 8];
        snprintf(base, sizeof base, "%.*s", (int)(len - 5), a->name);
        snprintf(busy, sizeof busy, "%s.busy", base);
        const struct rtg_metric *b = find(ctx, busy);
        if (!b || !a->stats.count || !b->stats.count)
            continue;
        double pa = (double)rtg_hist_quantile(&a->hist, 0.99, a->stats.max);
        double pb = (double)rtg_hist_quantile(&b->hist, 0.99, b->stats.max);
        rtg_json_key(info, base);
        rtg_json_obj_begin(info);
        rtg_json_knum(info, "mean_ns", b->stats.mean - a->stats.mean);
        rtg_json_knum(info, "p99_ns", pb - pa);
        rtg_json_knum(info, "max_ns", (double)b->stats.max - (double)a->stats.max);
        rtg_json_obj_end(info);
    }
    rtg_json_obj_end(info);
}

static int wkl_run(struct rtg_ctx *ctx)
{
    if (run_parts(ctx, "idle"))
        return -1;
    size_t ncpu = rtg_cpu_count(ctx) < WKL_MAX_CPUS ? rtg_cpu_count(ctx) : WKL_MAX_CPUS;
    struct busy b;
    atomic_init(&b.stop, false);
    atomic_init(&b.ops, 0);
    rtg_thread_t *t = calloc(ncpu, sizeof *t);
    if (!t)
        return rtg_fail_error(ctx, "out of memory");
    size_t made = 0;
    int rc = 0;
    for (; made < ncpu; made++) {
        struct rtg_thread_attr a = {.policy = RTG_SCHED_OTHER, .cpu = rtg_cpu_at(ctx, made),
                                    .stack_size = WKL_BUSY_STACK};
        if ((rc = rtg_thread_create(&t[made], &a, busy_main, &b)))
            break;
    }
    uint64_t t0 = rtg_mono_ns();
    int prc = rc ? 0 : run_parts(ctx, "busy");
    uint64_t t1 = rtg_mono_ns();
    atomic_store(&b.stop, true);
    for (size_t i = 0; i < made; i++)
        rtg_thread_join(t[i], NULL);
    free(t);
    if (rc)
        return rtg_fail_error(ctx, "cannot start the busy work: %s", strerror(rc));
    if (prc)
        return -1;
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kuint(info, "busy_threads", made);
    rtg_json_kstr(info, "busy_policy", "SCHED_OTHER");
    rtg_json_kint(info, "busy_stack_bytes", WKL_BUSY_STACK);
    rtg_json_knum(info, "busy_kiloloops_per_s",
                  (double)atomic_load(&b.ops) / ((double)(t1 - t0) / 1e9));
    difference(ctx);
    return 0;
}

static double wkl_bound(const struct rtg_ctx *ctx)
{
    (void)ctx;
    return 180.0;
}

const struct rtg_test_desc rtg_test_thr_p_wkl = {
    .id = "THR-P-WKL",
    .source = __FILE__,
    .title = "Hand-overs (THR-P-PRE, SEM-P-PNG, MSG-P-LAT) idle and with every CPU busy below",
    .kind = 'P',
    .release_latency = "thread.preempt.", /* its THR-P-PRE part's figures */
    .recorded = true, /* its parts' figures are explained as in their own tests */
    .options = RTG_NO_OPTIONS,
    .run = wkl_run,
    .bound_s = wkl_bound,
};
