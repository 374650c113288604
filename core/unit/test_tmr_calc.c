/* The pure helpers of the TMR tests (tmr/tmr_calc.h, tmr/tmr_wake.h) on
 * hand-made data. */
#include "tmr/tmr_calc.h"
#include "tmr/tmr_wake.h"
#include "unit.h"

static void windows(void)
{
    uint64_t buf[4];
    struct rtg_win_series s;
    rtg_win_init(&s, buf, 4, 100);
    CHECK_EQ_U(buf[0], RTG_WIN_EMPTY);
    rtg_win_add(&s, 0, 5);
    rtg_win_add(&s, 99, 7);  /* same window: the maximum stays */
    rtg_win_add(&s, 50, 3);
    rtg_win_add(&s, 100, 1); /* the next window */
    rtg_win_add(&s, 399, 9);
    rtg_win_add(&s, 400, 9); /* past the end: counted as dropped */
    CHECK_EQ_U(buf[0], 7);
    CHECK_EQ_U(buf[1], 1);
    CHECK_EQ_U(buf[2], RTG_WIN_EMPTY); /* no sample: stays empty */
    CHECK_EQ_U(buf[3], 9);
    CHECK_EQ_U(s.dropped, 1);
    rtg_win_add(&s, 0, RTG_WIN_EMPTY); /* the sentinel is never a value */
    CHECK(buf[0] != RTG_WIN_EMPTY);
}

static void sus(void)
{
    uint64_t p = 1000000, seen[16];
    size_t n = 0;
    while (p && n < 16) {
        seen[n++] = p;
        p = rtg_sus_next_period(p, 1000);
    }
    uint64_t want[] = {1000000, 500000, 200000, 100000, 50000, 20000, 10000, 5000, 2000, 1000};
    CHECK_EQ_U(n, 10);
    for (size_t i = 0; i < 10 && i < n; i++)
        CHECK_EQ_U(seen[i], want[i]);
    CHECK_EQ_U(rtg_sus_next_period(1000, 1000), 0);
    /* misses: overrun counts, a late wake-up without overrun counts once */
    CHECK_EQ_U(rtg_sus_misses(1, 10, 1000), 0);
    CHECK_EQ_U(rtg_sus_misses(1, 1000, 1000), 0);
    CHECK_EQ_U(rtg_sus_misses(1, 1001, 1000), 1);
    CHECK_EQ_U(rtg_sus_misses(3, 0, 1000), 2);
}

static void variants(void)
{
    CHECK_EQ_U(rtg_wake_parse("clock_nanosleep"), RTG_WAKE_CLOCK_NANOSLEEP);
    CHECK_EQ_U(rtg_wake_parse("poll"), RTG_WAKE_POLL);
    CHECK(rtg_wake_parse("epoll") == -1);
    for (int v = 0; v < RTG_WAKE_VARIANTS; v++)
        CHECK_EQ_U(rtg_wake_parse(rtg_wake_name((enum rtg_wake_variant)v)), v);
}

int main(void)
{
    windows();
    sus();
    variants();
    return unit_report("tmr_calc");
}
