/* OSAL topic: message channels (MSG) and peers that may be threads or
 * processes. A channel is one queue of messages of at most msg_size bytes
 * over one mechanism: POSIX message queue, pipe, System V queue or UNIX
 * domain datagram socket pair. Either end may be used by any thread, and a
 * forked peer inherits the channel, so the same channel serves "between
 * threads" and "between processes". All calls return 0 or an errno value.
 *
 * Nothing outlives the process: a POSIX queue's name is unlinked right
 * after it is created; a System V queue is removed by rtg_msg_close, and
 * one left by a killed process is removed by rtg_msg_sweep (its key carries
 * the creator's pid, see docs/methodology.md). */
#ifndef RTG_OSAL_MSG_H
#define RTG_OSAL_MSG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtg/osal.h"

enum rtg_msg_mech { RTG_MSG_MQ, RTG_MSG_PIPE, RTG_MSG_SYSV, RTG_MSG_UNIX, RTG_MSG_NMECH };

/* What a channel offers, as opened. */
struct rtg_msg_caps {
    size_t msg_size;     /* granted message size (bytes) */
    size_t capacity;     /* messages of msg_size that fit before a send blocks */
    bool priorities;     /* received highest priority first */
    unsigned prio_max;   /* highest priority a send may give (0 without) */
    size_t size_limit;   /* the system's message size limit (0: none) */
    const char *limit_name; /* where that limit comes from */
    bool size_raised;    /* the limit was above the default and used */
    const char *port_adds; /* work the OSAL adds to each send and receive, or NULL */
};

struct rtg_msg_chan;

const char *rtg_msg_mech_name(enum rtg_msg_mech m);
/* Opens a channel for messages of msg_size bytes holding up to capacity
 * messages where the mechanism lets the capacity be chosen (0: its default).
 * EMSGSIZE when the system cannot carry messages that large: *caps (may be
 * NULL) then still says the limit. want_prio: receive by priority where the
 * mechanism can (System V: lowest type first, which costs a queue scan). */
int rtg_msg_open(struct rtg_msg_chan **c, enum rtg_msg_mech mech, size_t msg_size,
                 size_t capacity, bool want_prio, struct rtg_msg_caps *caps);
const struct rtg_msg_caps *rtg_msg_caps(const struct rtg_msg_chan *c);
/* Sends len (<= msg_size) bytes; blocks while the channel is full, at most
 * the channel's wait bound (rtg_msg_set_wait_ns, 5 s by default): ETIMEDOUT. */
int rtg_msg_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio);
/* Never blocks: EAGAIN when full. */
int rtg_msg_send_try(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio);
/* Receives one whole message into buf (cap >= msg_size); blocks while the
 * channel is empty, at most the wait bound (ETIMEDOUT), or until
 * rtg_msg_abort (ECANCELED). prio may be NULL. */
int rtg_msg_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio);
int rtg_msg_recv_try(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio);
/* The bound of one blocking send or receive. Native where the mechanism has
 * a timed call (POSIX mq, sockets); pipes and System V queues block in the
 * plain call and are bounded by rtg_msg_abort from the waiting side. */
void rtg_msg_set_wait_ns(struct rtg_msg_chan *c, uint64_t ns);
/* Wakes every sender and receiver blocked on the channel, in every
 * process, and makes further calls fail (ECANCELED). */
void rtg_msg_abort(struct rtg_msg_chan *c);
/* Closes this process's ends and removes the queue. */
void rtg_msg_close(struct rtg_msg_chan *c);
/* Removes queues left by probe processes that no longer exist. */
int rtg_msg_sweep(int *removed);

/* ---- peers: a function run by a thread or by a forked process ---- */
struct rtg_peer {
    bool process;
    rtg_thread_t thread;
    long pid;
    rtg_sem_t done;
    rtg_thread_fn fn;
    void *arg;
    bool joined;
};
/* Starts fn(arg) in a new thread, or a forked process (then arg and what
 * it points to should be in rtg_shared_alloc memory, rtg/osal_proc.h, to be seen by both).
 * The process sets its main thread to attr's policy, priority and CPU and
 * dies with its parent. */
int rtg_peer_start(struct rtg_peer *p, bool process, const struct rtg_thread_attr *attr,
                   rtg_thread_fn fn, void *arg);
/* Waits for the peer to end until deadline (CLOCK_MONOTONIC ns): ETIMEDOUT. */
int rtg_peer_wait(struct rtg_peer *p, uint64_t deadline_ns);
/* Ends a process peer at once (SIGKILL) and reaps it; a thread cannot be
 * killed: returns EBUSY. */
int rtg_peer_kill(struct rtg_peer *p);

/* Memory shared with forked peers: rtg_shared_alloc (rtg/osal_proc.h). */

/* ---- provided by the port: its one send and one receive ----
 * rtg_msg_send, rtg_msg_send_try, rtg_msg_recv, rtg_msg_recv_try and
 * rtg_msg_recv_until (rtg/osal_timed.h) are written once over these
 * (core/src/runner/msg_calls.c); rtg_msg_mech_name once for every port
 * (core/osal/names.c). Tests use the calls above. */
enum rtg_msg_wait {
    RTG_MSG_NO_WAIT, /* at once: EAGAIN when full (send) or empty (receive) */
    RTG_MSG_WAIT,    /* up to the channel's wait bound (rtg_msg_set_wait_ns) */
    RTG_MSG_UNTIL,   /* receive only: up to an absolute CLOCK_MONOTONIC deadline,
                        ENOTSUP where the mechanism has no timed receive */
};
/* Sends len bytes of priority prio; wait is RTG_MSG_NO_WAIT or RTG_MSG_WAIT. */
int rtg_msg_port_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio,
                      enum rtg_msg_wait wait);
/* Receives one message into buf; *len and *prio are never NULL here.
 * deadline_ns counts with RTG_MSG_UNTIL only. */
int rtg_msg_port_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio,
                      enum rtg_msg_wait wait, uint64_t deadline_ns);

#endif
