/* What a test reports (figures, verdicts, notes, facts, its status) and
 * the test record it becomes: rtg/test.h's results, written by the runner. */
#include "rtg_private/ctx.h"
#include "rtg_private/registry.h"
#include "rtg_private/version.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rtg_test_record_open(struct rtg_ctx *ctx)
{
    rtg_json_init(&ctx->verdicts);
    rtg_json_arr_begin(&ctx->verdicts);
    rtg_json_init(&ctx->info);
    rtg_json_obj_begin(&ctx->info);
    rtg_json_init(&ctx->series);
    rtg_json_arr_begin(&ctx->series);
    rtg_json_init(&ctx->notes);
    rtg_json_arr_begin(&ctx->notes);
}

void rtg_test_record_free(struct rtg_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n_metrics; i++) {
        if (ctx->metrics[i])
            rtg_metric_free(ctx->metrics[i]);
        free(ctx->metrics[i]);
    }
    free(ctx->metrics);
    rtg_json_free(&ctx->verdicts);
    rtg_json_free(&ctx->info);
    rtg_json_free(&ctx->series);
    rtg_json_free(&ctx->notes);
}

/* The list grows under the lock the interval writer reads it under. */
static int add_to_list(struct rtg_ctx *ctx, struct rtg_metric *m)
{
    if (ctx->n_metrics == ctx->cap_metrics) {
        size_t cap = ctx->cap_metrics ? ctx->cap_metrics * 2 : 8;
        struct rtg_metric **grown = realloc(ctx->metrics, cap * sizeof *grown);
        if (!grown)
            return -1;
        ctx->metrics = grown;
        ctx->cap_metrics = cap;
    }
    ctx->metrics[ctx->n_metrics++] = m;
    return 0;
}

struct rtg_metric *rtg_metric_new(struct rtg_ctx *ctx, const char *fmt, ...)
{
    struct rtg_metric *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    char name[RTG_METRIC_NAME_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (ctx->metric_suffix) {
        size_t len = strlen(name);
        snprintf(name + len, sizeof name - len, ".%s", ctx->metric_suffix);
    }
    rtg_metric_init(m, name);
    if (ctx->interval_ns) { /* a duration test's figures go into its interval records */
        m->intervals = malloc(sizeof *m->intervals);
        if (m->intervals) /* a board short of memory measures on, without them */
            rtg_intervals_init(m->intervals, ctx->interval_ns);
        else
            rtg_note(ctx, "%s: no interval records (out of memory)", name);
        rtg_mutex_lock(&ctx->metrics_lock);
    }
    int rc = add_to_list(ctx, m);
    if (ctx->interval_ns)
        rtg_mutex_unlock(&ctx->metrics_lock);
    if (rc) {
        rtg_metric_free(m);
        free(m);
        return NULL;
    }
    return m;
}

static void offer(void *arg, const struct rtg_metric *m, const struct rtg_span *s, bool worst)
{
    rtg_recorder_offer_span(arg, m->name, m->interval == RTG_INTERVAL_OPERATION, s, worst);
}

void rtg_explain_hold(struct rtg_ctx *ctx)
{
    if (ctx->explain.state == RTG_EXPLAIN_ON)
        rtg_recorder_hold(ctx->explain.rec, rtg_mono_ns());
}

int32_t rtg_explain_tid(struct rtg_ctx *ctx)
{
    return ctx->explain.state == RTG_EXPLAIN_ON ? rtg_recorder_self_tid(ctx->explain.rec) : 0;
}

void rtg_metric_explain_call(struct rtg_ctx *ctx, struct rtg_metric *m)
{
    if (m)
        m->interval = RTG_INTERVAL_OPERATION;
    rtg_metric_explain(ctx, m);
}

void rtg_metric_explain(struct rtg_ctx *ctx, struct rtg_metric *m)
{
    if (m && ctx->explain.state == RTG_EXPLAIN_ON && ctx->explain.rec) {
        m->watch = offer;
        m->watch_arg = ctx->explain.rec;
    }
}

void rtg_verdict(struct rtg_ctx *ctx, const struct rtg_standard *std, const char *name, bool pass,
                 const char *expected, const char *observed, const struct rtg_json *evidence)
{
    rtg_verdict_seen(ctx, std, name, pass, NULL, expected, observed, evidence);
}

void rtg_verdict_seen(struct rtg_ctx *ctx, const struct rtg_standard *std, const char *name,
                      bool pass, const char *seen, const char *expected, const char *observed,
                      const struct rtg_json *evidence)
{
    struct rtg_json *j = &ctx->verdicts;
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "name", name);
    rtg_json_kbool(j, "pass", pass);
    rtg_json_key(j, "standard");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "name", std->name);
    rtg_json_kstr(j, "clause", std->clause);
    rtg_json_obj_end(j);
    rtg_json_key(j, "seen");
    if (seen)
        rtg_json_str(j, seen);
    else
        rtg_json_null(j);
    rtg_json_kstr(j, "expected", expected);
    rtg_json_kstr(j, "observed", observed);
    rtg_json_key(j, "evidence");
    if (evidence && evidence->len && !evidence->failed)
        rtg_json_raw_value(j, evidence->buf, evidence->len);
    else
        rtg_json_null(j);
    rtg_json_obj_end(j);
    ctx->n_verdicts++;
    if (!pass)
        ctx->n_failed_verdicts++;
}

struct rtg_json *rtg_info(struct rtg_ctx *ctx) { return &ctx->info; }
struct rtg_json *rtg_series(struct rtg_ctx *ctx) { return &ctx->series; }

static int set_forced(struct rtg_ctx *ctx, enum rtg_status st, const char *fmt, va_list ap)
{
    if (ctx->forced == RTG_ST_OK) {
        ctx->forced = st;
        vsnprintf(ctx->reason, sizeof ctx->reason, fmt, ap);
    }
    return -1;
}

int rtg_fail_error(struct rtg_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_forced(ctx, RTG_ST_ERROR, fmt, ap);
    va_end(ap);
    return -1;
}

int rtg_skip(struct rtg_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_forced(ctx, RTG_ST_SKIPPED, fmt, ap);
    va_end(ap);
    return -1;
}

void rtg_note(struct rtg_ctx *ctx, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rtg_json_str(&ctx->notes, buf);
}

const char *rtg_status_name(enum rtg_status st)
{
    static const char *const names[] = {"ok", "pass", "fail", "error", "skipped", "interrupted"};
    return names[st];
}

enum rtg_status rtg_ctx_status(const struct rtg_ctx *ctx, int run_rc, bool interrupted, bool overran)
{
    if (ctx->forced != RTG_ST_OK)
        return ctx->forced;
    if (overran)
        return RTG_ST_ERROR;
    if (interrupted)
        return RTG_ST_INTERRUPTED;
    if (run_rc != 0)
        return RTG_ST_ERROR;
    if (ctx->n_failed_verdicts)
        return RTG_ST_FAIL;
    if (ctx->desc->kind == 'B')
        return ctx->n_verdicts ? RTG_ST_PASS : RTG_ST_ERROR;
    return RTG_ST_OK;
}

/* Closes one of the writers the test filled and inserts it under key. */
static void close_into(struct rtg_json *out, const char *key, struct rtg_json *open, bool array)
{
    if (array)
        rtg_json_arr_end(open);
    else
        rtg_json_obj_end(open);
    rtg_json_key(out, key);
    if (open->failed || !open->buf || open->depth != 0) {
        if (array) {
            rtg_json_arr_begin(out);
            rtg_json_arr_end(out);
        } else {
            rtg_json_obj_begin(out);
            rtg_json_obj_end(out);
        }
        return;
    }
    rtg_json_raw_value(out, open->buf, open->len);
}

void rtg_conditions_emit(const struct rtg_ctx *ctx, struct rtg_json *j)
{
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "policy", ctx->rt_ok ? "SCHED_FIFO" : "SCHED_OTHER");
    rtg_json_kint(j, "prio", ctx->rt_ok ? ctx->cfg->prio : 0);
    rtg_json_kbool(j, "mlockall", ctx->mlock_ok);
    rtg_json_key(j, "cpus");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < ctx->cfg->n_cpus; i++)
        rtg_json_int(j, ctx->cfg->cpus[i]);
    rtg_json_arr_end(j);
    rtg_json_kbool(j, "virtualized", ctx->virtualized);
    rtg_json_obj_end(j);
}

void rtg_ctx_emit(struct rtg_ctx *ctx, enum rtg_status st, const char *reason, double duration_ms,
                  struct rtg_json *j)
{
    const struct rtg_test_desc *d = ctx->desc;
    char kind[2] = {d->kind, '\0'};
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "record", "test");
    rtg_json_kint(j, "schema_version", RTG_SCHEMA_VERSION);
    rtg_json_kstr(j, "id", d->id);
    rtg_json_kstr(j, "title", d->title);
    rtg_json_kstr(j, "kind", kind);
    rtg_test_facts_emit(d, j);
    rtg_json_kstr(j, "status", rtg_status_name(st));
    rtg_json_kstr(j, "reason", reason && *reason ? reason : NULL);
    rtg_json_key(j, "options");
    rtg_options_emit(ctx, j);
    rtg_json_key(j, "conditions");
    rtg_conditions_emit(ctx, j);
    rtg_json_knum(j, "duration_ms", floor(duration_ms * 1000.0 + 0.5) / 1000.0);
    rtg_json_key(j, "metrics");
    rtg_json_arr_begin(j);
    /* Each figure set is freed once written: a board's small heap then
     * holds the figures or their text, never both at once. */
    for (size_t i = 0; i < ctx->n_metrics; i++) {
        if (!ctx->metrics[i])
            continue;
        rtg_metric_emit(ctx->metrics[i], j);
        rtg_metric_free(ctx->metrics[i]);
        free(ctx->metrics[i]);
        ctx->metrics[i] = NULL;
    }
    rtg_json_arr_end(j);
    close_into(j, "verdicts", &ctx->verdicts, true);
    close_into(j, "series", &ctx->series, true);
    close_into(j, "notes", &ctx->notes, true);
    close_into(j, "info", &ctx->info, false);
    rtg_explain_emit(&ctx->explain, j);
    rtg_json_obj_end(j);
}

const struct rtg_metric *rtg_metric_at(const struct rtg_ctx *ctx, size_t i)
{
    return i < ctx->n_metrics ? ctx->metrics[i] : NULL;
}
