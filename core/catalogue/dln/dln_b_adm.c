/* DLN-B-ADM: SCHED_DEADLINE admission. A set below the CPUs' capacity
 * (one task of 5 % per CPU) must be admitted whole and, run for a number of
 * periods, each task must get its runtime every period (no deadline
 * missed); a set above it (tasks of 30 % until their sum exceeds the CPUs)
 * must be refused in part, what was admitted fitting the CPUs. A refusal
 * in the set below capacity is an error, not a pass. Verdicts from
 * dln_verdicts.c. Control (control=claim_admitted): the over-subscribed
 * set's answers replaced by "admitted" before the verdict, which must
 * then fail. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/osal_deadline.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "dln_common.h"
#include "dln_verdicts.h"

/* SCHED_DEADLINE is Linux's own: its documentation states the rule. */
static const struct rtg_standard STD_ADMIT = {
    "Linux", "sched(7), SCHED_DEADLINE: an admission test refuses (EBUSY) a set the CPUs "
             "cannot serve; an admitted thread gets its runtime in every period"};

#define DLN_MAX_TASKS 64

static void asks_json(struct rtg_json *j, const char *key, const struct rtg_dln_ask *a, size_t n)
{
    rtg_json_key(j, key);
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        rtg_json_obj_begin(j);
        rtg_json_kuint(j, "runtime_ns", a[i].runtime_ns);
        rtg_json_kuint(j, "period_ns", a[i].period_ns);
        rtg_json_kstr(j, "answer", a[i].rc ? strerror(a[i].rc) : "admitted");
        rtg_json_obj_end(j);
    }
    rtg_json_arr_end(j);
}

/* Asks for n tasks one after the other; the admitted ones run `periods`
 * periods (0: they block until all were asked). */
static int ask_set(const struct rtg_ctx *ctx, struct dln_task *tasks, size_t n, int periods,
                   struct rtg_dln_ask *asks)
{
    rtg_sem_t answered, release;
    rtg_thread_t t[DLN_MAX_TASKS];
    bool joinable[DLN_MAX_TASKS] = {false};
    int rc = rtg_sem_init(&answered, 0);
    if (rc)
        return rc;
    if ((rc = rtg_sem_init(&release, 0))) {
        rtg_sem_destroy(&answered);
        return rc;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        tasks[i].periods = periods;
        tasks[i].answered = &answered;
        tasks[i].release = &release;
        rc = rtg_dln_start(ctx, &tasks[i], &t[i]);
        joinable[i] = rc == 0 || rc == ETIMEDOUT;
        asks[i] = (struct rtg_dln_ask){tasks[i].p.runtime_ns, tasks[i].p.period_ns, tasks[i].rc};
    }
    for (size_t i = 0; i < n; i++)
        rtg_sem_post(&release);
    for (size_t i = 0; i < n; i++)
        if (joinable[i])
            rtg_thread_join(t[i], NULL);
    rtg_sem_destroy(&release);
    rtg_sem_destroy(&answered);
    return rc;
}

static int adm_run(struct rtg_ctx *ctx)
{
    int cpus = 0;
    double share = 0;
    int rc = rtg_deadline_bandwidth(&cpus, &share);
    if (rc && rtg_dln_skip_unoffered(ctx, rc))
        return -1;
    if (rc)
        return rtg_fail_error(ctx, "the deadline bandwidth: %s", strerror(rc));
    double capacity = share * cpus;
    int periods = (int)rtg_opt_int(ctx, "periods");
    uint64_t period = 10 * NS_PER_MS;

    /* Below capacity: one task of 5 % per CPU, each busy half its runtime. */
    size_t nb = (size_t)cpus < DLN_MAX_TASKS ? (size_t)cpus : DLN_MAX_TASKS;
    struct dln_task below[DLN_MAX_TASKS];
    struct rtg_dln_ask below_ask[DLN_MAX_TASKS];
    memset(below, 0, sizeof below);
    /* The hooks build's fault=overrun: each task's work is twice its
     * runtime, so the budget runs out inside every period and the work
     * ends past the deadline (the "served" verdict must fail). */
    uint64_t work = rtg_fault_is(ctx, "overrun") ? period / 10 : period / 40;
    for (size_t i = 0; i < nb; i++) {
        /* each task's activations, so that a task not served says what
         * held its CPU (the flight recorder keeps the worst) */
        struct rtg_metric *lat = rtg_metric_new(ctx, "deadline.admitted.activation.t%zu", i);
        rtg_metric_explain(ctx, lat);
        below[i] = (struct dln_task){
            .p = {period / 20, period, period}, .work_ns = work, .lat = lat, .ctx = ctx};
    }
    rc = ask_set(ctx, below, nb, periods, below_ask);
    if (rc)
        return rtg_fail_error(ctx, "cannot start a deadline task: %s", strerror(rc));
    if (below_ask[0].rc && rtg_dln_skip_unoffered(ctx, below_ask[0].rc))
        return -1;
    for (size_t i = 0; i < nb; i++)
        if (below_ask[i].rc)
            return rtg_fail_error(ctx, "a set below capacity (%.2f of %.2f) was refused: %s",
                                  rtg_dln_asked_util(below_ask, nb), capacity,
                                  strerror(below_ask[i].rc));

    /* Over-subscribed: tasks of 30 % until their sum exceeds the CPUs. */
    size_t no = (size_t)(cpus / 0.3) + 1;
    if (no > DLN_MAX_TASKS)
        no = DLN_MAX_TASKS;
    struct dln_task over[DLN_MAX_TASKS];
    struct rtg_dln_ask over_ask[DLN_MAX_TASKS];
    memset(over, 0, sizeof over);
    for (size_t i = 0; i < no; i++)
        over[i] = (struct dln_task){.p = {3 * period / 10, period, period}};
    rc = ask_set(ctx, over, no, 0, over_ask);
    if (rc)
        return rtg_fail_error(ctx, "cannot start a deadline task: %s", strerror(rc));
    if (rtg_stop_requested())
        return 0;

    bool control = strcmp(rtg_opt_enum(ctx, "control"), "claim_admitted") == 0;
    struct rtg_dln_ask judged[DLN_MAX_TASKS];
    memcpy(judged, over_ask, no * sizeof *judged);
    if (control)
        for (size_t i = 0; i < no; i++)
            judged[i].rc = 0;
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kint(&ev, "cpus", cpus);
    rtg_json_knum(&ev, "capacity", capacity);
    asks_json(&ev, "asked", over_ask, no);
    if (control)
        asks_json(&ev, "judged (control: every answer replaced by admitted)", judged, no);
    rtg_json_obj_end(&ev);
    char obs[200], exp[200];
    size_t refused = 0;
    for (size_t i = 0; i < no; i++)
        refused += judged[i].rc != 0;
    snprintf(exp, sizeof exp, "a set of %.2f on %d CPUs is refused in part, what is admitted "
             "fits (<= %d)", rtg_dln_asked_util(judged, no), cpus, cpus);
    snprintf(obs, sizeof obs, "%zu of %zu refused; admitted %.2f%s", refused, no,
             rtg_dln_admitted_util(judged, no), control ? " (control)" : "");
    rtg_verdict(ctx, &STD_ADMIT, "oversubscribed_set_refused", rtg_dln_oversubscribed_refused(judged, no, cpus),
                exp, obs, &ev);
    rtg_json_reset(&ev);

    rtg_json_obj_begin(&ev);
    asks_json(&ev, "asked", below_ask, nb);
    rtg_json_key(&ev, "tasks");
    rtg_json_arr_begin(&ev);
    struct rtg_steal_watch periods_all = {.known = true};
    int run_min = periods;
    for (size_t i = 0; i < nb; i++) {
        rtg_json_obj_begin(&ev);
        rtg_json_kint(&ev, "periods_run", below[i].periods_run);
        rtg_json_kuint(&ev, "missed", below[i].missed);
        rtg_json_kuint(&ev, "missed_while_the_hypervisor_stole_time", below[i].stalls.in_steal);
        rtg_json_obj_end(&ev);
        rtg_steal_watch_add(&periods_all, &below[i].stalls);
        if (below[i].periods_run < run_min)
            run_min = below[i].periods_run;
    }
    rtg_json_arr_end(&ev);
    rtg_steal_watch_json(&ev, &periods_all, "a period of one task");
    rtg_json_obj_end(&ev);
    bool admitted = rtg_dln_below_admitted(below_ask, nb, capacity);
    bool ran = rtg_dln_run_ok((uint64_t)run_min, (uint64_t)periods, &periods_all);
    snprintf(exp, sizeof exp, "a set of %.2f (capacity %.2f) is admitted whole and each task "
             "gets its runtime every period", rtg_dln_asked_util(below_ask, nb), capacity);
    snprintf(obs, sizeof obs, "%s; fewest periods run %d of %d; %llu missed (%llu while the "
             "hypervisor stole time)", admitted ? "admitted" : "refused", run_min, periods,
             (unsigned long long)periods_all.failed, (unsigned long long)periods_all.in_steal);
    rtg_verdict(ctx, &STD_ADMIT, "set_below_capacity_admitted_and_served", admitted && ran, exp, obs, &ev);
    rtg_json_free(&ev);

    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "cpus", cpus);
    rtg_json_knum(info, "cpu_share", share);
    rtg_json_kint(info, "periods", periods);
    rtg_json_kuint(info, "period_ns", period);
    rtg_json_kbool(info, "control", control);
    return 0;
}

static double adm_bound(const struct rtg_ctx *ctx)
{
    return 20.0 + (double)rtg_opt_int(ctx, "periods") * 0.02;
}

static const struct rtg_option adm_options[] = {
    {"periods", RTG_OPT_INT, 100, 30, 5, 10000, NULL, RTG_OPT_SCALED,
     "periods (10 ms) the admitted set below capacity runs"},
    {"control", RTG_OPT_ENUM, 0, 0, 0, 0, "none,claim_admitted", 0,
     "claim_admitted = negative control: the over-subscribed set judged as if all were admitted"},
    {"fault", RTG_OPT_ENUM, 0, 0, 0, 0, "none,overrun", RTG_OPT_HOOKS,
     "overrun: the tasks below capacity work twice their runtime per period"},
};

const struct rtg_test_desc rtg_test_dln_b_adm = {
    .id = "DLN-B-ADM",
    .source = __FILE__,
    .recorded = true, /* what held a task of the set below capacity */
    .needs = RTG_OFFERS_DEADLINE,
    .title = "SCHED_DEADLINE admission: over-subscription refused, a set below capacity served",
    .kind = 'B',
    .options = RTG_OPTIONS(adm_options),
    .run = adm_run,
    .bound_s = adm_bound,
};
