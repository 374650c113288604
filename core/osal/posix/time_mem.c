/* Monotonic time, sleeping, memory locking. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <time.h>

#include "posix_os.h"
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

/* Sleeps and timed waits are hrtimers: no tick to round to. */
uint32_t rtg_wait_tick_hz(void) { return 0; }
uint64_t rtg_wait_tick_nearest(uint64_t t) { return t; }

int rtg_sleep_until(uint64_t abs_mono_ns)
{
    struct timespec ts = to_ts(abs_mono_ns);
    int rc;
    while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
        ;
    return rc;
}

int rtg_sleep_until_intr(uint64_t abs_mono_ns)
{
    struct timespec ts = to_ts(abs_mono_ns);
    return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int posix_clock(enum rtg_clock_id id, clockid_t *out)
{
    switch (id) {
    case RTG_CLK_MONOTONIC: *out = CLOCK_MONOTONIC; return 0;
    case RTG_CLK_MONOTONIC_RAW:
#ifdef CLOCK_MONOTONIC_RAW
        *out = CLOCK_MONOTONIC_RAW;
        return 0;
#else
        return ENOTSUP;
#endif
    case RTG_CLK_REALTIME: *out = CLOCK_REALTIME; return 0;
    case RTG_CLK_BOOTTIME:
#ifdef CLOCK_BOOTTIME
        *out = CLOCK_BOOTTIME;
        return 0;
#else
        return ENOTSUP;
#endif
    }
    return EINVAL;
}

int rtg_clock_read_ns(enum rtg_clock_id id, uint64_t *ns)
{
    clockid_t c;
    struct timespec ts;
    int rc = posix_clock(id, &c);
    if (rc)
        return rc;
    if (clock_gettime(c, &ts))
        return errno;
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return 0;
}

int rtg_clock_resolution_ns(enum rtg_clock_id id, uint64_t *ns)
{
    clockid_t c;
    struct timespec ts;
    int rc = posix_clock(id, &c);
    if (rc)
        return rc;
    if (clock_getres(c, &ts))
        return errno;
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return 0;
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

/* POSIX (Linux) offers every topic; a POSIX system without one of them
 * (no SysV IPC, no timerfd) reports it per call with ENOTSUP instead. */
unsigned rtg_osal_offers(void)
{
    return RTG_OFFERS_ALL & ~(rtg_px_has_deadline() ? 0u : (unsigned)RTG_OFFERS_DEADLINE);
}

/* Virtual memory: no one bounded heap to fit the tests' sizes to. */
int rtg_mem_available(size_t *free_bytes, size_t *largest_block)
{
    (void)free_bytes, (void)largest_block;
    return ENOTSUP;
}

size_t rtg_thread_mem_bytes(size_t stack_size) { return stack_size; }
