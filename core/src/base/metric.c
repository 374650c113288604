#include "rtg/metric.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rtg_metric_init(struct rtg_metric *m, const char *name)
{
    snprintf(m->name, sizeof m->name, "%s", name);
    rtg_stats_init(&m->stats);
    rtg_hist_init(&m->hist);
    rtg_json_init(&m->params);
    m->blocks = NULL;
    m->intervals = NULL;
    m->negative = 0;
    m->condition_unmet = NULL;
    m->unexplained = NULL;
    m->watch = NULL;
    m->watch_arg = NULL;
    m->interval = RTG_INTERVAL_RELEASE;
}

void rtg_metric_free(struct rtg_metric *m)
{
    rtg_json_free(&m->params);
    free(m->blocks);
    m->blocks = NULL;
    free(m->intervals);
    m->intervals = NULL;
}

int rtg_metric_track_blocks(struct rtg_metric *m, uint64_t threshold_ns)
{
    if (!m->blocks) {
        m->blocks = malloc(sizeof *m->blocks);
        if (!m->blocks)
            return ENOMEM;
    }
    rtg_blocks_init(m->blocks, threshold_ns);
    return 0;
}

struct rtg_metric *rtg_metric_with_blocks(struct rtg_metric *m)
{
    return m && rtg_metric_track_blocks(m, RTG_BLOCKS_THRESHOLD_NS) == 0 ? m : NULL;
}

void rtg_metric_merge(struct rtg_metric *a, const struct rtg_metric *b)
{
    rtg_stats_merge(&a->stats, &b->stats);
    rtg_hist_merge(&a->hist, &b->hist);
    /* A merged figure keeps the order of extremes when its parts have it;
     * without memory it goes without (the host then says it was not recorded). */
    if (b->blocks && (a->blocks || rtg_metric_track_blocks(a, b->blocks->threshold_ns) == 0)) {
        rtg_blocks_merge(a->blocks, b->blocks);
    } else if (a->blocks && b->stats.count) { /* b's samples are not in a's blocks */
        free(a->blocks);
        a->blocks = NULL;
    }
    a->negative += b->negative;
    if (!a->condition_unmet) /* a part whose condition failed fails the whole */
        a->condition_unmet = b->condition_unmet;
    if (!a->unexplained)
        a->unexplained = b->unexplained;
}

/* A percentile is printed only when enough samples lie beyond it:
 * p99 needs 100 samples, p99.99 needs 10 000. */
static void quantile_of(struct rtg_json *j, const char *key, const struct rtg_stats *s,
                        const struct rtg_hist *h, double q, uint64_t min_count)
{
    rtg_json_key(j, key);
    if (s->count < min_count || s->count == 0)
        rtg_json_null(j);
    else
        rtg_json_uint(j, rtg_hist_quantile(h, q, s->max));
}

static void quantile(struct rtg_json *j, const char *key, const struct rtg_metric *m, double q,
                     uint64_t min_count)
{
    quantile_of(j, key, &m->stats, &m->hist, q, min_count);
}

static void emit_hist(const struct rtg_hist *h, struct rtg_json *j)
{
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "kind", "loglinear");
    rtg_json_kint(j, "sub_bucket_bits", RTG_HIST_SUB_BITS);
    rtg_json_key(j, "buckets");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < RTG_HIST_BUCKETS; i++) {
        if (!h->counts[i])
            continue;
        rtg_json_arr_begin(j);
        rtg_json_uint(j, rtg_hist_bucket_low(i));
        rtg_json_uint(j, rtg_hist_bucket_high(i));
        rtg_json_uint(j, h->counts[i]);
        rtg_json_arr_end(j);
    }
    rtg_json_arr_end(j);
    rtg_json_kuint(j, "overflow", h->overflow);
    rtg_json_kuint(j, "overflow_above", RTG_HIST_LIMIT);
    rtg_json_obj_end(j);
}

void rtg_metric_emit(const struct rtg_metric *m, struct rtg_json *j)
{
    const struct rtg_stats *s = &m->stats;
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "name", m->name);
    rtg_json_kstr(j, "unit", "ns");
    rtg_json_kuint(j, "count", s->count);
    rtg_json_kuint(j, "negative", m->negative);
    if (m->condition_unmet)
        rtg_json_kstr(j, "condition_unmet", m->condition_unmet);
    if (m->unexplained)
        rtg_json_kstr(j, "unexplained", m->unexplained);
    if (s->count) {
        rtg_json_kuint(j, "min", s->min);
        rtg_json_kuint(j, "max", s->max);
        rtg_json_knum(j, "mean", s->mean);
        rtg_json_knum(j, "stddev", rtg_stats_stddev(s));
        rtg_json_knum(j, "worst_at_ms", (double)s->worst_at_ns / 1e6);
    } else {
        rtg_json_knull(j, "min");
        rtg_json_knull(j, "max");
        rtg_json_knull(j, "mean");
        rtg_json_knull(j, "stddev");
        rtg_json_knull(j, "worst_at_ms");
    }
    quantile(j, "p50", m, 0.50, 1);
    quantile(j, "p90", m, 0.90, 10);
    quantile(j, "p99", m, 0.99, 100);
    quantile(j, "p99_9", m, 0.999, 1000);
    quantile(j, "p99_99", m, 0.9999, 10000);
    rtg_json_key(j, "params");
    if (m->params.len)
        rtg_json_raw_value(j, m->params.buf, m->params.len);
    else {
        rtg_json_obj_begin(j);
        rtg_json_obj_end(j);
    }
    rtg_json_key(j, "hist");
    emit_hist(&m->hist, j);
    if (m->blocks && s->count) {
        rtg_json_key(j, "blocks");
        rtg_blocks_emit(m->blocks, j);
    }
    rtg_json_obj_end(j);
}

void rtg_metric_emit_interval(const char *name, const struct rtg_interval_figs *f,
                              struct rtg_json *j)
{
    const struct rtg_stats *s = &f->stats;
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "name", name);
    rtg_json_kstr(j, "unit", "ns");
    rtg_json_kuint(j, "count", s->count);
    if (s->count) {
        rtg_json_kuint(j, "min", s->min);
        rtg_json_kuint(j, "max", s->max);
        rtg_json_knum(j, "mean", s->mean);
    } else {
        rtg_json_knull(j, "min");
        rtg_json_knull(j, "max");
        rtg_json_knull(j, "mean");
    }
    quantile_of(j, "p50", s, &f->hist, 0.50, 1);
    quantile_of(j, "p90", s, &f->hist, 0.90, 10);
    quantile_of(j, "p99", s, &f->hist, 0.99, 100);
    quantile_of(j, "p99_9", s, &f->hist, 0.999, 1000);
    rtg_json_key(j, "hist");
    emit_hist(&f->hist, j);
    rtg_json_obj_end(j);
}
