/* Timed waits in ISO C11: the timed mutex (the port's mutexes are created
 * mtx_timed) with its monotonic deadline converted to TIME_UTC at the call;
 * no timed receive, as there are no message queues (ENOTSUP). */
#include <errno.h>

#include "c11_internal.h"
#include "rtg/osal_timed.h"

int rtg_mutex_lock_until(rtg_mutex_t *m, uint64_t deadline_ns)
{
    struct timespec until = rtg_c11_utc_deadline(deadline_ns);
    return rtg_c11_errno(mtx_timedlock(&m->mutex, &until));
}

int rtg_msg_recv_until(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len,
                       unsigned *prio, uint64_t deadline_ns)
{
    (void)c, (void)buf, (void)cap, (void)len, (void)prio, (void)deadline_ns;
    return ENOTSUP;
}

const char *rtg_timed_clock(const char *primitive)
{
    (void)primitive;
    return "TIME_UTC";
}
