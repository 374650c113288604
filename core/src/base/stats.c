#include "rtg/stats.h"

#include <math.h>

void rtg_stats_init(struct rtg_stats *s)
{
    s->count = 0;
    s->min = UINT64_MAX;
    s->max = 0;
    s->mean = 0.0;
    s->m2 = 0.0;
    s->worst_at_ns = 0;
}

void rtg_stats_add(struct rtg_stats *s, uint64_t value, uint64_t at_ns)
{
    s->count++;
    if (value < s->min)
        s->min = value;
    if (value > s->max || s->count == 1) {
        s->max = value;
        s->worst_at_ns = at_ns;
    }
    double x = (double)value;
    double delta = x - s->mean;
    s->mean += delta / (double)s->count;
    s->m2 += delta * (x - s->mean);
}

void rtg_stats_merge(struct rtg_stats *a, const struct rtg_stats *b)
{
    if (b->count == 0)
        return;
    if (a->count == 0) {
        *a = *b;
        return;
    }
    double na = (double)a->count, nb = (double)b->count, n = na + nb;
    double delta = b->mean - a->mean;
    a->mean += delta * nb / n;
    a->m2 += b->m2 + delta * delta * na * nb / n;
    a->count += b->count;
    if (b->min < a->min)
        a->min = b->min;
    if (b->max >= a->max) {
        a->max = b->max;
        a->worst_at_ns = b->worst_at_ns;
    }
}

double rtg_stats_stddev(const struct rtg_stats *s)
{
    if (s->count < 2)
        return 0.0;
    return sqrt(s->m2 / (double)(s->count - 1));
}
