/* MSG-P-RTT: request / reply round trip, per mechanism and size
 * (msg_exchange.h). The figure: from the client's clock read before it
 * sends a request to its read right after the reply arrives; the server
 * (the far side, a thread or a process) is one priority above the client
 * and sends each request back as it came. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal_msg.h"
#include "rtg/test.h"
#include "common/catalogue.h"

#include "msg_exchange.h"
#include "msg_select.h"

/* The server: each request back to the client, unchanged. */
static void *server(void *arg)
{
    struct msg_xchg *x = arg;
    char *buf = rtg_msg_far_begin(x);
    if (!buf)
        return NULL;
    for (size_t i = 0; i < x->n && rtg_msg_x_going(x); i++) {
        size_t len;
        int rc = rtg_msg_recv(x->to_far, buf, x->size, &len, NULL);
        if (rc) { /* no clock read: the server's time is inside the client's figure */
            rtg_msg_fail_flag(&x->fl, rc, __LINE__);
            break;
        }
        struct payload p;
        if (!rtg_msg_x_accept(x, buf, len, i, &p) || !rtg_msg_x_pass(x, x->to_near, buf))
            break;
    }
    rtg_msg_far_end(x, buf);
    return NULL;
}

/* The client: a request, then its reply; the round trip from the stamp of
 * the request. */
static void *client(void *arg)
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
        size_t len;
        uint64_t t;
        if (!rtg_msg_x_send(x, x->to_far, buf, &p) || !rtg_msg_x_recv(x, x->to_near, buf, &len, &t))
            break;
        struct payload reply;
        rtg_msg_x_accept(x, buf, len, i, &reply);
        rtg_msg_x_sample(x, &x->near, p.t, t);
    }
    rtg_msg_near_end(x, buf, i);
    return NULL;
}

static const struct msg_exchange round_trip = {
    .what = "roundtrip",
    .channel_back = true,
    .near_below = 1,
    .operation = true, /* the client's send and receive, from its start to the reply */
    .far = server,
    .near = client,
};

static int run_rtt(struct rtg_ctx *ctx) { return rtg_msg_exchange_run(ctx, &round_trip); }

const struct rtg_test_desc rtg_test_msg_p_rtt = {
    .id = "MSG-P-RTT",
    .source = __FILE__,
    .recorded = true, /* its round trips' worst samples are explained (a forked server
                       * records none) */
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Message request/reply round trip",
    .kind = 'P',
    .options = RTG_OPTIONS(rtg_msg_x_options),
    .run = run_rtt,
    .bound_s = rtg_msg_bound_x,
};
