/* Message channels over a UNIX domain datagram socket pair
 * (msg_internal.h): no priorities; the wait bound is the sockets' own
 * timeouts. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "msg_internal.h"

static int unix_create(struct rtg_msg_chan *c, size_t capacity, bool want_prio)
{
    (void)capacity, (void)want_prio; /* measured below; no priorities */
    size_t size = c->caps.msg_size;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
        return errno;
    c->fd[0] = sv[0];
    c->fd[1] = sv[1];
    rtg_px_ignore_sigpipe();
    int sb = 0;
    socklen_t sl = sizeof sb;
    c->caps.size_limit = getsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sb, &sl) == 0 ? (size_t)sb : 0;
    c->caps.limit_name = "SO_SNDBUF of the sending socket";
    if (size > c->caps.size_limit && c->caps.size_limit) {
        return EMSGSIZE;
    }
    /* The capacity depends on socket buffers and net.unix.max_dgram_qlen:
     * measure it once by filling the empty socket. */
    char *buf = calloc(1, size);
    if (!buf)
        return ENOMEM;
    size_t n = 0;
    while (n < 1000000 && send(sv[1], buf, size, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)size)
        n++;
    int e = errno;
    for (size_t i = 0; i < n; i++)
        recv(sv[0], buf, size, MSG_DONTWAIT);
    free(buf);
    if (n == 0)
        return e == EMSGSIZE ? EMSGSIZE : e;
    c->caps.capacity = n;
    return 0;
}

static void set_sock_timeouts(struct rtg_msg_chan *c)
{
    struct timeval tv = {.tv_sec = (time_t)(c->wait_ns / 1000000000u),
                         .tv_usec = (suseconds_t)(c->wait_ns % 1000000000u / 1000u)};
    if (tv.tv_sec == 0 && tv.tv_usec == 0)
        tv.tv_usec = 1;
    setsockopt(c->fd[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(c->fd[1], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static int unix_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio, bool wait)
{
    (void)prio;
    for (;;) {
        ssize_t r = send(c->fd[1], buf, len, MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT));
        if (r == (ssize_t)len)
            return 0;
        if (r < 0 && errno == EINTR && !c->aborted)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return wait ? ETIMEDOUT : EAGAIN;
        return c->aborted || (r < 0 && errno == EPIPE) ? ECANCELED : (r < 0 ? errno : EIO);
    }
}

static int unix_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *got, unsigned *prio,
                     bool wait)
{
    (void)prio;
    ssize_t r;
    for (;;) {
        r = recv(c->fd[0], buf, cap, wait ? 0 : MSG_DONTWAIT);
        if (r >= 0)
            break;
        if (errno == EINTR && !c->aborted)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return wait ? ETIMEDOUT : EAGAIN;
        return c->aborted ? ECANCELED : errno;
    }
    if (r == 0 && c->aborted)
        return ECANCELED;
    *got = (size_t)r;
    return 0;
}

static void unix_abort(struct rtg_msg_chan *c)
{
    shutdown(c->fd[0], SHUT_RDWR);
    shutdown(c->fd[1], SHUT_RDWR);
}

static void unix_end(struct rtg_msg_chan *c)
{
    for (int i = 0; i < 2; i++)
        if (c->fd[i] >= 0)
            close(c->fd[i]);
}

const struct rtg_px_msg_ops rtg_px_msg_unix = {
    .create = unix_create,
    .send = unix_send,
    .recv = unix_recv,
    .wait_changed = set_sock_timeouts,
    .abort = unix_abort,
    .close = unix_end,
};
