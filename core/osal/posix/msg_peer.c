/* Peers (rtg/osal_msg.h): a function run by a thread, or by a forked
 * process that takes the thread's attributes and dies with its parent. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "posix_os.h"
#include "rtg/osal_msg.h"

static void *thread_trampoline(void *arg)
{
    struct rtg_peer *p = arg;
    void *r = p->fn(p->arg);
    rtg_sem_post(&p->done);
    return r;
}

int rtg_peer_start(struct rtg_peer *p, bool process, const struct rtg_thread_attr *attr,
                   rtg_thread_fn fn, void *arg)
{
    memset(p, 0, sizeof *p);
    p->process = process;
    p->fn = fn;
    p->arg = arg;
    if (!process) {
        int rc = rtg_sem_init(&p->done, 0);
        if (rc)
            return rc;
        rc = rtg_thread_create(&p->thread, attr, thread_trampoline, p);
        if (rc)
            rtg_sem_destroy(&p->done);
        return rc;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return errno;
    if (pid == 0) {
        rtg_px_die_with_parent();
        if (getppid() != parent)
            _exit(3);
        rtg_lock_memory(); /* locks are not inherited across fork */
        if (attr->cpu >= 0)
            rtg_pin_self(attr->cpu);
        if (rtg_thread_set_sched(rtg_thread_self(), attr->policy, attr->prio))
            rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_OTHER, 0);
        fn(arg);
        _exit(0);
    }
    p->pid = (long)pid;
    return 0;
}

int rtg_peer_wait(struct rtg_peer *p, uint64_t deadline_ns)
{
    if (p->joined)
        return 0;
    if (!p->process) {
        int rc = rtg_sem_wait_until(&p->done, deadline_ns);
        if (rc)
            return rc;
        rtg_thread_join(p->thread, NULL);
        rtg_sem_destroy(&p->done);
        p->joined = true;
        return 0;
    }
    int fd = rtg_px_pid_fd(p->pid);
    for (;;) {
        int st;
        pid_t r = waitpid((pid_t)p->pid, &st, WNOHANG);
        if (r == (pid_t)p->pid || (r < 0 && errno == ECHILD)) {
            p->joined = true;
            if (fd >= 0)
                close(fd);
            return 0;
        }
        uint64_t now = rtg_mono_ns();
        if (now >= deadline_ns) {
            if (fd >= 0)
                close(fd);
            return ETIMEDOUT;
        }
        uint64_t left_ms = (deadline_ns - now) / 1000000u + 1;
        if (fd >= 0) { /* sleeps until the child ends: no polling wake-ups */
            struct pollfd pf = {.fd = fd, .events = POLLIN};
            poll(&pf, 1, left_ms > 1000 ? 1000 : (int)left_ms);
        } else {
            rtg_sleep_ns((left_ms > 20 ? 20 : left_ms) * 1000000u);
        }
    }
}

int rtg_peer_kill(struct rtg_peer *p)
{
    if (p->joined)
        return 0;
    if (!p->process)
        return EBUSY;
    kill((pid_t)p->pid, SIGKILL);
    waitpid((pid_t)p->pid, NULL, 0);
    p->joined = true;
    return 0;
}
