/* THR-B-NEW: who runs first after a thread creates a lower, equal or
 * higher priority one. Records evidence; the verdicts come from
 * thr_verdicts.c. */
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

/* The rules each check is judged by (paraphrased). */
static const struct rtg_standard STD_SELECTED = {
    "POSIX", "XSH 2.8.4 Scheduling Policies: the thread that runs is the head of the highest-"
             "priority non-empty thread list; a running thread preempted goes to the head of its"};
static const struct rtg_standard STD_RUNNABLE_TAIL = {
    "POSIX", "XSH 2.8.4 SCHED_FIFO: a thread that becomes runnable goes to the tail of the "
             "thread list for its priority"};
static const struct rtg_standard STD_YIELD = {
    "POSIX", "XSH 2.8.4 SCHED_FIFO, sched_yield(): the calling thread goes to the tail of the "
             "thread list for its priority"};

enum new_case { NEW_LOWER, NEW_SAME, NEW_HIGHER };

struct new_run {
    const struct rtg_ctx *ctx;
    enum rtg_policy pol;
    enum new_case c;
    int prio;
    struct rtg_evlog log;
    int error;
};

static void *new_child(void *arg)
{
    rtg_ev_add(&((struct new_run *)arg)->log, 'n');
    return NULL;
}

static void *new_creator(void *arg)
{
    struct new_run *r = arg;
    int np = r->c == NEW_LOWER ? r->prio - 1 : r->c == NEW_HIGHER ? r->prio + 1 : r->prio;
    if (rtg_fault_is(r->ctx, "invert")) /* hooks build: every check must fail */
        np = r->c == NEW_HIGHER ? r->prio - 1 : r->prio + 1;
    rtg_thread_t t;
    struct rtg_thread_attr a = rtg_attr_at(r->ctx, r->pol, np);
    rtg_ev_add(&r->log, 'c');
    int rc = rtg_thread_create(&t, &a, new_child, r);
    rtg_ev_add(&r->log, 'r');
    if (rc) {
        r->error = rc;
        return NULL;
    }
    if (r->c != NEW_HIGHER)
        rtg_spin_ns(NS_PER_MS); /* keep the CPU: a new thread that preempts shows here */
    if (r->c == NEW_SAME) {
        rtg_ev_add(&r->log, 'y');
        rtg_thread_yield();
        rtg_ev_add(&r->log, 'Y');
    }
    rtg_ev_add(&r->log, 'b');
    rtg_thread_join(t, NULL);
    return NULL;
}

static void new_verdict(struct rtg_ctx *ctx, const struct rtg_standard *std, const char *name,
                        const char *expected, enum rtg_thr_new_check chk, struct new_run *runs,
                        int n)
{
    bool ok = true;
    int bad = -1;
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "legend",
                  "c creator calls create, r create returned, n new thread's first instruction, "
                  "y creator yields, Y yield returned, b creator blocks (join)");
    rtg_json_kint(&ev, "creator_prio", runs[0].prio);
    rtg_json_kstr(&ev, "policy", rtg_policy_name(runs[0].pol));
    rtg_json_key(&ev, "runs");
    rtg_json_arr_begin(&ev);
    for (int i = 0; i < n; i++) {
        rtg_ev_json(&ev, &runs[i].log);
        if (!rtg_thr_new_ok(runs[i].log.ev, chk)) {
            ok = false;
            if (bad < 0)
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
    rtg_verdict(ctx, std, name, ok, expected, obs, &ev);
    rtg_json_free(&ev);
}

static int new_b_run(struct rtg_ctx *ctx)
{
    enum rtg_policy pol = rtg_thr_policy_opt(ctx);
    if (pol != RTG_SCHED_OTHER && !rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the creation checks depend on priorities");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (levels below it for the creator)");
    int reps = (int)rtg_opt_int(ctx, "repeats");
    struct new_run *runs = calloc(3 * (size_t)reps, sizeof *runs);
    if (!runs)
        return rtg_fail_error(ctx, "out of memory");
    int prio = rtg_prio(ctx) - 2;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < reps && !rtg_stop_requested(); i++) {
            struct new_run *r = &runs[c * reps + i];
            r->ctx = ctx;
            r->pol = pol;
            r->c = (enum new_case)c;
            r->prio = prio;
            rtg_ev_reset(&r->log);
            int rc = rtg_thr_run_in(ctx, pol, prio, new_creator, r);
            if (!rc)
                rc = r->error;
            if (rc) {
                free(runs);
                return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
            }
        }
    }
    if (rtg_stop_requested()) {
        free(runs);
        return 0;
    }
    new_verdict(ctx, &STD_SELECTED, "lower_priority_waits_until_creator_blocks",
                "crbn: the lower-priority thread runs only once the creator blocks",
                RTG_THR_NEW_LOWER, &runs[0], reps);
    new_verdict(ctx, &STD_RUNNABLE_TAIL, "same_priority_queued_at_tail",
                "cry..: the same-priority thread does not run before the creator yields",
                RTG_THR_NEW_SAME_TAIL, &runs[reps], reps);
    new_verdict(ctx, &STD_YIELD, "same_priority_runs_after_yield",
                "..ynY: when the creator yields, the new thread runs before yield returns",
                RTG_THR_NEW_SAME_YIELD, &runs[reps], reps);
    new_verdict(ctx, &STD_SELECTED, "higher_priority_runs_before_create_returns",
                "cnr: the higher-priority thread runs inside the create call",
                RTG_THR_NEW_HIGHER, &runs[2 * reps], reps);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kstr(info, "policy", rtg_policy_name(pol));
    rtg_json_kint(info, "creator_prio", prio);
    rtg_json_kint(info, "repeats", reps);
    free(runs);
    return 0;
}

static double new_b_bound(const struct rtg_ctx *ctx)
{
    return 5.0 + 0.05 * (double)rtg_opt_int(ctx, "repeats");
}

static const struct rtg_option new_b_options[] = {
    {"repeats", RTG_OPT_INT, 10, 3, 1, 1000, NULL, 0,
     "runs of each case; a check passes only if every run is in order"},
    {"policy", RTG_OPT_ENUM, 0, 0, 0, 0, "fifo,rr,other", 0,
     "policy of creator and new thread; other = negative control (no priorities)"},
    {"fault", RTG_OPT_ENUM, 0, 0, 0, 0, "none,invert", RTG_OPT_HOOKS,
     "invert: the new thread one level above the creator in the lower and same cases, "
     "one below in the higher case"},
};

const struct rtg_test_desc rtg_test_thr_b_new = {
    .id = "THR-B-NEW",
    .source = __FILE__,
    .title = "Thread creation behaviour (lower, same, higher priority)",
    .kind = 'B',
    .options = RTG_OPTIONS(new_b_options),
    .run = new_b_run,
    .bound_s = new_b_bound,
};
