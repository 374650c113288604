/* The janitor process (janitor.h), written once for every kind of object
 * that must not outlive the probe. */
#define _GNU_SOURCE
#include "janitor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOTE_MAX 64

static void janitor(int rfd, const struct rtg_px_janitor_job *job)
{
    setsid();
    for (int fd = 0; fd < 1024; fd++)
        if (fd != rfd)
            close(fd);
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
    int fds[2];
    if (job->note_size > NOTE_MAX)
        return EINVAL;
    if (pipe2(fds, O_CLOEXEC))
        return errno;
    pid_t pid = fork();
    if (pid == 0) {
        if (!detached)
            janitor(fds[0], job);
        if (fork() == 0) /* the janitor, re-parented at once */
            janitor(fds[0], job);
        _exit(0);
    }
    int e = errno;
    close(fds[0]);
    if (pid < 0) {
        close(fds[1]);
        return e;
    }
    if (detached) {
        waitpid(pid, NULL, 0);
        pid = 0;
    }
    *j = (struct rtg_px_janitor){.fd = fds[1], .owner = (long)getpid(), .pid = (long)pid};
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
