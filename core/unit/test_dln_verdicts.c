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
    CHECK(rtg_dln_run_ok(50, 50, 1, 0, 0));
    CHECK(!rtg_dln_run_ok(50, 50, 1, 1, 0));
    CHECK(!rtg_dln_run_ok(49, 50, 1, 0, 0));
    CHECK(!rtg_dln_run_ok(0, 0, 1, 0, 0));
    /* Misses while the hypervisor stole time are the machine's... */
    CHECK(rtg_dln_run_ok(50, 50, 1, 2, 2));
    CHECK(rtg_dln_run_ok(50, 50, 1, 5, 5));
    /* ...but one miss without steal fails, and so does a machine that
     * paused in more than a tenth of the periods (overrun control: every
     * period missed, some of them in a pause). */
    CHECK(!rtg_dln_run_ok(50, 50, 1, 3, 2));
    CHECK(!rtg_dln_run_ok(50, 50, 1, 6, 6));
    CHECK(!rtg_dln_run_ok(50, 50, 1, 50, 4));
    CHECK(!rtg_dln_run_ok(50, 50, 1, 1, 2)); /* inconsistent evidence */
    /* Two tasks, ten periods each: one pause misses a period of both. */
    CHECK(rtg_dln_run_ok(10, 10, 2, 2, 2));
    CHECK(!rtg_dln_run_ok(10, 10, 2, 3, 3));
    CHECK(!rtg_dln_run_ok(10, 10, 0, 0, 0));
    return unit_report("test_dln_verdicts");
}
