/* OSAL topic: barriers (RTG_OFFERS_BARRIERS). Opaque objects the port
 * allocates. A barrier has no timed wait in POSIX: a test bounds it by
 * starting its threads only once every one of them exists. All calls
 * return 0 or an errno value (ENOTSUP where not offered). */
#ifndef RTG_OSAL_BARRIER_H
#define RTG_OSAL_BARRIER_H
#include <stdbool.h>

#include "rtg/osal.h"

struct rtg_barrier;

int rtg_barrier_create(struct rtg_barrier **b, unsigned count);
void rtg_barrier_delete(struct rtg_barrier *b);
/* Waits until count threads have arrived; *serial (may be NULL) is true in
 * exactly one of them per round. */
int rtg_barrier_wait(struct rtg_barrier *b, bool *serial);

#endif
