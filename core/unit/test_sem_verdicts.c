/* SEM verdicts from hand-made evidence: what must pass and what must fail. */
#include "sem/sem_verdicts.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

int main(void)
{
    /* P on a free semaphore: judged by its time against a blocking P's */
    const uint64_t blocking_p = 20100000; /* a P that timed out after 20 ms */
    struct rtg_sem_p_obs fast = {true, 900}, slow = {true, 20050000};
    CHECK(rtg_sem_p_did_not_block(fast, blocking_p));
    CHECK(!rtg_sem_p_did_not_block(slow, blocking_p));                      /* blocked, then got it */
    CHECK(!rtg_sem_p_did_not_block((struct rtg_sem_p_obs){true, 10050000}, blocking_p)); /* half */
    CHECK(!rtg_sem_p_did_not_block((struct rtg_sem_p_obs){false, 900}, blocking_p)); /* failed */
    CHECK(!rtg_sem_p_did_not_block(fast, 0)); /* no blocking P seen: cannot tell */

    /* P on zero blocks until its timeout */
    CHECK(rtg_sem_p_zero_blocks(true, 20000100, 20000000));
    CHECK(!rtg_sem_p_zero_blocks(false, 50, 20000000));       /* returned at once */
    CHECK(!rtg_sem_p_zero_blocks(true, 19000000, 20000000));  /* returned early */
    CHECK(!rtg_sem_p_zero_blocks(true, 5, 0));

    /* V increments: after two V, two P get through at once, the third blocks */
    struct rtg_sem_p_obs timed_out = {false, 20080000};
    const struct rtg_sem_p_obs two[3] = {fast, fast, timed_out};
    const struct rtg_sem_p_obs one[3] = {fast, timed_out, timed_out};  /* a V lost */
    const struct rtg_sem_p_obs three[3] = {fast, fast, fast};          /* a V counted twice */
    const struct rtg_sem_p_obs late[3] = {fast, slow, timed_out};      /* second P had to wait */
    CHECK(rtg_sem_v_increments(two, blocking_p));
    CHECK(!rtg_sem_v_increments(one, blocking_p));
    CHECK(!rtg_sem_v_increments(three, blocking_p));
    CHECK(!rtg_sem_v_increments(late, blocking_p));
    CHECK(!rtg_sem_v_increments(two, 0));

    /* V on zero with a waiter */
    CHECK(rtg_sem_wake_order_ok("bpwr", true));
    CHECK(rtg_sem_wake_order_ok("bprw", false));
    CHECK(!rtg_sem_wake_order_ok("bprw", true));  /* higher waiter ran late: no preemption */
    CHECK(!rtg_sem_wake_order_ok("bpwr", false)); /* lower waiter preempted the poster */
    CHECK(!rtg_sem_wake_order_ok("pbwr", true));  /* V came before the waiter blocked */
    CHECK(!rtg_sem_wake_order_ok("bprt", false)); /* waiter timed out: V lost */
    CHECK(!rtg_sem_wake_order_ok("bpr", false));  /* waiter never ran */
    CHECK(!rtg_sem_wake_order_ok(NULL, true));

    /* Release order */
    size_t bad;
    const int blocked[] = {93, 89, 91, 87, 90, 88, 92, 94};
    const int good[] = {94, 93, 92, 91, 90, 89, 88, 87};
    CHECK_EQ_U(rtg_sem_rel_check(blocked, N(blocked), good, N(good), &bad), RTG_SEM_REL_OK);
    /* FIFO release (what SCHED_OTHER waiters get): wrong at once */
    CHECK_EQ_U(rtg_sem_rel_check(blocked, N(blocked), blocked, N(blocked), &bad),
               RTG_SEM_REL_WRONG_ORDER);
    CHECK_EQ_U(bad, 0);
    /* one swap in the middle */
    const int swapped[] = {94, 93, 92, 90, 91, 89, 88, 87};
    CHECK_EQ_U(rtg_sem_rel_check(blocked, N(blocked), swapped, N(swapped), &bad),
               RTG_SEM_REL_WRONG_ORDER);
    CHECK_EQ_U(bad, 3);
    /* a waiter released twice, one never */
    const int twice[] = {94, 94, 92, 91, 90, 89, 88, 87};
    CHECK_EQ_U(rtg_sem_rel_check(blocked, N(blocked), twice, N(twice), &bad),
               RTG_SEM_REL_WRONG_ORDER);
    CHECK_EQ_U(bad, 1);
    /* a priority that never blocked */
    const int stranger[] = {99, 94, 93, 92, 91, 90, 89, 88};
    CHECK_EQ_U(rtg_sem_rel_check(blocked, N(blocked), stranger, N(stranger), &bad),
               RTG_SEM_REL_WRONG_ORDER);
    /* more releases than waiters */
    const int extra[] = {94, 93, 92, 91, 90, 89, 88, 87, 87};
    CHECK_EQ_U(rtg_sem_rel_check(blocked, N(blocked), extra, N(extra), &bad),
               RTG_SEM_REL_WRONG_ORDER);
    /* a waiter missing (timed out) */
    CHECK_EQ_U(rtg_sem_rel_check(blocked, N(blocked), good, 7, &bad), RTG_SEM_REL_MISSING);
    CHECK_EQ_U(rtg_sem_rel_check(blocked, N(blocked), good, 0, &bad), RTG_SEM_REL_MISSING);
    /* a blocking order that is already sorted proves nothing: LIFO or FIFO
     * queues would pass it */
    const int desc[] = {94, 93, 92, 91};
    const int asc[] = {91, 92, 93, 94};
    CHECK_EQ_U(rtg_sem_rel_check(desc, N(desc), desc, N(desc), &bad), RTG_SEM_REL_NOT_SCRAMBLED);
    CHECK_EQ_U(rtg_sem_rel_check(asc, N(asc), desc, N(desc), &bad), RTG_SEM_REL_NOT_SCRAMBLED);
    CHECK_EQ_U(rtg_sem_rel_check(desc, 2, desc, 2, &bad), RTG_SEM_REL_NOT_SCRAMBLED);
    CHECK_STR(rtg_sem_rel_result_name(RTG_SEM_REL_OK), "released by decreasing priority");
    return unit_report("test_sem_verdicts");
}
