/* The interval records of a duration test: see interval_record.h. */
#include "rtg_private/interval_record.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/intervals.h"
#include "rtg_private/ctx.h"
#include "rtg_private/registry.h"
#include "rtg_private/version.h"

/* How long past a boundary the writer waits for the sampling threads to
 * hand their interval over (each does at its first sample past it). */
#define GRACE_MAX_NS 1000000000ull

uint64_t rtg_interval_ns(const struct rtg_ctx *ctx)
{
    double planned = rtg_planned_ms(ctx);
    double every = ctx->cfg->interval_ms;
    if (planned <= 0)
        return 0; /* not a duration test */
    if (every < 0)
        every = planned > RTG_INTERVAL_AFTER_MS ? RTG_INTERVAL_DEFAULT_MS : 0;
    return (uint64_t)(every * 1e6);
}

static void emit_head(const struct rtg_interval_writer *w, uint64_t from_ns, uint64_t to_ns,
                      struct rtg_json *j)
{
    const struct rtg_ctx *ctx = w->ctx;
    const struct rtg_test_desc *d = ctx->desc;
    char kind[2] = {d->kind, '\0'};
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "record", "interval");
    rtg_json_kint(j, "schema_version", RTG_SCHEMA_VERSION);
    rtg_json_kstr(j, "id", d->id);
    rtg_json_kstr(j, "title", d->title);
    rtg_json_kstr(j, "kind", kind);
    rtg_test_facts_emit(d, j);
    rtg_json_kuint(j, "seq", w->seq);
    rtg_json_knum(j, "interval_ms", (double)w->every_ns / 1e6);
    rtg_json_knum(j, "planned_ms", rtg_planned_ms(ctx));
    rtg_json_knum(j, "from_ms", (double)from_ns / 1e6);
    rtg_json_knum(j, "to_ms", (double)to_ns / 1e6);
    rtg_json_key(j, "options");
    rtg_options_emit(ctx, j);
    rtg_json_key(j, "conditions");
    rtg_conditions_emit(ctx, j);
    rtg_json_key(j, "figures");
    rtg_json_arr_begin(j);
}

/* One record of the intervals in figs[i] (NULL: that figure has none). */
static void write_record(struct rtg_interval_writer *w, struct rtg_metric **ms,
                         struct rtg_interval_figs **figs, size_t n)
{
    uint64_t from = UINT64_MAX, to = 0;
    size_t some = 0;
    for (size_t i = 0; i < n; i++)
        if (figs[i]) {
            some++;
            if (figs[i]->from_ns < from)
                from = figs[i]->from_ns;
            if (figs[i]->to_ns > to)
                to = figs[i]->to_ns;
        }
    if (!some)
        return;
    struct rtg_json j;
    rtg_json_init(&j);
    emit_head(w, from, to, &j);
    for (size_t i = 0; i < n; i++)
        if (figs[i])
            rtg_metric_emit_interval(ms[i]->name, figs[i], &j);
    rtg_json_arr_end(&j);
    rtg_json_obj_end(&j);
    rtg_json_raw_value(&j, "\n", 1);
    if (!j.failed && j.depth == 0) {
        /* one line at once, flushed: a run killed after it still has it */
        fwrite(j.buf, 1, j.len, w->out);
        fflush(w->out);
        w->seq++;
    }
    rtg_json_free(&j);
}

/* The figures that track intervals, as they stand (the test may still be
 * adding figures: the list is read under its lock). */
static size_t snapshot(struct rtg_ctx *ctx, struct rtg_metric ***out)
{
    rtg_mutex_lock(&ctx->metrics_lock);
    size_t n = 0;
    struct rtg_metric **ms = malloc((ctx->n_metrics ? ctx->n_metrics : 1) * sizeof *ms);
    if (ms)
        for (size_t i = 0; i < ctx->n_metrics; i++)
            if (ctx->metrics[i] && ctx->metrics[i]->intervals)
                ms[n++] = ctx->metrics[i];
    rtg_mutex_unlock(&ctx->metrics_lock);
    *out = ms;
    return ms ? n : 0;
}

static void write_handed(struct rtg_interval_writer *w)
{
    struct rtg_metric **ms;
    size_t n = snapshot(w->ctx, &ms);
    struct rtg_interval_figs **figs = calloc(n ? n : 1, sizeof *figs);
    if (ms && figs) {
        for (size_t i = 0; i < n; i++)
            figs[i] = rtg_intervals_take(ms[i]->intervals);
        write_record(w, ms, figs, n);
        for (size_t i = 0; i < n; i++)
            if (figs[i])
                rtg_intervals_give_back(ms[i]->intervals, figs[i]);
    }
    free(figs);
    free(ms);
}

static void *writer_main(void *arg)
{
    struct rtg_interval_writer *w = arg;
    uint64_t grace = w->every_ns / 2 < GRACE_MAX_NS ? w->every_ns / 2 : GRACE_MAX_NS;
    for (uint64_t k = 1; !atomic_load(&w->stop); k++) {
        uint64_t at = w->ctx->start_ns + k * w->every_ns + grace;
        while (!atomic_load(&w->stop) && rtg_mono_ns() < at)
            rtg_sem_wait_until(&w->wake, at); /* posted: stop */
        if (!atomic_load(&w->stop))
            write_handed(w);
    }
    return NULL;
}

int rtg_interval_writer_start(struct rtg_interval_writer *w, struct rtg_ctx *ctx, FILE *out)
{
    memset(w, 0, sizeof *w);
    atomic_init(&w->stop, false);
    w->ctx = ctx;
    w->out = out;
    w->every_ns = ctx->interval_ns;
    if (!w->every_ns || !out)
        return 0;
    int rc = rtg_sem_init(&w->wake, 0);
    if (rc)
        return rc;
    struct rtg_thread_attr a = {.policy = RTG_SCHED_OTHER, .cpu = -1};
    rc = rtg_thread_create(&w->thread, &a, writer_main, w);
    if (rc) {
        rtg_sem_destroy(&w->wake);
        return rc;
    }
    w->started = true;
    return 0;
}

void rtg_interval_writer_finish(struct rtg_interval_writer *w, uint64_t end_ns)
{
    if (!w->started)
        return;
    atomic_store(&w->stop, true);
    rtg_sem_post(&w->wake);
    rtg_thread_join(w->thread, NULL);
    rtg_sem_destroy(&w->wake);
    w->started = false;
    struct rtg_metric **ms;
    size_t n = snapshot(w->ctx, &ms);
    struct rtg_interval_figs **figs = calloc(n ? n : 1, sizeof *figs);
    if (ms && figs) {
        for (size_t i = 0; i < n; i++) {
            struct rtg_interval_figs *f = rtg_intervals_last(ms[i]->intervals, end_ns);
            figs[i] = f->stats.count ? f : NULL; /* a figure made after sampling has none */
        }
        write_record(w, ms, figs, n);
    }
    free(figs);
    free(ms);
}
