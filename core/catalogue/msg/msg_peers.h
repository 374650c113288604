/* The peers of an exchange and the test's main thread, which only
 * coordinates (msg_peers.c): it waits and, when a peer fails, the run is
 * stopped or the time is up, aborts the channels so that no blocked call
 * outlives the test. */
#ifndef RTG_MSG_PEERS_H
#define RTG_MSG_PEERS_H
#include <stddef.h>
#include <stdint.h>

#include "rtg/osal_msg.h"

/* What the peers and the coordinator share (in shared memory when a peer
 * is a process). */
struct shared_flags {
    volatile int failed;    /* a peer's call failed: errno */
    volatile int fail_line; /* where */
    volatile int stop;      /* peers: finish now */
};

/* Waits for every peer; aborts the channels when a peer failed, the run
 * is stopped or the deadline passed, so that blocked peers return. 0,
 * ETIMEDOUT (the deadline passed) or EDEADLK (a peer stayed stuck). */
int rtg_msg_finish(struct rtg_peer *peers, size_t np, struct rtg_msg_chan **ch, size_t nch,
                   struct shared_flags *fl, uint64_t deadline);
/* Notes the first failure: its errno and line. */
void rtg_msg_fail_flag(struct shared_flags *fl, int err, int line);

#endif
