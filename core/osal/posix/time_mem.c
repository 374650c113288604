/* Monotonic time, sleeping, memory locking. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <time.h>

#include "rtg/osal.h"

uint64_t rtg_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct timespec to_ts(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    return ts;
}

int rtg_sleep_until(uint64_t abs_mono_ns)
{
    struct timespec ts = to_ts(abs_mono_ns);
    int rc;
    while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
        ;
    return rc;
}

int rtg_sleep_ns(uint64_t ns)
{
    return rtg_sleep_until(rtg_mono_ns() + ns);
}

int rtg_lock_memory(void)
{
    return mlockall(MCL_CURRENT | MCL_FUTURE) ? errno : 0;
}

int rtg_unlock_memory(void)
{
    return munlockall() ? errno : 0;
}
