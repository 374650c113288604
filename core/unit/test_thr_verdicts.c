/* THR verdicts fed with hand-made evidence: what a correct scheduler
 * produces must pass, and each kind of wrong behaviour must fail. */
#include "thr/thr_verdicts.h"
#include "unit.h"

#define MS 1000000ull

static void new_checks(void)
{
    /* Lower priority: runs only after the creator blocks. */
    CHECK(rtg_thr_new_ok("crbn", RTG_THR_NEW_LOWER));
    CHECK(!rtg_thr_new_ok("cnrb", RTG_THR_NEW_LOWER)); /* lower thread ran first */
    CHECK(!rtg_thr_new_ok("crnb", RTG_THR_NEW_LOWER)); /* ran while the creator ran */
    CHECK(!rtg_thr_new_ok("crb", RTG_THR_NEW_LOWER));  /* never ran */
    /* Same priority: tail of the queue, runs when the creator yields. */
    CHECK(rtg_thr_new_ok("crynY", RTG_THR_NEW_SAME_TAIL));
    CHECK(rtg_thr_new_ok("crynY", RTG_THR_NEW_SAME_YIELD));
    CHECK(!rtg_thr_new_ok("cnryY", RTG_THR_NEW_SAME_TAIL)); /* head / preempted */
    CHECK(!rtg_thr_new_ok("crnyY", RTG_THR_NEW_SAME_TAIL));
    CHECK(!rtg_thr_new_ok("cryYn", RTG_THR_NEW_SAME_YIELD)); /* yield did not hand over */
    CHECK(!rtg_thr_new_ok("cryY", RTG_THR_NEW_SAME_YIELD));
    /* Higher priority: runs before create returns. */
    CHECK(rtg_thr_new_ok("cnr", RTG_THR_NEW_HIGHER));
    CHECK(!rtg_thr_new_ok("crn", RTG_THR_NEW_HIGHER));
    CHECK(!rtg_thr_new_ok("", RTG_THR_NEW_HIGHER));
    CHECK(!rtg_thr_new_ok(NULL, RTG_THR_NEW_HIGHER));
}

static void prio_checks(void)
{
    CHECK(rtg_thr_wake_ok("pwr", true));
    CHECK(!rtg_thr_wake_ok("prw", true)); /* higher waiter did not preempt */
    CHECK(!rtg_thr_wake_ok("pr", true));
    CHECK(rtg_thr_wake_ok("prbw", false));
    CHECK(!rtg_thr_wake_ok("pwrb", false)); /* a lower-priority thread ran first */
    CHECK(!rtg_thr_wake_ok("prwb", false));

    CHECK_EQ_U(rtg_thr_lowered_position("lLbx"), RTG_THR_POS_HEAD);
    CHECK_EQ_U(rtg_thr_lowered_position("lxLb"), RTG_THR_POS_TAIL);
    CHECK_EQ_U(rtg_thr_lowered_position("lLb"), RTG_THR_POS_UNKNOWN);
    CHECK_EQ_U(rtg_thr_lowered_position("lLxb"), RTG_THR_POS_UNKNOWN);
    CHECK_EQ_U(rtg_thr_lowered_position("xlLb"), RTG_THR_POS_UNKNOWN);
    /* The verdict compares with the promised position: a FIFO ready
     * queue (tail) where the policy promises the head fails, and the
     * reverse; runs that disagree fail whatever the promise. */
    const char *tail[] = {"lxLb", "lxLb"}, *head[] = {"lLbx", "lLbx"}, *mixed[] = {"lLbx", "lxLb"};
    enum rtg_thr_queue_pos obs;
    CHECK(rtg_thr_lowered_ok(head, 2, RTG_THR_POS_HEAD, &obs));
    CHECK_EQ_U(obs, RTG_THR_POS_HEAD);
    CHECK(rtg_thr_lowered_ok(tail, 2, RTG_THR_POS_TAIL, &obs));
    CHECK(!rtg_thr_lowered_ok(tail, 2, RTG_THR_POS_HEAD, &obs));
    CHECK_EQ_U(obs, RTG_THR_POS_TAIL);
    CHECK(!rtg_thr_lowered_ok(head, 2, RTG_THR_POS_TAIL, &obs));
    CHECK(!rtg_thr_lowered_ok(mixed, 2, RTG_THR_POS_HEAD, &obs));
    CHECK_EQ_U(obs, RTG_THR_POS_UNKNOWN);
    CHECK(!rtg_thr_lowered_ok(mixed, 2, RTG_THR_POS_TAIL, NULL));
    CHECK(!rtg_thr_lowered_ok(head, 0, RTG_THR_POS_HEAD, NULL));
    CHECK_STR(rtg_thr_pos_name(RTG_THR_POS_HEAD), "head");
    CHECK_STR(rtg_thr_pos_name(RTG_THR_POS_TAIL), "tail");
}

static void rr_checks(void)
{
    /* Three threads, 100 ms slices, two rounds, out of order and with one
     * slice split by an interrupt: merged to six slices. */
    struct rtg_thr_slice s[] = {
        {1, 100 * MS, 200 * MS, 0}, {0, 0, 60 * MS, 0},        {0, 60 * MS + 20000, 100 * MS, 0},
        {2, 200 * MS, 300 * MS, 0}, {0, 300 * MS, 400 * MS, 0}, {1, 400 * MS, 500 * MS, 0},
        {2, 500 * MS, 600 * MS, 0},
    };
    size_t n = rtg_thr_rr_merge(s, sizeof s / sizeof s[0]);
    CHECK_EQ_U(n, 6);
    CHECK_EQ_U(s[0].thread, 0);
    CHECK_EQ_U(s[0].end_ns, 100 * MS);
    CHECK_EQ_U(s[0].run_ns, 100 * MS - 20000); /* the gap is not run time */
    struct rtg_thr_rr_summary sum;
    rtg_thr_rr_summarise(s, n, 3, &sum);
    CHECK_EQ_U(sum.n_full, 2); /* 3 first slices, the last one cut */
    CHECK_EQ_U(sum.median_slice_ns, 100 * MS);
    CHECK_EQ_U(sum.first_slice_ns[2], 100 * MS);
    CHECK(rtg_thr_rr_fair(&sum, 10));
    CHECK(rtg_thr_rr_slice_ok(&sum, 100 * MS, 10));
    CHECK(!rtg_thr_rr_slice_ok(&sum, 30 * MS, 10)); /* slice not the declared one */
    CHECK(!rtg_thr_rr_slice_ok(&sum, 0, 10));

    /* Unfair: thread 0 gets twice its share. */
    struct rtg_thr_slice u[] = {
        {0, 0, 200 * MS, 0}, {1, 200 * MS, 300 * MS, 0}, {2, 300 * MS, 400 * MS, 0},
        {0, 400 * MS, 600 * MS, 0}, {1, 600 * MS, 700 * MS, 0}, {2, 700 * MS, 800 * MS, 0},
    };
    n = rtg_thr_rr_merge(u, 6);
    rtg_thr_rr_summarise(u, n, 3, &sum);
    CHECK(!rtg_thr_rr_fair(&sum, 10));
    CHECK(sum.worst_share_dev_pct > 40);
    CHECK(rtg_thr_rr_slice_ok(&sum, 100 * MS, 10) == false ||
          sum.median_slice_ns == 100 * MS); /* slices alone may still look right */

    /* SCHED_FIFO-like: one thread runs the whole window, others starve. */
    struct rtg_thr_slice f[] = {{0, 0, 300 * MS, 0}, {0, 300 * MS + 50000, 600 * MS, 0}};
    n = rtg_thr_rr_merge(f, 2);
    CHECK_EQ_U(n, 1);
    rtg_thr_rr_summarise(f, n, 3, &sum);
    CHECK(!rtg_thr_rr_fair(&sum, 10));
    CHECK(!rtg_thr_rr_slice_ok(&sum, 100 * MS, 10)); /* no full slice */
    CHECK_EQ_U(sum.first_slice_ns[1], 0);

    /* A 50 ms RT-throttling stall inside thread 1's slice: not run time,
     * so the shares stay fair. */
    struct rtg_thr_slice t[] = {{0, 0, 100 * MS, 0}, {1, 100 * MS, 150 * MS, 0},
                                {1, 200 * MS, 250 * MS, 0}, {0, 250 * MS, 350 * MS, 0},
                                {1, 350 * MS, 450 * MS, 0}};
    n = rtg_thr_rr_merge(t, 5);
    CHECK_EQ_U(n, 4);
    rtg_thr_rr_summarise(t, n, 2, &sum);
    CHECK_EQ_U(sum.run_ns[1], 200 * MS);
    CHECK(rtg_thr_rr_fair(&sum, 1));

    /* Fair, each slice a tick long, so the window's end cuts the last one
     * by 30 ms: the shares of whole slices are what is judged. */
    struct rtg_thr_slice c[] = {{1, 0, 104 * MS, 0},
                                {0, 104 * MS, 203 * MS, 0},
                                {1, 203 * MS, 309 * MS, 0},
                                {0, 309 * MS, 379 * MS, 0}};
    n = rtg_thr_rr_merge(c, 4);
    rtg_thr_rr_summarise(c, n, 2, &sum);
    CHECK_EQ_U(sum.run_ns[0], 169 * MS); /* the window's own totals stay */
    CHECK(rtg_thr_rr_fair(&sum, 10));
    CHECK(sum.worst_share_dev_pct < 3);

    /* Fair for a round, then one thread kept on: the cut slice is longer
     * than any whole one, and that is unfair however it was cut. */
    struct rtg_thr_slice h[] = {
        {0, 0, 100 * MS, 0}, {1, 100 * MS, 200 * MS, 0}, {0, 200 * MS, 400 * MS, 0}};
    n = rtg_thr_rr_merge(h, 3);
    rtg_thr_rr_summarise(h, n, 2, &sum);
    CHECK(!rtg_thr_rr_fair(&sum, 10));

    /* Fair but slightly off, inside and outside the tolerance. */
    struct rtg_thr_slice g[] = {{0, 0, 105 * MS, 0}, {1, 105 * MS, 200 * MS, 0}};
    n = rtg_thr_rr_merge(g, 2);
    rtg_thr_rr_summarise(g, n, 2, &sum);
    CHECK(rtg_thr_rr_fair(&sum, 10));
    CHECK(!rtg_thr_rr_fair(&sum, 2));
    CHECK_EQ_U(rtg_thr_rr_merge(g, 0), 0);
}

int main(void)
{
    new_checks();
    prio_checks();
    rr_checks();
    return unit_report("test_thr_verdicts");
}
