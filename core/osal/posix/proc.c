/* Processes for PRC-P-NEW (see rtg/osal_proc.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtg/clock.h"
#include "posix_os.h"
#include "rtg/osal_proc.h"

extern char **environ;

void *rtg_shared_alloc(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void rtg_shared_free(void *p, size_t len)
{
    if (p)
        munmap(p, len);
}

/* The child's body: stamp first, then block forever or exit. Only
 * async-signal-safe calls (it may share the parent's memory: clone). */
int rtg_px_child_body(void *arg)
{
    struct rtg_proc_child *c = arg;
    c->first = rtg_clock_ticks();
    if (!c->block) {
        c->last = rtg_clock_ticks();
        _exit(0);
    }
    rtg_px_die_with_parent();
    for (;;)
        poll(NULL, 0, -1);
    return 0;
}

int rtg_proc_fork(int *pid, struct rtg_proc_child *c)
{
    pid_t p = fork();
    if (p < 0)
        return errno;
    if (p == 0)
        rtg_px_child_body(c);
    *pid = (int)p;
    return 0;
}

int rtg_proc_vfork_exec(int *pid, const char *path, char *const argv[], int stdin_fd)
{
    pid_t p = vfork();
    if (p < 0)
        return errno;
    if (p == 0) {
        rtg_px_die_with_parent();
        if (stdin_fd >= 0 && dup2(stdin_fd, 0) < 0)
            _exit(127);
        execve(path, argv, environ);
        _exit(127);
    }
    *pid = (int)p;
    return 0;
}

int rtg_proc_spawn(int *pid, const char *path, char *const argv[], int stdin_fd)
{
    pid_t p;
    posix_spawn_file_actions_t fa;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc)
        return rc;
    if (stdin_fd >= 0)
        rc = posix_spawn_file_actions_adddup2(&fa, stdin_fd, 0);
    if (!rc)
        rc = posix_spawn(&p, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return rc;
    *pid = (int)p;
    return 0;
}

int rtg_proc_pipe(int fds[2])
{
#ifdef __linux__
    return pipe2(fds, O_CLOEXEC) ? errno : 0;
#else
    if (pipe(fds))
        return errno;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
#endif
}

void rtg_proc_close(int fd)
{
    if (fd >= 0)
        close(fd);
}

int rtg_proc_kill(int pid)
{
    return kill((pid_t)pid, SIGKILL) ? errno : 0;
}

int rtg_proc_reap(int pid, int *status)
{
    int st;
    pid_t r;
    while ((r = waitpid((pid_t)pid, &st, 0)) < 0 && errno == EINTR)
        ;
    if (r < 0)
        return errno;
    if (status)
        *status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
    return 0;
}

bool rtg_proc_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}
