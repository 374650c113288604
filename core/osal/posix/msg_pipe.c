/* Message channels over pipes (msg_internal.h): a byte stream carrying
 * records of the channel's fixed size, no priorities; a blocked call is
 * bounded by an abort from the waiting side. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "msg_internal.h"

static int pipe_create(struct rtg_msg_chan *c, size_t capacity, bool want_prio)
{
    (void)capacity, (void)want_prio; /* the kernel's pipe size; no priorities */
    size_t size = c->caps.msg_size;
    if (pipe2(c->fd, O_CLOEXEC))
        return errno;
    rtg_px_ignore_sigpipe();
    long sz = 65536;
#ifdef F_GETPIPE_SZ
    long g = fcntl(c->fd[1], F_GETPIPE_SZ);
    if (g > 0)
        sz = g;
#endif
    c->pipe_sz = (size_t)sz;
    c->caps.size_limit = 0;
    c->caps.limit_name = "none (a byte stream; messages are fixed-size records)";
    /* How many records fit depends on how the kernel packs writes into the
     * pipe's pages (a write merges into the last page only when its tail
     * fits): measure it on the empty pipe with non-blocking writes. */
    char *buf = calloc(1, size);
    if (!buf)
        return ENOMEM;
    int fl = fcntl(c->fd[1], F_GETFL);
    fcntl(c->fd[1], F_SETFL, fl | O_NONBLOCK);
    fcntl(c->fd[0], F_SETFL, fl | O_NONBLOCK);
    size_t n = 0;
    for (;;) {
        ssize_t w = write(c->fd[1], buf, size);
        if (w != (ssize_t)size)
            break;
        n++;
    }
    while (read(c->fd[0], buf, size) > 0)
        ;
    fcntl(c->fd[1], F_SETFL, fl);
    fcntl(c->fd[0], F_SETFL, fl);
    free(buf);
    c->caps.capacity = n;
    if (n == 0)
        return EMSGSIZE;
    return 0;
}

/* Writes or reads exactly n bytes of a pipe. */
static int pipe_io(int fd, void *buf, size_t n, bool writing)
{
    char *p = buf;
    while (n) {
        ssize_t r = writing ? write(fd, p, n) : read(fd, p, n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return errno == EPIPE ? ECANCELED : errno;
        }
        if (r == 0)
            return ECANCELED; /* every writer gone: aborted */
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int pipe_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio, bool wait)
{
    (void)prio;
    if (len != c->caps.msg_size)
        return EINVAL; /* records of a fixed size */
    if (!wait) {
        /* Room for the whole record, or EAGAIN: a partial non-blocking
         * write could not be undone. Room is judged against the capacity
         * measured at open (records written into an emptied pipe). */
        int queued = 0;
        if (ioctl(c->fd[1], FIONREAD, &queued) != 0)
            return errno;
        if ((size_t)queued / len + 1 > c->caps.capacity)
            return EAGAIN;
    }
    return pipe_io(c->fd[1], (void *)buf, len, true);
}

static int pipe_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *got, unsigned *prio,
                     bool wait)
{
    (void)cap, (void)prio;
    if (!wait) {
        struct pollfd p = {.fd = c->fd[0], .events = POLLIN};
        if (poll(&p, 1, 0) != 1 || !(p.revents & POLLIN))
            return EAGAIN;
    }
    int rc = pipe_io(c->fd[0], buf, c->caps.msg_size, false);
    if (rc)
        return rc;
    *got = c->caps.msg_size;
    return 0;
}

/* Replace both ends with /dev/null: the last writer gone wakes readers
 * (EOF), the last reader gone fails writers (EPIPE); the descriptor numbers
 * stay valid for threads still using them. */
static void pipe_abort(struct rtg_msg_chan *c)
{
    int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (nul >= 0) {
        dup3(nul, c->fd[1], O_CLOEXEC);
        dup3(nul, c->fd[0], O_CLOEXEC);
        close(nul);
    }
}

static void pipe_end(struct rtg_msg_chan *c)
{
    for (int i = 0; i < 2; i++)
        if (c->fd[i] >= 0)
            close(c->fd[i]);
}

const struct rtg_px_msg_ops rtg_px_msg_pipe = {
    .create = pipe_create,
    .send = pipe_send,
    .recv = pipe_recv,
    .abort = pipe_abort,
    .close = pipe_end,
};
