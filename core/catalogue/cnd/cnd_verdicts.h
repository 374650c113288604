/* CND behaviour verdicts: pure functions of the evidence CND-B-ORD records
 * (core/catalogue/cnd/cnd_verdicts.c), unit-tested with evidence that must
 * pass and evidence that must fail (core/unit/test_cnd_verdicts.c). */
#ifndef RTG_CND_VERDICTS_H
#define RTG_CND_VERDICTS_H
#include <stdbool.h>
#include <stddef.h>

/* order[0..n): the rank of each waiter in the order they returned from the
 * wait (rank 0 is the highest priority, n_waiters - 1 the lowest). The
 * order is right when every waiter returned exactly once, highest first:
 * 0, 1, ..., n_waiters - 1. */
bool rtg_cnd_order_ok(const int *order, size_t n, size_t n_waiters);
/* The first position where order departs from highest-first, or -1. */
int rtg_cnd_first_out_of_order(const int *order, size_t n, size_t n_waiters);

#endif
