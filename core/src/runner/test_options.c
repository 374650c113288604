/* A test's options: their values from the defaults, --quick,
 * --duration-scale and --opt, what a test reads of them (rtg/test.h), and
 * how they appear in its record. */
#include "rtg_private/ctx.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg_private/registry.h"

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
        snprintf(err, n, "--opt %s.%s: %s is outside %.10g..%.10g", id, o->key, text, o->min, o->max);
        return 2;
    }
    v->num = x;
    return 0;
}

int rtg_options_resolve(struct rtg_ctx *ctx, char *err, size_t n)
{
    const struct rtg_test_desc *d = ctx->desc;
    const struct rtg_config *cfg = ctx->cfg;
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
        if ((o->flags & RTG_OPT_DURATION) && cfg->duration_ms > 0) /* --duration-ms wins */
            x = cfg->duration_ms / (d->duration_parts ? d->duration_parts : 1);
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
    return 0;
}

static const struct rtg_opt_value *value(const struct rtg_ctx *ctx, const char *key)
{
    const struct rtg_option *o = rtg_test_option(ctx->desc, key);
    if (!o)
        abort(); /* a test asking for an option it did not declare is a bug */
    return &ctx->values[o - ctx->desc->options];
}

double rtg_planned_ms(const struct rtg_ctx *ctx)
{
    const struct rtg_test_desc *d = ctx->desc;
    for (size_t i = 0; i < d->n_options; i++)
        if (d->options[i].flags & RTG_OPT_DURATION)
            return ctx->values[i].num * (d->duration_parts ? d->duration_parts : 1);
    return 0;
}

int64_t rtg_opt_int(const struct rtg_ctx *ctx, const char *key) { return (int64_t)value(ctx, key)->num; }
double rtg_opt_float(const struct rtg_ctx *ctx, const char *key) { return value(ctx, key)->num; }
const char *rtg_opt_enum(const struct rtg_ctx *ctx, const char *key) { return value(ctx, key)->str; }

void rtg_options_emit(const struct rtg_ctx *ctx, struct rtg_json *j)
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
