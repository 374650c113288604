/* CLK-P-DUR's analysis of the gaps in its clock-reading loop
 * (core/catalogue/clk/clk_gaps.c, unit-tested in core/unit/test_clk_gaps.c):
 * gap classification, the periodic sources among the gaps and which one is
 * the tick. No OS calls. */
#ifndef RTG_CLK_GAPS_H
#define RTG_CLK_GAPS_H
#include <stddef.h>
#include <stdint.h>

/* ---- CLK-P-DUR: what a gap in the clock-reading loop is ---- */
enum rtg_gap_kind { RTG_GAP_NONE, RTG_GAP_KERNEL, RTG_GAP_THROTTLE };
/* Below threshold: none; at or above throttle_ns: RT throttling; else the
 * kernel (tick, interrupts, softirqs) took the CPU. */
enum rtg_gap_kind rtg_gap_classify(uint64_t gap_ns, uint64_t threshold_ns, uint64_t throttle_ns);
/* Median of v[0..n) (sorts v in place); 0 when n == 0. */
uint64_t rtg_median_u64(uint64_t *v, size_t n);
/* How many gaps the kept arrays must hold before a burst of burst_ticks
 * clock ticks: the kept ones and every gap the burst can hold (each lasts
 * more than threshold_ticks, and all but the last lie apart inside the
 * burst: burst / (threshold + 1) + 1), rounded up to whole steps, at most
 * cap. With that room no gap of the burst is lost whatever the system
 * does. */
size_t rtg_gaps_room(size_t kept, uint64_t burst_ticks, uint64_t threshold_ticks, size_t step,
                     size_t cap);

/* ---- CLK-P-DUR: the strongest periodic component among the gaps ---- */
/* at[0..n): gap times in ns, increasing. The period in [min_p, max_p] that
 * most gap pairs are apart (separations binned bin_ns wide, a bin and its
 * neighbours summed); of the peaks six standard deviations above the
 * median bin and at least 60 % of the highest (above that background), the
 * shortest (the fundamental, not a multiple), refined to the mean of the
 * pair separations near it. 0 when no peak stands out. */
struct rtg_tick_peak {
    uint64_t peak;       /* pairs in the highest (smoothed) bin */
    uint64_t peak_at_ns; /* where it is */
    uint64_t median;     /* pairs in the median bin: the background */
};
uint64_t rtg_tick_period(const uint64_t *at, size_t n, uint64_t min_p, uint64_t max_p,
                         uint64_t bin_ns, struct rtg_tick_peak *why);

/* ---- CLK-P-DUR: every periodic component, and which one is the tick ---- */
struct rtg_periodic_search {
    uint64_t min_p, max_p; /* periods searched */
    uint64_t bin_ns;       /* separation bins (rtg_tick_period) */
    uint64_t tol_ns;       /* a gap of a component: another one period +- this away */
};
struct rtg_periodic {
    uint64_t period_ns;
    size_t gaps;              /* the gaps that belong to it */
    size_t occurrences;       /* a gap starting within tol of the last one's end: the same */
    uint64_t cost_ns;         /* busy_ns / occurrences: the cost of one */
    uint64_t busy_ns;         /* their total duration */
    struct rtg_tick_peak why; /* the search's evidence for it */
};
/* Every periodic source among n gaps (at: times, increasing; dur: their
 * durations), strongest first: the period search runs on the gaps no
 * component has claimed yet, the gaps of the period it finds are claimed,
 * and the search runs again on the rest, until no period stands out or max
 * components are found. owner[i]: the component gap i belongs to, or -1.
 * Returns how many were found. Pure: no OS call. */
size_t rtg_periodic_find(const uint64_t *at, const uint64_t *dur, size_t n,
                         const struct rtg_periodic_search *s, struct rtg_periodic *out, size_t max,
                         int *owner);
/* The component whose rate (1e9 / period) lies within tol (a fraction) of
 * hz, the closest one if several do; -1 when none does or hz is unknown
 * (<= 0). The tick is the kernel's HZ, not merely the strongest period. */
int rtg_periodic_tick(const struct rtg_periodic *c, size_t n, double hz, double tol);

#endif
