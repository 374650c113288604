/* SMP verdicts from hand-made evidence: what must pass and what must fail. */
#include "smp/smp_verdicts.h"
#include "unit.h"

#define US 1000u

int main(void)
{
    /* Two CPUs, three threads woken at 0: ranks 0 and 1 run at once, rank 2
     * waits until rank 0 ends at 100 us, then runs: global scheduling. */
    struct rtg_smp_span s0[] = {{0, 100 * US}};
    struct rtg_smp_span s1[] = {{2 * US, 150 * US}};
    struct rtg_smp_span s2[] = {{105 * US, 200 * US}};
    struct rtg_smp_thread good[] = {{0, 0, s0, 1}, {1, 0, s1, 1}, {2, 0, s2, 1}};
    int who = 7;
    uint64_t w = rtg_smp_worst_wait(good, 3, 2, &who);
    CHECK(w == 5 * US); /* rank 2 between 100 and 105 us (a CPU was free) */
    CHECK(rtg_smp_round_ok(w, 50 * US));

    /* All pinned to one CPU: rank 1 waits the whole of rank 0's run while
     * the second CPU idles. */
    struct rtg_smp_span p1[] = {{100 * US, 200 * US}};
    struct rtg_smp_span p2[] = {{200 * US, 300 * US}};
    struct rtg_smp_thread pinned[] = {{0, 0, s0, 1}, {1, 0, p1, 1}, {2, 0, p2, 1}};
    w = rtg_smp_worst_wait(pinned, 3, 2, &who);
    CHECK(w >= 100 * US);
    CHECK(who == 1 || who == 2);
    CHECK(!rtg_smp_round_ok(w, 50 * US));

    /* A lower thread runs while a higher one waits (priority inversion
     * across CPUs): rank 1 preempted between 50 and 120 us while rank 2 ran. */
    struct rtg_smp_span i1[] = {{0, 50 * US}, {120 * US, 170 * US}};
    struct rtg_smp_span i2[] = {{50 * US, 120 * US}};
    struct rtg_smp_thread inverted[] = {{0, 0, s0, 1}, {1, 0, i1, 2}, {2, 0, i2, 1}};
    w = rtg_smp_worst_wait(inverted, 3, 2, &who);
    CHECK(who == 1);
    CHECK(w >= 50 * US);
    CHECK(!rtg_smp_round_ok(w, 10 * US));

    /* On one CPU, one thread at a time by priority is right. */
    struct rtg_smp_thread one_cpu[] = {{0, 0, s0, 1}, {1, 0, p1, 1}};
    CHECK(rtg_smp_worst_wait(one_cpu, 2, 1, &who) == 0);
    CHECK(who == -1);
    return unit_report("test_smp_verdicts");
}
