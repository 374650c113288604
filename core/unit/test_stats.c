/* Statistics against numbers worked out by hand. */
#include "rtg/stats.h"
#include "unit.h"

int main(void)
{
    struct rtg_stats s;
    rtg_stats_init(&s);
    CHECK_EQ_U(s.count, 0);
    CHECK_NEAR(rtg_stats_stddev(&s), 0.0, 0);

    /* 2 4 4 4 5 5 7 9: mean 5, sample variance 32/7 */
    const uint64_t v[] = {2, 4, 4, 4, 5, 5, 7, 9};
    for (int i = 0; i < 8; i++)
        rtg_stats_add(&s, v[i], (uint64_t)i * 10);
    CHECK_EQ_U(s.count, 8);
    CHECK_EQ_U(s.min, 2);
    CHECK_EQ_U(s.max, 9);
    CHECK_NEAR(s.mean, 5.0, 1e-12);
    CHECK_NEAR(rtg_stats_stddev(&s), 2.138089935299395, 1e-12);
    CHECK_EQ_U(s.worst_at_ns, 70);

    /* The first of equal maxima keeps its time. */
    rtg_stats_add(&s, 9, 999);
    CHECK_EQ_U(s.worst_at_ns, 70);

    /* Merging two halves equals adding everything to one. */
    struct rtg_stats a, b, all;
    rtg_stats_init(&a);
    rtg_stats_init(&b);
    rtg_stats_init(&all);
    for (uint64_t i = 1; i <= 100; i++) {
        rtg_stats_add(i <= 30 ? &a : &b, i * i, i);
        rtg_stats_add(&all, i * i, i);
    }
    rtg_stats_merge(&a, &b);
    CHECK_EQ_U(a.count, 100);
    CHECK_EQ_U(a.min, 1);
    CHECK_EQ_U(a.max, 10000);
    CHECK_EQ_U(a.worst_at_ns, 100);
    CHECK_NEAR(a.mean, 3383.5, 1e-9);
    CHECK_NEAR(rtg_stats_stddev(&a), rtg_stats_stddev(&all), 1e-6);

    /* Merging into an empty one copies. */
    struct rtg_stats e;
    rtg_stats_init(&e);
    rtg_stats_merge(&e, &all);
    CHECK_EQ_U(e.count, 100);
    CHECK_NEAR(e.mean, 3383.5, 1e-9);

    /* A single sample: stddev 0, min == max. */
    struct rtg_stats one;
    rtg_stats_init(&one);
    rtg_stats_add(&one, 42, 5);
    CHECK_EQ_U(one.min, 42);
    CHECK_EQ_U(one.max, 42);
    CHECK_NEAR(rtg_stats_stddev(&one), 0.0, 0);
    return unit_report("stats");
}
