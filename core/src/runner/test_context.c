/* A test's context: made for each test (and each part of one) from the
 * run's configuration, and what a test asks about its run (rtg/test.h). */
#include "rtg_private/ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"

int rtg_ctx_init(struct rtg_ctx *ctx, const struct rtg_test_desc *d, const struct rtg_config *cfg,
                 char *err, size_t n)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->desc = d;
    ctx->cfg = cfg;
    int rc = rtg_options_resolve(ctx, err, n);
    if (rc)
        return rc;
    rtg_test_record_open(ctx);
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
    rtg_test_record_free(ctx);
    rtg_explain_free(&ctx->explain);
}

bool rtg_quick(const struct rtg_ctx *ctx) { return ctx->cfg->quick; }
size_t rtg_cpu_count(const struct rtg_ctx *ctx) { return ctx->cfg->n_cpus; }
int rtg_cpu_at(const struct rtg_ctx *ctx, size_t i) { return ctx->cfg->cpus[i]; }
int rtg_prio(const struct rtg_ctx *ctx) { return ctx->cfg->prio; }
bool rtg_rt_ok(const struct rtg_ctx *ctx) { return ctx->rt_ok; }
uint64_t rtg_test_elapsed_ns(const struct rtg_ctx *ctx) { return rtg_mono_ns() - ctx->start_ns; }

/* The part writes its notes and verdicts straight into this test's
 * writers (moved in and back), so nothing is copied or lost; it offers its
 * samples to this test's flight recorder, under its figures' final names. */
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
    sub->metric_suffix = suffix;
    sub->explain.state = ctx->explain.state;
    sub->explain.rec = ctx->explain.rec; /* lent: this test's to close */
    int rc = part->run(sub);
    sub->explain.state = RTG_EXPLAIN_NONE;
    sub->explain.rec = NULL;
    ctx->notes = sub->notes;
    ctx->verdicts = sub->verdicts;
    ctx->n_verdicts = sub->n_verdicts;
    ctx->n_failed_verdicts = sub->n_failed_verdicts;
    rtg_json_init(&sub->notes);
    rtg_json_init(&sub->verdicts);
    for (size_t i = 0; i < sub->n_metrics; i++) {
        struct rtg_metric *m = rtg_metric_new(ctx, "%s", sub->metrics[i]->name);
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
