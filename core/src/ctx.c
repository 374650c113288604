/* A test's options and results: what tests call through rtg/test.h. */
#define _GNU_SOURCE
#include "rtg_private/ctx.h"
#include "rtg_private/version.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg_private/registry.h"

static volatile sig_atomic_t stop_reason;

void rtg_stop_set(int why)
{
    if (!stop_reason)
        stop_reason = why;
}

void rtg_stop_clear(void)
{
    stop_reason = RTG_STOP_NONE;
}

int rtg_stop_reason(void)
{
    return stop_reason;
}

bool rtg_stop_requested(void)
{
    return stop_reason != 0;
}

static int choice_index(const char *choices, const char *value, char *out, size_t outlen)
{
    const char *p = choices;
    int idx = 0;
    size_t vl = strlen(value);
    while (*p) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l == vl && strncmp(p, value, l) == 0) {
            snprintf(out, outlen, "%.*s", (int)l, p);
            return idx;
        }
        idx++;
        p += l + (c ? 1 : 0);
        if (!c)
            break;
    }
    return -1;
}

static int set_value(struct rtg_opt_value *v, const struct rtg_option *o, const char *text,
                     const char *id, char *err, size_t n)
{
    if (o->type == RTG_OPT_ENUM) {
        if (choice_index(o->choices, text, v->str_buf, sizeof v->str_buf) < 0) {
            snprintf(err, n, "--opt %s.%s: '%s' is not one of %s", id, o->key, text, o->choices);
            return 2;
        }
        v->str = v->str_buf;
        return 0;
    }
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (!*text || *end || errno || !isfinite(x) || (o->type == RTG_OPT_INT && x != floor(x))) {
        snprintf(err, n, "--opt %s.%s: '%s' is not %s", id, o->key, text,
                 o->type == RTG_OPT_INT ? "an integer" : "a number");
        return 2;
    }
    if (x < o->min || x > o->max) {
        snprintf(err, n, "--opt %s.%s: %s is outside %g..%g", id, o->key, text, o->min, o->max);
        return 2;
    }
    v->num = x;
    return 0;
}

int rtg_ctx_init(struct rtg_ctx *ctx, const struct rtg_test_desc *d, const struct rtg_config *cfg,
                 char *err, size_t n)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->desc = d;
    ctx->cfg = cfg;
    if (d->n_options > RTG_MAX_OPTIONS) {
        snprintf(err, n, "%s declares too many options", d->id);
        return 2;
    }
    for (size_t i = 0; i < d->n_options; i++) {
        const struct rtg_option *o = &d->options[i];
        struct rtg_opt_value *v = &ctx->values[i];
        if (o->type == RTG_OPT_ENUM) {
            const char *c = strchr(o->choices, ',');
            snprintf(v->str_buf, sizeof v->str_buf, "%.*s",
                     (int)(c ? (size_t)(c - o->choices) : strlen(o->choices)), o->choices);
            v->str = v->str_buf;
            continue;
        }
        double x = cfg->quick && o->quick != 0 ? o->quick : o->def;
        if (o->flags & RTG_OPT_SCALED)
            x *= cfg->scale;
        if (o->type == RTG_OPT_INT)
            x = floor(x + 0.5);
        v->num = fmin(fmax(x, o->min), o->max);
    }
    for (size_t i = 0; i < cfg->n_overrides; i++) {
        const struct rtg_override *ov = &cfg->overrides[i];
        if (strcmp(ov->id, d->id) != 0)
            continue;
        const struct rtg_option *o = rtg_test_option(d, ov->key);
        if (!o || !rtg_option_in_build(o)) {
            snprintf(err, n, "--opt: test %s has no option '%s'", d->id, ov->key);
            return 2;
        }
        if (set_value(&ctx->values[o - d->options], o, ov->value, d->id, err, n))
            return 2;
    }
    rtg_json_init(&ctx->verdicts);
    rtg_json_arr_begin(&ctx->verdicts);
    rtg_json_init(&ctx->info);
    rtg_json_obj_begin(&ctx->info);
    rtg_json_init(&ctx->series);
    rtg_json_arr_begin(&ctx->series);
    rtg_json_init(&ctx->notes);
    rtg_json_arr_begin(&ctx->notes);
    /* A fault injected by a hooks-only option is said in the record. */
    for (size_t i = 0; i < d->n_options; i++) {
        const struct rtg_option *o = &d->options[i];
        size_t len = strcspn(o->choices ? o->choices : "", ",");
        if ((o->flags & RTG_OPT_HOOKS) && o->type == RTG_OPT_ENUM &&
            (strlen(ctx->values[i].str) != len || strncmp(ctx->values[i].str, o->choices, len)))
            rtg_note(ctx, "test hook %s=%s: the conditions were perturbed on purpose", o->key,
                     ctx->values[i].str);
    }
    return 0;
}

void rtg_ctx_free(struct rtg_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n_metrics; i++) {
        rtg_metric_free(ctx->metrics[i]);
        free(ctx->metrics[i]);
    }
    free(ctx->metrics);
    rtg_json_free(&ctx->verdicts);
    rtg_json_free(&ctx->info);
    rtg_json_free(&ctx->series);
    rtg_json_free(&ctx->notes);
}

static const struct rtg_opt_value *value(const struct rtg_ctx *ctx, const char *key)
{
    const struct rtg_option *o = rtg_test_option(ctx->desc, key);
    if (!o)
        abort(); /* a test asking for an option it did not declare is a bug */
    return &ctx->values[o - ctx->desc->options];
}

int64_t rtg_opt_int(const struct rtg_ctx *ctx, const char *key) { return (int64_t)value(ctx, key)->num; }
double rtg_opt_float(const struct rtg_ctx *ctx, const char *key) { return value(ctx, key)->num; }
const char *rtg_opt_enum(const struct rtg_ctx *ctx, const char *key) { return value(ctx, key)->str; }
bool rtg_quick(const struct rtg_ctx *ctx) { return ctx->cfg->quick; }
size_t rtg_cpu_count(const struct rtg_ctx *ctx) { return ctx->cfg->n_cpus; }
int rtg_cpu_at(const struct rtg_ctx *ctx, size_t i) { return ctx->cfg->cpus[i]; }
int rtg_prio(const struct rtg_ctx *ctx) { return ctx->cfg->prio; }
bool rtg_rt_ok(const struct rtg_ctx *ctx) { return ctx->rt_ok; }
uint64_t rtg_test_elapsed_ns(const struct rtg_ctx *ctx) { return rtg_mono_ns() - ctx->start_ns; }

struct rtg_metric *rtg_metric_new(struct rtg_ctx *ctx, const char *fmt, ...)
{
    if (ctx->n_metrics == ctx->cap_metrics) {
        size_t cap = ctx->cap_metrics ? ctx->cap_metrics * 2 : 8;
        struct rtg_metric **m = realloc(ctx->metrics, cap * sizeof *m);
        if (!m)
            return NULL;
        ctx->metrics = m;
        ctx->cap_metrics = cap;
    }
    struct rtg_metric *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    char name[RTG_METRIC_NAME_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    rtg_metric_init(m, name);
    ctx->metrics[ctx->n_metrics++] = m;
    return m;
}

void rtg_verdict(struct rtg_ctx *ctx, const char *name, bool pass, const char *expected,
                 const char *observed, const struct rtg_json *evidence)
{
    struct rtg_json *j = &ctx->verdicts;
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "name", name);
    rtg_json_kbool(j, "pass", pass);
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

static void emit_options(const struct rtg_ctx *ctx, struct rtg_json *j)
{
    rtg_json_obj_begin(j);
    for (size_t i = 0; i < ctx->desc->n_options; i++) {
        const struct rtg_option *o = &ctx->desc->options[i];
        if (!rtg_option_in_build(o))
            continue;
        if (o->type == RTG_OPT_ENUM)
            rtg_json_kstr(j, o->key, ctx->values[i].str);
        else
            rtg_json_knum(j, o->key, ctx->values[i].num);
    }
    rtg_json_obj_end(j);
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
    emit_options(ctx, j);
    rtg_json_key(j, "conditions");
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
    rtg_json_knum(j, "duration_ms", floor(duration_ms * 1000.0 + 0.5) / 1000.0);
    rtg_json_key(j, "metrics");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < ctx->n_metrics; i++)
        rtg_metric_emit(ctx->metrics[i], j);
    rtg_json_arr_end(j);
    close_into(j, "verdicts", &ctx->verdicts, true);
    close_into(j, "series", &ctx->series, true);
    close_into(j, "notes", &ctx->notes, true);
    close_into(j, "info", &ctx->info, false);
    rtg_json_obj_end(j);
}

const struct rtg_metric *rtg_metric_at(const struct rtg_ctx *ctx, size_t i)
{
    return i < ctx->n_metrics ? ctx->metrics[i] : NULL;
}

/* The part writes its notes and verdicts straight into this test's
 * writers (moved in and back), so nothing is copied or lost. */
int rtg_run_part(struct rtg_ctx *ctx, const struct rtg_test_desc *part, const char *suffix)
{
    struct rtg_ctx *sub = malloc(sizeof *sub);
    char err[256];
    if (!sub)
        return rtg_fail_error(ctx, "out of memory");
    if (rtg_ctx_init(sub, part, ctx->cfg, err, sizeof err)) {
        free(sub);
        return rtg_fail_error(ctx, "%s", err);
    }
    sub->rt_ok = ctx->rt_ok;
    sub->mlock_ok = ctx->mlock_ok;
    sub->virtualized = ctx->virtualized;
    sub->start_ns = ctx->start_ns;
    rtg_json_free(&sub->notes);
    rtg_json_free(&sub->verdicts);
    sub->notes = ctx->notes;
    sub->verdicts = ctx->verdicts;
    sub->n_verdicts = ctx->n_verdicts;
    sub->n_failed_verdicts = ctx->n_failed_verdicts;
    int rc = part->run(sub);
    ctx->notes = sub->notes;
    ctx->verdicts = sub->verdicts;
    ctx->n_verdicts = sub->n_verdicts;
    ctx->n_failed_verdicts = sub->n_failed_verdicts;
    rtg_json_init(&sub->notes);
    rtg_json_init(&sub->verdicts);
    for (size_t i = 0; i < sub->n_metrics; i++) {
        struct rtg_metric *m = rtg_metric_new(ctx, "%s.%s", sub->metrics[i]->name, suffix);
        if (!m)
            continue;
        rtg_metric_merge(m, sub->metrics[i]);
        const struct rtg_json *p = &sub->metrics[i]->params;
        if (p->len && !p->failed)
            rtg_json_raw_value(&m->params, p->buf, p->len);
    }
    rtg_json_obj_end(&sub->info);
    char key[128];
    snprintf(key, sizeof key, "%s.%s", part->id, suffix);
    rtg_json_key(&ctx->info, key);
    if (sub->info.failed || !sub->info.buf) {
        rtg_json_obj_begin(&ctx->info);
        rtg_json_obj_end(&ctx->info);
    } else {
        rtg_json_raw_value(&ctx->info, sub->info.buf, sub->info.len);
    }
    enum rtg_status forced = sub->forced;
    char reason[sizeof sub->reason];
    snprintf(reason, sizeof reason, "%s", sub->reason);
    rtg_ctx_free(sub);
    free(sub);
    if (forced == RTG_ST_SKIPPED)
        return rtg_skip(ctx, "%s (%s): %s", part->id, suffix, reason);
    if (rc || forced == RTG_ST_ERROR)
        return rtg_fail_error(ctx, "%s (%s): %s", part->id, suffix, reason);
    return 0;
}
