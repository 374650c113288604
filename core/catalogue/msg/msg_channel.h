/* A MSG test's channel, opened and recorded the same way by every test,
 * the message it carries and the figure set of one mechanism and size
 * (msg_channel.c). */
#ifndef RTG_MSG_CHANNEL_H
#define RTG_MSG_CHANNEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtg/osal_msg.h"
#include "rtg/test.h"

#define WAIT_NS (2ull * 1000000000ull) /* bound of one blocking call */

/* What a message starts with; the rest of its size is filler. */
struct payload {
    uint32_t seq;
    uint32_t tag; /* 1 normal, 2 urgent, 0xdead: stop */
    uint64_t t;   /* measuring-clock ticks at the send call */
};

/* Opens a channel with a wait bound of WAIT_NS, recording what happened
 * (record: in info.channel even when it opened); 0, EMSGSIZE (the size is
 * skipped, the record says why) or an error. */
int rtg_msg_open_chan(struct rtg_ctx *ctx, struct rtg_msg_chan **c, enum rtg_msg_mech m,
                      size_t size, size_t capacity, bool prio, bool record);
/* info.channel.<mechanism>.s<size>: what was asked and granted. */
void rtg_msg_info_channel(struct rtg_ctx *ctx, enum rtg_msg_mech m, size_t size,
                          const struct rtg_msg_caps *c, int rc);
/* msg.<what>.<mechanism>.s<size>, with params mechanism, size, and peer and
 * messages when given (non-NULL, non-zero). */
struct rtg_metric *rtg_msg_new_metric(struct rtg_ctx *ctx, const char *what, enum rtg_msg_mech m,
                                      size_t size, const char *peer, size_t messages);
/* A message buffer of size bytes, filled with a pattern; NULL without memory. */
char *rtg_msg_buf(size_t size);

#endif
