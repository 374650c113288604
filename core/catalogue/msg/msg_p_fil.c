/* MSG-P-FIL: fill, drain, fill with urgent messages, per mechanism and
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

/* The rules the urgent-first check is judged by (paraphrased): a
 * mechanism without priorities (urgent_verdict=all, a control) by mq's. */
static const struct rtg_standard STD_URGENT_MQ = {
    "POSIX", "XSH mq_send(): a message goes before those of lower msg_prio and after those, "
             "if any, of equal msg_prio"};
static const struct rtg_standard STD_URGENT_SYSV = {
    "POSIX", "XSH msgrcv() with msgtyp < 0: the first message of the lowest type is received "
             "(urgent is the lowest type; msgsnd() appends)"};

struct fil_result {
    size_t rounds_judged, rounds_failed;
    size_t rounds_lifo; /* rounds urgent-first, last in first out explains (one urgent: either) */
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
    int rc = rtg_msg_open_chan(ctx, &c, m, size, want_cap, true, true);
    if (rc == EMSGSIZE)
        return 0;
    if (rc)
        return rtg_fail_error(ctx, "cannot open a %s channel for %zu bytes: %s",
                              rtg_msg_mech_name(m), size, strerror(rc));
    const struct rtg_msg_caps *caps = rtg_msg_caps(c);
    size_t cap = caps->capacity;
    if (cap > 100000)
        cap = 100000;
    struct rtg_metric *mf = rtg_msg_new_metric(ctx, "fill", m, size, NULL, cap);
    struct rtg_metric *md = rtg_msg_new_metric(ctx, "drain", m, size, NULL, cap);
    size_t n_normal = cap / 2, n_urgent = cap - n_normal;
    struct rtg_metric *mu = rtg_msg_new_metric(ctx, "fill_urgent", m, size, NULL, n_urgent);
    char *buf = rtg_msg_buf(size);
    struct rtg_msg_rx *rx = calloc(cap, sizeof *rx);
    rtg_metric_explain_call(ctx, mf);
    rtg_metric_explain_call(ctx, md);
    rtg_metric_explain_call(ctx, mu);
    if (!mf || !md || !mu || !buf || !rx) {
        free(buf);
        free(rx);
        rtg_msg_close(c);
        return rtg_fail_error(ctx, "out of memory");
    }
    unsigned normal = 0, urgent = caps->prio_max ? caps->prio_max : 1;
    if (rtg_fault_is(ctx, "urgent_as_normal")) /* hooks build: the verdict must fail */
        urgent = normal;
    size_t rounds = (size_t)rtg_opt_int(ctx, "rounds");
    int err = 0;
    uint32_t bad = 0;
    struct rtg_breather br = {.every = 64};
    for (size_t r = 0; r < rounds && !err && !rtg_stop_requested(); r++) {
        br.calls = 0; /* every round */
        rtg_breathe(&br);
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
        rtg_metric_ticks(mf, t0, t1, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
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
        rtg_metric_ticks(md, t0, t1, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
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
        rtg_metric_ticks(mu, t0, t1, rtg_clock_delta_ns(t0, t1), rtg_test_elapsed_ns(ctx));
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
        if (rtg_msg_round_as_lifo(u.pass, rx, got, n_urgent, n_normal))
            fr->rounds_lifo++;
    }
    free(buf);
    free(rx);
    rtg_msg_close(c);
    if (err && !rtg_stop_requested())
        return rtg_fail_error(ctx, "%s, %zu B: %s", rtg_msg_mech_name(m), size, strerror(err));
    if (bad)
        return rtg_fail_error(ctx, "%s, %zu B: %u messages drained out of order",
                              rtg_msg_mech_name(m), size, (unsigned)bad);
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
    rtg_json_kuint(&ev, "rounds_urgent_lifo", fr->rounds_lifo);
    rtg_json_kuint(&ev, "urgent_per_round", fr->n_urgent);
    rtg_json_kuint(&ev, "normal_per_round", fr->n_normal);
    rtg_json_kuint(&ev, "rounds_not_full_at_capacity", fr->not_full);
    rtg_json_kstr(&ev, "first_failure", fr->rounds_failed ? fr->first_fail.why : "");
    rtg_json_key(&ev, "received_order_head"); /* "u3": urgent #3, "n0": normal #0 */
    rtg_json_arr_begin(&ev);
    for (size_t i = 0; i < fr->first_order_n; i++) {
        char s[24];
        snprintf(s, sizeof s, "%c%u", fr->first_order[i].urgent ? 'u' : 'n',
                 (unsigned)fr->first_order[i].seq);
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
    /* what was seen, in a word: "urgent_lifo" only when LIFO explains every round */
    const char *seen = rtg_msg_urgent_seen(fr->rounds_judged, fr->rounds_failed, fr->rounds_lifo);
    rtg_verdict_seen(ctx, m == RTG_MSG_SYSV ? &STD_URGENT_SYSV : &STD_URGENT_MQ, name, fr->rounds_judged > 0 && fr->rounds_failed == 0, seen,
                     "after half a queue of normal messages, the urgent ones sent next are "
                     "received first, each class in send order",
                     obs, &ev);
    rtg_json_free(&ev);
}

static int run_fil(struct rtg_ctx *ctx)
{
    int swept = 0;
    rtg_msg_sweep(&swept);
    rtg_msg_note_not_offered(ctx);
    bool judge_all = strcmp(rtg_opt_enum(ctx, "urgent_verdict"), "all") == 0;
    for (int mi = 0; mi < RTG_MSG_NMECH && !rtg_stop_requested(); mi++) {
        enum rtg_msg_mech m = (enum rtg_msg_mech)mi;
        if (!rtg_msg_mech_selected(ctx, m))
            continue;
        struct fil_result fr;
        memset(&fr, 0, sizeof fr);
        bool has_prio = false;
        for (size_t s = 0; s < NSIZES && !rtg_stop_requested(); s++) {
            if (!rtg_msg_size_selected(ctx, SIZES[s]))
                continue;
            struct fil_result one;
            memset(&one, 0, sizeof one);
            if (fil_one(ctx, m, SIZES[s], &one))
                return -1;
            if (one.rounds_judged == 0)
                continue;
            if (!fr.judged_any || (one.rounds_failed && !fr.rounds_failed)) {
                size_t j = fr.rounds_judged, f = fr.rounds_failed, nf = fr.not_full;
                size_t lifo = fr.rounds_lifo;
                fr = one;
                fr.rounds_judged += j;
                fr.rounds_failed += f;
                fr.not_full += nf;
                fr.rounds_lifo += lifo;
            } else {
                fr.rounds_judged += one.rounds_judged;
                fr.rounds_failed += one.rounds_failed;
                fr.not_full += one.not_full;
                fr.rounds_lifo += one.rounds_lifo;
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


static double bound_fil(const struct rtg_ctx *ctx)
{
    double r = (double)rtg_opt_int(ctx, "rounds");
    return 15.0 + (double)rtg_msg_n_combos(ctx) * (r * 0.2 + 1.0);
}

static const struct rtg_option fil_options[] = {
    MECH_OPT,
    SIZE_OPT,
    {"rounds", RTG_OPT_INT, 30, 5, 1, 100000, NULL, RTG_OPT_SCALED,
     "fill/drain/urgent rounds per mechanism and size"},
    {"capacity", RTG_OPT_INT, 0, 0, 0, 65536, NULL, 0,
     "queue capacity in messages where the mechanism lets it be set (0: the system default)"},
    {"urgent_verdict", RTG_OPT_ENUM, 0, 0, 0, 0, "prio,all", 0,
     "judge urgent-first only for mechanisms with priorities, or for all (a negative control)"},
    {"fault", RTG_OPT_ENUM, 0, 0, 0, 0, "none,urgent_as_normal", RTG_OPT_HOOKS,
     "urgent_as_normal: the urgent messages are sent with the normal priority"},
};

const struct rtg_test_desc rtg_test_msg_p_fil = {
    .id = "MSG-P-FIL",
    .source = __FILE__,
    .recorded = true, /* its calls' worst samples are explained */
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Queue fill, drain and urgent fill",
    .kind = 'P',
    .options = RTG_OPTIONS(fil_options),
    .run = run_fil,
    .bound_s = bound_fil,
};
