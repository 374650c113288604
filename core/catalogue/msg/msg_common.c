/* The MSG tests' shared part (msg_common.h). */
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

#include "msg_common.h"

/* ---- option helpers ---- */
/* Whether the OS has the mechanism at all (an RTOS has no pipes or System
 * V queues: ENOTSUP), from a small channel opened once. */
static bool mech_offered(enum rtg_msg_mech m)
{
    static signed char known[RTG_MSG_NMECH]; /* 0 not asked, 1 offered, -1 not */
    if (!known[m]) {
        struct rtg_msg_chan *c;
        int rc = rtg_msg_open(&c, m, 16, 0, false, NULL);
        if (rc == 0)
            rtg_msg_close(c);
        known[m] = rc == ENOTSUP ? -1 : 1;
    }
    return known[m] > 0;
}

bool rtg_msg_mech_selected(const struct rtg_ctx *ctx, enum rtg_msg_mech m)
{
    const char *s = rtg_opt_enum(ctx, "mechanism");
    return (strcmp(s, "all") == 0 || strcmp(s, rtg_msg_mech_name(m)) == 0) && mech_offered(m);
}

void rtg_msg_note_not_offered(struct rtg_ctx *ctx)
{
    const char *s = rtg_opt_enum(ctx, "mechanism");
    for (int m = 0; m < RTG_MSG_NMECH; m++)
        if ((strcmp(s, "all") == 0 || strcmp(s, rtg_msg_mech_name((enum rtg_msg_mech)m)) == 0) &&
            !mech_offered((enum rtg_msg_mech)m))
            rtg_note(ctx, "%s: not offered by this OS, no figures", rtg_msg_mech_name((enum rtg_msg_mech)m));
}

bool rtg_msg_size_selected(const struct rtg_ctx *ctx, size_t size)
{
    const char *s = rtg_opt_enum(ctx, "size");
    return strcmp(s, "all") == 0 || (size_t)strtoul(s, NULL, 10) == size;
}

size_t rtg_msg_n_combos(const struct rtg_ctx *ctx)
{
    size_t n = 0;
    for (int m = 0; m < RTG_MSG_NMECH; m++)
        for (size_t s = 0; s < NSIZES; s++)
            n += rtg_msg_mech_selected(ctx, (enum rtg_msg_mech)m) && rtg_msg_size_selected(ctx, SIZES[s]);
    return n;
}

int rtg_msg_prio_at(const struct rtg_ctx *ctx, int below)
{
    int p = rtg_prio(ctx) - below;
    return p < 1 ? 1 : p;
}

bool rtg_msg_use_process(const struct rtg_ctx *ctx)
{
    return strcmp(rtg_opt_enum(ctx, "peer"), "process") == 0;
}

struct rtg_metric *rtg_msg_new_metric(struct rtg_ctx *ctx, const char *what,
                                     enum rtg_msg_mech m, size_t size, const char *peer,
                                     size_t messages)
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

/* info.channels: one object per mechanism and size, what was granted. */
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
    rtg_json_obj_end(j);
    if (rc == EMSGSIZE)
        rtg_note(ctx, "%s cannot carry %zu-byte messages here (limit %zu bytes, %s): no figures "
                      "for that size",
                 rtg_msg_mech_name(m), size, c->size_limit, c->limit_name ? c->limit_name : "");
}

/* Opens a channel, recording what happened; 0, EMSGSIZE (size skipped) or an
 * error. On a board whose heap cannot hold the channel, the size is skipped
 * and the record says so. */
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

/* ---- coordination ---- */
/* Waits for every peer; aborts the channels when a peer failed, the run
 * is stopped or the deadline passed, so that blocked peers return. */
int rtg_msg_finish(struct rtg_peer *peers, size_t np,
                  struct rtg_msg_chan **ch, size_t nch, struct shared_flags *fl,
                  uint64_t deadline)
{
    /* The coordinator stays at --prio: a stop request's signal handler runs
     * on this thread, which must not be starved by busy peers. It wakes
     * once a second to look for a failed peer (at most one disturbance a
     * second, on the sending side). */
    bool aborted = false;
    int rc = 0;
    for (size_t i = 0; i < np; i++) {
        for (;;) {
            uint64_t now = rtg_mono_ns();
            uint64_t slice = now + 1000000000u;
            int w = rtg_peer_wait(&peers[i], slice < deadline || aborted ? slice : deadline);
            if (w == 0)
                break;
            if (!aborted && (fl->failed || rtg_stop_requested() || rtg_mono_ns() >= deadline)) {
                fl->stop = 1;
                for (size_t k = 0; k < nch; k++)
                    rtg_msg_abort(ch[k]);
                for (size_t k = 0; k < np; k++)
                    rtg_peer_kill(&peers[k]);
                aborted = true;
                deadline = rtg_mono_ns() + 3000000000u;
                if (!fl->failed && !rtg_stop_requested())
                    rc = ETIMEDOUT;
            } else if (aborted && rtg_mono_ns() >= deadline) {
                rc = EDEADLK; /* a thread stuck in a call: the process exit ends it */
                goto out;
            }
        }
    }
out:
    return rc;
}

void rtg_msg_fail_flag(struct shared_flags *fl, int err, int line)
{
    if (!fl->failed) {
        fl->fail_line = line;
        fl->failed = err;
    }
}

/* ---- one measured exchange, parameterised per test ---- */
char *rtg_msg_buf(size_t size)
{
    char *b = malloc(size);
    if (b)
        for (size_t i = 0; i < size; i++)
            b[i] = (char)(i * 7 + 1);
    return b;
}

/* LAT receiver / RTT server / ALT side A: the side that may be a process. */
static void *far_side(void *arg)
{
    struct xchg *x = arg;
    char *buf = rtg_msg_buf(x->size);
    if (!buf) {
        rtg_msg_fail_flag(&x->fl, ENOMEM, __LINE__);
        return NULL;
    }
    x->ready = 1;
    for (size_t i = 0; i < x->n && !x->fl.stop && !rtg_stop_requested(); i++) {
        size_t len;
        int rc = rtg_msg_recv(x->a, buf, x->size, &len, NULL);
        uint64_t t = rtg_clock_ticks();
        if (rc) {
            rtg_msg_fail_flag(&x->fl, rc, __LINE__);
            break;
        }
        struct payload p;
        memcpy(&p, buf, sizeof p);
        if (p.tag == 0xdead)
            break;
        if (p.seq != i || len != x->size)
            x->bad_seq++;
        if (x->mode == MODE_LAT || x->mode == MODE_ALT) {
            x->samples[2 * x->got] = rtg_clock_delta_ns(p.t, t);
            x->samples[2 * x->got + 1] = rtg_test_elapsed_ns(x->ctx);
            x->got = x->got + 1;
        }
        if (x->mode == MODE_RTT || x->mode == MODE_ALT) {
            if (x->mode == MODE_ALT) {
                p.t = rtg_clock_ticks();
                memcpy(buf, &p, sizeof p);
            }
            rc = rtg_msg_send(x->b, buf, x->size, 0);
            if (rc) {
                rtg_msg_fail_flag(&x->fl, rc, __LINE__);
                break;
            }
        }
    }
    /* Ending (a process exit above all) would delay the near side's last
     * receive: wait until it is done. */
    for (int k = 0; k < 5000 && !x->near_done && !x->fl.stop && !rtg_stop_requested(); k++)
        rtg_sleep_ns(1000000u);
    free(buf);
    return NULL;
}

/* LAT sender / RTT client / ALT side B: always a thread of the test. */
static void *near_side(void *arg)
{
    struct xchg *x = arg;
    char *buf = rtg_msg_buf(x->size);
    if (!buf) {
        rtg_msg_fail_flag(&x->fl, ENOMEM, __LINE__);
        x->near_done = 1;
        return NULL;
    }
    /* A forked far side first locks its memory (copying the pages it
     * shares with us): the first message waits until it is set up. */
    for (int k = 0; k < 5000 && !x->ready && !x->fl.stop && !rtg_stop_requested(); k++)
        rtg_sleep_ns(1000000u);
    rtg_sleep_ns(1000000u); /* and blocked in its receive */
    size_t i = 0;
    struct rtg_breather br = {.every = 64};
    for (; i < x->n && !x->fl.stop && !rtg_stop_requested(); i++) {
        rtg_breathe(&br);
        struct payload p = {.seq = (uint32_t)i, .tag = 1};
        p.t = rtg_clock_ticks();
        memcpy(buf, &p, sizeof p);
        int rc = rtg_msg_send(x->a, buf, x->size, 0);
        if (rc) {
            rtg_msg_fail_flag(&x->fl, rc, __LINE__);
            break;
        }
        if (x->mode == MODE_LAT)
            continue;
        size_t len;
        rc = rtg_msg_recv(x->b, buf, x->size, &len, NULL);
        uint64_t t = rtg_clock_ticks();
        if (rc) {
            rtg_msg_fail_flag(&x->fl, rc, __LINE__);
            break;
        }
        struct payload q;
        memcpy(&q, buf, sizeof q);
        if (q.seq != i || len != x->size)
            x->bad_seq++;
        x->samples2[2 * x->got2] = rtg_clock_delta_ns(x->mode == MODE_RTT ? p.t : q.t, t);
        x->samples2[2 * x->got2 + 1] = rtg_test_elapsed_ns(x->ctx);
        x->got2 = x->got2 + 1;
    }
    if (i < x->n && !x->fl.failed) { /* stopped early: release the far side */
        struct payload p = {.tag = 0xdead};
        memcpy(buf, &p, sizeof p);
        rtg_msg_send_try(x->a, buf, x->size, 0);
    }
    x->near_done = 1;
    free(buf);
    return NULL;
}

static const char *metric_what(int mode)
{
    return mode == MODE_LAT ? "latency" : mode == MODE_RTT ? "roundtrip" : "alternate";
}

/* Runs one mechanism and size; 0, or -1 after rtg_fail_error. */
static int run_xchg(struct rtg_ctx *ctx, int mode, enum rtg_msg_mech m, size_t size,
                    uint64_t *bad_total)
{
    size_t n = (size_t)rtg_opt_int(ctx, "count");
    bool proc = rtg_msg_use_process(ctx);
    struct rtg_msg_chan *ch[2] = {NULL, NULL};
    int rc = rtg_msg_open_chan(ctx, &ch[0], m, size, 0, false, true);
    if (rc == EMSGSIZE)
        return 0;
    if (rc)
        return rtg_fail_error(ctx, "cannot open a %s channel for %zu bytes: %s",
                              rtg_msg_mech_name(m), size, strerror(rc));
    size_t nch = 1;
    if (mode != MODE_LAT) {
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
                              RTG_FIT_RESERVE + 2 * size + 2 * rtg_thread_mem_bytes(RTG_TEST_STACK));
    if (n == 0) {
        for (size_t k = 0; k < nch; k++)
            rtg_msg_close(ch[k]);
        rtg_note(ctx, "%s, %zu B: no figures: no room for samples in the heap",
                 rtg_msg_mech_name(m), size);
        return 0;
    }
    size_t shlen = sizeof(struct xchg) + 4 * n * sizeof(uint64_t);
    struct xchg *x = rtg_shared_alloc(shlen);
    if (!x) {
        for (size_t k = 0; k < nch; k++)
            rtg_msg_close(ch[k]);
        return rtg_fail_error(ctx, "out of memory");
    }
    x->a = ch[0];
    x->b = ch[1];
    x->size = size;
    x->n = n;
    x->mode = mode;
    x->samples = (uint64_t *)(x + 1);
    x->samples2 = x->samples + 2 * n;
    x->ctx = ctx;

    /* LAT: the receiver is above the sender; RTT: the server is above the
     * client; ALT: both sides at the same priority. */
    struct rtg_thread_attr far = rtg_attr_at(ctx, rtg_rt_policy(ctx), rtg_msg_prio_at(ctx, 0));
    struct rtg_thread_attr nearby =
        rtg_attr_at(ctx, rtg_rt_policy(ctx), rtg_msg_prio_at(ctx, mode == MODE_ALT ? 0 : 1));
    struct rtg_peer peers[2];
    size_t np = 0;
    rc = rtg_peer_start(&peers[0], proc, &far, far_side, x);
    if (!rc) {
        np = 1;
        rc = rtg_peer_start(&peers[1], false, &nearby, near_side, x);
        if (!rc)
            np = 2;
        else
            rtg_msg_fail_flag(&x->fl, rc, __LINE__);
    }
    double per_ms = 0.2 + (double)size / 20000.0; /* generous */
    uint64_t deadline = rtg_mono_ns() + (uint64_t)((double)n * per_ms * 1e6) + 10000000000u;
    int frc = np ? rtg_msg_finish(peers, np, ch, nch, &x->fl, deadline) : 0;
    int failed = x->fl.failed, line = x->fl.fail_line;

    const char *peer = proc ? "process" : "thread";
    struct rtg_metric *mt = rtg_msg_new_metric(ctx, metric_what(mode), m, size, peer, 0);
    if (mt) {
        if (mode == MODE_LAT || mode == MODE_ALT)
            for (size_t i = 0; i < x->got && i < n; i++)
                rtg_metric_add(mt, x->samples[2 * i], x->samples[2 * i + 1]);
        if (mode == MODE_RTT || mode == MODE_ALT)
            for (size_t i = 0; i < x->got2 && i < n; i++)
                rtg_metric_add(mt, x->samples2[2 * i], x->samples2[2 * i + 1]);
    }
    *bad_total += x->bad_seq;
    rtg_shared_free(x, shlen);
    for (size_t k = 0; k < nch; k++)
        rtg_msg_close(ch[k]);
    if (!mt)
        return rtg_fail_error(ctx, "out of memory");
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

int rtg_msg_run_all(struct rtg_ctx *ctx, int mode)
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
            if (!rtg_msg_mech_selected(ctx, (enum rtg_msg_mech)m) || !rtg_msg_size_selected(ctx, SIZES[s]))
                continue;
            if (run_xchg(ctx, mode, (enum rtg_msg_mech)m, SIZES[s], &bad))
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

double rtg_msg_bound_x(const struct rtg_ctx *ctx)
{
    double n = (double)rtg_opt_int(ctx, "count");
    /* generous: 2 ms per exchange, plus channel set-up and process start */
    return 15.0 + (double)rtg_msg_n_combos(ctx) * (n * 0.002 + 1.0);
}

const struct rtg_option rtg_msg_x_options[4] = {
    MECH_OPT,
    SIZE_OPT,
    PEER_OPT,
    {"count", RTG_OPT_INT, 2000, 200, 10, 10000000, NULL, RTG_OPT_SCALED,
     "messages per mechanism and size"},
};
