/* Message channels over System V message queues (msg_internal.h):
 * priorities as message types where asked (the lowest type first, which
 * costs a queue scan), a key that names the creator, and a janitor that
 * removes the queues of a probe killed before it could. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <unistd.h>

#include "janitor.h"
#include "msg_internal.h"

#define SYSV_PRIO_LEVELS 32768L

static unsigned sysv_seq;

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

static int sysv_create(struct rtg_msg_chan *c, size_t capacity, bool want_prio)
{
    size_t size = c->caps.msg_size;
    long msgmax = rtg_px_read_long("/proc/sys/kernel/msgmax");
    c->caps.size_limit = msgmax > 0 ? (size_t)msgmax : 0;
    c->caps.limit_name = "/proc/sys/kernel/msgmax";
    if (msgmax > 0 && size > (size_t)msgmax)
        return EMSGSIZE; /* no capability lifts msgmax */
    c->caps.priorities = want_prio;
    c->caps.prio_max = want_prio ? (unsigned)(SYSV_PRIO_LEVELS - 1) : 0;
    long pid = (long)getpid();
    int id = -1;
    for (int tries = 0; tries < 4 && id < 0; tries++) {
        key_t key = (key_t)(RTG_PX_SYSV_TAG | (((unsigned long)pid & 0x3fffffu) << 2) |
                            (sysv_seq++ & 3u));
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

static int sysv_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio, bool wait)
{
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

static int sysv_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *got, unsigned *prio,
                     bool wait)
{
    (void)cap;
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
    *got = (size_t)r;
    memcpy(buf, tmp + 1, *got);
    *prio = c->caps.priorities ? (unsigned)(SYSV_PRIO_LEVELS - tmp[0]) : 0;
    return 0;
}

/* Removing the queue wakes every blocked call (EIDRM). */
static void sysv_abort(struct rtg_msg_chan *c)
{
    if (c->sysv >= 0)
        sysv_remove(c->sysv);
    c->sysv = -1;
}

static void sysv_end(struct rtg_msg_chan *c)
{
    if (c->sysv >= 0)
        sysv_remove(c->sysv);
}

const struct rtg_px_msg_ops rtg_px_msg_sysv = {
    .create = sysv_create,
    .send = sysv_send,
    .recv = sysv_recv,
    .abort = sysv_abort,
    .close = sysv_end,
};
