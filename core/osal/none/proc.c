/* Processes: a topic this port does not offer (docs/porting.md): every call returns
 * ENOTSUP (or nothing), never a made-up success; rtg_osal_offers() of
 * the port says so and the runner skips the tests that need it. Shared by
 * the ports without it (c11, freertos). */
#include <errno.h>

#include "rtg/osal_proc.h"

int rtg_proc_fork(int *pid, struct rtg_proc_child *c)
{
    (void)pid, (void)c;
    return ENOTSUP;
}
int rtg_proc_clone(int *pid, struct rtg_proc_child *c, void *stack, size_t stack_size)
{
    (void)pid, (void)c, (void)stack, (void)stack_size;
    return ENOTSUP;
}
int rtg_proc_vfork_exec(int *pid, const char *path, char *const argv[], int stdin_fd)
{
    (void)pid, (void)path, (void)argv, (void)stdin_fd;
    return ENOTSUP;
}
int rtg_proc_spawn(int *pid, const char *path, char *const argv[], int stdin_fd)
{
    return rtg_proc_vfork_exec(pid, path, argv, stdin_fd);
}
int rtg_proc_pipe(int fds[2])
{
    (void)fds;
    return ENOTSUP;
}
void rtg_proc_close(int fd) { (void)fd; }
int rtg_proc_kill(int pid)
{
    (void)pid;
    return ENOTSUP;
}
int rtg_proc_reap(int pid, int *status)
{
    (void)pid, (void)status;
    return ENOTSUP;
}
bool rtg_proc_executable(const char *path)
{
    (void)path;
    return false;
}
