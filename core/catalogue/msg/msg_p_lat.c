/* MSG-P-LAT: send to a blocked higher-priority receiver, per mechanism and
 * size (msg_exchange.h). The figure: from the sender's clock read before
 * its send call to the receiver's right after its receive returns; the
 * receiver (the far side, a thread or a process) is one priority above the
 * sender and blocked when each message is sent. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal_msg.h"
#include "rtg/test.h"
#include "common/catalogue.h"

#include "msg_exchange.h"
#include "msg_select.h"

/* The receiver: each message's latency, from the stamp it carries. */
static void *receiver(void *arg)
{
    struct msg_xchg *x = arg;
    char *buf = rtg_msg_far_begin(x);
    if (!buf)
        return NULL;
    for (size_t i = 0; i < x->n && rtg_msg_x_going(x); i++) {
        size_t len;
        uint64_t t;
        struct payload p;
        if (!rtg_msg_x_recv(x, x->to_far, buf, &len, &t) || !rtg_msg_x_accept(x, buf, len, i, &p))
            break;
        rtg_msg_x_sample(x, &x->far, p.t, t);
    }
    rtg_msg_far_end(x, buf);
    return NULL;
}

/* The sender: one message after another, each stamped as it is sent. */
static void *sender(void *arg)
{
    struct msg_xchg *x = arg;
    char *buf = rtg_msg_near_begin(x);
    if (!buf)
        return NULL;
    size_t i = 0;
    struct rtg_breather br = {.every = 64};
    for (; i < x->n && rtg_msg_x_going(x); i++) {
        rtg_breathe(&br);
        struct payload p = {.seq = (uint32_t)i, .tag = 1};
        if (!rtg_msg_x_send(x, x->to_far, buf, &p))
            break;
    }
    rtg_msg_near_end(x, buf, i);
    return NULL;
}

static const struct msg_exchange latency = {
    .what = "latency",
    .channel_back = false,
    .near_below = 1,
    .far = receiver,
    .near = sender,
};

static int run_lat(struct rtg_ctx *ctx) { return rtg_msg_exchange_run(ctx, &latency); }

const struct rtg_test_desc rtg_test_msg_p_lat = {
    .id = "MSG-P-LAT",
    .source = __FILE__,
    .recorded = true, /* its hand-overs' worst samples are explained (a forked
                       * receiver's are not: its record says why) */
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Message send to a blocked higher-priority receiver",
    .kind = 'P',
    .options = RTG_OPTIONS(rtg_msg_x_options),
    .run = run_lat,
    .bound_s = rtg_msg_bound_x,
};
