/* MSG-P-ALT: two tasks alternating, each blocked on its own queue, per
 * mechanism and size (msg_exchange.h). Side A (the far side, a thread or a
 * process) and side B run at the same priority and pass one message back
 * and forth; each direction's figure is from the clock read before the
 * send to the receiver's read right after its receive returns, and the
 * figure set holds both directions. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal_msg.h"
#include "rtg/test.h"
#include "common/catalogue.h"

#include "msg_exchange.h"
#include "msg_select.h"

/* Side A: receives from B (a sample), stamps the message again and sends
 * it back. */
static void *side_a(void *arg)
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
        if (!rtg_msg_x_send(x, x->to_near, buf, &p))
            break;
    }
    rtg_msg_far_end(x, buf);
    return NULL;
}

/* Side B: sends to A, then receives A's message (a sample, from A's stamp). */
static void *side_b(void *arg)
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
        struct payload q;
        rtg_msg_x_accept(x, buf, len, i, &q);
        rtg_msg_x_sample(x, &x->near, q.t, t);
    }
    rtg_msg_near_end(x, buf, i);
    return NULL;
}

static const struct msg_exchange alternation = {
    .what = "alternate",
    .channel_back = true,
    .near_below = 0,
    .far = side_a,
    .near = side_b,
};

static int run_alt(struct rtg_ctx *ctx) { return rtg_msg_exchange_run(ctx, &alternation); }

const struct rtg_test_desc rtg_test_msg_p_alt = {
    .id = "MSG-P-ALT",
    .source = __FILE__,
    .recorded = true, /* its hand-overs' worst samples are explained (a forked side's
                       * are not: its record says why) */
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Two tasks alternating, each blocked on its own queue",
    .kind = 'P',
    .options = RTG_OPTIONS(rtg_msg_x_options),
    .run = run_alt,
    .bound_s = rtg_msg_bound_x,
};
