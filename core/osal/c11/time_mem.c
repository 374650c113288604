/* Time and memory in ISO C11. The only clock ISO C11 has is TIME_UTC (wall
 * time, may be stepped): this port's monotonic time is TIME_UTC made never
 * to go backwards, and the other system clocks are not offered. */
#include <errno.h>
#include <stdatomic.h>
#include <time.h>

#include "rtg/osal.h"

static _Atomic uint64_t last_mono;

static uint64_t utc_ns(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rtg_mono_ns(void)
{
    uint64_t now = utc_ns(), seen = atomic_load(&last_mono);
    while (now > seen && !atomic_compare_exchange_weak(&last_mono, &seen, now))
        ;
    return now > seen ? now : seen;
}

static int sleep_until(uint64_t abs_mono_ns, bool retry)
{
    for (;;) {
        uint64_t now = rtg_mono_ns();
        if (now >= abs_mono_ns)
            return 0;
        uint64_t d = abs_mono_ns - now;
        struct timespec ts = {.tv_sec = (time_t)(d / 1000000000u), .tv_nsec = (long)(d % 1000000000u)};
        int rc = thrd_sleep(&ts, NULL);
        if (rc == -1 && !retry)
            return EINTR; /* a signal: a stop request */
        if (rc < -1)
            return EINVAL;
    }
}

/* thrd_sleep asks for ns: a tick, if the OS below has one, is not known
 * to ISO C, so the waits are taken as high resolution. */
uint32_t rtg_wait_tick_hz(void) { return 0; }
uint64_t rtg_wait_tick_nearest(uint64_t t) { return t; }

int rtg_sleep_until(uint64_t abs_mono_ns) { return sleep_until(abs_mono_ns, true); }
int rtg_sleep_until_intr(uint64_t abs_mono_ns) { return sleep_until(abs_mono_ns, false); }
int rtg_sleep_ns(uint64_t ns) { return rtg_sleep_until(rtg_mono_ns() + ns); }

int rtg_clock_read_ns(enum rtg_clock_id id, uint64_t *ns)
{
    if (id != RTG_CLK_REALTIME)
        return ENOTSUP;
    *ns = utc_ns();
    return 0;
}

/* ISO C11 cannot tell a clock's resolution (timespec_getres is C23). */
int rtg_clock_resolution_ns(enum rtg_clock_id id, uint64_t *ns)
{
    (void)id;
    (void)ns;
    return ENOTSUP;
}

int rtg_lock_memory(void) { return ENOTSUP; }
int rtg_unlock_memory(void) { return ENOTSUP; }

/* ISO C cannot tell how much memory is left. */
int rtg_mem_available(size_t *free_bytes, size_t *largest_block)
{
    (void)free_bytes, (void)largest_block;
    return ENOTSUP;
}

size_t rtg_thread_mem_bytes(size_t stack_size) { return stack_size; }
