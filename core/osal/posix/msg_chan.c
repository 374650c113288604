/* Message channels (rtg/osal_msg.h) on POSIX: what every mechanism shares
 * -- opening, the checks before a send or a receive, the wait bound, abort
 * and close -- dispatched to the mechanism's own file (msg_internal.h).
 * The calls tests make are core/src/runner/msg_calls.c's, over the port's one
 * send and one receive here. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "msg_internal.h"

#define DEFAULT_WAIT_NS (5ull * 1000000000ull)

static const struct rtg_px_msg_ops *const mechs[RTG_MSG_NMECH] = {
    [RTG_MSG_MQ] = &rtg_px_msg_mq,
    [RTG_MSG_PIPE] = &rtg_px_msg_pipe,
    [RTG_MSG_SYSV] = &rtg_px_msg_sysv,
    [RTG_MSG_UNIX] = &rtg_px_msg_unix,
};

long rtg_px_read_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

void rtg_px_ignore_sigpipe(void)
{
    struct sigaction sa;
    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
        sa.sa_handler = SIG_IGN;
        sigaction(SIGPIPE, &sa, NULL);
    }
}

int rtg_msg_open(struct rtg_msg_chan **out, enum rtg_msg_mech mech, size_t msg_size,
                 size_t capacity, bool want_prio, struct rtg_msg_caps *caps)
{
    *out = NULL;
    if (msg_size == 0 || mech >= RTG_MSG_NMECH)
        return EINVAL;
    struct rtg_msg_chan *c = calloc(1, sizeof *c);
    if (!c)
        return ENOMEM;
    c->mech = mech;
    c->fd[0] = c->fd[1] = -1;
    c->sysv = -1;
    c->mq = (mqd_t)-1;
    c->want_prio = want_prio;
    c->wait_ns = DEFAULT_WAIT_NS;
    c->caps.msg_size = msg_size;
    int rc = mechs[mech]->create(c, capacity, want_prio);
    if (caps)
        *caps = c->caps;
    if (rc) {
        rtg_msg_close(c);
        return rc;
    }
    if (mechs[mech]->wait_changed)
        mechs[mech]->wait_changed(c);
    *out = c;
    return 0;
}

const struct rtg_msg_caps *rtg_msg_caps(const struct rtg_msg_chan *c)
{
    return &c->caps;
}

void rtg_msg_set_wait_ns(struct rtg_msg_chan *c, uint64_t ns)
{
    c->wait_ns = ns;
    if (mechs[c->mech]->wait_changed)
        mechs[c->mech]->wait_changed(c);
}

int rtg_msg_port_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio,
                      enum rtg_msg_wait wait)
{
    if (c->aborted)
        return ECANCELED;
    if (len > c->caps.msg_size)
        return EMSGSIZE;
    if (!c->caps.priorities)
        prio = 0;
    else if (prio > c->caps.prio_max)
        return EINVAL;
    return mechs[c->mech]->send(c, buf, len, prio, wait == RTG_MSG_WAIT);
}

/* A receive until a deadline is native on POSIX message queues only. */
int rtg_msg_port_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio,
                      enum rtg_msg_wait wait, uint64_t deadline_ns)
{
    const struct rtg_px_msg_ops *m = mechs[c->mech];
    if (wait == RTG_MSG_UNTIL && !m->recv_until)
        return ENOTSUP;
    if (c->aborted)
        return ECANCELED;
    if (cap < c->caps.msg_size)
        return EMSGSIZE;
    if (wait == RTG_MSG_UNTIL)
        return m->recv_until(c, buf, cap, len, prio, deadline_ns);
    return m->recv(c, buf, cap, len, prio, wait == RTG_MSG_WAIT);
}

void rtg_msg_abort(struct rtg_msg_chan *c)
{
    if (!c || c->aborted)
        return;
    c->aborted = 1;
    mechs[c->mech]->abort(c);
}

void rtg_msg_close(struct rtg_msg_chan *c)
{
    if (!c)
        return;
    mechs[c->mech]->close(c);
    free(c);
}
