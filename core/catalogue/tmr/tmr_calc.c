/* Pure helpers of the TMR tests (tmr_calc.h): the windowed-maximum series
 * of TMR-P-LOAD, the period ladder of TMR-S-SUS. */
#include "tmr_calc.h"

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
