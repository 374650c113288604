/* The janitor process (janitor.h), written once for every kind of object
 * that must not outlive the probe. */
#define _GNU_SOURCE
#include "janitor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOTE_MAX 64

bool rtg_px_io_all(int fd, void *buf, size_t n, bool writing)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = writing ? write(fd, p, n) : read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

static void janitor(int rfd, int reply_fd, const struct rtg_px_janitor_job *job)
{
    setsid();
    signal(SIGPIPE, SIG_IGN); /* a caller killed before the reply: still clean up */
    for (int fd = 0; fd < 1024; fd++)
        if (fd != rfd && fd != reply_fd)
            close(fd);
    if (job->create) {
        int e = job->create(job->state);
        if (rtg_px_io_all(reply_fd, &e, sizeof e, true) && !e)
            (void)rtg_px_io_all(reply_fd, job->state, job->reply_size, true);
        close(reply_fd);
        if (e)
            _exit(0); /* nothing was created */
    }
    char note[NOTE_MAX];
    size_t size = job->note_size ? job->note_size : 1;
    for (;;) {
        ssize_t got = read(rfd, note, size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got != (ssize_t)size || !job->note_size)
            break; /* end of file: the owner and its forked processes are gone */
        job->note(job->state, note);
    }
    job->cleanup(job->state);
    _exit(0);
}

int rtg_px_janitor_start(struct rtg_px_janitor *j, const struct rtg_px_janitor_job *job,
                         bool detached)
{
    int fds[2], rep[2] = {-1, -1};
    if (job->note_size > NOTE_MAX)
        return EINVAL;
    if (pipe2(fds, O_CLOEXEC))
        return errno;
    if (job->create && pipe2(rep, O_CLOEXEC)) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return e;
    }
    pid_t pid = fork();
    if (pid == 0) {
        if (!detached)
            janitor(fds[0], rep[1], job);
        if (fork() == 0) /* the janitor, re-parented at once */
            janitor(fds[0], rep[1], job);
        _exit(0);
    }
    int e = errno;
    close(fds[0]);
    if (rep[1] >= 0)
        close(rep[1]);
    if (pid < 0) {
        close(fds[1]);
        if (rep[0] >= 0)
            close(rep[0]);
        return e;
    }
    if (detached) {
        waitpid(pid, NULL, 0);
        pid = 0;
    }
    *j = (struct rtg_px_janitor){.fd = fds[1], .owner = (long)getpid(), .pid = (long)pid};
    if (job->create) { /* wait for the object, made in the janitor's session */
        int made = EIO;
        if (!rtg_px_io_all(rep[0], &made, sizeof made, false) ||
            (!made && !rtg_px_io_all(rep[0], job->state, job->reply_size, false)))
            made = made ? made : EIO;
        close(rep[0]);
        if (made) {
            rtg_px_janitor_release(j, 1000);
            return made;
        }
    }
    return 0;
}

void rtg_px_janitor_tell(const struct rtg_px_janitor *j, const void *note, size_t size)
{
    ssize_t w;
    do
        w = write(j->fd, note, size); /* atomic: below PIPE_BUF */
    while (w < 0 && errno == EINTR);
}

void rtg_px_janitor_release(struct rtg_px_janitor *j, int wait_ms)
{
    if (j->fd >= 0)
        close(j->fd); /* the janitor finds nothing left and exits */
    j->fd = -1;
    for (int t = 0; t < wait_ms / 5 && j->pid > 0; t++) {
        if (waitpid((pid_t)j->pid, NULL, WNOHANG) != 0)
            break;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    j->pid = 0;
}
