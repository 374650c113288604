/* CLK-P-DUR's analysis of the gaps in its clock-reading loop (clk_gaps.h):
 * what a gap is, and the periodic sources among them. Pure: no OS call. */
#include "clk_gaps.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

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

size_t rtg_gaps_room(size_t kept, uint64_t burst_ticks, uint64_t threshold_ticks, size_t step,
                     size_t cap)
{
    uint64_t need = (uint64_t)kept + burst_ticks / (threshold_ticks + 1) + 1;
    if (step > 1)
        need = (need + step - 1) / step * step;
    return need < cap ? (size_t)need : cap;
}

/* The mean of the pair separations within win of period: the bins' centre
 * is up to half a bin off (10 us), as much as a claimed gap may be. */
static uint64_t refine(const uint64_t *at, size_t n, uint64_t period, uint64_t win)
{
    double sum = 0;
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && at[j] - at[i] <= period + win; j++)
            if (at[j] - at[i] + win >= period) {
                sum += (double)(at[j] - at[i]);
                k++;
            }
    return k ? (uint64_t)(sum / (double)k + 0.5) : period;
}

/* The periods that stand out, shortest first (the fundamental before its
 * multiples), at most max of them; rtg_tick_period is the first. */
static size_t candidates(const uint64_t *at, size_t n, uint64_t min_p, uint64_t max_p,
                         uint64_t bin_ns, struct rtg_tick_peak *why, uint64_t *out, size_t max)
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
    size_t found = 0;
    if (why)
        *why = (struct rtg_tick_peak){best, (uint64_t)(((double)best_b + 0.5) * (double)bin_ns), med};
    /* A peak stands out six standard deviations above the background (pair
     * counts per bin are near Poisson). A fixed ratio to the background
     * (4x before) missed the tick under dense noise, whose background grows
     * with the square of the gap rate (2500 gaps/s: 3x; 9000 gaps/s: 1.2x). */
    double sd6 = 6.0 * sqrt((double)med);
    if (best >= 8) {
        for (size_t b = lo; b <= hi && b + 1 < nb && found < max; b++) {
            bool peak = sm[b] >= sm[b - 1] && sm[b] > sm[b + 1];
            /* 60 % of the highest, both above the background (under dense
             * noise the background alone is 60 % of the highest), and
             * standing out itself */
            if (peak && (double)sm[b] >= (double)med + sd6 &&
                (sm[b] - med) * 10 >= (best - med) * 6) {
                uint64_t w = c[b - 1] + c[b] + c[b + 1];
                double centre = ((double)(b - 1) * (double)c[b - 1] + (double)b * (double)c[b] +
                                 (double)(b + 1) * (double)c[b + 1]) / (double)w;
                uint64_t period = (uint64_t)((centre + 0.5) * (double)bin_ns);
                for (uint64_t win = bin_ns; win >= bin_ns / 4 && win; win /= 2)
                    period = refine(at, n, period, win); /* narrowing: noise pairs weigh less */
                out[found++] = period;
            }
        }
    }
    free(c);
    free(sm);
    free(tmp);
    return found;
}

uint64_t rtg_tick_period(const uint64_t *at, size_t n, uint64_t min_p, uint64_t max_p,
                         uint64_t bin_ns, struct rtg_tick_peak *why)
{
    uint64_t p = 0;
    return candidates(at, n, min_p, max_p, bin_ns, why, &p, 1) ? p : 0;
}

/* How many of m gaps spread over span ns would sit in a chain of three by
 * chance (each next one within +-tol of one period on), plus six standard
 * deviations: under dense noise a chain is no evidence by itself. */
static double by_chance(size_t m, uint64_t span, uint64_t tol)
{
    if (!span)
        return 0;
    double p1 = (double)m * (double)(2 * tol) / (double)span; /* a gap in the window */
    double expect = (double)m * (p1 > 1 ? 1 : p1 * p1);
    return expect + 6.0 * sqrt(expect);
}

/* Marks the gaps in a chain of at least three, each one period +- tol
 * after the one before: a pair that happens to lie one period apart (two
 * noise gaps, or leftovers of another source whose multiple is near this
 * period) is not claimed. next[] is scratch. Returns how many. */
static size_t chain_mark(const uint64_t *at, size_t n, uint64_t period, uint64_t tol, size_t *next,
                         bool *mark)
{
    for (size_t i = 0; i < n; i++) {
        mark[i] = false;
        next[i] = SIZE_MAX;
        for (size_t j = i + 1; j < n && at[j] - at[i] <= period + tol; j++)
            if (at[j] - at[i] + tol >= period) {
                next[i] = j;
                break;
            }
    }
    size_t marked = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = next[i];
        if (j == SIZE_MAX || next[j] == SIZE_MAX)
            continue;
        size_t chain[3] = {i, j, next[j]};
        for (size_t k = 0; k < 3; k++)
            if (!mark[chain[k]]) {
                mark[chain[k]] = true;
                marked++;
            }
    }
    return marked;
}

size_t rtg_periodic_find(const uint64_t *at, const uint64_t *dur, size_t n,
                         const struct rtg_periodic_search *s, struct rtg_periodic *out, size_t max,
                         int *owner)
{
    for (size_t i = 0; i < n; i++)
        owner[i] = -1;
    uint64_t *rest = calloc(n ? n : 1, sizeof *rest);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    size_t *next = malloc((n ? n : 1) * sizeof *next);
    bool *mark = malloc((n ? n : 1) * sizeof *mark);
    size_t found = 0;
    while (rest && idx && next && mark && found < max) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (owner[i] < 0) {
                rest[m] = at[i];
                idx[m++] = i;
            }
        struct rtg_tick_peak why;
        uint64_t cand[8], p = 0;
        size_t nc = candidates(rest, m, s->min_p, s->max_p, s->bin_ns, &why, cand, 8);
        /* A source shows in at least a tenth of its periods over the span
         * of the gaps: fewer claimed ones are a chance alignment of noise
         * (or a smeared echo of a source claimed already): the next
         * candidate is tried; none left, the search ends. */
        uint64_t span = m ? rest[m - 1] - rest[0] : 0;
        for (size_t k = 0; k < nc && !p; k++) {
            size_t claimed = chain_mark(rest, m, cand[k], s->tol_ns, next, mark);
            if (claimed >= 3 && (double)claimed >= by_chance(m, span, s->tol_ns) +
                                                        (double)(span / cand[k]) / 10.0)
                p = cand[k];
        }
        if (!p)
            break;
        struct rtg_periodic *c = &out[found];
        *c = (struct rtg_periodic){.period_ns = p, .why = why};
        uint64_t last_end = 0;
        for (size_t j = 0; j < m; j++)
            if (mark[j]) {
                owner[idx[j]] = (int)found;
                /* a gap that begins within tol of the end of the one before
                 * is the same occurrence split in two (the interrupt, then
                 * its softirq) */
                c->occurrences += !c->gaps || rest[j] > last_end + s->tol_ns;
                last_end = rest[j] + dur[idx[j]];
                c->gaps++;
                c->busy_ns += dur[idx[j]];
            }
        c->cost_ns = c->busy_ns / c->occurrences;
        found++;
    }
    free(rest);
    free(idx);
    free(next);
    free(mark);
    return found;
}

int rtg_periodic_tick(const struct rtg_periodic *c, size_t n, double hz, double tol)
{
    int best = -1;
    double best_off = 0;
    for (size_t i = 0; hz > 0 && i < n; i++) {
        double off = fabs(1e9 / (double)c[i].period_ns - hz) / hz;
        if (off <= tol && (best < 0 || off < best_off)) {
            best = (int)i;
            best_off = off;
        }
    }
    return best;
}
