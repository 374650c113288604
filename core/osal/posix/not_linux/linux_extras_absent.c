/* The POSIX port on a system other than Linux: the Linux extras are absent,
 * and each says so (core/osal/linux/ has the real ones). */
#include <errno.h>
#include <stdio.h>

#include "../posix_os.h"
#include "rtg/osal_proc.h"
#include "rtg/osal_timer.h"

int rtg_px_hold_dma_latency(void)
{
    return -1;
}

void rtg_px_die_with_parent(void)
{
}

int rtg_px_pid_fd(long pid)
{
    (void)pid;
    return -1;
}

int rtg_proc_clone(int *pid, struct rtg_proc_child *c, void *stack, size_t stack_size)
{
    (void)pid;
    (void)c;
    (void)stack;
    (void)stack_size;
    return ENOTSUP;
}

bool rtg_timerlat_available(char *why, size_t n)
{
    snprintf(why, n, "no timerlat tracer: not Linux");
    return false;
}
