/* Counting semaphores from a mutex and a condition variable; mutexes without
 * priority protocols (ISO C has none). */
#include <errno.h>

#include "c11_internal.h"
#include "rtg/osal.h"

int rtg_sem_init(rtg_sem_t *s, unsigned value)
{
    int rc = rtg_c11_errno(mtx_init(&s->lock, mtx_plain));
    if (rc)
        return rc;
    if ((rc = rtg_c11_errno(cnd_init(&s->nonzero)))) {
        mtx_destroy(&s->lock);
        return rc;
    }
    s->count = value;
    return 0;
}

int rtg_sem_destroy(rtg_sem_t *s)
{
    cnd_destroy(&s->nonzero);
    mtx_destroy(&s->lock);
    return 0;
}

int rtg_sem_post(rtg_sem_t *s)
{
    mtx_lock(&s->lock);
    s->count++;
    cnd_signal(&s->nonzero);
    mtx_unlock(&s->lock);
    return 0;
}

int rtg_sem_trywait(rtg_sem_t *s)
{
    int rc = EAGAIN;
    mtx_lock(&s->lock);
    if (s->count > 0) {
        s->count--;
        rc = 0;
    }
    mtx_unlock(&s->lock);
    return rc;
}

int rtg_sem_wait(rtg_sem_t *s)
{
    int rc = 0;
    mtx_lock(&s->lock);
    while (s->count == 0 && !rc)
        rc = rtg_c11_errno(cnd_wait(&s->nonzero, &s->lock));
    if (!rc)
        s->count--;
    mtx_unlock(&s->lock);
    return rc;
}

/* cnd_timedwait takes TIME_UTC: the deadline is converted from this port's
 * monotonic time at each wait. */
int rtg_sem_wait_until(rtg_sem_t *s, uint64_t deadline_ns)
{
    int rc = 0;
    mtx_lock(&s->lock);
    while (s->count == 0 && !rc) {
        uint64_t now = rtg_mono_ns();
        if (now >= deadline_ns) {
            rc = ETIMEDOUT;
            break;
        }
        struct timespec utc;
        timespec_get(&utc, TIME_UTC);
        uint64_t abs = (uint64_t)utc.tv_sec * 1000000000u + (uint64_t)utc.tv_nsec +
                       (deadline_ns - now);
        struct timespec until = {.tv_sec = (time_t)(abs / 1000000000u),
                                 .tv_nsec = (long)(abs % 1000000000u)};
        int w = cnd_timedwait(&s->nonzero, &s->lock, &until);
        if (w != thrd_success && w != thrd_timedout)
            rc = rtg_c11_errno(w);
    }
    if (!rc)
        s->count--;
    mtx_unlock(&s->lock);
    return rc;
}

int rtg_sem_value(rtg_sem_t *s, int *value)
{
    mtx_lock(&s->lock);
    *value = (int)s->count;
    mtx_unlock(&s->lock);
    return 0;
}

const char *rtg_mutex_protocol_name(enum rtg_mutex_protocol p)
{
    switch (p) {
    case RTG_PROTO_INHERIT: return "priority inheritance";
    case RTG_PROTO_PROTECT: return "priority ceiling";
    default: return "mtx_timed (no protocol)";
    }
}

int rtg_mutex_init(rtg_mutex_t *m, enum rtg_mutex_protocol proto, int ceiling)
{
    (void)ceiling;
    if (proto != RTG_PROTO_NONE)
        return ENOTSUP;
    return rtg_c11_errno(mtx_init(&m->mutex, mtx_timed));
}

int rtg_mutex_destroy(rtg_mutex_t *m)
{
    mtx_destroy(&m->mutex);
    return 0;
}

int rtg_mutex_lock(rtg_mutex_t *m) { return rtg_c11_errno(mtx_lock(&m->mutex)); }
int rtg_mutex_unlock(rtg_mutex_t *m) { return rtg_c11_errno(mtx_unlock(&m->mutex)); }
