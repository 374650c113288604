/* The MSG-P-FIL and SIG-P-LAT verdicts judge hand-made evidence: orders
 * that must pass and orders that must fail. */
#include "msg/msg_verdicts.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void urgent_first(void)
{
    /* 2 urgent then 3 normal, each in send order: pass */
    struct rtg_msg_rx ok[] = {{true, 0}, {true, 1}, {false, 0}, {false, 1}, {false, 2}};
    struct rtg_urgent_result r = rtg_msg_urgent_first(ok, N(ok), 2, 3);
    CHECK(r.pass);
    CHECK_EQ_U(r.first_violation, N(ok));
    CHECK_EQ_U(r.urgent_seen, 2);

    /* a FIFO queue (pipe): the normal ones first: must fail at index 0.. */
    struct rtg_msg_rx fifo[] = {{false, 0}, {false, 1}, {false, 2}, {true, 0}, {true, 1}};
    r = rtg_msg_urgent_first(fifo, N(fifo), 2, 3);
    CHECK(!r.pass);
    CHECK_EQ_U(r.first_violation, 3);

    /* urgent ones first but LIFO among themselves: fail */
    struct rtg_msg_rx lifo[] = {{true, 1}, {true, 0}, {false, 0}, {false, 1}, {false, 2}};
    r = rtg_msg_urgent_first(lifo, N(lifo), 2, 3);
    CHECK(!r.pass);
    CHECK_EQ_U(r.first_violation, 0);

    /* normal ones reordered: fail */
    struct rtg_msg_rx nre[] = {{true, 0}, {true, 1}, {false, 1}, {false, 0}, {false, 2}};
    r = rtg_msg_urgent_first(nre, N(nre), 2, 3);
    CHECK(!r.pass);
    CHECK_EQ_U(r.first_violation, 2);

    /* a message lost: fail, although the order is right */
    r = rtg_msg_urgent_first(ok, N(ok) - 1, 2, 3);
    CHECK(!r.pass);
    /* one repeated: fail */
    struct rtg_msg_rx rep[] = {{true, 0}, {true, 0}, {false, 0}, {false, 1}, {false, 2}};
    r = rtg_msg_urgent_first(rep, N(rep), 2, 3);
    CHECK(!r.pass);
    /* nothing urgent sent: nothing to judge, not a pass */
    struct rtg_msg_rx none[] = {{false, 0}};
    r = rtg_msg_urgent_first(none, 1, 0, 1);
    CHECK(!r.pass);
}

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
    urgent_first();
    sig_order();
    return unit_report("test_msg_verdicts");
}
