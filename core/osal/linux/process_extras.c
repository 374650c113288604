/* Linux's process extras for the POSIX port (posix_os.h) and the OSAL's
 * clone: the parent-death signal, pidfd, /dev/cpu_dma_latency. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../posix/posix_os.h"
#include "rtg/osal_proc.h"

/* Holding /dev/cpu_dma_latency at 0 keeps CPUs out of deep idle states for
 * the run, as cyclictest does; closing it restores the old setting. */
int rtg_px_hold_dma_latency(void)
{
    int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int32_t zero = 0;
    if (write(fd, &zero, sizeof zero) != sizeof zero) {
        close(fd);
        return -1;
    }
    return fd;
}

void rtg_px_die_with_parent(void)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
}

int rtg_px_pid_fd(long pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

int rtg_proc_clone(int *pid, struct rtg_proc_child *c, void *stack, size_t stack_size)
{
    /* The stack grows down on every architecture the probe targets. */
    char *top = (char *)stack + stack_size;
    top = (char *)((uintptr_t)top & ~(uintptr_t)15);
    int p = clone(rtg_px_child_body, top, CLONE_VM | SIGCHLD, c);
    if (p < 0)
        return errno;
    *pid = p;
    return 0;
}
