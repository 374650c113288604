/* Histogram layout, error bound, overflow and quantiles on literal data. */
#include <stdlib.h>

#include "rtg/hist.h"
#include "unit.h"

int main(void)
{
    /* Layout: exact up to 255, then 128 buckets per power of two. */
    CHECK_EQ_U(rtg_hist_index(0), 0);
    CHECK_EQ_U(rtg_hist_index(255), 255);
    CHECK_EQ_U(rtg_hist_index(256), 256);
    CHECK_EQ_U(rtg_hist_index(257), 256); /* width 2 from 256 */
    CHECK_EQ_U(rtg_hist_index(258), 257);
    CHECK_EQ_U(rtg_hist_index(511), 383);
    CHECK_EQ_U(rtg_hist_index(512), 384); /* width 4 from 512 */
    CHECK_EQ_U(rtg_hist_bucket_low(256), 256);
    CHECK_EQ_U(rtg_hist_bucket_high(256), 258);
    CHECK_EQ_U(rtg_hist_bucket_low(384), 512);
    CHECK_EQ_U(rtg_hist_bucket_high(384), 516);
    CHECK_EQ_U(rtg_hist_index(1000000), rtg_hist_index(1000000 + 1)); /* shared bucket */
    CHECK_EQ_U(rtg_hist_index(RTG_HIST_LIMIT - 1), RTG_HIST_BUCKETS - 1);
    CHECK_EQ_U(rtg_hist_index(RTG_HIST_LIMIT), RTG_HIST_BUCKETS);
    CHECK_EQ_U(rtg_hist_bucket_high(RTG_HIST_BUCKETS - 1), RTG_HIST_LIMIT);

    /* Every value lies in its bucket, and no bucket is wider than 1 %. */
    int bad = 0;
    for (uint64_t v = 1; v < RTG_HIST_LIMIT; v = v * 3 / 2 + 1) {
        size_t i = rtg_hist_index(v);
        uint64_t lo = rtg_hist_bucket_low(i), hi = rtg_hist_bucket_high(i);
        if (v < lo || v >= hi || (double)(hi - lo) > 0.01 * (double)lo + 1.0)
            bad++;
    }
    CHECK_EQ_U(bad, 0);
    /* Buckets tile the range without gaps. */
    int gaps = 0;
    for (size_t i = 0; i + 1 < RTG_HIST_BUCKETS; i++)
        if (rtg_hist_bucket_high(i) != rtg_hist_bucket_low(i + 1))
            gaps++;
    CHECK_EQ_U(gaps, 0);

    struct rtg_hist *h = malloc(sizeof *h);
    rtg_hist_init(h);
    /* 1..100: p50 = 50, p90 = 90, p99 = 99, p100 = 100 (all exact buckets). */
    for (uint64_t v = 1; v <= 100; v++)
        rtg_hist_add(h, v);
    CHECK_EQ_U(h->total, 100);
    CHECK_EQ_U(rtg_hist_quantile(h, 0.50, 100), 50);
    CHECK_EQ_U(rtg_hist_quantile(h, 0.90, 100), 90);
    CHECK_EQ_U(rtg_hist_quantile(h, 0.99, 100), 99);
    CHECK_EQ_U(rtg_hist_quantile(h, 1.0, 100), 100);

    /* Wide buckets: the quantile is the bucket's top, clamped to the max. */
    rtg_hist_init(h);
    rtg_hist_add(h, 10000); /* bucket [9984, 10048) */
    CHECK_EQ_U(rtg_hist_quantile(h, 0.5, 10000), 10000);
    CHECK_EQ_U(rtg_hist_quantile(h, 0.5, 20000), 10047);

    /* Overflow is counted apart; a quantile landing there is the max. */
    rtg_hist_init(h);
    rtg_hist_add(h, 5);
    rtg_hist_add(h, RTG_HIST_LIMIT + 7);
    CHECK_EQ_U(h->overflow, 1);
    CHECK_EQ_U(h->total, 2);
    CHECK_EQ_U(rtg_hist_quantile(h, 0.5, RTG_HIST_LIMIT + 7), 5);
    CHECK_EQ_U(rtg_hist_quantile(h, 0.99, RTG_HIST_LIMIT + 7), RTG_HIST_LIMIT + 7);

    /* Merge adds counts. */
    struct rtg_hist *g = malloc(sizeof *g);
    rtg_hist_init(g);
    rtg_hist_add(g, 5);
    rtg_hist_merge(h, g);
    CHECK_EQ_U(h->counts[5], 2);
    CHECK_EQ_U(h->total, 3);
    free(g);
    free(h);
    return unit_report("hist");
}
