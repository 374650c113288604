/* TMR-P-LOAD: wake-up latency while the load generators run one after
 * another (idle, cpu, memory, fileio, fork, syscall, proc, net, timer),
 * on every CPU at SCHED_OTHER, the measured one included. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/load.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "common/tick_period.h"
#include "tmr_calc.h"
#include "tmr_wake.h"

#define N_PHASES (1 + RTG_LOAD_KINDS) /* idle, then every load */
#define WINDOW_NS 100000000ull         /* 100 ms */

struct phase {
    const char *name;
    uint64_t start_ns, end_ns; /* since the test started */
    uint64_t ops;
    bool ops_known;
    int error; /* starting the load failed */
    struct rtg_metric *m;
};

struct load_run {
    struct rtg_ctx *ctx;
    volatile int phase; /* index into phases; -1 before the first */
    struct phase ph[N_PHASES];
    struct rtg_win_series win;
    struct rtg_metric *all;
};

static void on_sample(void *arg, uint64_t expiry_ns, uint64_t wake_ns)
{
    struct load_run *r = arg;
    uint64_t at = rtg_test_elapsed_ns(r->ctx);
    int p = r->phase;
    if (p >= 0 && p < N_PHASES) {
        rtg_metric_interval(r->ph[p].m, expiry_ns, wake_ns, at);
        rtg_metric_interval(r->all, expiry_ns, wake_ns, at);
    }
    if (wake_ns >= expiry_ns) /* a negative one is counted by the metrics, not drawn */
        rtg_win_add(&r->win, at, wake_ns - expiry_ns);
}

/* Sleeps for ns in steps, returning early on a stop request. */
static void hold(uint64_t ns)
{
    uint64_t end = rtg_mono_ns() + ns;
    while (!rtg_stop_requested()) {
        uint64_t now = rtg_mono_ns();
        if (now >= end)
            break;
        uint64_t step = end - now > 50000000u ? now + 50000000u : end;
        rtg_sleep_until_intr(step);
    }
}

static void emit_series(struct rtg_ctx *ctx, const struct load_run *r, int n_done)
{
    struct rtg_json *s = rtg_series(ctx);
    rtg_json_obj_begin(s);
    rtg_json_kstr(s, "name", "timer.wakeup.load");
    rtg_json_kstr(s, "unit", "ns");
    rtg_json_knum(s, "window_ms", (double)WINDOW_NS / 1e6);
    rtg_json_key(s, "points");
    rtg_json_arr_begin(s);
    for (size_t i = 0; i < r->win.n; i++) {
        if (r->win.max[i] == RTG_WIN_EMPTY)
            continue;
        rtg_json_arr_begin(s);
        rtg_json_num(s, (double)(i * WINDOW_NS) / 1e6);
        rtg_json_uint(s, r->win.max[i]);
        rtg_json_arr_end(s);
    }
    rtg_json_arr_end(s);
    rtg_json_key(s, "phases");
    rtg_json_arr_begin(s);
    for (int p = 0; p < n_done; p++) {
        const struct phase *ph = &r->ph[p];
        double secs = (double)(ph->end_ns - ph->start_ns) / 1e9;
        rtg_json_obj_begin(s);
        rtg_json_kstr(s, "name", ph->name);
        rtg_json_knum(s, "start_ms", (double)ph->start_ns / 1e6);
        rtg_json_knum(s, "end_ms", (double)ph->end_ns / 1e6);
        if (p == 0)
            rtg_json_knum(s, "ops_per_s", 0);
        else if (ph->ops_known && secs > 0)
            rtg_json_knum(s, "ops_per_s", (double)ph->ops / secs);
        else
            rtg_json_knull(s, "ops_per_s");
        rtg_json_obj_end(s);
    }
    rtg_json_arr_end(s);
    rtg_json_obj_end(s);
}

static void emit_info(struct rtg_ctx *ctx, const struct load_run *r, int n_done,
                      enum rtg_load_tool tool, const int *cpus, size_t ncpus,
                      const struct rtg_waker *w)
{
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kstr(info, "load_tool", rtg_load_tool_name(tool));
    rtg_json_key(info, "load_cpus");
    rtg_json_arr_begin(info);
    for (size_t i = 0; i < ncpus; i++)
        rtg_json_int(info, cpus[i]);
    rtg_json_arr_end(info);
    rtg_json_kint(info, "measured_cpu", rtg_cpu_at(ctx, 0));
    rtg_json_kuint(info, "missed_periods", w->missed);
    rtg_json_kuint(info, "series_dropped_samples", r->win.dropped);
    uint64_t idle_max = r->ph[0].m->stats.count ? r->ph[0].m->stats.max : 0;
    rtg_json_key(info, "phases");
    rtg_json_arr_begin(info);
    for (int p = 0; p < n_done; p++) {
        const struct phase *ph = &r->ph[p];
        double secs = (double)(ph->end_ns - ph->start_ns) / 1e9;
        rtg_json_obj_begin(info);
        rtg_json_kstr(info, "name", ph->name);
        rtg_json_knum(info, "duration_ms", secs * 1e3);
        if (p == 0) {
            rtg_json_kuint(info, "ops", 0);
            rtg_json_knum(info, "ops_per_s", 0);
            rtg_json_knull(info, "op");
        } else if (ph->ops_known) {
            rtg_json_kuint(info, "ops", ph->ops);
            rtg_json_knum(info, "ops_per_s", secs > 0 ? (double)ph->ops / secs : 0);
            rtg_json_kstr(info, "op", rtg_load_op_unit((enum rtg_load_kind)(p - 1), tool));
        } else {
            rtg_json_knull(info, "ops");
            rtg_json_knull(info, "ops_per_s");
            rtg_json_kstr(info, "op", rtg_load_op_unit((enum rtg_load_kind)(p - 1), tool));
        }
        if (ph->error)
            rtg_json_kstr(info, "error", strerror(ph->error));
        rtg_json_kuint(info, "samples", ph->m->stats.count);
        if (ph->m->stats.count) {
            rtg_json_kuint(info, "max_ns", ph->m->stats.max);
            rtg_json_knum(info, "max_vs_idle",
                          idle_max ? (double)ph->m->stats.max / (double)idle_max : 0);
        } else {
            rtg_json_knull(info, "max_ns");
            rtg_json_knull(info, "max_vs_idle");
        }
        rtg_json_obj_end(info);
    }
    rtg_json_arr_end(info);
}

static int run(struct rtg_ctx *ctx)
{
    uint64_t period =
        rtg_tick_adapt(ctx, "period", (uint64_t)rtg_opt_int(ctx, "period_us") * 1000u);
    uint64_t phase_ns = (uint64_t)rtg_opt_int(ctx, "phase_ms") * 1000000u;
    enum rtg_load_tool tool =
        strcmp(rtg_opt_enum(ctx, "load_tool"), "stress-ng") == 0 ? RTG_LOAD_STRESS_NG : RTG_LOAD_BUILTIN;
    int variant = rtg_wake_parse(rtg_opt_enum(ctx, "variant"));
    if (variant < 0)
        return rtg_fail_error(ctx, "unknown variant %s", rtg_opt_enum(ctx, "variant"));
    if (!rtg_load_tool_present(tool))
        return rtg_skip(ctx, "load_tool=stress-ng: stress-ng is not installed on the target "
                             "(the built-in loads run with load_tool=builtin)");

    /* Loads on every CPU of the machine, the measured one included (this
     * thread is pinned already, so its affinity cannot tell which CPUs the
     * probe may use: a load that cannot be pinned runs where it may). */
    int cpus[1024];
    size_t ncpus = 0;
    for (int c = 0; c < rtg_cpu_count_configured() && ncpus < 1024; c++)
        cpus[ncpus++] = c;

    struct load_run *r = calloc(1, sizeof *r);
    size_t nwin = (size_t)((N_PHASES * (phase_ns + 8000000000ull)) / WINDOW_NS) + 64;
    uint64_t *wbuf = calloc(nwin, sizeof *wbuf);
    if (!r || !wbuf) {
        free(r);
        free(wbuf);
        return rtg_fail_error(ctx, "out of memory");
    }
    r->ctx = ctx;
    r->phase = -1;
    rtg_win_init(&r->win, wbuf, nwin, WINDOW_NS);
    r->all = rtg_metric_with_blocks(rtg_metric_new(ctx, "timer.wakeup.load.all"));
    for (int p = 0; p < N_PHASES; p++) {
        r->ph[p].name = p == 0 ? "idle" : rtg_load_name((enum rtg_load_kind)(p - 1));
        r->ph[p].m =
            rtg_metric_with_blocks(rtg_metric_new(ctx, "timer.wakeup.load.%s", r->ph[p].name));
        rtg_metric_explain(ctx, r->ph[p].m); /* each sample once: by its phase, not by all */
        if (!r->ph[p].m || !r->all) {
            free(r);
            free(wbuf);
            return rtg_fail_error(ctx, "out of memory");
        }
        rtg_json_obj_begin(&r->ph[p].m->params);
        rtg_json_kstr(&r->ph[p].m->params, "phase", r->ph[p].name);
        rtg_json_obj_end(&r->ph[p].m->params);
    }

    char scratch[512] = "";
    int rc;
    struct rtg_load_cfg cfg = {
        .tool = tool, .scratch_dir = scratch,
        .memory_bytes = (size_t)rtg_opt_int(ctx, "memory_mib") << 20,
        .max_s = (unsigned)(phase_ns / 1000000000u) + 30};

    /* The controlling thread yields to the measuring one: one level below. */
    if (rtg_rt_ok(ctx)) {
        if (rtg_prio(ctx) > 1)
            rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_FIFO, rtg_prio(ctx) - 1);
        else
            rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_OTHER, 0);
    }

    struct rtg_waker w = {.variant = (enum rtg_wake_variant)variant, .period_ns = period,
                          .start_ns = rtg_mono_ns() + 2 * period, .loops = UINT64_MAX,
                          .end_ns = UINT64_MAX, .sample = on_sample, .arg = r};
    volatile int quit = 0;
    w.quit = &quit;
    struct rtg_thread_attr a = {.policy = rtg_rt_ok(ctx) ? RTG_SCHED_FIFO : RTG_SCHED_OTHER,
                                .prio = rtg_prio(ctx), .cpu = rtg_cpu_at(ctx, 0),
                                .stack_size = RTG_TEST_STACK};
    rtg_thread_t t;
    rc = rtg_thread_create(&t, &a, rtg_wake_loop, &w);
    if (rc) {
        free(r);
        free(wbuf);
        return rtg_fail_error(ctx, "cannot start the measuring thread: %s", strerror(rc));
    }
    rtg_sleep_ns(3 * period); /* the first wake-ups are in */

    int done = 0, srm = 0;
    for (int p = 0; p < N_PHASES && !rtg_stop_requested() && !w.error; p++) {
        struct phase *ph = &r->ph[p];
        ph->start_ns = rtg_test_elapsed_ns(ctx);
        r->phase = p;
        struct rtg_load_set *set = NULL;
        /* A scratch directory per phase: a killed probe leaves at most one. */
        if (p > 0)
            ph->error = rtg_scratch_create(scratch, sizeof scratch);
        if (p > 0 && !ph->error)
            ph->error = rtg_load_start(&set, (enum rtg_load_kind)(p - 1), cpus, ncpus, &cfg);
        hold(phase_ns);
        if (set)
            rtg_load_stop(set, &ph->ops, &ph->ops_known);
        if (p > 0 && scratch[0]) {
            int e = rtg_scratch_remove(scratch);
            if (e && !srm)
                srm = e;
            scratch[0] = '\0';
        }
        ph->end_ns = rtg_test_elapsed_ns(ctx);
        done = p + 1;
    }
    r->phase = -1;
    quit = 1;
    rtg_thread_join(t, NULL);

    emit_series(ctx, r, done);
    emit_info(ctx, r, done, tool, cpus, ncpus, &w);
    if (srm)
        rtg_note(ctx, "a scratch directory could not be removed: %s", strerror(srm));
    int ret = 0;
    if (w.error)
        ret = rtg_fail_error(ctx, "%s failed: %s", w.failed_call, strerror(w.error));
    for (int p = 1; p < done && !ret; p++)
        if (r->ph[p].error)
            ret = rtg_fail_error(ctx, "cannot start the %s load: %s", r->ph[p].name,
                                 strerror(r->ph[p].error));
    for (int p = 1; p < done && !ret; p++)
        if (!r->ph[p].ops_known && !r->ph[p].error)
            rtg_note(ctx, "%s did not report the operations of the %s phase",
                     rtg_load_tool_name(tool), r->ph[p].name);
    free(wbuf);
    free(r);
    return ret;
}

static double bound(const struct rtg_ctx *ctx)
{
    double per = (double)rtg_opt_int(ctx, "phase_ms") / 1000.0 + 1.0;
    if (strcmp(rtg_opt_enum(ctx, "load_tool"), "stress-ng") == 0)
        per += 6.0; /* its start-up and its 5 s stop grace */
    return N_PHASES * per * 1.5 + 15.0;
}

static const struct rtg_option options[] = {
    {"phase_ms", RTG_OPT_INT, 10000, 1000, 200, RTG_DURATION_MAX_MS, NULL,
     RTG_OPT_SCALED | RTG_OPT_DURATION,
     "length of each phase (idle and each load)"},
    {"period_us", RTG_OPT_INT, 1000, 0, 50, 1000000, NULL, 0, "wake-up period"},
    {"load_tool", RTG_OPT_ENUM, 0, 0, 0, 0, "builtin,stress-ng", 0,
     "the built-in load generators, or stress-ng's stressors for the same phases"},
    /* 32: each cycle still faults in, zeroes and unmaps 8192 pages, more
     * than the last-level cache of the boards RT work runs on; the
     * largest load process stays within twice cyclictest's footprint. */
    {"memory_mib", RTG_OPT_INT, 32, 0, 1, 1024, NULL, 0,
     "buffer of the memory load, per load process (one per CPU)"},
    {"variant", RTG_OPT_ENUM, 0, 0, 0, 0, RTG_WAKE_CHOICES, 0, "the wake-up mechanism"},
};

const struct rtg_test_desc rtg_test_tmr_p_load = {
    .id = "TMR-P-LOAD",
    .source = __FILE__,
    .needs = RTG_OFFERS_PROCESSES,
    .title = "Wake-up latency under standard loads",
    .kind = 'P',
    .release_latency = "timer.wakeup.",
    .options = RTG_OPTIONS(options),
    .run = run,
    .bound_s = bound,
    .duration_parts = N_PHASES,
};
