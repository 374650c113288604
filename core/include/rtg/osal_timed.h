/* OSAL topic: timed waits on the primitives that lack them in osal.h and
 * osal_msg.h (rtg_sem_wait_until is in osal.h, rtg_cond_wait_until in
 * osal_cond.h). Deadlines are absolute CLOCK_MONOTONIC ns. Each returns 0,
 * ETIMEDOUT once the deadline has passed, or another errno (ENOTSUP where
 * the port or the mechanism has no timed form). */
#ifndef RTG_OSAL_TIMED_H
#define RTG_OSAL_TIMED_H
#include <stddef.h>
#include <stdint.h>

#include "rtg/osal.h"
#include "rtg/osal_msg.h"

int rtg_mutex_lock_until(rtg_mutex_t *m, uint64_t deadline_ns);
/* A timed receive; native on POSIX message queues only (the other
 * mechanisms return ENOTSUP). prio may be NULL. */
int rtg_msg_recv_until(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len,
                       unsigned *prio, uint64_t deadline_ns);
/* The clock the port's timed calls really wait on, when it differs from
 * CLOCK_MONOTONIC ("CLOCK_REALTIME"), or NULL. A deadline converted to
 * another clock moves with that clock's steps. */
const char *rtg_timed_clock(const char *primitive);
/* The work the port adds to a timed wait on primitive ("sem", "mutex",
 * "queue", "cond") that has to block, inside the caller's time: e.g. a
 * clock read to turn the deadline into what the kernel takes. NULL when
 * the kernel takes the deadline as it is. A test whose figure holds such a
 * wait says it in its info ("osal_adds"). */
const char *rtg_timed_port_adds(const char *primitive);

#endif
