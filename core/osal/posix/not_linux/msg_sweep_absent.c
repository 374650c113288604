/* rtg_msg_sweep outside Linux: without /proc the probe cannot list what a
 * killed probe left, so nothing is swept (the System V queues' janitor,
 * posix/msg_sysv.c, still removes its own creator's). */
#include "rtg/osal_msg.h"

int rtg_msg_sweep(int *removed)
{
    if (removed)
        *removed = 0;
    return 0;
}
