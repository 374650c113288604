/* CLK-P-DUR's gap analysis (clk/clk_gaps.h) on hand-made data: a tick
 * among noise is found, noise alone yields none. */
#include <stdlib.h>

#include "clk/clk_gaps.h"
#include "unit.h"

static void gaps(void)
{
    CHECK(rtg_gap_classify(999, 1000, 30000000) == RTG_GAP_NONE);
    CHECK(rtg_gap_classify(1000, 1000, 30000000) == RTG_GAP_KERNEL);
    CHECK(rtg_gap_classify(29999999, 1000, 30000000) == RTG_GAP_KERNEL);
    CHECK(rtg_gap_classify(50000000, 1000, 30000000) == RTG_GAP_THROTTLE);
    CHECK(rtg_gap_classify(50000000, 1000, 0) == RTG_GAP_KERNEL); /* no throttle class */
    uint64_t v[] = {9, 1, 5};
    CHECK_EQ_U(rtg_median_u64(v, 3), 5);
    uint64_t w[] = {4, 2};
    CHECK_EQ_U(rtg_median_u64(w, 2), 3);
    CHECK_EQ_U(rtg_median_u64(w, 0), 0);
}

/* The room CLK-P-DUR keeps before a burst: every gap the burst can hold,
 * the kept ones beside them, in whole steps, never above the cap. */
static void room(void)
{
    /* 200 ms of 1 ns ticks, gaps above 1000 ticks: at most 199 801 */
    CHECK_EQ_U(rtg_gaps_room(0, 200000000, 1000, 1, 1000000), 199801);
    CHECK_EQ_U(rtg_gaps_room(0, 200000000, 1000, 4096, 1000000), 200704); /* 49 steps */
    CHECK_EQ_U(rtg_gaps_room(7000, 200000000, 1000, 4096, 1000000), 208896);
    /* a burst as dense as it can be: every tick a gap */
    CHECK_EQ_U(rtg_gaps_room(0, 1000, 0, 1, 1000000), 1001);
    /* the cap wins (a board's heap, or MAX_KEPT) */
    CHECK_EQ_U(rtg_gaps_room(0, 200000000, 1000, 4096, 3000), 3000);
    CHECK_EQ_U(rtg_gaps_room(999000, 200000000, 1000, 4096, 1000000), 1000000);
    /* never below what one burst can hold beside the kept, whatever the
     * burst, threshold and step */
    for (uint64_t burst = 1; burst < 100000; burst = burst * 3 + 1)
        for (uint64_t thr = 0; thr < 50; thr = thr * 2 + 1) {
            size_t r = rtg_gaps_room(5, burst, thr, 64, (size_t)-1);
            CHECK(r >= 5 + burst / (thr + 1) + 1);
            CHECK(r % 64 == 0);
        }
}

/* A 4 ms tick among pseudo-random noise: the period is found, and the
 * noise alone (must fail) yields none. */
static void tick(void)
{
    enum { N = 3000 };
    uint64_t *at = malloc(N * sizeof *at);
    size_t n = 0;
    uint64_t x = 12345;
    for (uint64_t t = 0; t < 1000000000ull && n < N; t += 4000000) {
        at[n++] = t + (t % 3) * 1000; /* the tick, 0-2 us of jitter */
        for (int k = 0; k < 2 && n < N; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            at[n++] = t + 5000 + (x >> 33) % 3990000; /* noise within the period */
        }
    }
    /* increasing order within each period: the tick comes first; sort */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && at[j - 1] > at[j]; j--) {
            uint64_t tmp = at[j];
            at[j] = at[j - 1];
            at[j - 1] = tmp;
        }
    struct rtg_tick_peak why;
    uint64_t p = rtg_tick_period(at, n, 900000, 10500000, 20000, &why);
    CHECK(p > 3960000 && p < 4040000);
    CHECK(why.peak > 4 * why.median);

    /* noise only: no period */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (at[i] % 4000000 > 3000) /* drop the ticks */
            at[m++] = at[i];
    p = rtg_tick_period(at, m, 900000, 10500000, 20000, &why);
    CHECK_EQ_U(p, 0);

    /* a 1 ms tick: the fundamental, not its multiples */
    for (size_t i = 0; i < 500; i++)
        at[i] = i * 1000000;
    p = rtg_tick_period(at, 500, 900000, 10500000, 20000, NULL);
    CHECK(p >= 990000 && p <= 1010000); /* within half a bin */
    CHECK_EQ_U(rtg_tick_period(at, 2, 900000, 10500000, 20000, NULL), 0); /* too few */
    free(at);
}

static void sort_pairs(uint64_t *at, uint64_t *dur, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && at[j - 1] > at[j]; j--) {
            uint64_t t = at[j], d = dur[j];
            at[j] = at[j - 1];
            dur[j] = dur[j - 1];
            at[j - 1] = t;
            dur[j - 1] = d;
        }
}

/* Two periodic sources, as on a VM: a 1 kHz disturbance (15 us each) that
 * outnumbers the 250 Hz tick (30 us each), plus noise. Both are found, the
 * stronger first, each with its own cost; the tick is the one at HZ, not
 * the strongest; noise alone (must fail) gives no component. */
static void components(void)
{
    enum { N = 4000 };
    uint64_t *at = malloc(N * sizeof *at), *dur = malloc(N * sizeof *dur);
    int *owner = malloc(N * sizeof *owner);
    size_t n = 0;
    uint64_t x = 777;
    for (uint64_t t = 0; t < 1000000000ull; t += 1000000) {
        at[n] = t + 300000 + (t / 1000000 % 3) * 1000; /* 1 kHz, 0-2 us jitter */
        dur[n++] = 15000;
        if (t % 4000000 == 0) { /* the tick, 2.2 ms into its period */
            at[n] = t + 2200000 + (t / 4000000 % 2) * 1000;
            dur[n++] = 30000;
        }
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        at[n] = t + (x >> 33) % 1000000; /* one noise gap per ms */
        dur[n++] = 3000;
    }
    sort_pairs(at, dur, n);
    const struct rtg_periodic_search s = {900000, 10500000, 20000, 10000};
    struct rtg_periodic c[8];
    size_t nc = rtg_periodic_find(at, dur, n, &s, c, 8, owner);
    CHECK_EQ_U(nc, 2);
    CHECK(c[0].period_ns > 999000 && c[0].period_ns < 1001000);
    CHECK(c[0].gaps >= 950 && c[0].gaps <= 1050);
    CHECK(c[0].cost_ns >= 14000 && c[0].cost_ns <= 16000); /* a few noise gaps claimed by chance */
    CHECK(c[1].period_ns > 3996000 && c[1].period_ns < 4004000);
    CHECK(c[1].gaps >= 240 && c[1].gaps <= 260);
    CHECK(c[1].cost_ns >= 29000 && c[1].cost_ns <= 31000);
    CHECK(c[1].occurrences >= 240 && c[1].occurrences <= c[1].gaps);
    CHECK(rtg_periodic_tick(c, nc, 250, 0.05) == 1); /* CONFIG_HZ 250: the weaker one */
    CHECK(rtg_periodic_tick(c, nc, 1000, 0.05) == 0);
    CHECK(rtg_periodic_tick(c, nc, 275, 0.15) == 1); /* a measured HZ, a little high */
    CHECK(rtg_periodic_tick(c, nc, 100, 0.05) == -1); /* no component at HZ: none named */
    CHECK(rtg_periodic_tick(c, nc, 0, 0.05) == -1);   /* HZ unknown */
    size_t owned = 0;
    for (size_t i = 0; i < n; i++)
        owned += owner[i] == 1;
    CHECK_EQ_U(owned, c[1].gaps);

    /* noise only: nothing periodic */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (dur[i] == 3000) {
            at[m] = at[i];
            dur[m++] = dur[i];
        }
    CHECK_EQ_U(rtg_periodic_find(at, dur, m, &s, c, 8, owner), 0);
    CHECK(owner[0] == -1);
    free(at);
    free(dur);
    free(owner);
}

int main(void)
{
    gaps();
    room();
    tick();
    components();
    return unit_report("clk_gaps");
}
