/* MSG-P-SND: send with no receiver waiting (no switch), per mechanism and
 * size (msg_select.h, msg_channel.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_msg.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "msg_verdicts.h"

#include "msg_channel.h"
#include "msg_select.h"

static int snd_one(struct rtg_ctx *ctx, enum rtg_msg_mech m, size_t size)
{
    struct rtg_msg_chan *c;
    int rc = rtg_msg_open_chan(ctx, &c, m, size, 0, false, true);
    if (rc == EMSGSIZE)
        return 0;
    if (rc)
        return rtg_fail_error(ctx, "cannot open a %s channel for %zu bytes: %s",
                              rtg_msg_mech_name(m), size, strerror(rc));
    struct rtg_metric *ms = rtg_msg_new_metric(ctx, "send", m, size, NULL, 0);
    struct rtg_metric *mr = rtg_msg_new_metric(ctx, "receive", m, size, NULL, 0);
    char *buf = rtg_msg_buf(size);
    if (!ms || !mr || !buf) {
        free(buf);
        rtg_msg_close(c);
        return rtg_fail_error(ctx, "out of memory");
    }
    size_t n = (size_t)rtg_opt_int(ctx, "count");
    size_t batch = rtg_msg_caps(c)->capacity;
    if (batch > 64)
        batch = 64;
    rtg_metric_explain_call(ctx, ms);
    rtg_metric_explain_call(ctx, mr);
    int err = 0;
    uint32_t seq = 0, want = 0, bad = 0;
    struct rtg_breather br = {.every = 64};
    for (size_t done = 0; done < n && !err && !rtg_stop_requested();) {
        br.calls = 0; /* every batch */
        rtg_breathe(&br);
        size_t k = 0;
        for (; k < batch && done + k < n; k++) {
            struct payload p = {.seq = seq++, .tag = 1};
            memcpy(buf, &p, sizeof p);
            uint64_t t0 = rtg_clock_ticks();
            err = rtg_msg_send(c, buf, size, 0);
            uint64_t t1 = rtg_clock_ticks();
            if (err)
                break;
            rtg_metric_ticks(ms, t0, t1, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
        }
        for (size_t i = 0; i < k; i++) { /* the queue holds k messages */
            size_t len;
            uint64_t t0 = rtg_clock_ticks();
            int e = rtg_msg_recv_try(c, buf, size, &len, NULL);
            uint64_t t1 = rtg_clock_ticks();
            if (e) {
                err = err ? err : e;
                break;
            }
            rtg_metric_ticks(mr, t0, t1, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
            struct payload p;
            memcpy(&p, buf, sizeof p);
            if (p.seq != want++ || len != size)
                bad++;
        }
        done += k;
    }
    free(buf);
    rtg_msg_close(c);
    if (err)
        return rtg_fail_error(ctx, "%s, %zu B: %s", rtg_msg_mech_name(m), size, strerror(err));
    if (bad)
        return rtg_fail_error(ctx, "%s, %zu B: %u messages out of sequence", rtg_msg_mech_name(m),
                              size, (unsigned)bad);
    return 0;
}

static int run_snd(struct rtg_ctx *ctx)
{
    int swept = 0;
    rtg_msg_sweep(&swept);
    rtg_msg_note_not_offered(ctx);
    for (int m = 0; m < RTG_MSG_NMECH && !rtg_stop_requested(); m++)
        for (size_t s = 0; s < NSIZES && !rtg_stop_requested(); s++)
            if (rtg_msg_mech_selected(ctx, (enum rtg_msg_mech)m) && rtg_msg_size_selected(ctx, SIZES[s]))
                if (snd_one(ctx, (enum rtg_msg_mech)m, SIZES[s]))
                    return -1;
    rtg_json_kuint(rtg_info(ctx), "count", (uint64_t)rtg_opt_int(ctx, "count"));
    rtg_json_kint(rtg_info(ctx), "stale_queues_removed", swept);
    return 0;
}

static const struct rtg_option snd_options[] = {
    MECH_OPT,
    SIZE_OPT,
    {"count", RTG_OPT_INT, 2000, 200, 10, 10000000, NULL, RTG_OPT_SCALED,
     "sends per mechanism and size"},
};

const struct rtg_test_desc rtg_test_msg_p_snd = {
    .id = "MSG-P-SND",
    .source = __FILE__,
    .recorded = true, /* its calls' worst samples are explained */
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Message send with no receiver waiting (no switch)",
    .kind = 'P',
    .options = RTG_OPTIONS(snd_options),
    .run = run_snd,
    .bound_s = rtg_msg_bound_x,
};
