/* Timed waits on FreeRTOS: the timed mutex (xSemaphoreTake with a tick
 * count, rounded up so a wait never ends early) and the clock every timed
 * wait ends on, the tick. The timed queue receive is in msg.c. */
#include <errno.h>

#include "fr_internal.h"
#include "rtg/osal_timed.h"
#include "semphr.h"

int rtg_mutex_lock_until(rtg_mutex_t *m, uint64_t deadline_ns)
{
    return xSemaphoreTake((SemaphoreHandle_t)m->handle, rtg_fr_ticks_until(deadline_ns)) == pdTRUE
               ? 0
               : ETIMEDOUT;
}

const char *rtg_timed_clock(const char *primitive)
{
    (void)primitive;
    return "FreeRTOS tick (1 ms)";
}
