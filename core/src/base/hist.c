#include "rtg/hist.h"

#include <string.h>

void rtg_hist_init(struct rtg_hist *h)
{
    memset(h, 0, sizeof(*h));
}

static unsigned msb64(uint64_t v)
{
    return 63u - (unsigned)__builtin_clzll(v);
}

size_t rtg_hist_index(uint64_t value)
{
    if (value >= RTG_HIST_LIMIT)
        return RTG_HIST_BUCKETS;
    if (value < 2 * RTG_HIST_SUB)
        return (size_t)value;
    unsigned group = msb64(value) - RTG_HIST_SUB_BITS; /* >= 1 */
    size_t sub = (size_t)(value >> group) - RTG_HIST_SUB;
    return 2 * RTG_HIST_SUB + (size_t)(group - 1) * RTG_HIST_SUB + sub;
}

uint64_t rtg_hist_bucket_low(size_t index)
{
    if (index < 2 * RTG_HIST_SUB)
        return index;
    size_t rest = index - 2 * RTG_HIST_SUB;
    unsigned group = (unsigned)(rest / RTG_HIST_SUB) + 1;
    uint64_t sub = rest % RTG_HIST_SUB;
    return (RTG_HIST_SUB + sub) << group;
}

uint64_t rtg_hist_bucket_high(size_t index)
{
    if (index < 2 * RTG_HIST_SUB)
        return index + 1;
    unsigned group = (unsigned)((index - 2 * RTG_HIST_SUB) / RTG_HIST_SUB) + 1;
    return rtg_hist_bucket_low(index) + (UINT64_C(1) << group);
}

void rtg_hist_add(struct rtg_hist *h, uint64_t value)
{
    size_t i = rtg_hist_index(value);
    h->total++;
    if (i == RTG_HIST_BUCKETS)
        h->overflow++;
    else
        h->counts[i]++;
}

void rtg_hist_merge(struct rtg_hist *a, const struct rtg_hist *b)
{
    a->total += b->total;
    a->overflow += b->overflow;
    for (size_t i = 0; i < RTG_HIST_BUCKETS; i++)
        a->counts[i] += b->counts[i];
}

uint64_t rtg_hist_quantile(const struct rtg_hist *h, double q, uint64_t observed_max)
{
    if (h->total == 0)
        return 0;
    double want = q * (double)h->total;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want)
        rank++;
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < RTG_HIST_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t v = rtg_hist_bucket_high(i) - 1;
            return v < observed_max ? v : observed_max;
        }
    }
    return observed_max; /* the sample is in the overflow bucket */
}
