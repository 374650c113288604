/* SMP-B-MIG: global fixed-priority scheduling on C CPUs (rt-migrate-test's
 * claim). C+1 SCHED_FIFO threads of distinct priorities, each allowed on
 * every selected CPU, wake together every round and each stays busy for a
 * burst of its own running time. Each thread records the stretches it ran
 * (a clock read more than gap_us after the previous one means it was off
 * the CPU). The verdict (smp_verdicts.c): at every instant a runnable
 * thread that waits has C higher-priority threads running. Control: every
 * thread pinned to the first CPU, where the second thread waits while a
 * CPU idles. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/osal_deadline.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "common/steal_watch.h"
#include "smp_verdicts.h"

/* No standard says it: POSIX leaves scheduling across CPUs to the
 * implementation (XSH 2.8.4, scheduling allocation domains). */
static const struct rtg_standard STD_GLOBAL = {
    "rtgauge", "global fixed-priority scheduling: on C CPUs the C highest-priority runnable "
               "threads run (POSIX XSH 2.8.4 leaves domains of several CPUs to the implementation)"};

#define SMP_MAX_THREADS 17
#define SPAN_MAX 64

struct trace {
    struct rtg_smp_span span[SPAN_MAX];
    size_t n;
    unsigned merged; /* off-CPU stretches past SPAN_MAX, counted as running */
};

struct mig {
    const struct rtg_ctx *ctx;
    int n_threads, rounds;
    int cpus[SMP_MAX_THREADS];
    size_t n_cpus;
    uint64_t t0, interval_ns, burst_ns, gap_ns;
    struct trace *tr; /* [round * n_threads + rank] */
    int errors;
    /* The C highest threads' stretches off the CPU inside their bursts:
     * each one is a CPU held by something else, and the flight recorder
     * keeps what held it for the worst (one figure per rank: one writer). */
    struct rtg_metric *held[SMP_MAX_THREADS];
    /* The same threads' wake-ups: from the round's wake-up time to running
     * (a release latency: what ran instead while it waited). */
    struct rtg_metric *wake[SMP_MAX_THREADS];
};

struct member {
    struct mig *m;
    int rank;
};

static void burst(struct mig *m, struct trace *t, struct rtg_metric *held)
{
    uint64_t start = rtg_mono_ns(), prev = start, ran = 0;
    t->n = 0;
    t->span[0].start = start;
    while (ran < m->burst_ns && !rtg_stop_requested()) {
        uint64_t now = rtg_mono_ns();
        if (now - prev > m->gap_ns) {
            if (held)
                rtg_metric_interval(held, prev, now, now - m->t0);
            if (t->n + 1 < SPAN_MAX) {
                t->span[t->n].end = prev;
                t->span[++t->n].start = now;
            } else {
                t->merged++;
            }
        } else {
            ran += now - prev;
        }
        prev = now;
    }
    t->span[t->n].end = prev;
    t->n++;
}

static int c_of(const struct mig *m) { return m->n_threads - 1; }

static void *member_main(void *arg)
{
    struct member *me = arg;
    struct mig *m = me->m;
    if (rtg_affinity_set_self(m->cpus, m->n_cpus)) {
        m->errors++;
        return NULL;
    }
    for (int r = 0; r < m->rounds && !rtg_stop_requested(); r++) {
        uint64_t wake = m->t0 + (uint64_t)r * m->interval_ns;
        rtg_sleep_until(wake);
        bool high = me->rank < c_of(m);
        if (high) {
            uint64_t now = rtg_mono_ns();
            rtg_metric_interval(m->wake[me->rank], wake, now, now - m->t0);
        }
        burst(m, &m->tr[r * m->n_threads + me->rank], high ? m->held[me->rank] : NULL);
    }
    return NULL;
}

static int mig_run(struct rtg_ctx *ctx)
{
    int c = (int)rtg_cpu_count(ctx);
    if (c < 2)
        return rtg_skip(ctx, "needs two or more CPUs (--cpus selected %d)", c);
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: global scheduling is an order of priorities");
    if (c + 1 > SMP_MAX_THREADS)
        c = SMP_MAX_THREADS - 1;
    if (rtg_prio(ctx) < c + 2)
        return rtg_skip(ctx, "needs --prio >= %d (a level per thread below it)", c + 2);
    bool pinned = strcmp(rtg_opt_enum(ctx, "placement"), "one_cpu") == 0;
    struct mig m = {.ctx = ctx,
                    .n_threads = c + 1,
                    .rounds = (int)rtg_opt_int(ctx, "rounds"),
                    .n_cpus = pinned ? 1 : (size_t)c,
                    .burst_ns = (uint64_t)rtg_opt_int(ctx, "burst_us") * NS_PER_US,
                    .gap_ns = (uint64_t)rtg_opt_int(ctx, "gap_us") * NS_PER_US};
    /* Bursts take at most (C+1)/C of a burst per CPU and round: the
     * interval keeps that under a fifth, far from RT throttling. */
    m.interval_ns = 10 * m.burst_ns;
    for (int k = 0; k < c; k++) {
        m.held[k] = rtg_metric_new(ctx, "smp.held_off.rank%d", k);
        m.wake[k] = rtg_metric_new(ctx, "smp.wakeup.rank%d", k);
        if (!m.held[k] || !m.wake[k])
            return rtg_fail_error(ctx, "out of memory");
        rtg_metric_explain_call(ctx, m.held[k]);
        rtg_metric_explain(ctx, m.wake[k]);
    }
    for (int i = 0; i < c; i++)
        m.cpus[i] = rtg_cpu_at(ctx, (size_t)i);
    m.tr = calloc((size_t)m.rounds * (size_t)m.n_threads, sizeof *m.tr);
    bool *stole = calloc((size_t)m.rounds, sizeof *stole);
    if (!m.tr || !stole) {
        free(m.tr);
        free(stole);
        return rtg_fail_error(ctx, "out of memory");
    }
    struct rtg_steal_watch stalls;
    rtg_steal_watch_begin(&stalls);
    m.t0 = rtg_mono_ns() + 20 * NS_PER_MS;
    rtg_thread_t t[SMP_MAX_THREADS];
    struct member mem[SMP_MAX_THREADS];
    int made = 0, rc = 0;
    for (; made < m.n_threads; made++) {
        mem[made] = (struct member){&m, made};
        struct rtg_thread_attr a = {.policy = RTG_SCHED_FIFO,
                                    .prio = rtg_prio(ctx) - 1 - made,
                                    .cpu = -1,
                                    .stack_size = RTG_TEST_STACK};
        if ((rc = rtg_thread_create(&t[made], &a, member_main, &mem[made])))
            break;
    }
    /* The machine's pauses: the steal counter read halfway between rounds,
     * when no burst runs, covers each round. */
    for (int r = 0; r < m.rounds && made == m.n_threads && !rtg_stop_requested(); r++) {
        rtg_sleep_until(m.t0 + (uint64_t)r * m.interval_ns + m.interval_ns / 2);
        stole[r] = rtg_steal_watch_read(&stalls);
    }
    for (int i = 0; i < made; i++)
        rtg_thread_join(t[i], NULL);
    if (rc || m.errors || rtg_stop_requested()) {
        free(m.tr);
        free(stole);
        if (rtg_stop_requested())
            return 0;
        return rtg_fail_error(ctx, "%s: %s", rc ? "cannot create a thread" : "affinity",
                              rc ? strerror(rc) : "cannot be set to the selected CPUs");
    }
    uint64_t tol = (uint64_t)rtg_opt_int(ctx, "tolerance_us") * NS_PER_US;
    uint64_t worst = 0;
    int worst_round = -1, worst_who = -1;
    unsigned merged = 0;
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "legend", "per round: the longest stretch (ns) in which a runnable thread "
                                 "waited without C higher-priority threads running, and its rank "
                                 "(0 the highest; -1 none)");
    rtg_json_kint(&ev, "cpus", c);
    rtg_json_kstr(&ev, "placement", pinned ? "one_cpu (control)" : "global");
    rtg_json_key(&ev, "rounds");
    rtg_json_arr_begin(&ev);
    for (int r = 0; r < m.rounds; r++) {
        struct rtg_smp_thread th[SMP_MAX_THREADS];
        for (int k = 0; k < m.n_threads; k++) {
            struct trace *tr = &m.tr[r * m.n_threads + k];
            th[k] = (struct rtg_smp_thread){k, m.t0 + (uint64_t)r * m.interval_ns, tr->span, tr->n};
            merged += tr->merged;
        }
        int who;
        uint64_t w = rtg_smp_worst_wait(th, (size_t)m.n_threads, c, &who);
        rtg_json_arr_begin(&ev);
        rtg_json_uint(&ev, w);
        rtg_json_int(&ev, who);
        rtg_json_arr_end(&ev);
        rtg_steal_watch_count(&stalls, !rtg_smp_round_ok(w, tol), stole[r]);
        if (w > worst || worst_round < 0) {
            worst = w;
            worst_round = r;
            worst_who = who;
        }
    }
    rtg_json_arr_end(&ev);
    rtg_json_kuint(&ev, "off_cpu_stretches_counted_as_running", merged);
    rtg_steal_watch_json(&ev, &stalls, "a round");
    rtg_json_obj_end(&ev);
    char exp[200], obs[200];
    snprintf(exp, sizeof exp, "on %d CPUs, a waiting runnable thread has %d higher-priority "
             "threads running (tolerance %llu us)", c, c, (unsigned long long)(tol / NS_PER_US));
    snprintf(obs, sizeof obs, "%llu of %d rounds held (%llu failed while the hypervisor stole "
             "time); worst wait %llu us (round %d, rank %d)",
             (unsigned long long)(stalls.stretches - stalls.failed), m.rounds,
             (unsigned long long)stalls.in_steal, (unsigned long long)(worst / NS_PER_US),
             worst_round, worst_who);
    rtg_verdict(ctx, &STD_GLOBAL, "c_highest_runnable_threads_run", rtg_steal_watch_tolerable(&stalls), exp,
                obs, &ev);
    rtg_json_free(&ev);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "threads", m.n_threads);
    rtg_json_kint(info, "cpus", c);
    rtg_json_kint(info, "highest_prio", rtg_prio(ctx) - 1);
    rtg_json_kuint(info, "interval_ns", m.interval_ns);
    free(m.tr);
    free(stole);
    return 0;
}

static double mig_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "rounds") * (double)rtg_opt_int(ctx, "burst_us") * 1e-5 *
                      (double)SMP_MAX_THREADS;
}

static const struct rtg_option mig_options[] = {
    {"rounds", RTG_OPT_INT, 20, 6, 1, 1000, NULL, RTG_OPT_SCALED, "rounds of simultaneous wake-ups"},
    {"burst_us", RTG_OPT_INT, 10000, 0, 500, 50000, NULL, 0,
     "each thread's own running time per round (the interval is ten bursts)"},
    {"gap_us", RTG_OPT_INT, 20, 0, 2, 1000, NULL, 0,
     "a clock read this long after the previous one means the thread was off the CPU"},
    {"tolerance_us", RTG_OPT_INT, 3000, 0, 10, 100000, NULL, 0,
     "longest wait allowed for a wake-up or a migration to take effect"},
    {"placement", RTG_OPT_ENUM, 0, 0, 0, 0, "global,one_cpu", 0,
     "one_cpu = negative control: every thread pinned to the first CPU"},
};

const struct rtg_test_desc rtg_test_smp_b_mig = {
    .id = "SMP-B-MIG",
    .source = __FILE__,
    .recorded = true, /* what held a high thread off its CPU */
    .needs = RTG_OFFERS_AFFINITY_SETS,
    .title = "Global fixed-priority scheduling: the C highest runnable threads run on C CPUs",
    .kind = 'B',
    .options = RTG_OPTIONS(mig_options),
    .run = mig_run,
    .bound_s = mig_bound,
};
