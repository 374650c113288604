/* THR-B-PRIO: priority preemption, and a lowered priority's queue
 * position. Records evidence; the verdicts come from thr_verdicts.c. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "thr_behav.h"
#include "thr_verdicts.h"

/* The rules each check is judged by (paraphrased). A thread lowering its
 * own priority is judged by the rule of the call it makes: the head with
 * pthread_setschedprio, the tail with pthread_setschedparam. */
static const struct rtg_standard STD_WOKEN = {
    "POSIX", "XSH 2.8.4 Scheduling Policies, sem_post(): the woken thread becomes runnable; "
             "the head of the highest-priority non-empty thread list runs"};
static const struct rtg_standard STD_LOWERED_HEAD = {
    "POSIX", "XSH 2.8.4 SCHED_FIFO, pthread_setschedprio(): a running thread whose priority "
             "is lowered becomes the head of the thread list for its new priority"};
static const struct rtg_standard STD_LOWERED_TAIL = {
    "POSIX", "XSH 2.8.4 SCHED_FIFO, pthread_setschedparam(): a running thread whose priority "
             "is modified becomes the tail of the thread list for its new priority"};

struct wake_run {
    const struct rtg_ctx *ctx;
    enum rtg_policy pol;
    bool higher;
    int prio;
    rtg_sem_t sem;
    struct rtg_evlog log;
    int error;
};

static void *wake_waiter(void *arg)
{
    struct wake_run *r = arg;
    if (rtg_sem_wait_until(&r->sem, rtg_mono_ns() + 2000 * NS_PER_MS) == 0)
        rtg_ev_add(&r->log, 'w');
    return NULL;
}

static void *wake_poster(void *arg)
{
    struct wake_run *r = arg;
    rtg_thread_t t;
    bool higher = r->higher != rtg_fault_is(r->ctx, "invert");
    struct rtg_thread_attr a = rtg_attr_at(r->ctx, r->pol, higher ? r->prio + 1 : r->prio - 1);
    int rc = rtg_thread_create(&t, &a, wake_waiter, r);
    if (rc) {
        r->error = rc;
        return NULL;
    }
    /* A higher waiter has run and blocked already; a lower one needs the
     * CPU to reach its wait: sleeping hands it over. */
    rtg_sleep_ns(10 * NS_PER_MS);
    rtg_spin_ns(200 * NS_PER_US);
    rtg_ev_add(&r->log, 'p');
    rtg_sem_post(&r->sem);
    rtg_ev_add(&r->log, 'r');
    rtg_spin_ns(NS_PER_MS);
    rtg_ev_add(&r->log, 'b');
    rtg_thread_join(t, NULL);
    return NULL;
}

struct low_run {
    const struct rtg_ctx *ctx;
    enum rtg_policy pol;
    int prio;
    bool expect_head; /* lowered with the call whose rule is the head */
    struct rtg_evlog log;
    int error;
};

static void *low_other(void *arg)
{
    rtg_ev_add(&((struct low_run *)arg)->log, 'x');
    return NULL;
}

static void *low_self(void *arg)
{
    struct low_run *r = arg;
    rtg_thread_t t;
    /* The fault puts X above the level the thread lowers itself to. */
    int x_prio = rtg_fault_is(r->ctx, "invert") ? r->prio : r->prio - 1;
    struct rtg_thread_attr a = rtg_attr_at(r->ctx, r->pol, x_prio);
    int rc = rtg_thread_create(&t, &a, low_other, r); /* ready, not running */
    if (rc) {
        r->error = rc;
        return NULL;
    }
    rtg_spin_ns(200 * NS_PER_US);
    rtg_ev_add(&r->log, 'l');
    rc = r->expect_head ? rtg_thread_set_prio(rtg_thread_self(), r->prio - 1)
                        : rtg_thread_set_sched(rtg_thread_self(), r->pol, r->prio - 1);
    rtg_ev_add(&r->log, 'L');
    if (rc)
        r->error = rc;
    rtg_spin_ns(NS_PER_MS);
    rtg_ev_add(&r->log, 'b');
    rtg_thread_join(t, NULL);
    return NULL;
}

static void wake_verdict(struct rtg_ctx *ctx, struct wake_run *runs, int n, bool higher)
{
    bool ok = true;
    int bad = -1;
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "legend",
                  "p running thread posts the waiter's semaphore, r post returned, w waiter "
                  "runs, b poster blocks (join)");
    rtg_json_kint(&ev, "poster_prio", runs[0].prio);
    rtg_json_kint(&ev, "waiter_prio", higher ? runs[0].prio + 1 : runs[0].prio - 1);
    rtg_json_kstr(&ev, "policy", rtg_policy_name(runs[0].pol));
    rtg_json_key(&ev, "runs");
    rtg_json_arr_begin(&ev);
    for (int i = 0; i < n; i++) {
        rtg_ev_json(&ev, &runs[i].log);
        if (!rtg_thr_wake_ok(runs[i].log.ev, higher) && bad < 0) {
            ok = false;
            bad = i;
        }
    }
    rtg_json_arr_end(&ev);
    rtg_json_obj_end(&ev);
    char obs[160];
    if (ok)
        snprintf(obs, sizeof obs, "%d of %d runs in order (%s)", n, n, runs[0].log.ev);
    else
        snprintf(obs, sizeof obs, "run %d out of order: %s", bad, runs[bad].log.ev);
    rtg_verdict(ctx, &STD_WOKEN,
                higher ? "higher_woken_preempts_at_once" : "lower_woken_does_not_preempt", ok,
                higher ? "pwr: the woken higher-priority thread runs before post returns"
                       : "prbw: the woken lower-priority thread runs only once the poster blocks",
                obs, &ev);
    rtg_json_free(&ev);
}

static void low_verdict(struct rtg_ctx *ctx, struct low_run *runs, int n, enum rtg_policy pol,
                        const char *expect, struct rtg_json *positions)
{
    const char *logs[64];
    int m = n < 64 ? n : 64;
    for (int i = 0; i < m; i++)
        logs[i] = runs[i].log.ev;
    enum rtg_thr_queue_pos promised =
        strcmp(expect, "head") == 0 ? RTG_THR_POS_HEAD : RTG_THR_POS_TAIL;
    enum rtg_thr_queue_pos seen;
    bool ok = rtg_thr_lowered_ok(logs, (size_t)m, promised, &seen);
    const char *obs_pos = seen != RTG_THR_POS_UNKNOWN ? rtg_thr_pos_name(seen) : "mixed or unknown";
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "legend",
                  "l running thread lowers its own priority to that of ready thread X, "
                  "L the call returned, x X runs, b the lowered thread blocks (join)");
    rtg_json_kstr(&ev, "policy", rtg_policy_name(pol));
    rtg_json_kint(&ev, "from_prio", runs[0].prio);
    rtg_json_kint(&ev, "to_prio", runs[0].prio - 1);
    rtg_json_kstr(&ev, "observed", obs_pos);
    rtg_json_kstr(&ev, "promised", expect);
    rtg_json_key(&ev, "runs");
    rtg_json_arr_begin(&ev);
    for (int i = 0; i < n; i++)
        rtg_ev_json(&ev, &runs[i].log);
    rtg_json_arr_end(&ev);
    rtg_json_obj_end(&ev);
    char name[96], exp[160], obs[96];
    snprintf(name, sizeof name, "lowered_thread_goes_to_%s_%s", expect,
             pol == RTG_SCHED_RR ? "rr" : "fifo");
    snprintf(exp, sizeof exp, "%s: a %s thread that lowers its priority lands at the %s of the "
             "ready queue of its new priority",
             strcmp(expect, "head") == 0 ? "lLbx" : "lxL", rtg_policy_name(pol), expect);
    snprintf(obs, sizeof obs, "lands at the %s (%s)", obs_pos, runs[0].log.ev);
    const char *seen_word = seen == RTG_THR_POS_UNKNOWN ? "mixed" : rtg_thr_pos_name(seen);
    rtg_verdict_seen(ctx, promised == RTG_THR_POS_HEAD ? &STD_LOWERED_HEAD : &STD_LOWERED_TAIL,
                     name, ok, seen_word, exp, obs, &ev);
    rtg_json_free(&ev);
    rtg_json_kstr(positions, rtg_policy_name(pol), obs_pos);
}

static int prio_b_run(struct rtg_ctx *ctx)
{
    enum rtg_policy pol = rtg_thr_policy_opt(ctx);
    if (pol != RTG_SCHED_OTHER && !rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: preemption checks depend on priorities");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (levels below it)");
    int reps = (int)rtg_opt_int(ctx, "repeats");
    int prio = rtg_prio(ctx) - 2;
    struct wake_run *w = calloc(2 * (size_t)reps, sizeof *w);
    struct low_run *l = calloc(2 * (size_t)reps, sizeof *l);
    if (!w || !l) {
        free(w);
        free(l);
        return rtg_fail_error(ctx, "out of memory");
    }
    int rc = 0;
    for (int h = 0; h < 2 && !rc; h++) {
        for (int i = 0; i < reps && !rc && !rtg_stop_requested(); i++) {
            struct wake_run *r = &w[h * reps + i];
            *r = (struct wake_run){.ctx = ctx, .pol = pol, .higher = h == 0, .prio = prio};
            rtg_ev_reset(&r->log);
            rc = rtg_sem_init(&r->sem, 0);
            if (rc)
                break;
            rc = rtg_thr_run_in(ctx, pol, prio, wake_poster, r);
            if (!rc)
                rc = r->error;
            rtg_sem_destroy(&r->sem);
        }
    }
    /* The lowered thread's queue position, under each real-time policy
     * (meaningless under SCHED_OTHER, which has no priority levels). */
    static const enum rtg_policy lpols[2] = {RTG_SCHED_FIFO, RTG_SCHED_RR};
    int nl = pol == RTG_SCHED_OTHER ? 0 : 2;
    bool head = strcmp(rtg_opt_enum(ctx, "lowered_expect"), "head") == 0;
    for (int p = 0; p < nl && !rc; p++) {
        for (int i = 0; i < reps && !rc && !rtg_stop_requested(); i++) {
            struct low_run *r = &l[p * reps + i];
            *r = (struct low_run){.ctx = ctx, .pol = lpols[p], .prio = prio, .expect_head = head};
            rtg_ev_reset(&r->log);
            rc = rtg_thr_run_in(ctx, lpols[p], prio, low_self, r);
            if (!rc)
                rc = r->error;
        }
    }
    if (rc) {
        free(w);
        free(l);
        return rtg_fail_error(ctx, "cannot run a case: %s", strerror(rc));
    }
    if (!rtg_stop_requested()) {
        wake_verdict(ctx, &w[0], reps, true);
        wake_verdict(ctx, &w[reps], reps, false);
        struct rtg_json *info = rtg_info(ctx);
        rtg_json_kstr(info, "policy", rtg_policy_name(pol));
        rtg_json_kint(info, "repeats", reps);
        if (nl) {
            struct rtg_json pos;
            rtg_json_init(&pos);
            rtg_json_obj_begin(&pos);
            const char *expect = rtg_opt_enum(ctx, "lowered_expect");
            for (int p = 0; p < nl; p++)
                low_verdict(ctx, &l[p * reps], reps, lpols[p], expect, &pos);
            rtg_json_obj_end(&pos);
            rtg_json_key(info, "lowered_position");
            rtg_json_raw_value(info, pos.buf, pos.len);
            rtg_json_free(&pos);
        } else {
            rtg_note(ctx, "policy other: the lowered-priority position is not checked "
                          "(SCHED_OTHER has no priority levels)");
        }
    }
    free(w);
    free(l);
    return 0;
}

static double prio_b_bound(const struct rtg_ctx *ctx)
{
    return 5.0 + 0.1 * (double)rtg_opt_int(ctx, "repeats");
}

static const struct rtg_option prio_b_options[] = {
    {"repeats", RTG_OPT_INT, 10, 3, 1, 64, NULL, 0,
     "runs of each case; a check passes only if every run is in order"},
    {"policy", RTG_OPT_ENUM, 0, 0, 0, 0, "fifo,rr,other", 0,
     "policy of the wake-up cases; other = negative control (no priorities)"},
    {"lowered_expect", RTG_OPT_ENUM, 0, 0, 0, 0, "head,tail", 0,
     "position promised to a thread that lowers its priority, and the call it makes: head "
     "(POSIX pthread_setschedprio; Linux sched(7) for every call) or tail (POSIX "
     "pthread_setschedparam)"},
    {"fault", RTG_OPT_ENUM, 0, 0, 0, 0, "none,invert", RTG_OPT_HOOKS,
     "invert: each waiter on the other side of the poster; X one level above the level the "
     "running thread lowers itself to"},
};

const struct rtg_test_desc rtg_test_thr_b_prio = {
    .id = "THR-B-PRIO",
    .source = __FILE__,
    .title = "Strict priority preemption; queue position of a lowered thread",
    .kind = 'B',
    .options = RTG_OPTIONS(prio_b_options),
    .run = prio_b_run,
    .bound_s = prio_b_bound,
};
