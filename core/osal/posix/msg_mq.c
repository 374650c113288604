/* Message channels over POSIX message queues (msg_internal.h): priorities
 * native, a timed send and receive (CLOCK_REALTIME deadlines), the name
 * unlinked as soon as the queue exists. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "msg_internal.h"
#include "posix_os.h"

static unsigned mq_seq;

static int mqueue_create(struct rtg_msg_chan *c, size_t capacity, bool want_prio)
{
    (void)want_prio; /* always by priority */
    size_t size = c->caps.msg_size;
    long size_max = rtg_px_read_long("/proc/sys/fs/mqueue/msgsize_max");
    long msg_max = rtg_px_read_long("/proc/sys/fs/mqueue/msg_max");
    c->caps.size_limit = size_max > 0 ? (size_t)size_max : 0;
    c->caps.limit_name = "/proc/sys/fs/mqueue/msgsize_max";
    c->caps.priorities = true;
    long pm = sysconf(_SC_MQ_PRIO_MAX);
    c->caps.prio_max = pm > 0 ? (unsigned)(pm - 1) : 31;
    if (capacity == 0)
        capacity = msg_max > 0 ? (size_t)msg_max : 10;
    for (int tries = 0; tries < 16; tries++) {
        char name[64];
        snprintf(name, sizeof name, RTG_PX_MQ_PREFIX "%ld-%u", (long)getpid(), mq_seq++);
        struct mq_attr a = {.mq_maxmsg = (long)capacity, .mq_msgsize = (long)size};
        mqd_t q = mq_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &a);
        if (q != (mqd_t)-1) {
            mq_unlink(name); /* nothing to leak, even if killed from now on */
            c->mq = q;
            c->caps.capacity = capacity;
            c->caps.size_raised = size_max > 0 && size > (size_t)size_max;
            return 0;
        }
        int e = errno;
        if (e == EEXIST)
            continue;
        if (e == EINVAL && size_max > 0 && size > (size_t)size_max)
            return EMSGSIZE; /* no CAP_SYS_RESOURCE to go above the limit */
        if (e == EINVAL && msg_max > 0 && capacity > (size_t)msg_max) {
            capacity = (size_t)msg_max;
            continue;
        }
        if (e == EMFILE) { /* RLIMIT_MSGQUEUE: raise the soft limit, then shrink */
            struct rlimit rl;
            if (getrlimit(RLIMIT_MSGQUEUE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                if (setrlimit(RLIMIT_MSGQUEUE, &rl) == 0)
                    continue;
            }
            if (capacity > 1) {
                capacity /= 2;
                continue;
            }
        }
        return e;
    }
    return EEXIST;
}

/* The channel's wait bound from now, on the clock mq_timed* take. */
static struct timespec mqueue_deadline(const struct rtg_msg_chan *c)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + c->wait_ns % 1000000000u;
    ts.tv_sec += (time_t)(c->wait_ns / 1000000000u + ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    return ts;
}

static int mqueue_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio,
                       bool wait)
{
    struct timespec ts = {0, 0};
    if (wait)
        ts = mqueue_deadline(c);
    if (mq_timedsend(c->mq, buf, len, prio, &ts) == 0)
        return 0;
    int e = errno;
    if (e == ETIMEDOUT && !wait)
        return EAGAIN;
    return c->aborted ? ECANCELED : e;
}

static int mqueue_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *got, unsigned *prio,
                   bool wait)
{
    struct timespec ts = {0, 0};
    if (wait)
        ts = mqueue_deadline(c);
    ssize_t r = mq_timedreceive(c->mq, buf, cap, prio, &ts);
    if (r < 0) {
        int e = errno;
        if (e == ETIMEDOUT && !wait)
            return EAGAIN;
        return c->aborted ? ECANCELED : e;
    }
    if (c->aborted)
        return ECANCELED;
    *got = (size_t)r;
    return 0;
}

/* Native: the timed call takes a CLOCK_REALTIME deadline (rtg_timed_clock). */
static int mqueue_recv_until(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *got,
                         unsigned *prio, uint64_t deadline_ns)
{
    struct timespec ts = rtg_px_realtime_deadline(deadline_ns);
    ssize_t r;
    while ((r = mq_timedreceive(c->mq, buf, cap, prio, &ts)) < 0 && errno == EINTR && !c->aborted)
        ;
    if (r < 0)
        return c->aborted ? ECANCELED : errno;
    *got = (size_t)r;
    return 0;
}

/* Timed anyway; a message wakes a blocked receiver, a receive a blocked
 * sender, and both then see the flag. */
static void mqueue_abort(struct rtg_msg_chan *c)
{
    char b[1] = {0};
    struct timespec ts = {0, 0};
    mq_timedsend(c->mq, b, 0, 0, &ts);
    struct mq_attr a;
    if (mq_getattr(c->mq, &a) == 0 && a.mq_msgsize > 0) {
        char *r = malloc((size_t)a.mq_msgsize);
        if (r) {
            mq_timedreceive(c->mq, r, (size_t)a.mq_msgsize, NULL, &ts);
            free(r);
        }
    }
}

static void mqueue_end(struct rtg_msg_chan *c)
{
    if (c->mq != (mqd_t)-1)
        mq_close(c->mq);
}

const struct rtg_px_msg_ops rtg_px_msg_mq = {
    .create = mqueue_create,
    .send = mqueue_send,
    .recv = mqueue_recv,
    .recv_until = mqueue_recv_until,
    .abort = mqueue_abort,
    .close = mqueue_end,
};
