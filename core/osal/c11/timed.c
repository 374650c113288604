/* Timed waits in ISO C11: the timed mutex (the port's mutexes are created
 * mtx_timed) with its monotonic deadline converted to TIME_UTC at the call.
 * The timed receive is written once over rtg_msg_port_recv (core/src/runner/msg_calls.c):
 * with no message queues here, absent.c says ENOTSUP. */
#include <errno.h>

#include "c11_internal.h"
#include "rtg/osal_timed.h"

int rtg_mutex_lock_until(rtg_mutex_t *m, uint64_t deadline_ns)
{
    struct timespec until = rtg_c11_utc_deadline(deadline_ns);
    return rtg_c11_errno(mtx_timedlock(&m->mutex, &until));
}

/* C11's timed calls take TIME_UTC: every deadline is converted. */
const char *rtg_timed_port_adds(const char *primitive)
{
    (void)primitive;
    return "clock reads: the deadline converted to TIME_UTC (C11's timed calls take no other clock)";
}

const char *rtg_timed_clock(const char *primitive)
{
    (void)primitive;
    return "TIME_UTC";
}
