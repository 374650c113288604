/* Timed waits on mutexes (osal_timed.h); the timed receive is msg_chan.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "posix_os.h"
#include "rtg/osal_timed.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
#define HAVE_CLOCKLOCK 1
#else
#define HAVE_CLOCKLOCK 0
#endif

/* An absolute CLOCK_MONOTONIC deadline as a CLOCK_REALTIME one (for calls
 * that only take the wall clock). */
static struct timespec realtime_deadline(uint64_t deadline_ns)
{
    struct timespec m, r;
    clock_gettime(CLOCK_MONOTONIC, &m);
    clock_gettime(CLOCK_REALTIME, &r);
    int64_t left = (int64_t)deadline_ns - ((int64_t)m.tv_sec * 1000000000 + m.tv_nsec);
    int64_t abs_r = (int64_t)r.tv_sec * 1000000000 + r.tv_nsec + (left > 0 ? left : 0);
    return (struct timespec){.tv_sec = (time_t)(abs_r / 1000000000), .tv_nsec = (long)(abs_r % 1000000000)};
}

int rtg_mutex_lock_until(rtg_mutex_t *m, uint64_t deadline_ns)
{
#if HAVE_CLOCKLOCK
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000u),
                          .tv_nsec = (long)(deadline_ns % 1000000000u)};
    return pthread_mutex_clocklock(&m->mutex, CLOCK_MONOTONIC, &ts);
#else
    struct timespec ts = realtime_deadline(deadline_ns);
    return pthread_mutex_timedlock(&m->mutex, &ts);
#endif
}

struct timespec rtg_px_realtime_deadline(uint64_t deadline_ns) { return realtime_deadline(deadline_ns); }

/* A deadline on another clock costs two clock reads; the sem's is
 * native where sem_clockwait is (glibc 2.30), the cond's always (its
 * attribute says CLOCK_MONOTONIC). */
const char *rtg_timed_port_adds(const char *primitive)
{
    static const char convert[] = "two clock reads: the deadline converted to CLOCK_REALTIME";
    if (strcmp(primitive, "queue") == 0)
        return convert;
    if (strcmp(primitive, "mutex") == 0 || strcmp(primitive, "sem") == 0)
        return HAVE_CLOCKLOCK ? NULL : convert;
    return NULL;
}

const char *rtg_timed_clock(const char *primitive)
{
    if (strcmp(primitive, "queue") == 0)
        return "CLOCK_REALTIME"; /* mq_timedreceive has no clock choice */
    if (strcmp(primitive, "mutex") == 0 && !HAVE_CLOCKLOCK)
        return "CLOCK_REALTIME";
    return NULL;
}
