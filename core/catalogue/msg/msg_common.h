/* What the MSG tests share (msg_common.c): the sizes and mechanisms they
 * loop over, channels opened and recorded the same way, the coordination
 * of peers, and the measured exchange of MSG-P-LAT, MSG-P-RTT and
 * MSG-P-ALT.
 *
 * Every test loops over the selected mechanisms and sizes (all by default)
 * and records one figure set per pair, named msg.<what>.<mechanism>.s<size>
 * with params {"mechanism", "size"}. Peers are threads, or (peer=process)
 * a forked process for the receiving / serving side. In LAT, RTT and ALT
 * the main thread only coordinates: it waits and, when a peer fails, the
 * run is stopped or the time is up, aborts the channels so that no blocked
 * call outlives the test. SND and FIL run on the main thread. */
#ifndef RTG_MSG_COMMON_H
#define RTG_MSG_COMMON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtg/osal_msg.h"
#include "rtg/osal_proc.h"
#include "rtg/test.h"

static const size_t SIZES[] = {16, 1024, 5120, 16384};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])
#define WAIT_NS (2ull * 1000000000ull) /* bound of one blocking call */

struct payload {
    uint32_t seq;
    uint32_t tag; /* 1 normal, 2 urgent, 0xdead: stop */
    uint64_t t;   /* measuring-clock ticks at the send call */
};

struct shared_flags {
    volatile int failed;    /* a peer's call failed: errno */
    volatile int fail_line; /* where */
    volatile int stop;      /* peers: finish now */
};

struct xchg {
    struct shared_flags fl;
    struct rtg_msg_chan *a, *b; /* a: to the peer; b: back */
    size_t size;
    size_t n;
    int mode;           /* which test */
    struct rtg_ctx *ctx;
    uint64_t *samples;  /* n per side (ns, then when: 2 words), in shared memory */
    uint64_t *samples2; /* RTT: the round trips; ALT: the other direction */
    volatile size_t got, got2;
    volatile uint32_t bad_seq;
    volatile int ready; /* the far side is about to receive */
    volatile int near_done;
};

enum { MODE_LAT, MODE_RTT, MODE_ALT };

/* Selected by the mechanism option, and offered by the OS. */
bool rtg_msg_mech_selected(const struct rtg_ctx *ctx, enum rtg_msg_mech m);
/* A note per selected mechanism the OS does not offer. */
void rtg_msg_note_not_offered(struct rtg_ctx *ctx);
bool rtg_msg_size_selected(const struct rtg_ctx *ctx, size_t size);
size_t rtg_msg_n_combos(const struct rtg_ctx *ctx);
int rtg_msg_prio_at(const struct rtg_ctx *ctx, int below);
bool rtg_msg_use_process(const struct rtg_ctx *ctx);
struct rtg_metric *rtg_msg_new_metric(struct rtg_ctx *ctx, const char *what, enum rtg_msg_mech m,
                                      size_t size, const char *peer, size_t messages);
/* info.channels: one object per mechanism and size, what was granted. */
void rtg_msg_info_channel(struct rtg_ctx *ctx, enum rtg_msg_mech m, size_t size,
                          const struct rtg_msg_caps *c, int rc);
/* Opens a channel, recording what happened; 0, EMSGSIZE (size skipped) or an error. */
int rtg_msg_open_chan(struct rtg_ctx *ctx, struct rtg_msg_chan **c, enum rtg_msg_mech m,
                      size_t size, size_t capacity, bool prio, bool record);
/* Waits for every peer; aborts the channels when a peer failed, the run
 * is stopped or the deadline passed, so that blocked peers return. */
int rtg_msg_finish(struct rtg_peer *peers, size_t np, struct rtg_msg_chan **ch, size_t nch,
                   struct shared_flags *fl, uint64_t deadline);
void rtg_msg_fail_flag(struct shared_flags *fl, int err, int line);
char *rtg_msg_buf(size_t size);
/* MSG-P-LAT, -RTT or -ALT (mode) over every selected mechanism and size. */
int rtg_msg_run_all(struct rtg_ctx *ctx, int mode);
/* The exchange tests' (LAT, RTT, ALT) options and watchdog bound. */
extern const struct rtg_option rtg_msg_x_options[4];
double rtg_msg_bound_x(const struct rtg_ctx *ctx);

/* The options every MSG test has. */
#define MECH_OPT                                                                                  \
    {"mechanism", RTG_OPT_ENUM, 0, 0, 0, 0, "all,mq,pipe,sysv,unix", 0,                           \
     "POSIX message queue, pipe, System V queue, UNIX domain socket, or all four"}
#define SIZE_OPT                                                                                  \
    {"size", RTG_OPT_ENUM, 0, 0, 0, 0, "all,16,1024,5120,16384", 0, "message size in bytes"}
#define PEER_OPT                                                                                  \
    {"peer", RTG_OPT_ENUM, 0, 0, 0, 0, "thread,process", 0,                                       \
     "the receiving/serving side: a thread of the test or a forked process"}

#endif
