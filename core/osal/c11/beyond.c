/* What ISO C11 has of the newer OSAL topics: condition variables and the
 * timed mutex (mutexes are created mtx_timed). Reader-writer locks,
 * barriers, deadline scheduling, affinity and timed queue receives are not
 * in ISO C: rtg_osal_offers() leaves their bits clear and the calls say
 * ENOTSUP. <threads.h> waits take TIME_UTC: a monotonic deadline is
 * converted at each call (rtg_timed_clock says so). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "c11_internal.h"
#include "rtg/osal_barrier.h"
#include "rtg/osal_cond.h"
#include "rtg/osal_deadline.h"
#include "rtg/osal_rwlock.h"
#include "rtg/osal_timed.h"

struct rtg_cond {
    cnd_t cond;
};

/* The TIME_UTC instant at which CLOCK_MONOTONIC-based deadline falls. */
static struct timespec utc_deadline(uint64_t deadline_ns)
{
    uint64_t now = rtg_mono_ns();
    struct timespec utc;
    timespec_get(&utc, TIME_UTC);
    uint64_t abs = (uint64_t)utc.tv_sec * 1000000000u + (uint64_t)utc.tv_nsec +
                   (deadline_ns > now ? deadline_ns - now : 0);
    return (struct timespec){.tv_sec = (time_t)(abs / 1000000000u),
                             .tv_nsec = (long)(abs % 1000000000u)};
}

int rtg_cond_create(struct rtg_cond **out)
{
    struct rtg_cond *c = malloc(sizeof *c);
    if (!c)
        return ENOMEM;
    int rc = rtg_c11_errno(cnd_init(&c->cond));
    if (rc) {
        free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void rtg_cond_delete(struct rtg_cond *c)
{
    if (!c)
        return;
    cnd_destroy(&c->cond);
    free(c);
}

int rtg_cond_wait(struct rtg_cond *c, rtg_mutex_t *m) { return rtg_c11_errno(cnd_wait(&c->cond, &m->mutex)); }

int rtg_cond_wait_until(struct rtg_cond *c, rtg_mutex_t *m, uint64_t deadline_ns)
{
    struct timespec until = utc_deadline(deadline_ns);
    return rtg_c11_errno(cnd_timedwait(&c->cond, &m->mutex, &until));
}

int rtg_cond_signal(struct rtg_cond *c) { return rtg_c11_errno(cnd_signal(&c->cond)); }
int rtg_cond_broadcast(struct rtg_cond *c) { return rtg_c11_errno(cnd_broadcast(&c->cond)); }

int rtg_mutex_lock_until(rtg_mutex_t *m, uint64_t deadline_ns)
{
    struct timespec until = utc_deadline(deadline_ns);
    return rtg_c11_errno(mtx_timedlock(&m->mutex, &until));
}

const char *rtg_timed_clock(const char *primitive)
{
    (void)primitive;
    return "TIME_UTC";
}
