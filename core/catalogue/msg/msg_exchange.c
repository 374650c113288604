/* What MSG-P-LAT, MSG-P-RTT and MSG-P-ALT share (msg_exchange.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_msg.h"
#include "rtg/osal_proc.h"
#include "rtg/test.h"
#include "common/catalogue.h"

#include "msg_exchange.h"
#include "msg_select.h"

#define STOP_TAG 0xdead

bool rtg_msg_x_going(const struct msg_xchg *x)
{
    return !x->fl.stop && !rtg_stop_requested();
}

char *rtg_msg_far_begin(struct msg_xchg *x)
{
    char *buf = rtg_msg_buf(x->size);
    if (!buf) {
        rtg_msg_fail_flag(&x->fl, ENOMEM, __LINE__);
        return NULL;
    }
    x->ready = 1;
    return buf;
}

void rtg_msg_far_end(struct msg_xchg *x, char *buf)
{
    for (int k = 0; k < 5000 && !x->near_done && rtg_msg_x_going(x); k++)
        rtg_sleep_ns(1000000u);
    free(buf);
}

char *rtg_msg_near_begin(struct msg_xchg *x)
{
    char *buf = rtg_msg_buf(x->size);
    if (!buf) {
        rtg_msg_fail_flag(&x->fl, ENOMEM, __LINE__);
        x->near_done = 1;
        return NULL;
    }
    /* A forked far side first locks its memory (copying the pages it
     * shares with us): the first message waits until it is set up. */
    for (int k = 0; k < 5000 && !x->ready && rtg_msg_x_going(x); k++)
        rtg_sleep_ns(1000000u);
    rtg_sleep_ns(1000000u); /* and blocked in its receive */
    return buf;
}

void rtg_msg_near_end(struct msg_xchg *x, char *buf, size_t sent)
{
    if (sent < x->n && !x->fl.failed) { /* stopped early: release the far side */
        struct payload p = {.tag = STOP_TAG};
        memcpy(buf, &p, sizeof p);
        rtg_msg_send_try(x->to_far, buf, x->size, 0);
    }
    x->near_done = 1;
    free(buf);
}

bool rtg_msg_x_accept(struct msg_xchg *x, const char *buf, size_t len, size_t seq,
                      struct payload *p)
{
    memcpy(p, buf, sizeof *p);
    if (p->tag == STOP_TAG)
        return false;
    if (p->seq != seq || len != x->size)
        x->bad_seq++;
    return true;
}

void rtg_msg_x_sample(struct msg_xchg *x, struct msg_samples *s, uint64_t from, uint64_t to)
{
    uint64_t ns = rtg_clock_delta_ns(from, to), at = rtg_test_elapsed_ns(x->ctx);
    if (s->m) {
        rtg_metric_ticks(s->m, from, to, ns, at);
    } else {
        s->v[2 * s->got] = ns;
        s->v[2 * s->got + 1] = at;
    }
    s->got = s->got + 1;
}

/* A side's own figure set, named as the test's, told to the recorder;
 * NULL without memory. */
static struct rtg_metric *side_metric(struct rtg_ctx *ctx, const struct msg_exchange *e,
                                      const struct rtg_metric *mt)
{
    struct rtg_metric *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    rtg_metric_init(m, mt->name);
    if (e->operation)
        rtg_metric_explain_call(ctx, m);
    else
        rtg_metric_explain(ctx, m);
    return m;
}

static void side_free(struct rtg_metric *m)
{
    if (m)
        rtg_metric_free(m);
    free(m);
}

static int prio_at(const struct rtg_ctx *ctx, int below)
{
    int p = rtg_prio(ctx) - below;
    return p < 1 ? 1 : p;
}

static void close_all(struct rtg_msg_chan **ch, size_t nch)
{
    for (size_t k = 0; k < nch; k++)
        rtg_msg_close(ch[k]);
}

/* Runs one mechanism and size; 0, or -1 after rtg_fail_error. */
static int run_one(struct rtg_ctx *ctx, const struct msg_exchange *e, enum rtg_msg_mech m,
                   size_t size, uint64_t *bad_total)
{
    size_t n = (size_t)rtg_opt_int(ctx, "count");
    bool proc = strcmp(rtg_opt_enum(ctx, "peer"), "process") == 0;
    struct rtg_msg_chan *ch[2] = {NULL, NULL};
    int rc = rtg_msg_open_chan(ctx, &ch[0], m, size, 0, false, true);
    if (rc == EMSGSIZE)
        return 0;
    if (rc)
        return rtg_fail_error(ctx, "cannot open a %s channel for %zu bytes: %s",
                              rtg_msg_mech_name(m), size, strerror(rc));
    size_t nch = 1;
    if (e->channel_back) {
        rc = rtg_msg_open_chan(ctx, &ch[1], m, size, 0, false, false);
        if (rc) {
            rtg_msg_close(ch[0]);
            if (rc == EMSGSIZE)
                return 0;
            return rtg_fail_error(ctx, "cannot open a second %s channel: %s",
                                  rtg_msg_mech_name(m), strerror(rc));
        }
        nch = 2;
    }
    char what[64];
    snprintf(what, sizeof what, "count (%s, %zu B)", rtg_msg_mech_name(m), size);
    n = (size_t)rtg_fit_array(ctx, what, (int64_t)n, 4 * sizeof(uint64_t),
                              RTG_FIT_RESERVE + 2 * size + 2 * rtg_thread_mem_bytes(RTG_TEST_STACK) +
                                  3 * RTG_METRIC_BYTES);
    if (n == 0) {
        close_all(ch, nch);
        rtg_note(ctx, "%s, %zu B: no figures: no room for samples in the heap",
                 rtg_msg_mech_name(m), size);
        return 0;
    }
    const char *peer = proc ? "process" : "thread";
    struct rtg_metric *mt = rtg_msg_new_metric(ctx, e->what, m, size, peer, 0);
    /* Room to store every sample, used only by a forked far side (a thread
     * records into its figure set), kept for either peer: the count fitted
     * to the heap is then the same whichever peer is asked for. */
    size_t shlen = sizeof(struct msg_xchg) + 4 * n * sizeof(uint64_t);
    struct msg_xchg *x = mt ? rtg_shared_alloc(shlen) : NULL;
    if (x) {
        /* a forked far side records in its own memory: it stores instead */
        x->far.m = proc ? NULL : side_metric(ctx, e, mt);
        x->near.m = side_metric(ctx, e, mt);
    }
    if (!x || (!proc && !x->far.m) || !x->near.m) {
        if (x) {
            side_free(x->far.m);
            side_free(x->near.m);
            rtg_shared_free(x, shlen);
        }
        close_all(ch, nch);
        return rtg_fail_error(ctx, "out of memory");
    }
    x->to_far = ch[0];
    x->to_near = ch[1];
    x->size = size;
    x->n = n;
    x->far.v = (uint64_t *)(x + 1);
    x->near.v = x->far.v + 2 * n;
    x->ctx = ctx;

    struct rtg_thread_attr far = rtg_attr_at(ctx, rtg_rt_policy(ctx), prio_at(ctx, 0));
    struct rtg_thread_attr nearby =
        rtg_attr_at(ctx, rtg_rt_policy(ctx), prio_at(ctx, e->near_below));
    struct rtg_peer peers[2];
    size_t np = 0;
    rc = rtg_peer_start(&peers[0], proc, &far, e->far, x);
    if (!rc) {
        np = 1;
        rc = rtg_peer_start(&peers[1], false, &nearby, e->near, x);
        if (!rc)
            np = 2;
        else
            rtg_msg_fail_flag(&x->fl, rc, __LINE__);
    }
    double per_ms = 0.2 + (double)size / 20000.0; /* generous */
    uint64_t deadline = rtg_mono_ns() + (uint64_t)((double)n * per_ms * 1e6) + 10000000000u;
    int frc = np ? rtg_msg_finish(peers, np, ch, nch, &x->fl, deadline) : 0;
    int failed = x->fl.failed, line = x->fl.fail_line;

    if (x->far.m) {
        rtg_metric_merge(mt, x->far.m);
    } else {
        for (size_t i = 0; i < x->far.got && i < n; i++)
            rtg_metric_add(mt, x->far.v[2 * i], x->far.v[2 * i + 1]);
        if (x->far.got)
            mt->unexplained = "the far side's samples were recorded in a forked process "
                              "(peer=process), where the flight recorder is not";
    }
    rtg_metric_merge(mt, x->near.m);
    side_free(x->far.m);
    side_free(x->near.m);
    *bad_total += x->bad_seq;
    rtg_shared_free(x, shlen);
    close_all(ch, nch);
    if (rc && np < 2)
        return rtg_fail_error(ctx, "cannot start the %s peer: %s", np ? "thread" : peer,
                              strerror(rc));
    if (failed && !rtg_stop_requested())
        return rtg_fail_error(ctx, "%s, %zu B: a call failed (line %d): %s",
                              rtg_msg_mech_name(m), size, line, strerror(failed));
    if (frc && !rtg_stop_requested())
        return rtg_fail_error(ctx, "%s, %zu B: peers did not finish in time (%s)",
                              rtg_msg_mech_name(m), size, strerror(frc));
    return 0;
}

int rtg_msg_exchange_run(struct rtg_ctx *ctx, const struct msg_exchange *e)
{
    int swept = 0;
    rtg_msg_sweep(&swept);
    rtg_msg_note_not_offered(ctx);
    uint64_t bad = 0;
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "without SCHED_FIFO the receiver may not be blocked when a message is "
                      "sent: figures are not real-time figures");
    for (int m = 0; m < RTG_MSG_NMECH && !rtg_stop_requested(); m++)
        for (size_t s = 0; s < NSIZES && !rtg_stop_requested(); s++) {
            if (!rtg_msg_mech_selected(ctx, (enum rtg_msg_mech)m) ||
                !rtg_msg_size_selected(ctx, SIZES[s]))
                continue;
            if (run_one(ctx, e, (enum rtg_msg_mech)m, SIZES[s], &bad))
                return -1;
        }
    struct rtg_json *j = rtg_info(ctx);
    rtg_json_kuint(j, "count", (uint64_t)rtg_opt_int(ctx, "count"));
    rtg_json_kstr(j, "peer", rtg_opt_enum(ctx, "peer"));
    rtg_json_kint(j, "stale_queues_removed", swept);
    rtg_json_kuint(j, "messages_out_of_sequence", bad);
    if (bad)
        return rtg_fail_error(ctx, "%llu messages arrived out of sequence or truncated",
                              (unsigned long long)bad);
    return 0;
}

const struct rtg_option rtg_msg_x_options[4] = {
    MECH_OPT,
    SIZE_OPT,
    {"peer", RTG_OPT_ENUM, 0, 0, 0, 0, "thread,process", 0,
     "the receiving/serving side: a thread of the test or a forked process"},
    {"count", RTG_OPT_INT, 2000, 200, 10, 10000000, NULL, RTG_OPT_SCALED,
     "messages per mechanism and size"},
};
