/* SIG-P-LAT: real-time signal delivery. sigqueue(SIGRTMIN) from a thread to
 * the process, taken by a higher-priority thread blocked in sigtimedwait:
 * send call -> the receiver runs. Then the queueing verdicts: real-time
 * signals queue (none lost), arrive lowest number first, FIFO within a
 * number, and carry their value. signals=standard is the negative control
 * (standard signals do not queue: the none-lost verdict must fail). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_sig.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "sig_verdicts.h"

/* The rules the checks are judged by (paraphrased). */
static const struct rtg_standard STD_QUEUED = {
    "POSIX", "XSH 2.4.2 Realtime Signal Generation and Delivery: signals sent with sigqueue() "
             "are queued, several of one number in FIFO order"};
static const struct rtg_standard STD_LOWEST = {
    "POSIX", "XSH 2.4.2: of pending unblocked signals in SIGRTMIN..SIGRTMAX, the lowest "
             "number is delivered first"};
static const struct rtg_standard STD_VALUE = {
    "POSIX", "XSH sigqueue(), 2.4.2: the value sent is delivered in si_value"};

#define NSIG_ORDER 4 /* signal numbers in the order phase */
#define WAIT_NS (2ull * 1000000000ull)

struct lat_state {
    int sig;
    size_t n;
    uint64_t *tx;   /* ticks at each send call, by sequence number */
    struct rtg_metric *m; /* recorded by the receiver, as each signal arrives */
    const struct rtg_ctx *ctx;
    size_t got;
    size_t bad_value;
    volatile int sender_done;
    int err;
    const char *err_what;
    rtg_sem_t done;
};

static void *receiver(void *arg)
{
    struct lat_state *s = arg;
    for (size_t i = 0; i < s->n && !rtg_stop_requested(); i++) {
        int sig;
        uint64_t v;
        int rc;
        /* 100 ms slices up to WAIT_NS, so a stopped run ends promptly */
        uint64_t waited = 0;
        do {
            rc = rtg_sig_wait(&s->sig, 1, 100000000u, &sig, &v);
            if (rc == EAGAIN)
                waited += 100000000u;
        } while ((rc == EINTR || (rc == EAGAIN && waited < WAIT_NS && !s->sender_done)) &&
                 !rtg_stop_requested());
        uint64_t t = rtg_clock_ticks();
        if (rc) {
            if (!s->sender_done && !rtg_stop_requested()) {
                s->err = rc;
                s->err_what = "sigtimedwait";
            }
            break;
        }
        if (v != i || v >= s->n) {
            s->bad_value++;
            continue;
        }
        rtg_metric_ticks(s->m, s->tx[v], t, rtg_clock_delta_ns(s->tx[v], t),
                         rtg_test_elapsed_ns(s->ctx));
        s->got++;
    }
    rtg_sem_post(&s->done);
    return NULL;
}

/* The value a signal is sent with: fault=no_value (hooks build) sends 0,
 * as kill() would, where the test means v. */
static uint64_t sent_value(const struct rtg_ctx *ctx, uint64_t v)
{
    return rtg_fault_is(ctx, "no_value") ? 0 : v;
}

static void *sender(void *arg)
{
    struct lat_state *s = arg;
    uint64_t since = rtg_mono_ns();
    for (size_t i = 0; i < s->n && !rtg_stop_requested(); i++) {
        /* a 20 ms pause every 200 ms keeps clear of RT throttling */
        if ((i & 63u) == 0 && rtg_mono_ns() - since > 200000000u) {
            rtg_sleep_ns(20000000u);
            since = rtg_mono_ns();
        }
        s->tx[i] = rtg_clock_ticks();
        int rc = rtg_sig_send(s->sig, sent_value(s->ctx, i));
        if (rc) {
            s->err = rc;
            s->err_what = "sigqueue";
            break;
        }
    }
    s->sender_done = 1;
    rtg_sem_post(&s->done);
    return NULL;
}

static int run(struct rtg_ctx *ctx)
{
    bool rt = strcmp(rtg_opt_enum(ctx, "signals"), "rt") == 0;
    int sigs[NSIG_ORDER];
    size_t nsig = rt ? NSIG_ORDER : 2;
    for (size_t i = 0; i < nsig; i++)
        sigs[i] = rt ? rtg_sig_rt((int)i) : rtg_sig_std((int)i);
    for (size_t i = 0; i < nsig; i++)
        if (sigs[i] < 0)
            return rtg_skip(ctx, "this OS has no %s signal number %zu", rt ? "real-time" : "standard",
                            i);
    /* Blocked in every thread of the test (threads inherit the mask), so
     * only a thread waiting for them takes them. */
    int rc = rtg_sig_block(sigs, nsig);
    if (rc)
        return rtg_fail_error(ctx, "cannot block the signals: %s", strerror(rc));

    /* ---- latency ---- */
    struct lat_state s;
    memset(&s, 0, sizeof s);
    s.sig = sigs[0];
    s.n = (size_t)rtg_opt_int(ctx, "count");
    s.tx = calloc(s.n, sizeof *s.tx);
    s.ctx = ctx;
    s.m = rtg_metric_new(ctx, "sig.latency.%s", rt ? "rt" : "standard");
    if (!s.tx || !s.m || rtg_sem_init(&s.done, 0))
        return rtg_fail_error(ctx, "out of memory");
    rtg_json_obj_begin(&s.m->params);
    rtg_json_kint(&s.m->params, "signal", s.sig);
    rtg_json_kstr(&s.m->params, "kind", rt ? "SIGRTMIN" : "SIGUSR2");
    rtg_json_obj_end(&s.m->params);
    /* from the send call to the receiver running, recorded by it at once */
    rtg_metric_explain(ctx, s.m);
    enum rtg_policy pol = rtg_rt_ok(ctx) ? RTG_SCHED_FIFO : RTG_SCHED_OTHER;
    int p = rtg_prio(ctx);
    struct rtg_thread_attr ra = {.policy = pol, .prio = p, .cpu = rtg_cpu_at(ctx, 0),
                                 .stack_size = RTG_TEST_STACK};
    struct rtg_thread_attr sa = ra;
    sa.prio = p > 1 ? p - 1 : 1;
    rtg_thread_t tr, ts;
    rc = rtg_thread_create(&tr, &ra, receiver, &s);
    if (rc)
        return rtg_fail_error(ctx, "cannot start the receiver: %s", strerror(rc));
    rc = rtg_thread_create(&ts, &sa, sender, &s);
    if (rc) {
        s.sender_done = 1; /* the receiver times out */
        rtg_thread_join(tr, NULL);
        return rtg_fail_error(ctx, "cannot start the sender: %s", strerror(rc));
    }
    /* Both end by themselves: the receiver's waits are bounded. */
    uint64_t deadline = rtg_mono_ns() + (uint64_t)s.n * 1000000u + 3 * WAIT_NS;
    for (int k = 0; k < 2;) {
        int w = rtg_sem_wait_until(&s.done, deadline);
        if (w == ETIMEDOUT)
            return rtg_fail_error(ctx, "the latency threads did not finish in time");
        k += w == 0; /* EINTR: a stop request, the threads see it too */
    }
    rtg_thread_join(ts, NULL);
    rtg_thread_join(tr, NULL);
    rtg_sem_destroy(&s.done);
    if (s.err && !rtg_stop_requested())
        return rtg_fail_error(ctx, "%s failed: %s", s.err_what, strerror(s.err));

    /* ---- order: queue per x numbers, scrambled, nobody waiting ---- */
    size_t per = (size_t)rtg_opt_int(ctx, "per_signal");
    static const int scramble[NSIG_ORDER] = {2, 0, 3, 1};
    size_t ntx = per * nsig;
    struct rtg_sig_tx *tx = calloc(ntx, sizeof *tx);
    struct rtg_sig_rx *rx = calloc(ntx + 1, sizeof *rx);
    if (!tx || !rx)
        return rtg_fail_error(ctx, "out of memory");
    size_t sent = 0;
    for (size_t r = 0; r < per; r++)
        for (size_t k = 0; k < NSIG_ORDER; k++) {
            int idx = scramble[k];
            if ((size_t)idx >= nsig)
                continue;
            uint64_t v = ((uint64_t)idx << 16) | r;
            rc = rtg_sig_send(sigs[idx], sent_value(ctx, v));
            if (rc)
                return rtg_fail_error(ctx, "sigqueue failed after %zu signals: %s", sent,
                                      strerror(rc));
            tx[sent++] = (struct rtg_sig_tx){.sig = idx, .value = v};
        }
    /* Faults of the hooks build, on the receiving side: take the highest
     * number first (waiting for it alone), or take the first pending
     * signal and queue it again behind the others of its number. */
    size_t nrx = 0;
    if (rtg_fault_is(ctx, "requeue_first")) {
        int sig;
        uint64_t v;
        if (rtg_sig_wait(sigs, nsig, 0, &sig, &v) == 0)
            rtg_sig_send(sig, v);
    }
    bool highest_first = rtg_fault_is(ctx, "wait_highest_first");
    while (nrx < ntx + 1) {
        int sig;
        uint64_t v;
        if (highest_first && nrx == 0)
            rc = rtg_sig_wait(&sigs[nsig - 1], 1, 0, &sig, &v);
        else
            rc = rtg_sig_wait(sigs, nsig, 0, &sig, &v);
        if (rc == EINTR)
            continue;
        if (rc)
            break;
        int idx = -1;
        for (size_t i = 0; i < nsig; i++)
            if (sigs[i] == sig)
                idx = (int)i;
        rx[nrx++] = (struct rtg_sig_rx){.sig = idx, .value = v};
    }
    struct rtg_sig_order o = rtg_sig_judge_order(tx, sent, rx, nrx);

    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "signals", rt ? "SIGRTMIN+0..3" : "SIGUSR2, SIGWINCH");
    rtg_json_key(&ev, "numbers");
    rtg_json_arr_begin(&ev);
    for (size_t i = 0; i < nsig; i++)
        rtg_json_int(&ev, sigs[i]);
    rtg_json_arr_end(&ev);
    rtg_json_kuint(&ev, "sent", sent);
    rtg_json_kuint(&ev, "received", nrx);
    rtg_json_key(&ev, "sent_order"); /* "i:r": the i-th signal, round r */
    rtg_json_arr_begin(&ev);
    for (size_t i = 0; i < sent && i < 64; i++) {
        char b[24];
        snprintf(b, sizeof b, "%d:%llu", tx[i].sig, (unsigned long long)(tx[i].value & 0xffff));
        rtg_json_str(&ev, b);
    }
    rtg_json_arr_end(&ev);
    rtg_json_key(&ev, "received_order");
    rtg_json_arr_begin(&ev);
    for (size_t i = 0; i < nrx && i < 64; i++) {
        char b[24];
        snprintf(b, sizeof b, "%d:%llu", rx[i].sig, (unsigned long long)(rx[i].value & 0xffff));
        rtg_json_str(&ev, b);
    }
    rtg_json_arr_end(&ev);
    rtg_json_kuint(&ev, "latency_signals_sent", s.n);
    rtg_json_kuint(&ev, "latency_signals_received", s.got + s.bad_value);
    rtg_json_kuint(&ev, "latency_wrong_values", s.bad_value);
    rtg_json_obj_end(&ev);

    char obs[160];
    snprintf(obs, sizeof obs, "%zu of %zu received", nrx, sent);
    rtg_verdict(ctx, &STD_QUEUED, "signals_queue", o.none_lost, "every queued signal is received once", obs, &ev);
    snprintf(obs, sizeof obs, o.lowest_first ? "numbers never decreased"
                                              : "a higher number came before a lower one (at %zu)",
             o.first_violation);
    rtg_verdict(ctx, &STD_LOWEST, "lowest_number_first", o.lowest_first,
                "pending signals are taken lowest number first", obs, &ev);
    snprintf(obs, sizeof obs, o.fifo_per_number ? "send order kept within each number"
                                                 : "out of send order within a number");
    rtg_verdict(ctx, &STD_QUEUED, "fifo_within_number", o.fifo_per_number,
                "signals of one number are taken in the order they were sent", obs, &ev);
    bool values = o.values_carried && s.bad_value == 0 && s.got > 0;
    snprintf(obs, sizeof obs, "%zu wrong values in the latency phase; order phase values %s",
             s.bad_value, o.values_carried ? "all sent ones" : "not all sent ones");
    rtg_verdict(ctx, &STD_VALUE, "value_delivered", values, "each signal carries the value it was sent with",
                obs, &ev);
    rtg_json_free(&ev);

    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kuint(info, "count", s.n);
    rtg_json_kuint(info, "per_signal", per);
    rtg_json_kint(info, "sigrtmin", rtg_sig_rt(0));
    rtg_json_kint(info, "rt_signals", rtg_sig_rt_count());
    free(tx);
    free(rx);
    free(s.tx);
    return 0;
}

static double bound(const struct rtg_ctx *ctx)
{
    return 12.0 + (double)rtg_opt_int(ctx, "count") * 0.001;
}

static const struct rtg_option options[] = {
    {"count", RTG_OPT_INT, 5000, 500, 10, 10000000, NULL, RTG_OPT_SCALED, "signals timed"},
    {"per_signal", RTG_OPT_INT, 8, 0, 1, 1000, NULL, 0,
     "signals queued per number in the order phase (4 numbers)"},
    {"signals", RTG_OPT_ENUM, 0, 0, 0, 0, "rt,standard", 0,
     "real-time signals, or standard ones (SIGUSR2, SIGWINCH: the negative control)"},
    {"fault", RTG_OPT_ENUM, 0, 0, 0, 0, "none,wait_highest_first,requeue_first,no_value",
     RTG_OPT_HOOKS,
     "wait_highest_first: the first signal taken is waited for on the highest number alone; "
     "requeue_first: the first pending signal is taken and queued again; no_value: signals are "
     "sent with the value 0"},
};

const struct rtg_test_desc rtg_test_sig_p_lat = {
    .id = "SIG-P-LAT",
    .source = __FILE__,
    .recorded = true, /* each delivery's worst samples are explained */
    .needs = RTG_OFFERS_SIGNALS,
    .title = "Real-time signal delivery, queueing and order",
    .kind = 'P',
    .options = RTG_OPTIONS(options),
    .run = run,
    .bound_s = bound,
};
