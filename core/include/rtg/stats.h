/* Streaming statistics: Welford mean/variance, extremes, time of the worst. */
#ifndef RTG_STATS_H
#define RTG_STATS_H
#include <stdint.h>

struct rtg_stats {
    uint64_t count;
    uint64_t min;
    uint64_t max;
    double mean;
    double m2;            /* sum of squared distances from the mean */
    uint64_t worst_at_ns; /* when the max was seen, from the test's start */
};

void rtg_stats_init(struct rtg_stats *s);
void rtg_stats_add(struct rtg_stats *s, uint64_t value, uint64_t at_ns);
/* Combine b into a (Chan et al. parallel variance); the later max wins ties. */
void rtg_stats_merge(struct rtg_stats *a, const struct rtg_stats *b);
/* Sample standard deviation; 0 for fewer than two samples. */
double rtg_stats_stddev(const struct rtg_stats *s);

#endif
