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

uint64_t rtg_tick_period(const uint64_t *at, size_t n, uint64_t min_p, uint64_t max_p,
                         uint64_t bin_ns, struct rtg_tick_peak *why)
{
    if (why)
        *why = (struct rtg_tick_peak){0, 0, 0};
    if (n < 3 || !bin_ns || max_p <= min_p)
        return 0;
    size_t nb = (size_t)(max_p / bin_ns) + 2;
    uint64_t *c = calloc(nb, sizeof *c), *sm = calloc(nb, sizeof *sm), *tmp = calloc(nb, sizeof *tmp);
    if (!c || !sm || !tmp) {
        free(c);
        free(sm);
        free(tmp);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && at[j] - at[i] <= max_p; j++)
            c[(at[j] - at[i]) / bin_ns]++;
    size_t lo = (size_t)(min_p / bin_ns), hi = (size_t)(max_p / bin_ns);
    if (lo < 1)
        lo = 1;
    uint64_t best = 0, best_b = 0;
    for (size_t b = lo; b <= hi && b + 1 < nb; b++) {
        sm[b] = c[b - 1] + c[b] + c[b + 1];
        if (sm[b] > best) {
            best = sm[b];
            best_b = b;
        }
    }
    size_t m = 0;
    for (size_t b = lo; b <= hi && b + 1 < nb; b++)
        tmp[m++] = sm[b];
    uint64_t med = rtg_median_u64(tmp, m);
    uint64_t period = 0;
    if (why)
        *why = (struct rtg_tick_peak){best, (uint64_t)(((double)best_b + 0.5) * (double)bin_ns), med};
    if (best >= 8 && best >= 4 * med) {
        for (size_t b = lo; b <= hi && b + 1 < nb; b++) {
            bool peak = sm[b] >= sm[b - 1] && sm[b] >= sm[b + 1];
            if (peak && sm[b] * 10 >= best * 6) {
                uint64_t w = c[b - 1] + c[b] + c[b + 1];
                double centre = ((double)(b - 1) * (double)c[b - 1] + (double)b * (double)c[b] +
                                 (double)(b + 1) * (double)c[b + 1]) / (double)w;
                period = (uint64_t)((centre + 0.5) * (double)bin_ns);
                break;
            }
        }
    }
    free(c);
    free(sm);
    free(tmp);
    return period;
}

size_t rtg_tick_mark(const uint64_t *at, size_t n, uint64_t period, uint64_t tol, bool *is_tick)
{
    size_t marked = 0;
    for (size_t i = 0; i < n; i++)
        is_tick[i] = false;
    if (!period)
        return 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n && at[j] - at[i] <= period + tol; j++) {
            if (at[j] - at[i] + tol >= period) {
                marked += !is_tick[i] + !is_tick[j];
                is_tick[i] = is_tick[j] = true;
            }
        }
    }
    return marked;
}
