/* Message channels and peers (rtg/osal_msg.h): POSIX mq, pipes, System V
 * queues, UNIX domain datagram sockets; threads or forked processes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mqueue.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "janitor.h"
#include "posix_os.h"
#include "rtg/osal_msg.h"
#include "rtg/osal_timed.h"

#define MQ_PREFIX "/rtg-msg-"
/* System V keys of the probe: 0x52 ('R') in the top byte, the creator's
 * pid (22 bits, Linux's PID_MAX_LIMIT) and a 2-bit sequence number. */
#define SYSV_TAG 0x52000000u
#define SYSV_PRIO_LEVELS 32768L
#define DEFAULT_WAIT_NS (5ull * 1000000000ull)

struct rtg_msg_chan {
    enum rtg_msg_mech mech;
    struct rtg_msg_caps caps;
    uint64_t wait_ns;
    volatile int aborted;
    bool want_prio;
    mqd_t mq;
    int fd[2]; /* pipe: read, write; unix: receiving, sending socket */
    int sysv;
    size_t pipe_sz;
};

static unsigned mq_seq, sysv_seq;

const char *rtg_msg_mech_name(enum rtg_msg_mech m)
{
    switch (m) {
    case RTG_MSG_MQ: return "mq";
    case RTG_MSG_PIPE: return "pipe";
    case RTG_MSG_SYSV: return "sysv";
    case RTG_MSG_UNIX: return "unix";
    default: return "?";
    }
}

static long read_long(const char *path)
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

static void ignore_sigpipe(void)
{
    struct sigaction sa;
    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
        sa.sa_handler = SIG_IGN;
        sigaction(SIGPIPE, &sa, NULL);
    }
}

/* ---- POSIX message queues ---- */
static int mq_create(struct rtg_msg_chan *c, size_t size, size_t capacity)
{
    long size_max = read_long("/proc/sys/fs/mqueue/msgsize_max");
    long msg_max = read_long("/proc/sys/fs/mqueue/msg_max");
    c->caps.size_limit = size_max > 0 ? (size_t)size_max : 0;
    c->caps.limit_name = "/proc/sys/fs/mqueue/msgsize_max";
    c->caps.priorities = true;
    long pm = sysconf(_SC_MQ_PRIO_MAX);
    c->caps.prio_max = pm > 0 ? (unsigned)(pm - 1) : 31;
    if (capacity == 0)
        capacity = msg_max > 0 ? (size_t)msg_max : 10;
    for (int tries = 0; tries < 16; tries++) {
        char name[64];
        snprintf(name, sizeof name, MQ_PREFIX "%ld-%u", (long)getpid(), mq_seq++);
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

/* ---- pipes ---- */
static int pipe_create(struct rtg_msg_chan *c, size_t size)
{
    if (pipe2(c->fd, O_CLOEXEC))
        return errno;
    ignore_sigpipe();
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

/* ---- System V queues ---- */

/* A System V queue outlives a SIGKILL of its creator. A janitor
 * (janitor.h) is told each queue's id as it is created and removed; at the
 * end of its creator (and of the creator's forked peers), however it comes,
 * it removes the queues still listed. One per process, started with the
 * first queue. rtg_msg_sweep remains for a janitor that could not be
 * started. */
#define JANITOR_MAX 256
struct jrec {
    char op; /* '+' created, '-' removed */
    int id;
};
/* The queues still listed: the janitor's own copy is the one it keeps. */
struct listed {
    int ids[JANITOR_MAX];
    size_t n;
};
static struct listed listed;
static struct rtg_px_janitor sysv_janitor = {.fd = -1};

static void janitor_note(void *state, const void *note)
{
    struct listed *l = state;
    struct jrec r;
    memcpy(&r, note, sizeof r);
    if (r.op == '+' && l->n < JANITOR_MAX) {
        l->ids[l->n++] = r.id;
    } else if (r.op == '-') {
        for (size_t i = 0; i < l->n; i++)
            if (l->ids[i] == r.id) {
                l->ids[i] = l->ids[--l->n];
                break;
            }
    }
}

static void janitor_cleanup(void *state)
{
    struct listed *l = state;
    for (size_t i = 0; i < l->n; i++)
        msgctl(l->ids[i], IPC_RMID, NULL);
}

static void janitor_tell(char op, int id)
{
    if (sysv_janitor.owner != (long)getpid()) { /* none yet in this process */
        if (op != '+')
            return;
        /* an fd inherited from a parent's janitor stays open: it keeps
         * that janitor waiting while this process may use its queues */
        const struct rtg_px_janitor_job job = {.note_size = sizeof(struct jrec),
                                               .note = janitor_note,
                                               .cleanup = janitor_cleanup,
                                               .state = &listed};
        listed.n = 0;
        if (rtg_px_janitor_start(&sysv_janitor, &job, true))
            return;
    }
    struct jrec r = {.op = op, .id = id};
    rtg_px_janitor_tell(&sysv_janitor, &r, sizeof r);
}

static void sysv_remove(int id)
{
    msgctl(id, IPC_RMID, NULL);
    janitor_tell('-', id);
}

static int sysv_create(struct rtg_msg_chan *c, size_t size, size_t capacity, bool want_prio)
{
    long msgmax = read_long("/proc/sys/kernel/msgmax");
    c->caps.size_limit = msgmax > 0 ? (size_t)msgmax : 0;
    c->caps.limit_name = "/proc/sys/kernel/msgmax";
    if (msgmax > 0 && size > (size_t)msgmax)
        return EMSGSIZE; /* no capability lifts msgmax */
    c->caps.priorities = want_prio;
    c->caps.prio_max = want_prio ? (unsigned)(SYSV_PRIO_LEVELS - 1) : 0;
    long pid = (long)getpid();
    int id = -1;
    for (int tries = 0; tries < 4 && id < 0; tries++) {
        key_t key = (key_t)(SYSV_TAG | (((unsigned long)pid & 0x3fffffu) << 2) | (sysv_seq++ & 3u));
        id = msgget(key, IPC_CREAT | IPC_EXCL | 0600);
        if (id < 0 && errno != EEXIST)
            return errno;
    }
    if (id < 0) { /* more than four queues at once: an anonymous one */
        id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
        if (id < 0)
            return errno;
    }
    c->sysv = id;
    janitor_tell('+', id);
    struct msqid_ds ds;
    if (msgctl(id, IPC_STAT, &ds) == 0) {
        size_t want = capacity ? capacity * size : 0;
        if (want > ds.msg_qbytes) { /* above msgmnb needs CAP_SYS_RESOURCE */
            ds.msg_qbytes = (msglen_t)want;
            if (msgctl(id, IPC_SET, &ds) != 0)
                msgctl(id, IPC_STAT, &ds);
        }
        c->caps.capacity = (size_t)ds.msg_qbytes / size;
    }
    if (c->caps.capacity == 0) {
        sysv_remove(id);
        c->sysv = -1;
        return EMSGSIZE;
    }
    return 0;
}

/* ---- UNIX domain datagram sockets ---- */
static int unix_create(struct rtg_msg_chan *c, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
        return errno;
    c->fd[0] = sv[0];
    c->fd[1] = sv[1];
    ignore_sigpipe();
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
    int rc;
    switch (mech) {
    case RTG_MSG_MQ: rc = mq_create(c, msg_size, capacity); break;
    case RTG_MSG_PIPE: rc = pipe_create(c, msg_size); break;
    case RTG_MSG_SYSV: rc = sysv_create(c, msg_size, capacity, want_prio); break;
    default: rc = unix_create(c, msg_size); break;
    }
    if (caps)
        *caps = c->caps;
    if (rc) {
        rtg_msg_close(c);
        return rc;
    }
    if (mech == RTG_MSG_UNIX)
        set_sock_timeouts(c);
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
    if (c->mech == RTG_MSG_UNIX)
        set_sock_timeouts(c);
}

static struct timespec mq_deadline(const struct rtg_msg_chan *c)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + c->wait_ns % 1000000000u;
    ts.tv_sec += (time_t)(c->wait_ns / 1000000000u + ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    return ts;
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

static int do_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio, bool wait)
{
    if (c->aborted)
        return ECANCELED;
    if (len > c->caps.msg_size)
        return EMSGSIZE;
    if (!c->caps.priorities)
        prio = 0;
    else if (prio > c->caps.prio_max)
        return EINVAL;
    switch (c->mech) {
    case RTG_MSG_MQ: {
        struct timespec ts = {0, 0};
        if (wait)
            ts = mq_deadline(c);
        if (mq_timedsend(c->mq, buf, len, prio, &ts) == 0)
            return 0;
        int e = errno;
        if (e == ETIMEDOUT && !wait)
            return EAGAIN;
        return c->aborted ? ECANCELED : e;
    }
    case RTG_MSG_PIPE: {
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
    case RTG_MSG_SYSV: {
        /* msgsnd wants the type in front of the data: one copy. */
        size_t total = sizeof(long) + len;
        long tmp[(total + sizeof(long) - 1) / sizeof(long)];
        tmp[0] = c->caps.priorities ? SYSV_PRIO_LEVELS - (long)prio : 1;
        memcpy(tmp + 1, buf, len);
        for (;;) {
            if (msgsnd(c->sysv, tmp, len, wait ? 0 : IPC_NOWAIT) == 0)
                return 0;
            if (errno == EINTR && !c->aborted)
                continue;
            if (errno == EIDRM || errno == EINVAL || c->aborted)
                return ECANCELED;
            return errno;
        }
    }
    default: {
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
    }
}

int rtg_msg_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio)
{
    return do_send(c, buf, len, prio, true);
}

int rtg_msg_send_try(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio)
{
    return do_send(c, buf, len, prio, false);
}

static int do_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio,
                   bool wait)
{
    if (c->aborted)
        return ECANCELED;
    if (cap < c->caps.msg_size)
        return EMSGSIZE;
    unsigned pr = 0;
    size_t got = 0;
    switch (c->mech) {
    case RTG_MSG_MQ: {
        struct timespec ts = {0, 0};
        if (wait)
            ts = mq_deadline(c);
        ssize_t r = mq_timedreceive(c->mq, buf, cap, &pr, &ts);
        if (r < 0) {
            int e = errno;
            if (e == ETIMEDOUT && !wait)
                return EAGAIN;
            return c->aborted ? ECANCELED : e;
        }
        if (c->aborted)
            return ECANCELED;
        got = (size_t)r;
        break;
    }
    case RTG_MSG_PIPE: {
        if (!wait) {
            struct pollfd p = {.fd = c->fd[0], .events = POLLIN};
            if (poll(&p, 1, 0) != 1 || !(p.revents & POLLIN))
                return EAGAIN;
        }
        int rc = pipe_io(c->fd[0], buf, c->caps.msg_size, false);
        if (rc)
            return rc;
        got = c->caps.msg_size;
        break;
    }
    case RTG_MSG_SYSV: {
        size_t total = sizeof(long) + c->caps.msg_size;
        long tmp[(total + sizeof(long) - 1) / sizeof(long)];
        long type = c->caps.priorities ? -SYSV_PRIO_LEVELS : 0;
        ssize_t r;
        for (;;) {
            r = msgrcv(c->sysv, tmp, c->caps.msg_size, type, wait ? 0 : IPC_NOWAIT);
            if (r >= 0)
                break;
            if (errno == EINTR && !c->aborted)
                continue;
            if (errno == ENOMSG)
                return EAGAIN;
            if (errno == EIDRM || errno == EINVAL || c->aborted)
                return ECANCELED;
            return errno;
        }
        got = (size_t)r;
        memcpy(buf, tmp + 1, got);
        pr = c->caps.priorities ? (unsigned)(SYSV_PRIO_LEVELS - tmp[0]) : 0;
        break;
    }
    default: {
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
        got = (size_t)r;
        break;
    }
    }
    if (len)
        *len = got;
    if (prio)
        *prio = pr;
    return 0;
}

int rtg_msg_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio)
{
    return do_recv(c, buf, cap, len, prio, true);
}

int rtg_msg_recv_try(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio)
{
    return do_recv(c, buf, cap, len, prio, false);
}

void rtg_msg_abort(struct rtg_msg_chan *c)
{
    if (!c || c->aborted)
        return;
    c->aborted = 1;
    switch (c->mech) {
    case RTG_MSG_MQ: {
        /* Timed anyway; a message wakes a blocked receiver, a receive a
         * blocked sender, and both then see the flag. */
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
        break;
    }
    case RTG_MSG_PIPE: {
        /* Replace both ends with /dev/null: the last writer gone wakes
         * readers (EOF), the last reader gone fails writers (EPIPE); the
         * descriptor numbers stay valid for threads still using them. */
        int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (nul >= 0) {
            dup3(nul, c->fd[1], O_CLOEXEC);
            dup3(nul, c->fd[0], O_CLOEXEC);
            close(nul);
        }
        break;
    }
    case RTG_MSG_SYSV:
        if (c->sysv >= 0)
            sysv_remove(c->sysv); /* blocked calls return EIDRM */
        c->sysv = -1;
        break;
    default:
        shutdown(c->fd[0], SHUT_RDWR);
        shutdown(c->fd[1], SHUT_RDWR);
        break;
    }
}

void rtg_msg_close(struct rtg_msg_chan *c)
{
    if (!c)
        return;
    if (c->mq != (mqd_t)-1)
        mq_close(c->mq);
    for (int i = 0; i < 2; i++)
        if (c->fd[i] >= 0)
            close(c->fd[i]);
    if (c->sysv >= 0)
        sysv_remove(c->sysv);
    free(c);
}

/* The process no longer exists, or is a zombie (killed, not yet reaped). */
static bool pid_gone(long pid)
{
    if (pid <= 0)
        return false;
    if (kill((pid_t)pid, 0) != 0)
        return errno == ESRCH;
#ifdef __linux__
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')'); /* the state follows "(comm)" */
    return rp && rp[1] == ' ' && rp[2] == 'Z';
#else
    return false;
#endif
}

int rtg_msg_sweep(int *removed)
{
    int n = 0;
#ifdef __linux__
    /* System V: keys tagged with the creator's pid. */
    FILE *f = fopen("/proc/sysvipc/msg", "r");
    if (f) {
        char line[512];
        if (fgets(line, sizeof line, f)) { /* header */
            while (fgets(line, sizeof line, f)) {
                long key, id;
                if (sscanf(line, "%ld %ld", &key, &id) != 2)
                    continue;
                unsigned long k = (unsigned long)key & 0xffffffffu;
                if ((k & 0xff000000u) != SYSV_TAG)
                    continue;
                long pid = (long)((k >> 2) & 0x3fffffu);
                if (pid == (long)getpid() || pid_gone(pid))
                    if (msgctl((int)id, IPC_RMID, NULL) == 0)
                        n++;
            }
        }
        fclose(f);
    }
    /* POSIX: names are unlinked at once; a process killed between create
     * and unlink leaves one, listed where the mqueue fs is mounted. */
    DIR *d = opendir("/dev/mqueue");
    if (d) {
        struct dirent *e;
        size_t pl = strlen(MQ_PREFIX) - 1;
        while ((e = readdir(d)) != NULL) {
            if (strncmp(e->d_name, &MQ_PREFIX[1], pl) != 0)
                continue;
            long pid = strtol(e->d_name + pl, NULL, 10);
            if (pid == (long)getpid() || pid_gone(pid)) {
                char name[300];
                snprintf(name, sizeof name, "/%s", e->d_name);
                if (mq_unlink(name) == 0)
                    n++;
            }
        }
        closedir(d);
    }
#endif
    if (removed)
        *removed = n;
    return 0;
}

/* ---- peers ---- */
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


/* A receive bounded by an absolute deadline (osal_timed.h): native on
 * POSIX message queues, whose timed call takes a CLOCK_REALTIME deadline. */
int rtg_msg_recv_until(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len,
                       unsigned *prio, uint64_t deadline_ns)
{
    if (c->mech != RTG_MSG_MQ)
        return ENOTSUP;
    if (c->aborted)
        return ECANCELED;
    if (cap < c->caps.msg_size)
        return EMSGSIZE;
    struct timespec ts = rtg_px_realtime_deadline(deadline_ns);
    unsigned pr = 0;
    ssize_t r;
    while ((r = mq_timedreceive(c->mq, buf, cap, &pr, &ts)) < 0 && errno == EINTR && !c->aborted)
        ;
    if (r < 0)
        return c->aborted ? ECANCELED : errno;
    if (len)
        *len = (size_t)r;
    if (prio)
        *prio = pr;
    return 0;
}
