/* Shared by the c11 port's files: <threads.h> result codes as errno values,
 * and monotonic deadlines as the TIME_UTC instants <threads.h> waits take. */
#ifndef RTG_C11_INTERNAL_H
#define RTG_C11_INTERNAL_H
#include <errno.h>
#include <stdint.h>
#include <threads.h>
#include <time.h>

#include "rtg/osal.h"

static inline int rtg_c11_errno(int thrd_rc)
{
    switch (thrd_rc) {
    case thrd_success: return 0;
    case thrd_nomem: return ENOMEM;
    case thrd_busy: return EBUSY;
    case thrd_timedout: return ETIMEDOUT;
    default: return EAGAIN; /* thrd_error: the library gives no reason */
    }
}

/* The TIME_UTC instant at which a CLOCK_MONOTONIC deadline (ns) falls. */
static inline struct timespec rtg_c11_utc_deadline(uint64_t deadline_ns)
{
    uint64_t now = rtg_mono_ns();
    struct timespec utc;
    timespec_get(&utc, TIME_UTC);
    uint64_t abs = (uint64_t)utc.tv_sec * 1000000000u + (uint64_t)utc.tv_nsec +
                   (deadline_ns > now ? deadline_ns - now : 0);
    return (struct timespec){.tv_sec = (time_t)(abs / 1000000000u),
                             .tv_nsec = (long)(abs % 1000000000u)};
}

#endif
