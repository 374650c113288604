/* CLK-P-RES: clock resolution and read cost. */
#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"

struct clock_def {
    const char *name;
    enum rtg_clock_id id;
};

static const struct clock_def clocks[] = {
    {"monotonic", RTG_CLK_MONOTONIC},
    {"monotonic_raw", RTG_CLK_MONOTONIC_RAW},
    {"realtime", RTG_CLK_REALTIME},
    {"boottime", RTG_CLK_BOOTTIME},
};

static uint64_t read_clock(enum rtg_clock_id id)
{
    uint64_t ns = 0;
    rtg_clock_read_ns(id, &ns);
    return ns;
}

/* Smallest non-zero step and the mean cost of one read (1000 in a row). */
static void step_and_cost(struct rtg_json *info, const struct clock_def *c, bool offered)
{
    if (!offered) { /* a port without this clock: say so, measure nothing */
        rtg_json_key(info, c->name);
        rtg_json_obj_begin(info);
        rtg_json_kbool(info, "offered", false);
        rtg_json_obj_end(info);
        return;
    }
    uint64_t step = UINT64_MAX;
    for (int i = 0; i < 1000 && !rtg_stop_requested(); i++) {
        uint64_t a = read_clock(c->id), b;
        while ((b = read_clock(c->id)) == a && !rtg_stop_requested())
            ;
        if (b > a && b - a < step)
            step = b - a;
    }
    uint64_t t0 = rtg_mono_ns();
    for (int i = 0; i < 1000; i++)
        (void)read_clock(c->id);
    double cost = (double)(rtg_mono_ns() - t0) / 1000.0;
    uint64_t res = 0;
    int rc = rtg_clock_resolution_ns(c->id, &res);

    rtg_json_key(info, c->name);
    rtg_json_obj_begin(info);
    if (rc)
        rtg_json_knull(info, "resolution_ns");
    else
        rtg_json_kuint(info, "resolution_ns", res);
    rtg_json_kuint(info, "smallest_step_ns", step);
    rtg_json_knum(info, "read_cost_ns", cost);
    rtg_json_obj_end(info);
}

static void counter_cost(struct rtg_json *info)
{
    uint64_t t0 = rtg_mono_ns();
    for (int i = 0; i < 1000; i++)
        (void)rtg_clock_ticks();
    rtg_json_key(info, "probe_clock");
    rtg_json_obj_begin(info);
    rtg_json_kstr(info, "source", rtg_clock_source_name());
    rtg_json_knum(info, "freq_hz", rtg_clock_g.freq_hz);
    rtg_json_knum(info, "resolution_ns", rtg_clock_g.ns_per_tick);
    rtg_json_knum(info, "read_cost_ns", (double)(rtg_mono_ns() - t0) / 1000.0);
    rtg_json_obj_end(info);
}

static int run(struct rtg_ctx *ctx)
{
    int64_t n = rtg_opt_int(ctx, "samples");
    struct rtg_metric *floor = rtg_metric_new(ctx, "clock.read_pair.%s", rtg_clock_source_name());
    struct rtg_metric *m[sizeof clocks / sizeof clocks[0]] = {0};
    bool offered[sizeof clocks / sizeof clocks[0]];
    if (!floor)
        return rtg_fail_error(ctx, "out of memory");
    rtg_metric_explain_call(ctx, floor);
    for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
        uint64_t probe;
        offered[c] = rtg_clock_read_ns(clocks[c].id, &probe) == 0;
        if (offered[c] && !(m[c] = rtg_metric_new(ctx, "clock.read_pair.%s", clocks[c].name)))
            return rtg_fail_error(ctx, "out of memory");
        rtg_metric_explain_call(ctx, m[c]);
    }

    /* Two back-to-back reads: the probe's own floor. */
    for (int64_t i = 0; i < n && !rtg_stop_requested(); i++) {
        uint64_t a = rtg_clock_ticks();
        uint64_t b = rtg_clock_ticks();
        rtg_metric_ticks(floor, a, b, rtg_clock_delta_ns(a, b), rtg_test_elapsed_ns(ctx));
    }
    for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
        for (int64_t i = 0; offered[c] && i < n && !rtg_stop_requested(); i++) {
            uint64_t a = read_clock(clocks[c].id);
            uint64_t b = read_clock(clocks[c].id);
            /* not all on the trace clock: a pair that ended now; one that
             * stepped back is counted as negative */
            if (b >= a)
                rtg_metric_span(m[c], b - a, rtg_test_elapsed_ns(ctx));
            else
                rtg_metric_interval(m[c], a, b, rtg_test_elapsed_ns(ctx));
        }
    }
    struct rtg_json *info = rtg_info(ctx);
    counter_cost(info);
    for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++)
        step_and_cost(info, &clocks[c], offered[c]);
    return 0;
}

static const struct rtg_option options[] = {
    {"samples", RTG_OPT_INT, 200000, 20000, 1000, 10000000, NULL, RTG_OPT_SCALED,
     "back-to-back read pairs per clock"},
};

const struct rtg_test_desc rtg_test_clk_p_res = {
    .id = "CLK-P-RES",
    .source = __FILE__,
    .recorded = true, /* its calls' worst samples are explained */
    .title = "Clock resolution and read cost",
    .kind = 'P',
    .options = RTG_OPTIONS(options),
    .run = run,
};
