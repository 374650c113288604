/* MUT-B-ARC verdicts from hand-made evidence: what must pass and fail. */
#include "mut/mut_verdicts.h"
#include "unit.h"

int main(void)
{
    /* Inheritance: H asks, L (boosted) releases, H acquires and finishes,
     * then M runs. */
    struct rtg_mut_arc_round inherit = {.l_lock = 90, .h_req = 180, .l_rel = 1200,
                                        .h_acq = 1210, .h_done = 1310, .m_start = 1320,
                                        .m_end = 50000};
    /* Ceiling as recorded: H asks first and waits; L, at the ceiling (H's
     * level), finishes its section above M; H acquires; M runs last. */
    struct rtg_mut_arc_round protect = {.l_lock = 127, .h_req = 204, .l_rel = 1355,
                                        .h_acq = 1366, .h_done = 1466, .m_start = 1507,
                                        .m_end = 21507};
    /* H asked only after L had released: H never waited, nothing shown. */
    struct rtg_mut_arc_round free = {.l_lock = 90, .l_rel = 1100, .h_req = 1150,
                                     .h_acq = 1160, .h_done = 1260, .m_start = 1270,
                                     .m_end = 50000};
    /* No protocol: M's whole window lies inside H's wait. */
    struct rtg_mut_arc_round none = {.l_lock = 90, .h_req = 184, .m_start = 186,
                                     .m_end = 20186, .l_rel = 21241, .h_acq = 21257,
                                     .h_done = 21358};
    CHECK_EQ_U(rtg_mut_arc_classify(&inherit), RTG_MUT_NO_INVERSION);
    CHECK_EQ_U(rtg_mut_arc_classify(&protect), RTG_MUT_NO_INVERSION);
    CHECK_EQ_U(rtg_mut_arc_classify(&none), RTG_MUT_INVERSION);
    CHECK_EQ_U(rtg_mut_arc_classify(&free), RTG_MUT_UNCONTENDED);

    /* M started after H acquired but before H finished: not clean. */
    struct rtg_mut_arc_round overlap = inherit;
    overlap.m_start = 1250;
    CHECK_EQ_U(rtg_mut_arc_classify(&overlap), RTG_MUT_INCONCLUSIVE);
    /* M began before H asked (M was not preempted by H): not an inversion
     * the test can claim, nor a prevention. */
    struct rtg_mut_arc_round early = none;
    early.m_start = 100;
    CHECK_EQ_U(rtg_mut_arc_classify(&early), RTG_MUT_INCONCLUSIVE);
    /* A stamp missing (a thread never ran). */
    struct rtg_mut_arc_round missing = inherit;
    missing.h_done = 0;
    CHECK_EQ_U(rtg_mut_arc_classify(&missing), RTG_MUT_INCONCLUSIVE);
    missing = none;
    missing.m_end = 0;
    CHECK_EQ_U(rtg_mut_arc_classify(&missing), RTG_MUT_INCONCLUSIVE);
    /* Contradiction: H acquired before L released (mutual exclusion broken). */
    struct rtg_mut_arc_round broken = inherit;
    broken.h_acq = 1000;
    CHECK_EQ_U(rtg_mut_arc_classify(&broken), RTG_MUT_INCONCLUSIVE);
    /* Contradiction: H asked before L locked. */
    broken = inherit;
    broken.l_lock = 500;
    CHECK_EQ_U(rtg_mut_arc_classify(&broken), RTG_MUT_INCONCLUSIVE);

    /* Over rounds */
    struct rtg_mut_arc_round two_good[2] = {inherit, protect};
    struct rtg_mut_arc_round mixed[2] = {inherit, none};
    struct rtg_mut_arc_round two_inv[2] = {none, none};
    struct rtg_mut_arc_round inv_bad[2] = {none, missing};
    CHECK(rtg_mut_arc_prevents(two_good, 2));
    CHECK(!rtg_mut_arc_prevents(mixed, 2));      /* one inversion is enough to fail */
    CHECK(!rtg_mut_arc_prevents(two_inv, 2));    /* the PRIO_NONE evidence must fail */
    CHECK(!rtg_mut_arc_prevents(two_good, 0));   /* no rounds: no verdict to give */
    CHECK(!rtg_mut_arc_prevents(&overlap, 1));
    CHECK(rtg_mut_arc_shows_inversion(two_inv, 2));
    CHECK(!rtg_mut_arc_shows_inversion(mixed, 2));
    CHECK(!rtg_mut_arc_shows_inversion(two_good, 2));
    CHECK(!rtg_mut_arc_shows_inversion(inv_bad, 2));
    CHECK(!rtg_mut_arc_shows_inversion(two_inv, 0));
    /* Uncontended rounds do not count, for or against. */
    struct rtg_mut_arc_round only_free[2] = {free, free};
    struct rtg_mut_arc_round good_free[2] = {inherit, free};
    struct rtg_mut_arc_round inv_free[2] = {none, free};
    CHECK(!rtg_mut_arc_prevents(only_free, 2));       /* H never waited: nothing prevented */
    CHECK(!rtg_mut_arc_shows_inversion(only_free, 2));
    CHECK(rtg_mut_arc_prevents(good_free, 2));
    CHECK(rtg_mut_arc_shows_inversion(inv_free, 2));
    CHECK(!rtg_mut_arc_prevents(inv_free, 2));
    CHECK_EQ_U(rtg_mut_arc_uncontended(good_free, 2), 1);
    CHECK_EQ_U(rtg_mut_arc_uncontended(two_inv, 2), 0);
    CHECK_STR(rtg_mut_arc_outcome_name(RTG_MUT_INVERSION), "inversion");
    CHECK_STR(rtg_mut_arc_outcome_name(RTG_MUT_UNCONTENDED), "uncontended");
    return unit_report("test_mut_verdicts");
}
