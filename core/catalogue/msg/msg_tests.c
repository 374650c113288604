/* MSG family: message passing over POSIX message queues, pipes, System V
 * queues and UNIX domain datagram sockets, messages of 16 B, 1 KB, 5 KB
 * and 16 KB. MSG-P-SND, MSG-P-LAT, MSG-P-RTT, MSG-P-FIL, MSG-P-ALT.
 *
 * Every test loops over the selected mechanisms and sizes (all by default)
 * and records one figure set per pair, named msg.<what>.<mechanism>.s<size>
 * with params {"mechanism", "size"}. Peers are threads, or (peer=process)
 * a forked process for the receiving / serving side. In LAT, RTT and ALT
 * the main thread only coordinates: it waits and, when a peer fails, the
 * run is stopped or the time is up, aborts the channels so that no blocked
 * call outlives the test. SND and FIL run on the main thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/msg_verdicts.h"
#include "rtg/osal.h"
#include "rtg/osal_msg.h"
#include "rtg/test.h"

static const size_t SIZES[] = {16, 1024, 5120, 16384};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])
#define WAIT_NS (2ull * 1000000000ull) /* bound of one blocking call */

struct payload {
    uint32_t seq;
    uint32_t tag; /* 1 normal, 2 urgent, 0xdead: stop */
    uint64_t t;   /* measuring-clock ticks at the send call */
};

/* ---- option helpers ---- */
static bool mech_selected(const struct rtg_ctx *ctx, enum rtg_msg_mech m)
{
    const char *s = rtg_opt_enum(ctx, "mechanism");
    return strcmp(s, "all") == 0 || strcmp(s, rtg_msg_mech_name(m)) == 0;
}

static bool size_selected(const struct rtg_ctx *ctx, size_t size)
{
    const char *s = rtg_opt_enum(ctx, "size");
    return strcmp(s, "all") == 0 || (size_t)strtoul(s, NULL, 10) == size;
}

static size_t n_combos(const struct rtg_ctx *ctx)
{
    size_t n = 0;
    for (int m = 0; m < RTG_MSG_NMECH; m++)
        for (size_t s = 0; s < NSIZES; s++)
            n += mech_selected(ctx, (enum rtg_msg_mech)m) && size_selected(ctx, SIZES[s]);
    return n;
}

static int prio_at(const struct rtg_ctx *ctx, int below)
{
    int p = rtg_prio(ctx) - below;
    return p < 1 ? 1 : p;
}

static struct rtg_thread_attr attr_at(const struct rtg_ctx *ctx, int below)
{
    struct rtg_thread_attr a = {.policy = rtg_rt_ok(ctx) ? RTG_SCHED_FIFO : RTG_SCHED_OTHER,
                                .prio = prio_at(ctx, below), .cpu = rtg_cpu_at(ctx, 0),
                                .stack_size = 64 * 1024};
    return a;
}

static bool use_process(const struct rtg_ctx *ctx)
{
    return strcmp(rtg_opt_enum(ctx, "peer"), "process") == 0;
}

static struct rtg_metric *new_metric(struct rtg_ctx *ctx, const char *what,
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
static void info_channel(struct rtg_ctx *ctx, enum rtg_msg_mech m, size_t size,
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

/* Opens a channel, recording what happened; 0, EMSGSIZE (size skipped) or an error. */
static int open_chan(struct rtg_ctx *ctx, struct rtg_msg_chan **c, enum rtg_msg_mech m,
                     size_t size, size_t capacity, bool prio, bool record)
{
    struct rtg_msg_caps caps;
    memset(&caps, 0, sizeof caps);
    int rc = rtg_msg_open(c, m, size, capacity, prio, &caps);
    if (record || rc)
        info_channel(ctx, m, size, &caps, rc);
    if (!rc)
        rtg_msg_set_wait_ns(*c, WAIT_NS);
    return rc;
}

/* RT throttling (950 ms per second for all SCHED_FIFO tasks of a CPU)
 * would cut a 50 ms hole into a long busy phase: the sending side pauses
 * 20 ms after every 200 ms, between two measurements. */
struct breather {
    uint64_t since;
    unsigned calls;
};

static void breathe(struct breather *b)
{
    if ((b->calls++ & 63u) != 0)
        return;
    uint64_t now = rtg_mono_ns();
    if (b->since == 0)
        b->since = now;
    else if (now - b->since > 200000000u) {
        rtg_sleep_ns(20000000u);
        b->since = rtg_mono_ns();
    }
}

/* ---- coordination ---- */
struct shared_flags {
    volatile int failed;    /* a peer's call failed: errno */
    volatile int fail_line; /* where */
    volatile int stop;      /* peers: finish now */
};

/* Waits for every peer; aborts the channels when a peer failed, the run
 * is stopped or the deadline passed, so that blocked peers return. */
static int finish(struct rtg_peer *peers, size_t np,
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

static void fail_flag(struct shared_flags *fl, int err, int line)
{
    if (!fl->failed) {
        fl->fail_line = line;
        fl->failed = err;
    }
}

/* ---- one measured exchange, parameterised per test ---- */
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

static char *msg_buf(size_t size)
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
    char *buf = msg_buf(x->size);
    if (!buf) {
        fail_flag(&x->fl, ENOMEM, __LINE__);
        return NULL;
    }
    x->ready = 1;
    for (size_t i = 0; i < x->n && !x->fl.stop && !rtg_stop_requested(); i++) {
        size_t len;
        int rc = rtg_msg_recv(x->a, buf, x->size, &len, NULL);
        uint64_t t = rtg_clock_ticks();
        if (rc) {
            fail_flag(&x->fl, rc, __LINE__);
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
                fail_flag(&x->fl, rc, __LINE__);
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
    char *buf = msg_buf(x->size);
    if (!buf) {
        fail_flag(&x->fl, ENOMEM, __LINE__);
        x->near_done = 1;
        return NULL;
    }
    /* A forked far side first locks its memory (copying the pages it
     * shares with us): the first message waits until it is set up. */
    for (int k = 0; k < 5000 && !x->ready && !x->fl.stop && !rtg_stop_requested(); k++)
        rtg_sleep_ns(1000000u);
    rtg_sleep_ns(1000000u); /* and blocked in its receive */
    size_t i = 0;
    struct breather br = {0, 0};
    for (; i < x->n && !x->fl.stop && !rtg_stop_requested(); i++) {
        breathe(&br);
        struct payload p = {.seq = (uint32_t)i, .tag = 1};
        p.t = rtg_clock_ticks();
        memcpy(buf, &p, sizeof p);
        int rc = rtg_msg_send(x->a, buf, x->size, 0);
        if (rc) {
            fail_flag(&x->fl, rc, __LINE__);
            break;
        }
        if (x->mode == MODE_LAT)
            continue;
        size_t len;
        rc = rtg_msg_recv(x->b, buf, x->size, &len, NULL);
        uint64_t t = rtg_clock_ticks();
        if (rc) {
            fail_flag(&x->fl, rc, __LINE__);
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
    bool proc = use_process(ctx);
    struct rtg_msg_chan *ch[2] = {NULL, NULL};
    int rc = open_chan(ctx, &ch[0], m, size, 0, false, true);
    if (rc == EMSGSIZE)
        return 0;
    if (rc)
        return rtg_fail_error(ctx, "cannot open a %s channel for %zu bytes: %s",
                              rtg_msg_mech_name(m), size, strerror(rc));
    size_t nch = 1;
    if (mode != MODE_LAT) {
        rc = open_chan(ctx, &ch[1], m, size, 0, false, false);
        if (rc) {
            rtg_msg_close(ch[0]);
            if (rc == EMSGSIZE)
                return 0;
            return rtg_fail_error(ctx, "cannot open a second %s channel: %s",
                                  rtg_msg_mech_name(m), strerror(rc));
        }
        nch = 2;
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
    struct rtg_thread_attr far = attr_at(ctx, 0);
    struct rtg_thread_attr nearby = attr_at(ctx, mode == MODE_ALT ? 0 : 1);
    struct rtg_peer peers[2];
    size_t np = 0;
    rc = rtg_peer_start(&peers[0], proc, &far, far_side, x);
    if (!rc) {
        np = 1;
        rc = rtg_peer_start(&peers[1], false, &nearby, near_side, x);
        if (!rc)
            np = 2;
        else
            fail_flag(&x->fl, rc, __LINE__);
    }
    double per_ms = 0.2 + (double)size / 20000.0; /* generous */
    uint64_t deadline = rtg_mono_ns() + (uint64_t)((double)n * per_ms * 1e6) + 10000000000u;
    int frc = np ? finish(peers, np, ch, nch, &x->fl, deadline) : 0;
    int failed = x->fl.failed, line = x->fl.fail_line;

    const char *peer = proc ? "process" : "thread";
    struct rtg_metric *mt = new_metric(ctx, metric_what(mode), m, size, peer, 0);
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

static int run_all(struct rtg_ctx *ctx, int mode)
{
    int swept = 0;
    rtg_msg_sweep(&swept);
    uint64_t bad = 0;
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "without SCHED_FIFO the receiver may not be blocked when a message is "
                      "sent: figures are not real-time figures");
    for (int m = 0; m < RTG_MSG_NMECH && !rtg_stop_requested(); m++)
        for (size_t s = 0; s < NSIZES && !rtg_stop_requested(); s++) {
            if (!mech_selected(ctx, (enum rtg_msg_mech)m) || !size_selected(ctx, SIZES[s]))
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

static int run_lat(struct rtg_ctx *ctx) { return run_all(ctx, MODE_LAT); }
static int run_rtt(struct rtg_ctx *ctx) { return run_all(ctx, MODE_RTT); }
static int run_alt(struct rtg_ctx *ctx) { return run_all(ctx, MODE_ALT); }

/* ---- MSG-P-SND: send with no receiver waiting (no switch) ---- */
static int snd_one(struct rtg_ctx *ctx, enum rtg_msg_mech m, size_t size)
{
    struct rtg_msg_chan *c;
    int rc = open_chan(ctx, &c, m, size, 0, false, true);
    if (rc == EMSGSIZE)
        return 0;
    if (rc)
        return rtg_fail_error(ctx, "cannot open a %s channel for %zu bytes: %s",
                              rtg_msg_mech_name(m), size, strerror(rc));
    struct rtg_metric *ms = new_metric(ctx, "send", m, size, NULL, 0);
    struct rtg_metric *mr = new_metric(ctx, "receive", m, size, NULL, 0);
    char *buf = msg_buf(size);
    if (!ms || !mr || !buf) {
        free(buf);
        rtg_msg_close(c);
        return rtg_fail_error(ctx, "out of memory");
    }
    size_t n = (size_t)rtg_opt_int(ctx, "count");
    size_t batch = rtg_msg_caps(c)->capacity;
    if (batch > 64)
        batch = 64;
    int err = 0;
    uint32_t seq = 0, want = 0, bad = 0;
    struct breather br = {0, 0};
    for (size_t done = 0; done < n && !err && !rtg_stop_requested();) {
        br.calls = 0; /* every batch */
        breathe(&br);
        size_t k = 0;
        for (; k < batch && done + k < n; k++) {
            struct payload p = {.seq = seq++, .tag = 1};
            memcpy(buf, &p, sizeof p);
            uint64_t t0 = rtg_clock_ticks();
            err = rtg_msg_send(c, buf, size, 0);
            uint64_t t1 = rtg_clock_ticks();
            if (err)
                break;
            rtg_metric_add(ms, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
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
            rtg_metric_add(mr, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
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
                              size, bad);
    return 0;
}

static int run_snd(struct rtg_ctx *ctx)
{
    int swept = 0;
    rtg_msg_sweep(&swept);
    for (int m = 0; m < RTG_MSG_NMECH && !rtg_stop_requested(); m++)
        for (size_t s = 0; s < NSIZES && !rtg_stop_requested(); s++)
            if (mech_selected(ctx, (enum rtg_msg_mech)m) && size_selected(ctx, SIZES[s]))
                if (snd_one(ctx, (enum rtg_msg_mech)m, SIZES[s]))
                    return -1;
    rtg_json_kuint(rtg_info(ctx), "count", (uint64_t)rtg_opt_int(ctx, "count"));
    rtg_json_kint(rtg_info(ctx), "stale_queues_removed", swept);
    return 0;
}

/* ---- MSG-P-FIL: fill, drain, fill with urgent messages ---- */
struct fil_result {
    size_t rounds_judged, rounds_failed;
    struct rtg_urgent_result first_fail;
    struct rtg_msg_rx first_order[16];
    size_t first_order_n, n_urgent, n_normal;
    bool judged_any;
    size_t not_full; /* rounds where a send beyond capacity did not report "full" */
};

static int fil_one(struct rtg_ctx *ctx, enum rtg_msg_mech m, size_t size, struct fil_result *fr)
{
    struct rtg_msg_chan *c;
    size_t want_cap = (size_t)rtg_opt_int(ctx, "capacity");
    int rc = open_chan(ctx, &c, m, size, want_cap, true, true);
    if (rc == EMSGSIZE)
        return 0;
    if (rc)
        return rtg_fail_error(ctx, "cannot open a %s channel for %zu bytes: %s",
                              rtg_msg_mech_name(m), size, strerror(rc));
    const struct rtg_msg_caps *caps = rtg_msg_caps(c);
    size_t cap = caps->capacity;
    if (cap > 100000)
        cap = 100000;
    struct rtg_metric *mf = new_metric(ctx, "fill", m, size, NULL, cap);
    struct rtg_metric *md = new_metric(ctx, "drain", m, size, NULL, cap);
    size_t n_normal = cap / 2, n_urgent = cap - n_normal;
    struct rtg_metric *mu = new_metric(ctx, "fill_urgent", m, size, NULL, n_urgent);
    char *buf = msg_buf(size);
    struct rtg_msg_rx *rx = calloc(cap, sizeof *rx);
    if (!mf || !md || !mu || !buf || !rx) {
        free(buf);
        free(rx);
        rtg_msg_close(c);
        return rtg_fail_error(ctx, "out of memory");
    }
    unsigned normal = 0, urgent = caps->prio_max ? caps->prio_max : 1;
    size_t rounds = (size_t)rtg_opt_int(ctx, "rounds");
    int err = 0;
    uint32_t bad = 0;
    struct breather br = {0, 0};
    for (size_t r = 0; r < rounds && !err && !rtg_stop_requested(); r++) {
        br.calls = 0; /* every round */
        breathe(&br);
        /* fill to capacity */
        uint64_t t0 = rtg_clock_ticks();
        for (size_t i = 0; i < cap && !err; i++) {
            struct payload p = {.seq = (uint32_t)i, .tag = 1};
            memcpy(buf, &p, sizeof p);
            err = rtg_msg_send(c, buf, size, normal);
        }
        uint64_t t1 = rtg_clock_ticks();
        if (err)
            break;
        rtg_metric_add(mf, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
        /* one more must not fit; if it did, it is drained too (seq cap) */
        struct payload xp = {.seq = (uint32_t)cap, .tag = 1};
        memcpy(buf, &xp, sizeof xp);
        size_t extra = rtg_msg_send_try(c, buf, size, normal) == 0;
        fr->not_full += extra;
        /* drain */
        t0 = rtg_clock_ticks();
        for (size_t i = 0; i < cap + extra && !err; i++) {
            size_t len;
            err = rtg_msg_recv(c, buf, size, &len, NULL);
            if (!err) {
                struct payload p;
                memcpy(&p, buf, sizeof p);
                bad += p.seq != (uint32_t)i;
            }
        }
        t1 = rtg_clock_ticks();
        if (err)
            break;
        rtg_metric_add(md, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
        /* half normal (untimed), then the rest urgent (timed) */
        for (size_t i = 0; i < n_normal && !err; i++) {
            struct payload p = {.seq = (uint32_t)i, .tag = 1};
            memcpy(buf, &p, sizeof p);
            err = rtg_msg_send(c, buf, size, normal);
        }
        t0 = rtg_clock_ticks();
        for (size_t i = 0; i < n_urgent && !err; i++) {
            struct payload p = {.seq = (uint32_t)i, .tag = 2};
            memcpy(buf, &p, sizeof p);
            err = rtg_msg_send(c, buf, size, urgent);
        }
        t1 = rtg_clock_ticks();
        if (err)
            break;
        rtg_metric_add(mu, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
        size_t got = 0;
        for (size_t i = 0; i < cap && !err; i++) {
            size_t len;
            err = rtg_msg_recv_try(c, buf, size, &len, NULL);
            if (!err) {
                struct payload p;
                memcpy(&p, buf, sizeof p);
                rx[got++] = (struct rtg_msg_rx){.urgent = p.tag == 2, .seq = p.seq};
            }
        }
        if (err == EAGAIN)
            err = 0; /* fewer than sent: the verdict sees the loss */
        struct rtg_urgent_result u = rtg_msg_urgent_first(rx, got, n_urgent, n_normal);
        fr->rounds_judged++;
        if (!fr->judged_any || (!u.pass && fr->rounds_failed == 0)) {
            fr->judged_any = true;
            fr->first_fail = u;
            fr->first_order_n = got < 16 ? got : 16;
            memcpy(fr->first_order, rx, fr->first_order_n * sizeof *rx);
            fr->n_urgent = n_urgent;
            fr->n_normal = n_normal;
        }
        if (!u.pass)
            fr->rounds_failed++;
    }
    free(buf);
    free(rx);
    rtg_msg_close(c);
    if (err && !rtg_stop_requested())
        return rtg_fail_error(ctx, "%s, %zu B: %s", rtg_msg_mech_name(m), size, strerror(err));
    if (bad)
        return rtg_fail_error(ctx, "%s, %zu B: %u messages drained out of order",
                              rtg_msg_mech_name(m), size, bad);
    return 0;
}

static void fil_verdict(struct rtg_ctx *ctx, enum rtg_msg_mech m, const struct fil_result *fr,
                        bool has_prio)
{
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kbool(&ev, "mechanism_has_priorities", has_prio);
    rtg_json_kuint(&ev, "rounds_judged", fr->rounds_judged);
    rtg_json_kuint(&ev, "rounds_failed", fr->rounds_failed);
    rtg_json_kuint(&ev, "urgent_per_round", fr->n_urgent);
    rtg_json_kuint(&ev, "normal_per_round", fr->n_normal);
    rtg_json_kuint(&ev, "rounds_not_full_at_capacity", fr->not_full);
    rtg_json_kstr(&ev, "first_failure", fr->rounds_failed ? fr->first_fail.why : "");
    rtg_json_key(&ev, "received_order_head"); /* "u3": urgent #3, "n0": normal #0 */
    rtg_json_arr_begin(&ev);
    for (size_t i = 0; i < fr->first_order_n; i++) {
        char s[24];
        snprintf(s, sizeof s, "%c%u", fr->first_order[i].urgent ? 'u' : 'n', fr->first_order[i].seq);
        rtg_json_str(&ev, s);
    }
    rtg_json_arr_end(&ev);
    rtg_json_obj_end(&ev);
    char name[48], obs[160];
    snprintf(name, sizeof name, "urgent_first.%s", rtg_msg_mech_name(m));
    if (fr->rounds_failed)
        snprintf(obs, sizeof obs, "%zu of %zu rounds failed: %s", fr->rounds_failed,
                 fr->rounds_judged, fr->first_fail.why);
    else
        snprintf(obs, sizeof obs, "urgent messages first, FIFO within each class, in all %zu rounds",
                 fr->rounds_judged);
    rtg_verdict(ctx, name, fr->rounds_judged > 0 && fr->rounds_failed == 0,
                "after half a queue of normal messages, the urgent ones sent next are received "
                "first, each class in send order",
                obs, &ev);
    rtg_json_free(&ev);
}

static int run_fil(struct rtg_ctx *ctx)
{
    int swept = 0;
    rtg_msg_sweep(&swept);
    bool judge_all = strcmp(rtg_opt_enum(ctx, "urgent_verdict"), "all") == 0;
    for (int mi = 0; mi < RTG_MSG_NMECH && !rtg_stop_requested(); mi++) {
        enum rtg_msg_mech m = (enum rtg_msg_mech)mi;
        if (!mech_selected(ctx, m))
            continue;
        struct fil_result fr;
        memset(&fr, 0, sizeof fr);
        bool has_prio = false;
        for (size_t s = 0; s < NSIZES && !rtg_stop_requested(); s++) {
            if (!size_selected(ctx, SIZES[s]))
                continue;
            struct fil_result one;
            memset(&one, 0, sizeof one);
            if (fil_one(ctx, m, SIZES[s], &one))
                return -1;
            if (one.rounds_judged == 0)
                continue;
            if (!fr.judged_any || (one.rounds_failed && !fr.rounds_failed)) {
                size_t j = fr.rounds_judged, f = fr.rounds_failed, nf = fr.not_full;
                fr = one;
                fr.rounds_judged += j;
                fr.rounds_failed += f;
                fr.not_full += nf;
            } else {
                fr.rounds_judged += one.rounds_judged;
                fr.rounds_failed += one.rounds_failed;
                fr.not_full += one.not_full;
            }
        }
        /* whether the mechanism offers priorities, from a probe channel */
        struct rtg_msg_chan *c;
        if (rtg_msg_open(&c, m, 16, 0, true, NULL) == 0) {
            has_prio = rtg_msg_caps(c)->priorities;
            rtg_msg_close(c);
        }
        if (fr.judged_any && (has_prio || judge_all))
            fil_verdict(ctx, m, &fr, has_prio);
    }
    rtg_json_kuint(rtg_info(ctx), "rounds", (uint64_t)rtg_opt_int(ctx, "rounds"));
    rtg_json_kint(rtg_info(ctx), "stale_queues_removed", swept);
    return 0;
}

/* ---- bounds and descriptors ---- */
static double bound_x(const struct rtg_ctx *ctx)
{
    double n = (double)rtg_opt_int(ctx, "count");
    /* generous: 2 ms per exchange, plus channel set-up and process start */
    return 15.0 + (double)n_combos(ctx) * (n * 0.002 + 1.0);
}

static double bound_fil(const struct rtg_ctx *ctx)
{
    double r = (double)rtg_opt_int(ctx, "rounds");
    return 15.0 + (double)n_combos(ctx) * (r * 0.2 + 1.0);
}

#define MECH_OPT                                                                                  \
    {"mechanism", RTG_OPT_ENUM, 0, 0, 0, 0, "all,mq,pipe,sysv,unix", 0,                           \
     "POSIX message queue, pipe, System V queue, UNIX domain socket, or all four"}
#define SIZE_OPT                                                                                  \
    {"size", RTG_OPT_ENUM, 0, 0, 0, 0, "all,16,1024,5120,16384", 0, "message size in bytes"}
#define PEER_OPT                                                                                  \
    {"peer", RTG_OPT_ENUM, 0, 0, 0, 0, "thread,process", 0,                                       \
     "the receiving/serving side: a thread of the test or a forked process"}

static const struct rtg_option snd_options[] = {
    MECH_OPT,
    SIZE_OPT,
    {"count", RTG_OPT_INT, 2000, 200, 10, 10000000, NULL, RTG_OPT_SCALED,
     "sends per mechanism and size"},
};
static const struct rtg_option x_options[] = {
    MECH_OPT,
    SIZE_OPT,
    PEER_OPT,
    {"count", RTG_OPT_INT, 2000, 200, 10, 10000000, NULL, RTG_OPT_SCALED,
     "messages per mechanism and size"},
};
static const struct rtg_option fil_options[] = {
    MECH_OPT,
    SIZE_OPT,
    {"rounds", RTG_OPT_INT, 30, 5, 1, 100000, NULL, RTG_OPT_SCALED,
     "fill/drain/urgent rounds per mechanism and size"},
    {"capacity", RTG_OPT_INT, 0, 0, 0, 65536, NULL, 0,
     "queue capacity in messages where the mechanism lets it be set (0: the system default)"},
    {"urgent_verdict", RTG_OPT_ENUM, 0, 0, 0, 0, "prio,all", 0,
     "judge urgent-first only for mechanisms with priorities, or for all (a negative control)"},
};

const struct rtg_test_desc rtg_test_msg_p_snd = {
    .id = "MSG-P-SND",
    .source = __FILE__,
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Message send with no receiver waiting (no switch)",
    .kind = 'P',
    .options = RTG_OPTIONS(snd_options),
    .run = run_snd,
    .bound_s = bound_x,
};
const struct rtg_test_desc rtg_test_msg_p_lat = {
    .id = "MSG-P-LAT",
    .source = __FILE__,
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Message send to a blocked higher-priority receiver",
    .kind = 'P',
    .options = RTG_OPTIONS(x_options),
    .run = run_lat,
    .bound_s = bound_x,
};
const struct rtg_test_desc rtg_test_msg_p_rtt = {
    .id = "MSG-P-RTT",
    .source = __FILE__,
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Message request/reply round trip",
    .kind = 'P',
    .options = RTG_OPTIONS(x_options),
    .run = run_rtt,
    .bound_s = bound_x,
};
const struct rtg_test_desc rtg_test_msg_p_fil = {
    .id = "MSG-P-FIL",
    .source = __FILE__,
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Queue fill, drain and urgent fill",
    .kind = 'P',
    .options = RTG_OPTIONS(fil_options),
    .run = run_fil,
    .bound_s = bound_fil,
};
const struct rtg_test_desc rtg_test_msg_p_alt = {
    .id = "MSG-P-ALT",
    .source = __FILE__,
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Two tasks alternating, each blocked on its own queue",
    .kind = 'P',
    .options = RTG_OPTIONS(x_options),
    .run = run_alt,
    .bound_s = bound_x,
};
