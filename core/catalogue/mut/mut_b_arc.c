/* MUT-B-ARC: priority inversion avoidance, once per protocol.
 * One CPU, SCHED_FIFO. The main thread (at --prio) stages each round:
 *   L (prio-3) locks the mutex and is preempted while holding it;
 *   M (prio-2, busy for a bounded window) and H (prio-1) are made ready;
 *   the main thread blocks; H asks for the mutex.
 * With inheritance (or a ceiling at H's priority) L runs before M, H gets
 * the mutex and finishes, and only then M runs. Without (PTHREAD_PRIO_NONE,
 * the negative control) M's whole window passes while H waits: the
 * inversion. M's window is bounded (busy_ms), so the control ends by
 * itself. Verdicts: mut_verdicts.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "mut_verdicts.h"

/* The rules the checks are judged by (paraphrased). */
static const struct rtg_standard STD_INHERIT = {
    "POSIX", "XSH pthread_mutexattr_setprotocol(), PTHREAD_PRIO_INHERIT: the owner runs at the "
             "higher of its priority and that of the highest-priority thread waiting for the mutex"};
static const struct rtg_standard STD_PROTECT = {
    "POSIX", "XSH pthread_mutexattr_setprotocol(), PTHREAD_PRIO_PROTECT: the owner runs at the "
             "higher of its priority and the ceilings of the mutexes it owns"};
static const struct rtg_standard STD_NONE = {
    "POSIX", "XSH pthread_mutexattr_setprotocol(), PTHREAD_PRIO_NONE: owning the mutex does "
             "not change the owner's priority (the control: inversion shows)"};

#define MAX_ROUNDS 50

struct round {
    struct rtg_ctx *ctx;
    rtg_mutex_t m;
    rtg_sem_t l_locked;
    uint64_t t0, busy_ns, cs_ns, h_work_ns;
    struct rtg_mut_arc_round r;
    int l_rc, h_rc;
};

static uint64_t since(const struct round *x)
{
    return rtg_mono_ns() - x->t0;
}

static void *thr_l(void *arg)
{
    struct round *x = arg;
    x->l_rc = rtg_mutex_lock(&x->m);
    if (x->l_rc) {
        rtg_sem_post(&x->l_locked);
        return NULL;
    }
    x->r.l_lock = since(x);
    rtg_sem_post(&x->l_locked); /* the main thread preempts L here */
    /* L's critical section: cs_ns of its own running, from when it resumes. */
    rtg_spin_until(rtg_mono_ns() + x->cs_ns);
    x->r.l_rel = since(x);
    rtg_mutex_unlock(&x->m);
    return NULL;
}

static void *thr_m(void *arg)
{
    struct round *x = arg;
    x->r.m_start = since(x);
    rtg_spin_until(rtg_mono_ns() + x->busy_ns); /* bounded: ends by itself */
    x->r.m_end = since(x);
    return NULL;
}

static void *thr_h(void *arg)
{
    struct round *x = arg;
    x->r.h_req = since(x);
    x->h_rc = rtg_mutex_lock(&x->m);
    if (x->h_rc)
        return NULL;
    x->r.h_acq = since(x);
    rtg_spin_until(rtg_mono_ns() + x->h_work_ns);
    rtg_mutex_unlock(&x->m);
    x->r.h_done = since(x);
    return NULL;
}

/* One round; returns 0, ENOTSUP (protocol not offered) or an errno. */
static int one_round(struct rtg_ctx *ctx, enum rtg_mutex_protocol proto, struct round *x)
{
    int top = rtg_prio(ctx);
    /* fault=swap (hooks build): the protocol under test is not the one
     * named, so each verdict must fail. */
    if (rtg_fault_is(ctx, "swap"))
        proto = proto == RTG_PROTO_NONE ? RTG_PROTO_INHERIT : RTG_PROTO_NONE;
    int rc = rtg_mutex_init(&x->m, proto, top - 1);
    if (rc)
        return rc;
    rc = rtg_sem_init(&x->l_locked, 0);
    if (rc) {
        rtg_mutex_destroy(&x->m);
        return rc;
    }
    rtg_thread_t l, m, h;
    bool have_l = false, have_m = false, have_h = false;
    x->t0 = rtg_mono_ns();
    struct rtg_thread_attr a = rtg_attr_at(ctx, RTG_SCHED_FIFO, top - 3);
    rc = rtg_thread_create(&l, &a, thr_l, x);
    have_l = rc == 0;
    if (!rc) {
        /* L runs while this thread waits, locks, and posts: preempted. */
        rc = rtg_sem_wait_until(&x->l_locked, rtg_mono_ns() + 2000 * NS_PER_MS);
        if (!rc && x->l_rc)
            rc = x->l_rc;
    }
    if (!rc) {
        a = rtg_attr_at(ctx, RTG_SCHED_FIFO, top - 2);
        rc = rtg_thread_create(&m, &a, thr_m, x);
        have_m = rc == 0;
    }
    if (!rc) {
        a = rtg_attr_at(ctx, RTG_SCHED_FIFO, top - 1);
        rc = rtg_thread_create(&h, &a, thr_h, x);
        have_h = rc == 0;
    }
    /* Blocking here lets the three run, highest ready first. */
    if (have_h)
        rtg_thread_join(h, NULL);
    if (have_m)
        rtg_thread_join(m, NULL);
    if (have_l)
        rtg_thread_join(l, NULL);
    rtg_sem_destroy(&x->l_locked);
    rtg_mutex_destroy(&x->m);
    if (!rc && x->h_rc)
        rc = x->h_rc;
    return rc;
}

static const char *short_name(enum rtg_mutex_protocol p)
{
    return p == RTG_PROTO_INHERIT ? "inherit" : p == RTG_PROTO_PROTECT ? "protect" : "none";
}

/* Runs all rounds for one protocol and records its verdict; a protocol
 * the OS lacks gets a note instead (*was_offered false). */
static int run_protocol(struct rtg_ctx *ctx, enum rtg_mutex_protocol proto, bool as_control,
                        struct rtg_json *info_offered, struct rtg_json *info_prevents,
                        bool *was_offered)
{
    int rounds = (int)rtg_opt_int(ctx, "rounds");
    struct rtg_mut_arc_round r[MAX_ROUNDS];
    int done = 0, rc = 0;
    for (; done < rounds && !rtg_stop_requested(); done++) {
        struct round x;
        memset(&x, 0, sizeof x);
        x.ctx = ctx;
        x.busy_ns = (uint64_t)rtg_opt_int(ctx, "busy_ms") * NS_PER_MS;
        x.cs_ns = (uint64_t)rtg_opt_int(ctx, "cs_us") * NS_PER_US;
        x.h_work_ns = 100 * NS_PER_US;
        rc = one_round(ctx, proto, &x);
        if (rc)
            break;
        r[done] = x.r;
    }
    const char *pname = rtg_mutex_protocol_name(proto);
    bool offered = rc != ENOTSUP && rc != ENOSYS;
    *was_offered = offered;
    rtg_json_kbool(info_offered, pname, offered);
    if (rc && offered)
        return rtg_fail_error(ctx, "%s round failed: %s", pname, strerror(rc));
    if (!offered) { /* a protocol the OS lacks is said so, never a failed verdict */
        rtg_json_knull(info_prevents, pname);
        rtg_note(ctx, "%s: not offered by this OS, no verdict", pname);
        return 0;
    }
    bool prevents = rtg_mut_arc_prevents(r, (size_t)done);
    bool shows = rtg_mut_arc_shows_inversion(r, (size_t)done);
    rtg_json_kbool(info_prevents, pname, prevents);

    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "protocol", pname);
    rtg_json_kbool(&ev, "offered", true);
    int top = rtg_prio(ctx);
    rtg_json_kint(&ev, "prio_l", top - 3);
    rtg_json_kint(&ev, "prio_m", top - 2);
    rtg_json_kint(&ev, "prio_h", top - 1);
    if (proto == RTG_PROTO_PROTECT)
        rtg_json_kint(&ev, "ceiling", top - 1);
    rtg_json_kstr(&ev, "unit", "ns from the round's start");
    rtg_json_key(&ev, "rounds");
    rtg_json_arr_begin(&ev);
    int n_inv = 0, n_none = 0, n_free = 0;
    for (int i = 0; i < done; i++) {
        enum rtg_mut_arc_outcome o = rtg_mut_arc_classify(&r[i]);
        n_inv += o == RTG_MUT_INVERSION;
        n_none += o == RTG_MUT_NO_INVERSION;
        n_free += o == RTG_MUT_UNCONTENDED;
        rtg_json_obj_begin(&ev);
        rtg_json_kuint(&ev, "l_lock", r[i].l_lock);
        rtg_json_kuint(&ev, "h_request", r[i].h_req);
        rtg_json_kuint(&ev, "m_start", r[i].m_start);
        rtg_json_kuint(&ev, "m_end", r[i].m_end);
        rtg_json_kuint(&ev, "l_release", r[i].l_rel);
        rtg_json_kuint(&ev, "h_acquire", r[i].h_acq);
        rtg_json_kuint(&ev, "h_done", r[i].h_done);
        rtg_json_kstr(&ev, "outcome", rtg_mut_arc_outcome_name(o));
        rtg_json_obj_end(&ev);
    }
    rtg_json_arr_end(&ev);
    rtg_json_kint(&ev, "rounds_uncontended", n_free);
    rtg_json_obj_end(&ev);
    char obs[200], name[64];
    snprintf(obs, sizeof obs,
             "%d of %d rounds with inversion (M ran while H waited), %d without, %d where H "
             "never waited (not counted)",
             n_inv, done, n_none, n_free);
    if (as_control) {
        snprintf(name, sizeof name, "%s.control_shows_inversion", short_name(proto));
        rtg_verdict(ctx, &STD_NONE, name, shows,
                    "negative control: M's busy window lies between H's lock request and H's "
                    "acquisition in every round where H waited for the mutex",
                    obs, &ev);
    } else {
        snprintf(name, sizeof name, "%s.prevents_inversion", short_name(proto));
        rtg_verdict(ctx, proto == RTG_PROTO_PROTECT ? &STD_PROTECT : &STD_INHERIT, name,
                    prevents,
                    "M runs only after H has acquired, used and released the mutex, in every "
                    "round where H waited for it",
                    obs, &ev);
    }
    rtg_json_free(&ev);
    return 0;
}

static int run(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: priority inversion needs priorities");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (L, M and H below it)");
    const char *sel = rtg_opt_enum(ctx, "protocol");
    struct rtg_json offered, prevents;
    rtg_json_init(&offered);
    rtg_json_init(&prevents);
    rtg_json_obj_begin(&offered);
    rtg_json_obj_begin(&prevents);
    int rc = 0;
    bool was_offered = true;
    if (strcmp(sel, "all") == 0) {
        rc = run_protocol(ctx, RTG_PROTO_INHERIT, false, &offered, &prevents, &was_offered);
        if (!rc)
            rc = run_protocol(ctx, RTG_PROTO_PROTECT, false, &offered, &prevents, &was_offered);
        if (!rc)
            rc = run_protocol(ctx, RTG_PROTO_NONE, true, &offered, &prevents, &was_offered);
    } else {
        enum rtg_mutex_protocol p = strcmp(sel, "inherit") == 0   ? RTG_PROTO_INHERIT
                                    : strcmp(sel, "protect") == 0 ? RTG_PROTO_PROTECT
                                                                  : RTG_PROTO_NONE;
        /* Alone, every protocol is judged on prevention: none must fail. */
        rc = run_protocol(ctx, p, false, &offered, &prevents, &was_offered);
        if (!rc && !was_offered)
            rc = rtg_skip(ctx, "%s: not offered by this OS", rtg_mutex_protocol_name(p));
    }
    rtg_json_obj_end(&offered);
    rtg_json_obj_end(&prevents);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_key(info, "protocols_offered");
    rtg_json_raw_value(info, offered.buf, offered.len);
    rtg_json_key(info, "protocols_preventing_inversion");
    rtg_json_raw_value(info, prevents.buf, prevents.len);
    rtg_json_free(&offered);
    rtg_json_free(&prevents);
    return rc;
}

static double bound(const struct rtg_ctx *ctx)
{
    double per_round = (double)rtg_opt_int(ctx, "busy_ms") / 1000.0 +
                       (double)rtg_opt_int(ctx, "cs_us") / 1e6 + 0.05;
    return 10.0 + 3.0 * (double)rtg_opt_int(ctx, "rounds") * per_round * 2.0;
}

static const struct rtg_option options[] = {
    {"protocol", RTG_OPT_ENUM, 0, 0, 0, 0, "all,inherit,protect,none", 0,
     "all: inherit and protect judged on prevention, none as the negative control; "
     "one protocol alone is judged on prevention (none must fail)"},
    {"rounds", RTG_OPT_INT, 5, 2, 1, MAX_ROUNDS, NULL, 0, "rounds per protocol"},
    {"busy_ms", RTG_OPT_INT, 50, 20, 1, 200, NULL, 0,
     "M's bounded busy window (well under the RT throttling budget)"},
    {"cs_us", RTG_OPT_INT, 1000, 0, 10, 100000, NULL, 0,
     "L's critical section after it resumes"},
    {"fault", RTG_OPT_ENUM, 0, 0, 0, 0, "none,swap", RTG_OPT_HOOKS,
     "swap: inherit and protect rounds use a mutex without protocol, none rounds one with "
     "inheritance"},
};

const struct rtg_test_desc rtg_test_mut_b_arc = {
    .id = "MUT-B-ARC",
    .source = __FILE__,
    .title = "Mutex priority inversion avoidance per protocol",
    .kind = 'B',
    .options = RTG_OPTIONS(options),
    .run = run,
    .bound_s = bound,
};
