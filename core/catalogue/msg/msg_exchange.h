/* What MSG-P-LAT, MSG-P-RTT and MSG-P-ALT share (msg_exchange.c): messages
 * passed between a far side and a near side, per selected mechanism and
 * size, each test giving its two sides (its own file).
 *
 * The far side may be a forked process (peer=process) and receives first;
 * the near side is a thread of the test and sends first. They pass
 * `count` messages over one channel to the far side, and one back when the
 * test asks for it; each side records its samples, and the test's figure
 * set, msg.<what>.<mechanism>.s<size>, holds the far side's then the near
 * side's. A side that is a thread of the test records each sample at once
 * into a figure set of its own, which the flight recorder is told of; a
 * forked far side stores them, and the main thread adds them after. The
 * test's main thread only coordinates (msg_peers.h). */
#ifndef RTG_MSG_EXCHANGE_H
#define RTG_MSG_EXCHANGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal_msg.h"
#include "rtg/test.h"

#include "msg_channel.h"
#include "msg_peers.h"

/* The samples one side records: into its own figure set m, told to the
 * flight recorder, when the side is a thread of the test; else stored in v
 * (ns, then when: 2 words each). */
struct msg_samples {
    struct rtg_metric *m;
    uint64_t *v;
    volatile size_t got;
};

/* One mechanism and size's exchange, in shared memory. */
struct msg_xchg {
    struct shared_flags fl;
    struct rtg_msg_chan *to_far, *to_near; /* to_near: NULL without a channel back */
    size_t size;
    size_t n;
    struct rtg_ctx *ctx;
    struct msg_samples far, near;
    volatile uint32_t bad_seq;
    volatile int ready; /* the far side is about to receive */
    volatile int near_done;
};

/* A test's exchange. */
struct msg_exchange {
    const char *what;     /* the figure set's name: msg.<what>.<mechanism>.s<size> */
    bool channel_back;    /* a second channel, from the far side to the near */
    int near_below;       /* the near side's priority below the far side's */
    bool operation;       /* a sample is the near side's own call (MSG-P-RTT's round
                           * trip), not a side's wake-up (rtg/test.h) */
    void *(*far)(void *); /* each side's thread, given the struct msg_xchg */
    void *(*near)(void *);
};

/* The test's run: every selected mechanism and size, then info (count,
 * peer, stale queues removed, messages out of sequence). */
int rtg_msg_exchange_run(struct rtg_ctx *ctx, const struct msg_exchange *e);
/* The exchange tests' options (mechanism, size, peer, count). */
extern const struct rtg_option rtg_msg_x_options[4];

/* ---- for the sides ---- */
/* Whether the sides go on: no peer failed, no stop asked. */
bool rtg_msg_x_going(const struct msg_xchg *x);
/* The far side's start: its buffer (NULL: no memory, flagged), and ready. */
char *rtg_msg_far_begin(struct msg_xchg *x);
/* The far side's end: it waits until the near side is done (ending, a
 * process exit above all, would delay the near side's last receive). */
void rtg_msg_far_end(struct msg_xchg *x, char *buf);
/* The near side's start: its buffer (NULL: no memory, flagged, done), once
 * the far side is ready and blocked in its receive. */
char *rtg_msg_near_begin(struct msg_xchg *x);
/* The near side's end after `sent` messages: when it stopped early, a stop
 * message releases the far side. */
void rtg_msg_near_end(struct msg_xchg *x, char *buf, size_t sent);
/* A message received whole or not (len bytes in buf): its payload in *p,
 * counted out of sequence unless it is message seq of the exchange's size.
 * False for the near side's stop message: the far side ends. (Each side
 * sends and receives through the inline helpers below, each clock read
 * right next to its call.) */
bool rtg_msg_x_accept(struct msg_xchg *x, const char *buf, size_t len, size_t seq,
                      struct payload *p);
/* Records a sample from the ticks `from` to `to`, by the side that ran at
 * `to`, at once. */
void rtg_msg_x_sample(struct msg_xchg *x, struct msg_samples *s, uint64_t from, uint64_t to);

/* One receive on ch into buf, and the clock read right after it returned
 * (*t, a figure's end); false, flagged, when it failed. Inline: nothing but
 * the call and the read. */
static inline bool rtg_msg_x_recv(struct msg_xchg *x, struct rtg_msg_chan *ch, char *buf,
                                  size_t *len, uint64_t *t)
{
    int rc = rtg_msg_recv(ch, buf, x->size, len, NULL);
    *t = rtg_clock_ticks();
    if (rc)
        rtg_msg_fail_flag(&x->fl, rc, __LINE__);
    return rc == 0;
}

/* One send of buf on ch as it is; false, flagged, when it failed. */
static inline bool rtg_msg_x_pass(struct msg_xchg *x, struct rtg_msg_chan *ch, char *buf)
{
    int rc = rtg_msg_send(ch, buf, x->size, 0);
    if (rc)
        rtg_msg_fail_flag(&x->fl, rc, __LINE__);
    return rc == 0;
}

/* One send of *p on ch, stamped with the clock read right before it (a
 * figure's start), copied into buf; false, flagged, when it failed. The
 * payload is copied first: after the read only the stamp's own store. */
static inline bool rtg_msg_x_send(struct msg_xchg *x, struct rtg_msg_chan *ch, char *buf,
                                  struct payload *p)
{
    memcpy(buf, p, sizeof *p);
    p->t = rtg_clock_ticks();
    memcpy(buf + offsetof(struct payload, t), &p->t, sizeof p->t);
    return rtg_msg_x_pass(x, ch, buf);
}

#endif
