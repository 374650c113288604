/* The MSG-P-FIL verdict judges hand-made evidence: orders that must pass
 * and orders that must fail. */
#include <string.h>

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

/* Urgent first, last in first out among them (each put at the queue's
 * front): told apart from every other failing order. */
static void urgent_lifo(void)
{
    struct rtg_msg_rx lifo[] = {{true, 2}, {true, 1}, {true, 0}, {false, 0}, {false, 1}};
    CHECK(rtg_msg_urgent_lifo(lifo, N(lifo), 3, 2));
    /* the POSIX order is not it */
    struct rtg_msg_rx ok[] = {{true, 0}, {true, 1}, {true, 2}, {false, 0}, {false, 1}};
    CHECK(!rtg_msg_urgent_lifo(ok, N(ok), 3, 2));
    /* urgent after a normal one (a FIFO queue): not it */
    struct rtg_msg_rx fifo[] = {{false, 0}, {false, 1}, {true, 0}, {true, 1}, {true, 2}};
    CHECK(!rtg_msg_urgent_lifo(fifo, N(fifo), 3, 2));
    /* urgent reversed but the normal ones reordered: not it */
    struct rtg_msg_rx nre[] = {{true, 2}, {true, 1}, {true, 0}, {false, 1}, {false, 0}};
    CHECK(!rtg_msg_urgent_lifo(nre, N(nre), 3, 2));
    /* urgent half out of order, neither FIFO nor LIFO: not it */
    struct rtg_msg_rx mix[] = {{true, 1}, {true, 2}, {true, 0}, {false, 0}, {false, 1}};
    CHECK(!rtg_msg_urgent_lifo(mix, N(mix), 3, 2));
    /* a message lost: not it */
    CHECK(!rtg_msg_urgent_lifo(lifo, N(lifo) - 1, 3, 2));
    /* one urgent message has no order to tell */
    struct rtg_msg_rx one[] = {{true, 0}, {false, 0}};
    CHECK(!rtg_msg_urgent_lifo(one, N(one), 1, 1));
}

/* The word MSG-P-FIL records: a documented LIFO order excuses a failure
 * only when it explains every round; anything else stays a failure. */
static void urgent_seen(void)
{
    struct rtg_msg_rx lifo[] = {{true, 1}, {true, 0}, {false, 0}};
    struct rtg_msg_rx fifo[] = {{true, 0}, {true, 1}, {false, 0}};
    struct rtg_msg_rx one[] = {{true, 0}, {false, 0}};
    CHECK(rtg_msg_round_as_lifo(false, lifo, N(lifo), 2, 1));
    CHECK(!rtg_msg_round_as_lifo(false, fifo, N(fifo), 2, 1)); /* failed, not LIFO */
    CHECK(rtg_msg_round_as_lifo(true, one, N(one), 1, 1));     /* one urgent: either */
    CHECK(!rtg_msg_round_as_lifo(true, fifo, N(fifo), 2, 1));  /* FIFO of two is not LIFO */
    CHECK(strcmp(rtg_msg_urgent_seen(15, 0, 0), "urgent_fifo") == 0);
    CHECK(strcmp(rtg_msg_urgent_seen(15, 10, 15), "urgent_lifo") == 0);
    CHECK(strcmp(rtg_msg_urgent_seen(15, 10, 14), "other") == 0); /* one round unexplained */
    CHECK(strcmp(rtg_msg_urgent_seen(15, 10, 10), "other") == 0);
}

int main(void)
{
    urgent_first();
    urgent_lifo();
    urgent_seen();
    return unit_report("test_msg_verdicts");
}
