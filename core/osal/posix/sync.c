/* Counting semaphores and mutexes with priority protocols. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include "rtg/osal.h"

static int errno_of(int rc)
{
    return rc ? errno : 0;
}

int rtg_sem_init(rtg_sem_t *s, unsigned value) { return errno_of(sem_init(&s->sem, 0, value)); }
int rtg_sem_destroy(rtg_sem_t *s) { return errno_of(sem_destroy(&s->sem)); }
int rtg_sem_post(rtg_sem_t *s) { return errno_of(sem_post(&s->sem)); }
int rtg_sem_trywait(rtg_sem_t *s) { return errno_of(sem_trywait(&s->sem)); }

int rtg_sem_wait(rtg_sem_t *s)
{
    int rc;
    while ((rc = sem_wait(&s->sem)) != 0 && errno == EINTR)
        ;
    return errno_of(rc);
}

int rtg_sem_wait_until(rtg_sem_t *s, uint64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000u),
                          .tv_nsec = (long)(deadline_ns % 1000000000u)};
    int rc;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
    while ((rc = sem_clockwait(&s->sem, CLOCK_MONOTONIC, &ts)) != 0 && errno == EINTR)
        ;
#else
    /* sem_timedwait takes CLOCK_REALTIME: convert the deadline. */
    struct timespec now_m, now_r;
    clock_gettime(CLOCK_MONOTONIC, &now_m);
    clock_gettime(CLOCK_REALTIME, &now_r);
    int64_t left = (int64_t)deadline_ns -
                   ((int64_t)now_m.tv_sec * 1000000000 + now_m.tv_nsec);
    int64_t abs_r = (int64_t)now_r.tv_sec * 1000000000 + now_r.tv_nsec + (left > 0 ? left : 0);
    ts.tv_sec = (time_t)(abs_r / 1000000000);
    ts.tv_nsec = (long)(abs_r % 1000000000);
    while ((rc = sem_timedwait(&s->sem, &ts)) != 0 && errno == EINTR)
        ;
#endif
    return errno_of(rc);
}

int rtg_sem_value(rtg_sem_t *s, int *value) { return errno_of(sem_getvalue(&s->sem, value)); }

const char *rtg_mutex_protocol_name(enum rtg_mutex_protocol p)
{
    switch (p) {
    case RTG_PROTO_INHERIT: return "PTHREAD_PRIO_INHERIT";
    case RTG_PROTO_PROTECT: return "PTHREAD_PRIO_PROTECT";
    default: return "PTHREAD_PRIO_NONE";
    }
}

int rtg_mutex_init(rtg_mutex_t *m, enum rtg_mutex_protocol proto, int ceiling)
{
    pthread_mutexattr_t a;
    int rc = pthread_mutexattr_init(&a);
    if (rc)
        return rc;
    int p = proto == RTG_PROTO_INHERIT   ? PTHREAD_PRIO_INHERIT
            : proto == RTG_PROTO_PROTECT ? PTHREAD_PRIO_PROTECT
                                         : PTHREAD_PRIO_NONE;
    rc = pthread_mutexattr_setprotocol(&a, p);
#if defined(__GLIBC__)
    if (!rc && proto == RTG_PROTO_PROTECT)
        rc = pthread_mutexattr_setprioceiling(&a, ceiling);
#else
    /* musl has no priority ceiling: say the protocol is not offered. */
    if (!rc && proto == RTG_PROTO_PROTECT)
        rc = ENOTSUP;
    (void)ceiling;
#endif
    if (!rc)
        rc = pthread_mutex_init(&m->mutex, &a);
    pthread_mutexattr_destroy(&a);
    return rc;
}

int rtg_mutex_destroy(rtg_mutex_t *m) { return pthread_mutex_destroy(&m->mutex); }
int rtg_mutex_lock(rtg_mutex_t *m) { return pthread_mutex_lock(&m->mutex); }
int rtg_mutex_unlock(rtg_mutex_t *m) { return pthread_mutex_unlock(&m->mutex); }
