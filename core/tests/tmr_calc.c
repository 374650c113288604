/* Pure helpers of the TMR / CLK / IRQ tests; see rtg/tmr_calc.h. */
#include "rtg/tmr_calc.h"

#include <stdlib.h>

void rtg_win_init(struct rtg_win_series *s, uint64_t *buf, size_t n, uint64_t window_ns)
{
    s->window_ns = window_ns ? window_ns : 1;
    s->n = buf ? n : 0;
    s->max = buf;
    s->dropped = 0;
    for (size_t i = 0; i < s->n; i++)
        buf[i] = RTG_WIN_EMPTY;
}

void rtg_win_add(struct rtg_win_series *s, uint64_t t_ns, uint64_t v)
{
    uint64_t i = t_ns / s->window_ns;
    if (i >= s->n) {
        s->dropped++;
        return;
    }
    if (v == RTG_WIN_EMPTY)
        v = RTG_WIN_EMPTY - 1;
    if (s->max[i] == RTG_WIN_EMPTY || v > s->max[i])
        s->max[i] = v;
}

enum rtg_gap_kind rtg_gap_classify(uint64_t gap_ns, uint64_t threshold_ns, uint64_t throttle_ns)
{
    if (gap_ns < threshold_ns)
        return RTG_GAP_NONE;
    if (throttle_ns && gap_ns >= throttle_ns)
        return RTG_GAP_THROTTLE;
    return RTG_GAP_KERNEL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t rtg_median_u64(uint64_t *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] % 2 + v[n / 2] % 2) / 2;
}

uint64_t rtg_sus_next_period(uint64_t p, uint64_t min_ns)
{
    /* mantissa 1, 2 or 5 times a power of ten (ns) */
    uint64_t dec = 1;
    while (dec * 10 <= p)
        dec *= 10;
    uint64_t m = p / dec, next;
    if (m >= 5)
        next = 2 * dec;
    else if (m >= 2)
        next = dec;
    else
        next = dec / 2; /* 1 -> 0.5 of the decade: 5 x dec/10 */
    if (next < min_ns || next == 0)
        return 0;
    return next;
}

uint64_t rtg_sus_misses(uint64_t expirations, uint64_t late_ns, uint64_t period_ns)
{
    if (expirations > 1)
        return expirations - 1;
    return late_ns > period_ns ? 1 : 0;
}
