/* Pure helpers of the TMR tests (core/catalogue/tmr/tmr_calc.c, unit-tested
 * in core/unit/test_tmr_calc.c): the windowed-maximum series of TMR-P-LOAD,
 * the period ladder of TMR-S-SUS. No OS calls. */
#ifndef RTG_TMR_CALC_H
#define RTG_TMR_CALC_H
#include <stddef.h>
#include <stdint.h>

/* ---- latency over time: the maximum per window ---- */
#define RTG_WIN_EMPTY UINT64_MAX
struct rtg_win_series {
    uint64_t window_ns;
    size_t n;       /* windows available */
    uint64_t *max;  /* n entries, RTG_WIN_EMPTY where no sample fell */
    uint64_t dropped; /* samples past the last window */
};
/* buf: n entries owned by the caller. */
void rtg_win_init(struct rtg_win_series *s, uint64_t *buf, size_t n, uint64_t window_ns);
/* A sample of value v taken at t_ns (from the series' origin). */
void rtg_win_add(struct rtg_win_series *s, uint64_t t_ns, uint64_t v);

/* ---- TMR-S-SUS ---- */
/* The next period to try below period_ns on the 1-2-5 ladder (1 ms,
 * 500 us, 200 us, 100 us, ... 1 us); 0 when below min_ns. */
uint64_t rtg_sus_next_period(uint64_t period_ns, uint64_t min_ns);
/* Missed expiries of one wake-up: the expiries beyond the first it
 * accounts for (overrun, timerfd count > 1), or 1 when the wake-up came
 * later than one period after its expiry and no overrun says so. */
uint64_t rtg_sus_misses(uint64_t expirations, uint64_t late_ns, uint64_t period_ns);

#endif
