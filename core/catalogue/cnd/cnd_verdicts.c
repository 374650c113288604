/* CND behaviour verdicts (see cnd_verdicts.h): pure functions. */
#include "cnd_verdicts.h"

int rtg_cnd_first_out_of_order(const int *order, size_t n, size_t n_waiters)
{
    size_t i = 0;
    for (; i < n && i < n_waiters; i++)
        if (order[i] != (int)i)
            return (int)i;
    return n == n_waiters ? -1 : (int)i;
}

bool rtg_cnd_order_ok(const int *order, size_t n, size_t n_waiters)
{
    return n_waiters > 0 && rtg_cnd_first_out_of_order(order, n, n_waiters) < 0;
}
