/* A MSG test's channel and figure set (msg_channel.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/osal_msg.h"
#include "rtg/test.h"

#include "msg_channel.h"

void rtg_msg_info_channel(struct rtg_ctx *ctx, enum rtg_msg_mech m, size_t size,
                          const struct rtg_msg_caps *c, int rc)
{
    struct rtg_json *j = rtg_info(ctx);
    char key[48];
    snprintf(key, sizeof key, "channel.%s.s%zu", rtg_msg_mech_name(m), size);
    rtg_json_key(j, key);
    rtg_json_obj_begin(j);
    rtg_json_kbool(j, "opened", rc == 0);
    if (rc)
        rtg_json_kstr(j, "error", strerror(rc));
    rtg_json_kuint(j, "requested_size", size);
    if (!rc) {
        rtg_json_kuint(j, "msg_size", c->msg_size);
        rtg_json_kuint(j, "capacity", c->capacity);
        rtg_json_kbool(j, "priorities", c->priorities);
    }
    rtg_json_kuint(j, "size_limit", c->size_limit);
    rtg_json_kstr(j, "limit", c->limit_name ? c->limit_name : "");
    rtg_json_kbool(j, "size_raised_above_limit", c->size_raised);
    if (c->port_adds) /* inside each send's and receive's figure */
        rtg_json_kstr(j, "osal_adds", c->port_adds);
    rtg_json_obj_end(j);
    if (rc == EMSGSIZE)
        rtg_note(ctx, "%s cannot carry %zu-byte messages here (limit %zu bytes, %s): no figures "
                      "for that size",
                 rtg_msg_mech_name(m), size, c->size_limit, c->limit_name ? c->limit_name : "");
}

/* On a board whose heap cannot hold the channel, the size is skipped and
 * the record says so. */
int rtg_msg_open_chan(struct rtg_ctx *ctx, struct rtg_msg_chan **c, enum rtg_msg_mech m,
                      size_t size, size_t capacity, bool prio, bool record)
{
    struct rtg_msg_caps caps;
    memset(&caps, 0, sizeof caps);
    int rc = rtg_msg_open(c, m, size, capacity, prio, &caps);
    if (record || rc)
        rtg_msg_info_channel(ctx, m, size, &caps, rc);
    size_t free_bytes, largest;
    if (rc == ENOMEM && rtg_mem_available(&free_bytes, &largest) == 0) {
        rtg_note(ctx, "%s, %zu B: no figures: a channel of %zu-byte messages does not fit in "
                      "%zu KB of heap", rtg_msg_mech_name(m), size, size, free_bytes / 1024);
        return EMSGSIZE;
    }
    if (!rc)
        rtg_msg_set_wait_ns(*c, WAIT_NS);
    return rc;
}

struct rtg_metric *rtg_msg_new_metric(struct rtg_ctx *ctx, const char *what, enum rtg_msg_mech m,
                                      size_t size, const char *peer, size_t messages)
{
    struct rtg_metric *x = rtg_metric_new(ctx, "msg.%s.%s.s%zu", what, rtg_msg_mech_name(m), size);
    if (!x)
        return NULL;
    rtg_json_obj_begin(&x->params);
    rtg_json_kstr(&x->params, "mechanism", rtg_msg_mech_name(m));
    rtg_json_kuint(&x->params, "size", size);
    if (peer)
        rtg_json_kstr(&x->params, "peer", peer);
    if (messages)
        rtg_json_kuint(&x->params, "messages", messages);
    rtg_json_obj_end(&x->params);
    return x;
}

char *rtg_msg_buf(size_t size)
{
    char *b = malloc(size);
    if (b)
        for (size_t i = 0; i < size; i++)
            b[i] = (char)(i * 7 + 1);
    return b;
}
