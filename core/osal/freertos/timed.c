/* Timed waits on FreeRTOS: the timed mutex (xSemaphoreTake with a tick
 * count, rounded up so a wait never ends early) and the clock every timed
 * wait ends on, the tick. The timed queue receive is in msg.c. */
#include <errno.h>

#include "fr_internal.h"
#include "rtg/osal_timed.h"
#include "semphr.h"

/* A free mutex is taken without reading a clock (its count is a hint
 * read, no kernel call); only a wait that blocks works out its ticks, and
 * waits until the deadline has passed (a tick count can end it early). */
int rtg_mutex_lock_until(rtg_mutex_t *m, uint64_t deadline_ns)
{
    return rtg_fr_take_until(m->handle, deadline_ns);
}

/* FreeRTOS waits take a count of ticks from now: the absolute deadline
 * needs the time now (rtg_fr_ticks_until), once, and only if the call
 * blocks (a unit or a message already there is taken without it). */
const char *rtg_timed_port_adds(const char *primitive)
{
    (void)primitive;
    return "one clock read and a division before it blocks: the deadline as a count of ticks "
           "(FreeRTOS waits take ticks from now)";
}

const char *rtg_timed_clock(const char *primitive)
{
    (void)primitive;
    return "FreeRTOS tick (1 ms)";
}
