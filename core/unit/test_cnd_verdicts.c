/* CND verdicts from hand-made evidence: what must pass and what must fail. */
#include "cnd/cnd_verdicts.h"
#include "unit.h"

int main(void)
{
    const int good[] = {0, 1, 2, 3};
    CHECK(rtg_cnd_order_ok(good, 4, 4));
    CHECK(rtg_cnd_first_out_of_order(good, 4, 4) == -1);
    const int fifo[] = {3, 2, 1, 0}; /* arrival order: the lowest waited first */
    CHECK(!rtg_cnd_order_ok(fifo, 4, 4));
    CHECK(rtg_cnd_first_out_of_order(fifo, 4, 4) == 0);
    const int swapped[] = {0, 2, 1, 3};
    CHECK(!rtg_cnd_order_ok(swapped, 4, 4));
    CHECK(rtg_cnd_first_out_of_order(swapped, 4, 4) == 1);
    CHECK(!rtg_cnd_order_ok(good, 3, 4)); /* one waiter never returned */
    CHECK(rtg_cnd_first_out_of_order(good, 3, 4) == 3);
    const int twice[] = {0, 0, 1, 2, 3};
    CHECK(!rtg_cnd_order_ok(twice, 5, 4));
    CHECK(!rtg_cnd_order_ok(good, 0, 0)); /* no waiters: no evidence */
    return unit_report("test_cnd_verdicts");
}
