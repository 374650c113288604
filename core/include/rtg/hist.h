/* Log-linear histogram of non-negative integers (ns).
 * Values below 2^(SUB_BITS+1) get buckets one unit wide; above, every
 * power of two is cut into 2^SUB_BITS equal buckets, so a bucket is at
 * most 1/128 (0.78 %) of its lower bound wide. Values at or above
 * RTG_HIST_LIMIT go to an explicit overflow counter. */
#ifndef RTG_HIST_H
#define RTG_HIST_H
#include <stddef.h>
#include <stdint.h>

/* A build for a small board may ask for fewer sub-buckets (-D): the record
 * says how many (sub_bucket_bits), and readers take it from there. */
#ifndef RTG_HIST_SUB_BITS
#define RTG_HIST_SUB_BITS 7
#endif
#define RTG_HIST_SUB (1u << RTG_HIST_SUB_BITS)
#define RTG_HIST_TOP_BIT 35 /* limit 2^35 ns ~ 34 s */
#define RTG_HIST_LIMIT (UINT64_C(1) << RTG_HIST_TOP_BIT)
#define RTG_HIST_BUCKETS (2 * RTG_HIST_SUB + (RTG_HIST_TOP_BIT - RTG_HIST_SUB_BITS - 1) * RTG_HIST_SUB)

/* A bucket's count. A build for a small board may count in 32 bits
 * (-DRTG_HIST_COUNT_32: half the memory; one bucket would need 2^32
 * samples to wrap, over an hour of one per microsecond, which no test of
 * the catalogue takes on a board). */
#ifdef RTG_HIST_COUNT_32
typedef uint32_t rtg_hist_count_t;
#else
typedef uint64_t rtg_hist_count_t;
#endif

struct rtg_hist {
    uint64_t total; /* samples in buckets and overflow */
    uint64_t overflow;
    rtg_hist_count_t counts[RTG_HIST_BUCKETS];
};

void rtg_hist_init(struct rtg_hist *h);
size_t rtg_hist_index(uint64_t value); /* RTG_HIST_BUCKETS for overflow */
uint64_t rtg_hist_bucket_low(size_t index);
uint64_t rtg_hist_bucket_high(size_t index); /* exclusive */
void rtg_hist_add(struct rtg_hist *h, uint64_t value);
void rtg_hist_merge(struct rtg_hist *a, const struct rtg_hist *b);
/* Value below which a fraction q of samples lie: the exclusive upper bound
 * of the bucket holding the ceil(q * total)-th sample, minus one, clamped
 * to observed_max. Returns observed_max when that sample overflowed. */
uint64_t rtg_hist_quantile(const struct rtg_hist *h, double q, uint64_t observed_max);

#endif
