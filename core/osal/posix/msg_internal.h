/* Shared by the POSIX message channel's files: the channel, and the
 * mechanisms the dispatch (msg_chan.c) calls -- POSIX message queues
 * (msg_mq.c), pipes (msg_pipe.c), System V queues (msg_sysv.c), UNIX
 * domain datagram sockets (msg_unix.c). The Linux sweep of what a killed
 * probe left (core/osal/linux/msg_sweep.c) knows the names by the
 * prefixes below. */
#ifndef RTG_PX_MSG_INTERNAL_H
#define RTG_PX_MSG_INTERNAL_H
#include <mqueue.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtg/osal_msg.h"

/* POSIX queues of the probe: MQ_PREFIX, the creator's pid, a sequence. */
#define RTG_PX_MQ_PREFIX "/rtg-msg-"
/* System V keys of the probe: 0x52 ('R') in the top byte, the creator's
 * pid (22 bits, Linux's PID_MAX_LIMIT) and a 2-bit sequence number. */
#define RTG_PX_SYSV_TAG 0x52000000u

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

/* One mechanism. The dispatch has checked the channel is not aborted, the
 * sizes, and the priority (0 where the channel has none); each call
 * returns 0 or an errno as rtg/osal_msg.h says. */
struct rtg_px_msg_ops {
    /* Creates the mechanism's object into c (c->caps.msg_size is set). */
    int (*create)(struct rtg_msg_chan *c, size_t capacity, bool want_prio);
    int (*send)(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio, bool wait);
    int (*recv)(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *got, unsigned *prio,
                bool wait);
    /* A receive bounded by an absolute CLOCK_MONOTONIC deadline; NULL where
     * the mechanism has no timed receive (ENOTSUP). */
    int (*recv_until)(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *got,
                      unsigned *prio, uint64_t deadline_ns);
    /* The channel's wait bound changed; NULL where nothing follows it. */
    void (*wait_changed)(struct rtg_msg_chan *c);
    /* Wakes every blocked sender and receiver (c->aborted is set). */
    void (*abort)(struct rtg_msg_chan *c);
    /* Closes this process's ends and removes the object; safe on a
     * channel whose create failed. */
    void (*close)(struct rtg_msg_chan *c);
};

extern const struct rtg_px_msg_ops rtg_px_msg_mq, rtg_px_msg_pipe, rtg_px_msg_sysv,
    rtg_px_msg_unix;

/* The number in the first line of a file (a /proc limit), or -1. */
long rtg_px_read_long(const char *path);
/* A write to a pipe or socket whose reader is gone fails (EPIPE) instead
 * of killing the process, unless the process already handles SIGPIPE. */
void rtg_px_ignore_sigpipe(void);

#endif
