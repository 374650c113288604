/* The SIG-P-LAT verdict judges hand-made evidence: orders that must pass
 * and orders that must fail. */
#include "sig/sig_verdicts.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void sig_order(void)
{
    /* sent scrambled: 2,0,1 then 2,0,1 (values: sig<<16 | round) */
    struct rtg_sig_tx tx[] = {{2, 0x20000}, {0, 0x0}, {1, 0x10000},
                              {2, 0x20001}, {0, 0x1}, {1, 0x10001}};
    struct rtg_sig_rx good[] = {{0, 0x0}, {0, 0x1}, {1, 0x10000},
                                {1, 0x10001}, {2, 0x20000}, {2, 0x20001}};
    struct rtg_sig_order o = rtg_sig_judge_order(tx, N(tx), good, N(good));
    CHECK(o.none_lost && o.lowest_first && o.fifo_per_number && o.values_carried);

    /* received in send order (no priority by number): lowest_first fails */
    struct rtg_sig_rx sendorder[] = {{2, 0x20000}, {0, 0x0}, {1, 0x10000},
                                     {2, 0x20001}, {0, 0x1}, {1, 0x10001}};
    o = rtg_sig_judge_order(tx, N(tx), sendorder, N(sendorder));
    CHECK(!o.lowest_first);
    CHECK(o.none_lost && o.fifo_per_number);
    CHECK_EQ_U(o.first_violation, 1);

    /* LIFO within a number */
    struct rtg_sig_rx lifo[] = {{0, 0x1}, {0, 0x0}, {1, 0x10000},
                                {1, 0x10001}, {2, 0x20000}, {2, 0x20001}};
    o = rtg_sig_judge_order(tx, N(tx), lifo, N(lifo));
    CHECK(!o.fifo_per_number);
    CHECK(o.lowest_first && o.none_lost);

    /* standard signals merge: one per number arrives */
    struct rtg_sig_rx merged[] = {{0, 0x0}, {1, 0x10000}, {2, 0x20000}};
    o = rtg_sig_judge_order(tx, N(tx), merged, N(merged));
    CHECK(!o.none_lost);
    CHECK(o.values_carried && o.lowest_first && o.fifo_per_number);

    /* a value nobody sent */
    struct rtg_sig_rx wrong[] = {{0, 0x0}, {0, 0x7}, {1, 0x10000},
                                 {1, 0x10001}, {2, 0x20000}, {2, 0x20001}};
    o = rtg_sig_judge_order(tx, N(tx), wrong, N(wrong));
    CHECK(!o.values_carried);
    CHECK(!o.none_lost);

    /* nothing sent: nothing passes */
    o = rtg_sig_judge_order(tx, 0, good, 0);
    CHECK(!o.none_lost && !o.lowest_first);
}

int main(void)
{
    sig_order();
    return unit_report("test_sig_verdicts");
}
