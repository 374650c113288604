/* The stop request (rtg/stop.h): one flag, written from a signal handler
 * or a watchdog, hence a volatile sig_atomic_t. */
#include "rtg/stop.h"

#include <signal.h>

static volatile sig_atomic_t stop_reason;

void rtg_stop_set(int why)
{
    if (!stop_reason)
        stop_reason = why;
}

void rtg_stop_clear(void)
{
    stop_reason = RTG_STOP_NONE;
}

bool rtg_stop_requested(void)
{
    return stop_reason != 0;
}

int rtg_stop_reason(void)
{
    return stop_reason;
}
