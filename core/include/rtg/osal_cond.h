/* OSAL topic: condition variables, used with an rtg_mutex_t. A condition
 * variable is an opaque object the port allocates (rtg_cond_create), so a
 * port needs no new type in its rtg_osal_types.h. Deadlines are absolute
 * CLOCK_MONOTONIC ns, as for rtg_sem_wait_until. All calls return 0 or an
 * errno value; ENOTSUP where the port offers no condition variables. */
#ifndef RTG_OSAL_COND_H
#define RTG_OSAL_COND_H
#include <stdint.h>

#include "rtg/osal.h"

struct rtg_cond;

int rtg_cond_create(struct rtg_cond **c);
void rtg_cond_delete(struct rtg_cond *c);
/* Releases m, waits, and returns with m locked again. Spurious wake-ups
 * are possible: callers wait for a predicate. */
int rtg_cond_wait(struct rtg_cond *c, rtg_mutex_t *m);
/* As rtg_cond_wait, or ETIMEDOUT once the deadline has passed (m locked
 * again in both cases). */
int rtg_cond_wait_until(struct rtg_cond *c, rtg_mutex_t *m, uint64_t deadline_ns);
int rtg_cond_signal(struct rtg_cond *c);
int rtg_cond_broadcast(struct rtg_cond *c);

#endif
