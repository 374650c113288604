/* DLN verdicts from hand-made evidence: what must pass and what must fail. */
#include <errno.h>

#include "dln/dln_verdicts.h"
#include "unit.h"

#define MS 1000000u

int main(void)
{
    /* Two CPUs, seven tasks of 0.3: six admitted (1.8), the seventh refused. */
    struct rtg_dln_ask over[7];
    for (int i = 0; i < 7; i++)
        over[i] = (struct rtg_dln_ask){3 * MS, 10 * MS, i < 6 ? 0 : EBUSY};
    CHECK(rtg_dln_oversubscribed_refused(over, 7, 2));
    /* The control: a set that claims admission of all seven (2.1 > 2). */
    for (int i = 0; i < 7; i++)
        over[i].rc = 0;
    CHECK(!rtg_dln_oversubscribed_refused(over, 7, 2));
    /* Refused something, but admitted more than the CPUs hold. */
    struct rtg_dln_ask too_much[4] = {
        {9 * MS, 10 * MS, 0}, {9 * MS, 10 * MS, 0}, {9 * MS, 10 * MS, 0}, {9 * MS, 10 * MS, EBUSY}};
    CHECK(!rtg_dln_oversubscribed_refused(too_much, 4, 2));
    /* A set that is not over-subscribed proves nothing. */
    struct rtg_dln_ask small[2] = {{1 * MS, 10 * MS, 0}, {1 * MS, 10 * MS, EBUSY}};
    CHECK(!rtg_dln_oversubscribed_refused(small, 2, 2));

    /* Below capacity: all admitted passes, one refusal fails. */
    struct rtg_dln_ask below[2] = {{MS / 2, 10 * MS, 0}, {MS / 2, 10 * MS, 0}};
    CHECK(rtg_dln_below_admitted(below, 2, 1.9));
    below[1].rc = EBUSY;
    CHECK(!rtg_dln_below_admitted(below, 2, 1.9));
    CHECK(!rtg_dln_below_admitted(below, 0, 1.9));
    CHECK(!rtg_dln_below_admitted(over, 7, 1.9)); /* not below capacity */

    /* The run: every period, no miss. */
    struct rtg_steal_watch w = {.known = true, .stretches = 50};
    CHECK(rtg_dln_run_ok(50, 50, &w));
    CHECK(!rtg_dln_run_ok(49, 50, &w));
    CHECK(!rtg_dln_run_ok(0, 0, &w));
    struct rtg_steal_watch none = {.known = true};
    CHECK(!rtg_dln_run_ok(50, 50, &none));
    w.failed = 1;
    CHECK(!rtg_dln_run_ok(50, 50, &w));
    /* Misses while the hypervisor stole time are the machine's... */
    w.failed = w.in_steal = 5;
    CHECK(rtg_dln_run_ok(50, 50, &w));
    /* ...but one miss without steal fails, and so does a machine that
     * paused in more than a tenth of the periods. */
    w.failed = 6;
    CHECK(!rtg_dln_run_ok(50, 50, &w));
    w.in_steal = 6;
    CHECK(!rtg_dln_run_ok(50, 50, &w));
    /* The overrun control: every period missed, a few in a pause. */
    w.failed = 50;
    w.in_steal = 4;
    CHECK(!rtg_dln_run_ok(50, 50, &w));
    /* Two tasks of ten periods: one pause misses a period of each. */
    struct rtg_steal_watch a = {.known = true, .first = 7, .at = 9, .stretches = 10,
                                .failed = 1, .in_steal = 1};
    struct rtg_steal_watch b = {.known = true, .first = 5, .at = 9, .stretches = 10,
                                .failed = 1, .in_steal = 1};
    struct rtg_steal_watch sum = {.known = true};
    rtg_steal_watch_add(&sum, &a);
    rtg_steal_watch_add(&sum, &b);
    CHECK(sum.stretches == 20 && sum.first == 5 && sum.at == 9 && sum.in_steal == 2);
    CHECK(rtg_dln_run_ok(10, 10, &sum));
    /* One pause is tolerated in a short run, two are not. */
    struct rtg_steal_watch short_run = {.known = true, .stretches = 6, .failed = 1, .in_steal = 1};
    CHECK(rtg_dln_run_ok(6, 6, &short_run));
    short_run.failed = short_run.in_steal = 2;
    CHECK(!rtg_dln_run_ok(6, 6, &short_run));
    b.known = false;
    rtg_steal_watch_add(&sum, &b);
    CHECK(!sum.known);
    return unit_report("test_dln_verdicts");
}
