/* THR performance: THR-P-SLS (switch between same-priority threads, N = 2,
 * 10, 128, 1000), THR-P-PRE (preemption), THR-P-NEW (create / delete),
 * THR-P-SUS (suspend / resume), THR-P-YLD (yield alone), THR-P-BKG
 * (wake-up under background processes). All threads on one CPU. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/load.h"
#include "rtg/osal.h"
#include "rtg/test.h"

#define STACK (64 * 1024)
#define NS_PER_MS 1000000ull
#define NS_PER_US 1000ull
#define SEM_TIMEOUT_NS (3000 * NS_PER_MS)

static struct rtg_thread_attr attr_at(const struct rtg_ctx *ctx, int prio)
{
    bool rt = rtg_rt_ok(ctx);
    return (struct rtg_thread_attr){.policy = rt ? RTG_SCHED_FIFO : RTG_SCHED_OTHER,
                                    .prio = rt ? prio : 0, .cpu = rtg_cpu_at(ctx, 0),
                                    .stack_size = STACK};
}

static int spawn(const struct rtg_ctx *ctx, rtg_thread_t *t, int prio, rtg_thread_fn fn, void *arg)
{
    struct rtg_thread_attr a = attr_at(ctx, prio);
    return rtg_thread_create(t, &a, fn, arg);
}

static void note_no_rt(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "threads ran SCHED_OTHER: no priorities, figures are not real-time figures");
}

static bool need_levels(struct rtg_ctx *ctx, int below, int *rc)
{
    if (rtg_prio(ctx) <= below) {
        *rc = rtg_skip(ctx, "needs --prio >= %d (levels below it)", below + 1);
        return false;
    }
    return true;
}

static void params_int(struct rtg_metric *m, const char *key, int64_t v)
{
    rtg_json_reset(&m->params);
    rtg_json_obj_begin(&m->params);
    rtg_json_kint(&m->params, key, v);
    rtg_json_obj_end(&m->params);
}

/* ---------------- THR-P-SLS ---------------- */

struct sls_state {
    volatile uint64_t last;   /* ticks just before the last yield */
    volatile int last_owner;  /* who wrote it; -1: invalid (a thread exited) */
    uint64_t *samples;
    atomic_size_t n_samples;
    size_t cap;
    int rounds, n;
    rtg_sem_t go, done;
    atomic_int abort, finished;
};

struct sls_arg {
    struct sls_state *st;
    int id;
};

static void *sls_worker(void *arg)
{
    struct sls_arg *a = arg;
    struct sls_state *st = a->st;
    if (rtg_sem_wait_until(&st->go, rtg_mono_ns() + SEM_TIMEOUT_NS) || atomic_load(&st->abort))
        goto out;
    for (int r = 0; r < st->rounds && !rtg_stop_requested(); r++) {
        st->last_owner = a->id;
        st->last = rtg_clock_ticks();
        rtg_thread_yield();
        uint64_t now = rtg_clock_ticks();
        int owner = st->last_owner;
        if (owner >= 0 && owner != a->id) {
            size_t i = atomic_fetch_add(&st->n_samples, 1);
            if (i < st->cap)
                st->samples[i] = rtg_clock_delta_ns(st->last, now);
        }
    }
out:
    st->last_owner = -1; /* the switch after an exit is not a yield */
    if (atomic_fetch_add(&st->finished, 1) + 1 == st->n)
        rtg_sem_post(&st->done);
    return NULL;
}

static int sls_one(struct rtg_ctx *ctx, int n, int64_t switches, struct rtg_metric *m,
                   int *created)
{
    struct sls_state st = {0};
    st.n = n;
    st.rounds = (int)(switches / n);
    if (st.rounds < 3)
        st.rounds = 3;
    st.cap = (size_t)st.rounds * (size_t)n;
    st.last_owner = -1;
    st.samples = malloc(st.cap * sizeof *st.samples);
    rtg_thread_t *t = malloc((size_t)n * sizeof *t);
    struct sls_arg *args = malloc((size_t)n * sizeof *args);
    int rc = (!st.samples || !t || !args) ? ENOMEM : 0;
    if (!rc)
        rc = rtg_sem_init(&st.go, 0);
    if (!rc)
        rc = rtg_sem_init(&st.done, 0);
    atomic_init(&st.n_samples, 0);
    atomic_init(&st.abort, 0);
    atomic_init(&st.finished, 0);
    int k = 0;
    for (; !rc && k < n; k++) {
        args[k] = (struct sls_arg){&st, k};
        rc = spawn(ctx, &t[k], rtg_prio(ctx) - 1, sls_worker, &args[k]);
        if (rc)
            break;
    }
    *created = k;
    if (rc) {
        atomic_store(&st.abort, 1);
        st.n = k;
    }
    /* All exist: open the gate. Under SCHED_FIFO none has run yet (this
     * thread is above them); they start when it blocks. */
    for (int i = 0; i < k; i++)
        rtg_sem_post(&st.go);
    if (k)
        rtg_sem_wait_until(&st.done, rtg_mono_ns() + SEM_TIMEOUT_NS + 10000 * NS_PER_MS);
    for (int i = 0; i < k; i++)
        rtg_thread_join(t[i], NULL);
    if (!rc) {
        size_t ns = atomic_load(&st.n_samples);
        if (ns > st.cap)
            ns = st.cap;
        uint64_t at = rtg_test_elapsed_ns(ctx);
        for (size_t i = 0; i < ns; i++)
            rtg_metric_add(m, st.samples[i], at);
    }
    if (st.samples) {
        rtg_sem_destroy(&st.go);
        rtg_sem_destroy(&st.done);
    }
    free(st.samples);
    free(t);
    free(args);
    return rc;
}

static int sls_run(struct rtg_ctx *ctx)
{
    int rc;
    if (!need_levels(ctx, 1, &rc))
        return rc;
    note_no_rt(ctx);
    static const int sizes[] = {2, 10, 128, 1000};
    int64_t switches = rtg_opt_int(ctx, "switches");
    int64_t max_n = rtg_opt_int(ctx, "max_threads");
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_key(info, "rounds");
    rtg_json_arr_begin(info);
    int err_n = 0, created = 0;
    rc = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && !rtg_stop_requested(); i++) {
        int n = sizes[i];
        if (n > max_n) {
            rtg_note(ctx, "N = %d skipped (max_threads %lld)", n, (long long)max_n);
            continue;
        }
        struct rtg_metric *m = rtg_metric_new(ctx, "thread.switch.yield.n%d", n);
        if (!m) {
            rc = ENOMEM;
            break;
        }
        params_int(m, "threads", n);
        rtg_json_int(info, switches / n < 3 ? 3 : switches / n);
        rc = sls_one(ctx, n, switches, m, &created);
        if (rc) {
            err_n = n;
            break;
        }
    }
    rtg_json_arr_end(info);
    rtg_json_kint(info, "stack_bytes", STACK);
    if (rc == ENOMEM && !err_n)
        return rtg_fail_error(ctx, "out of memory");
    if (rc)
        return rtg_fail_error(ctx, "N = %d: could create only %d threads: %s", err_n, created,
                              strerror(rc));
    return 0;
}

static double sls_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "switches") * 4 * 2e-5;
}

static const struct rtg_option sls_options[] = {
    {"switches", RTG_OPT_INT, 20000, 3000, 100, 10000000, NULL, RTG_OPT_SCALED,
     "switches measured per N (at least 3 rounds of every thread)"},
    {"max_threads", RTG_OPT_INT, 1000, 0, 2, 1000, NULL, 0,
     "largest N run (N = 2, 10, 128, 1000)"},
};

const struct rtg_test_desc rtg_test_thr_p_sls = {
    .id = "THR-P-SLS",
    .source = __FILE__,
    .title = "Switch between same-priority threads (sched_yield), N = 2, 10, 128, 1000",
    .kind = 'P',
    .options = RTG_OPTIONS(sls_options),
    .run = sls_run,
    .bound_s = sls_bound,
};

/* ---------------- THR-P-PRE ---------------- */

struct pre_state {
    struct rtg_ctx *ctx;
    rtg_sem_t sem;
    volatile uint64_t posted; /* ticks just before the post */
    atomic_int done;
    int64_t loops, timer_loops;
    uint64_t period_ns;
    volatile uint64_t deadline; /* the high thread's next expiry */
    atomic_int seq;             /* samples taken by the high thread */
    struct rtg_metric *m_sem, *m_timer;
    int timeouts;
};

static void *pre_high_sem(void *arg)
{
    struct pre_state *s = arg;
    while (!atomic_load(&s->done)) {
        int rc = rtg_sem_wait_until(&s->sem, rtg_mono_ns() + SEM_TIMEOUT_NS);
        uint64_t now = rtg_clock_ticks();
        if (rc) {
            s->timeouts++;
            break;
        }
        if (!atomic_load(&s->done))
            rtg_metric_add(s->m_sem, rtg_clock_delta_ns(s->posted, now),
                           rtg_test_elapsed_ns(s->ctx));
    }
    return NULL;
}

static void *pre_low_sem(void *arg)
{
    struct pre_state *s = arg;
    for (int64_t i = 0; i < s->loops && !rtg_stop_requested(); i++) {
        s->posted = rtg_clock_ticks();
        rtg_sem_post(&s->sem);
    }
    atomic_store(&s->done, 1);
    rtg_sem_post(&s->sem);
    return NULL;
}

static void *pre_high_timer(void *arg)
{
    struct pre_state *s = arg;
    uint64_t next = s->deadline;
    for (int64_t i = 0; i < s->timer_loops && !rtg_stop_requested(); i++) {
        rtg_sleep_until(next);
        uint64_t now = rtg_mono_ns();
        rtg_metric_add(s->m_timer, now > next ? now - next : 0, rtg_test_elapsed_ns(s->ctx));
        next += s->period_ns;
        if (next < now + s->period_ns / 2)
            next = now + s->period_ns;
        s->deadline = next;
        atomic_fetch_add(&s->seq, 1);
    }
    atomic_store(&s->done, 1);
    return NULL;
}

/* The low thread is running at every expiry, but only from a lead time
 * before it until the high thread has taken its sample: busy all the time,
 * it would be stopped by RT throttling (950 ms per s) and show as a 50 ms
 * "preemption". */
static void *pre_low_busy(void *arg)
{
    struct pre_state *s = arg;
    uint64_t lead = s->period_ns / 4 < 100 * NS_PER_US ? s->period_ns / 4 : 100 * NS_PER_US;
    while (!atomic_load(&s->done) && !rtg_stop_requested()) {
        int seen = atomic_load(&s->seq);
        uint64_t d = s->deadline;
        if (d > lead)
            rtg_sleep_until(d - lead);
        for (unsigned i = 0; atomic_load(&s->seq) == seen && !atomic_load(&s->done); i++)
            if ((i & 4095) == 0 && rtg_stop_requested())
                break;
    }
    return NULL;
}

static int pre_pair(struct rtg_ctx *ctx, struct pre_state *s, rtg_thread_fn hi, rtg_thread_fn lo)
{
    rtg_thread_t h, l;
    atomic_store(&s->done, 0);
    int rc = spawn(ctx, &h, rtg_prio(ctx) - 1, hi, s);
    if (rc)
        return rc;
    rc = spawn(ctx, &l, rtg_prio(ctx) - 2, lo, s);
    if (rc) {
        atomic_store(&s->done, 1);
        rtg_sem_post(&s->sem);
    }
    rtg_thread_join(h, NULL);
    if (!rc)
        rtg_thread_join(l, NULL);
    return rc;
}

static int pre_run(struct rtg_ctx *ctx)
{
    int rc;
    if (!need_levels(ctx, 2, &rc))
        return rc;
    note_no_rt(ctx);
    struct pre_state s = {.ctx = ctx,
                          .loops = rtg_opt_int(ctx, "loops"),
                          .timer_loops = rtg_opt_int(ctx, "timer_loops"),
                          .period_ns = (uint64_t)rtg_opt_int(ctx, "period_us") * NS_PER_US};
    s.m_sem = rtg_metric_new(ctx, "thread.preempt.sem");
    s.m_timer = rtg_metric_new(ctx, "thread.preempt.timer");
    if (!s.m_sem || !s.m_timer)
        return rtg_fail_error(ctx, "out of memory");
    atomic_init(&s.done, 0);
    rc = rtg_sem_init(&s.sem, 0);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    rc = pre_pair(ctx, &s, pre_high_sem, pre_low_sem);
    atomic_init(&s.seq, 0);
    s.deadline = rtg_mono_ns() + 5 * NS_PER_MS;
    if (!rc && !rtg_stop_requested())
        rc = pre_pair(ctx, &s, pre_high_timer, pre_low_busy);
    rtg_sem_destroy(&s.sem);
    if (rc)
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
    if (s.timeouts)
        return rtg_fail_error(ctx, "the high thread was not woken within 3 s");
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "high_prio", rtg_prio(ctx) - 1);
    rtg_json_kint(info, "low_prio", rtg_prio(ctx) - 2);
    rtg_json_kuint(info, "timer_period_ns", s.period_ns);
    return 0;
}

static double pre_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 2e-5 +
           (double)rtg_opt_int(ctx, "timer_loops") * (double)rtg_opt_int(ctx, "period_us") * 2e-6;
}

static const struct rtg_option pre_options[] = {
    {"loops", RTG_OPT_INT, 20000, 3000, 10, 10000000, NULL, RTG_OPT_SCALED,
     "semaphore wake-ups of the high thread by the running low one"},
    {"timer_loops", RTG_OPT_INT, 1000, 300, 10, 1000000, NULL, RTG_OPT_SCALED,
     "timer wake-ups of the high thread while the low one is busy"},
    {"period_us", RTG_OPT_INT, 500, 0, 50, 1000000, NULL, 0, "timer period"},
};

const struct rtg_test_desc rtg_test_thr_p_pre = {
    .id = "THR-P-PRE",
    .source = __FILE__,
    .title = "Preemption time (semaphore and timer wake-up of a higher thread)",
    .kind = 'P',
    .options = RTG_OPTIONS(pre_options),
    .run = pre_run,
    .bound_s = pre_bound,
};

/* ---------------- THR-P-NEW ---------------- */

struct new_state {
    struct rtg_ctx *ctx;
    int64_t loops;
    int prio; /* the creator's */
    volatile uint64_t first, last;
    struct rtg_metric *m[6];
    int error;
};

static void *new_nothing(void *arg)
{
    (void)arg;
    return NULL;
}

static void *new_terminate(void *arg)
{
    struct new_state *s = arg;
    s->first = rtg_clock_ticks();
    s->last = rtg_clock_ticks();
    return NULL;
}

static void *new_block(void *arg)
{
    struct new_state *s = arg;
    s->first = rtg_clock_ticks();
    /* Gives the CPU back by lowering itself below the creator. */
    rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_FIFO, s->prio - 1);
    return NULL;
}

static void *new_creator(void *arg)
{
    struct new_state *s = arg;
    const struct rtg_ctx *ctx = s->ctx;
    rtg_thread_t t;
    for (int sc = 0; sc < 3 && !s->error; sc++) {
        for (int64_t i = 0; i < s->loops && !rtg_stop_requested(); i++) {
            int prio = sc == 0 ? s->prio - 1 : s->prio + 1;
            rtg_thread_fn fn = sc == 0 ? new_nothing : sc == 1 ? new_terminate : new_block;
            s->first = s->last = 0;
            uint64_t a = rtg_clock_ticks();
            int rc = spawn(ctx, &t, prio, fn, s);
            uint64_t b = rtg_clock_ticks();
            if (rc) {
                s->error = rc;
                break;
            }
            uint64_t c = rtg_clock_ticks();
            rtg_thread_join(t, NULL);
            uint64_t d = rtg_clock_ticks();
            uint64_t at = rtg_test_elapsed_ns(ctx);
            if (sc == 0) {
                rtg_metric_add(s->m[0], rtg_clock_delta_ns(a, b), at);
                rtg_metric_add(s->m[1], rtg_clock_delta_ns(c, d), at);
            } else if (sc == 1) {
                rtg_metric_add(s->m[2], rtg_clock_delta_ns(a, s->first), at);
                rtg_metric_add(s->m[3], rtg_clock_delta_ns(s->last, b), at);
            } else {
                rtg_metric_add(s->m[4], rtg_clock_delta_ns(a, s->first), at);
                rtg_metric_add(s->m[5], rtg_clock_delta_ns(c, d), at);
            }
        }
    }
    return NULL;
}

static int new_p_run(struct rtg_ctx *ctx)
{
    int rc;
    if (!need_levels(ctx, 2, &rc))
        return rc;
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the scenarios are defined by priorities");
    static const char *const names[6] = {
        "thread.create.never_run",     "thread.delete.never_run",
        "thread.create.run_terminate", "thread.exit.run_terminate",
        "thread.create.run_block",     "thread.delete.run_block"};
    struct new_state s = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops"),
                          .prio = rtg_prio(ctx) - 1};
    for (int i = 0; i < 6; i++)
        if (!(s.m[i] = rtg_metric_new(ctx, "%s", names[i])))
            return rtg_fail_error(ctx, "out of memory");
    rtg_thread_t c;
    rc = spawn(ctx, &c, s.prio, new_creator, &s);
    if (!rc)
        rtg_thread_join(c, NULL);
    if (rc || s.error)
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc ? rc : s.error));
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "creator_prio", s.prio);
    rtg_json_kint(info, "stack_bytes", STACK);
    rtg_json_kstr(info, "delete",
                  "join of a thread whose function returns at its first instruction (POSIX "
                  "cannot remove a thread without letting it run)");
    return 0;
}

static double new_p_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 3 * 1e-4;
}

static const struct rtg_option new_p_options[] = {
    {"loops", RTG_OPT_INT, 3000, 400, 10, 1000000, NULL, RTG_OPT_SCALED,
     "threads created and deleted per scenario"},
};

const struct rtg_test_desc rtg_test_thr_p_new = {
    .id = "THR-P-NEW",
    .source = __FILE__,
    .title = "Thread creation and deletion time (never run, run and terminate, run and block)",
    .kind = 'P',
    .options = RTG_OPTIONS(new_p_options),
    .run = new_p_run,
    .bound_s = new_p_bound,
};

/* ---------------- THR-P-SUS ---------------- */

struct sus_state {
    struct rtg_ctx *ctx;
    rtg_sem_t sem; /* the suspended thread's own semaphore */
    volatile uint64_t t_resume, t_suspend;
    atomic_int done;
    int64_t loops;
    struct rtg_metric *m[4];
    int stolen_misses, timeouts;
};

/* ping: the high thread suspends itself; the low one resumes it. */
static void *sus_ping_high(void *arg)
{
    struct sus_state *s = arg;
    for (;;) {
        s->t_suspend = rtg_clock_ticks();
        int rc = rtg_sem_wait_until(&s->sem, rtg_mono_ns() + SEM_TIMEOUT_NS);
        uint64_t now = rtg_clock_ticks();
        if (rc) {
            s->timeouts++;
            break;
        }
        if (atomic_load(&s->done))
            break;
        rtg_metric_add(s->m[0], rtg_clock_delta_ns(s->t_resume, now), rtg_test_elapsed_ns(s->ctx));
    }
    return NULL;
}

static void *sus_ping_low(void *arg)
{
    struct sus_state *s = arg;
    for (int64_t i = 0; i < s->loops && !rtg_stop_requested(); i++) {
        s->t_resume = rtg_clock_ticks();
        rtg_sem_post(&s->sem); /* the high thread runs, suspends again */
        uint64_t now = rtg_clock_ticks();
        rtg_metric_add(s->m[1], rtg_clock_delta_ns(s->t_suspend, now),
                       rtg_test_elapsed_ns(s->ctx));
    }
    atomic_store(&s->done, 1);
    rtg_sem_post(&s->sem);
    return NULL;
}

/* local: the low thread waits on its semaphore (suspended); the high one
 * resumes it (post) and suspends it again (takes the unit back before the
 * low one could run): no switch. */
static void *sus_local_low(void *arg)
{
    struct sus_state *s = arg;
    while (!atomic_load(&s->done))
        if (rtg_sem_wait_until(&s->sem, rtg_mono_ns() + SEM_TIMEOUT_NS))
            break;
    return NULL;
}

static void *sus_local_high(void *arg)
{
    struct sus_state *s = arg;
    rtg_thread_t l;
    int rc = spawn(s->ctx, &l, rtg_prio(s->ctx) - 2, sus_local_low, s);
    if (rc)
        return (void *)(intptr_t)rc;
    rtg_sleep_ns(5 * NS_PER_MS); /* the low thread blocks on its semaphore */
    for (int64_t i = 0; i < s->loops && !rtg_stop_requested(); i++) {
        uint64_t a = rtg_clock_ticks();
        rtg_sem_post(&s->sem);
        uint64_t b = rtg_clock_ticks();
        int r = rtg_sem_trywait(&s->sem);
        uint64_t c = rtg_clock_ticks();
        if (r) {
            s->stolen_misses++;
            continue;
        }
        uint64_t at = rtg_test_elapsed_ns(s->ctx);
        rtg_metric_add(s->m[2], rtg_clock_delta_ns(a, b), at);
        rtg_metric_add(s->m[3], rtg_clock_delta_ns(b, c), at);
    }
    atomic_store(&s->done, 1);
    rtg_sem_post(&s->sem);
    rtg_thread_join(l, NULL);
    return NULL;
}

static int sus_run(struct rtg_ctx *ctx)
{
    int rc;
    if (!need_levels(ctx, 2, &rc))
        return rc;
    note_no_rt(ctx);
    struct sus_state s = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops")};
    static const char *const names[4] = {"thread.resume.ping", "thread.suspend.ping",
                                         "thread.resume.local", "thread.suspend.local"};
    for (int i = 0; i < 4; i++)
        if (!(s.m[i] = rtg_metric_new(ctx, "%s", names[i])))
            return rtg_fail_error(ctx, "out of memory");
    atomic_init(&s.done, 0);
    rc = rtg_sem_init(&s.sem, 0);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    rtg_thread_t h, l;
    rc = spawn(ctx, &h, rtg_prio(ctx) - 1, sus_ping_high, &s);
    if (!rc) {
        int rc2 = spawn(ctx, &l, rtg_prio(ctx) - 2, sus_ping_low, &s);
        if (rc2) {
            atomic_store(&s.done, 1);
            rtg_sem_post(&s.sem);
        }
        rtg_thread_join(h, NULL);
        if (!rc2)
            rtg_thread_join(l, NULL);
        rc = rc2;
    }
    rtg_sem_destroy(&s.sem);
    if (!rc && !rtg_stop_requested()) {
        atomic_store(&s.done, 0);
        rc = rtg_sem_init(&s.sem, 0);
        void *res = NULL;
        if (!rc)
            rc = spawn(ctx, &h, rtg_prio(ctx) - 1, sus_local_high, &s);
        if (!rc) {
            rtg_thread_join(h, &res);
            rc = (int)(intptr_t)res;
        }
        rtg_sem_destroy(&s.sem);
    }
    if (rc)
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
    if (s.timeouts)
        return rtg_fail_error(ctx, "a suspended thread was not resumed within 3 s");
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kstr(info, "primitive", "a per-thread counting semaphore (POSIX has no suspend)");
    rtg_json_kint(info, "local_unit_consumed_by_low", s.stolen_misses);
    return 0;
}

static double sus_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + (double)rtg_opt_int(ctx, "loops") * 2e-5;
}

static const struct rtg_option sus_options[] = {
    {"loops", RTG_OPT_INT, 20000, 3000, 10, 10000000, NULL, RTG_OPT_SCALED,
     "suspend/resume rounds per scenario"},
};

const struct rtg_test_desc rtg_test_thr_p_sus = {
    .id = "THR-P-SUS",
    .source = __FILE__,
    .title = "Suspend / resume (ping between two threads; local, no switch)",
    .kind = 'P',
    .options = RTG_OPTIONS(sus_options),
    .run = sus_run,
    .bound_s = sus_bound,
};

/* ---------------- THR-P-YLD ---------------- */

static int yld_run(struct rtg_ctx *ctx)
{
    note_no_rt(ctx);
    struct rtg_metric *m = rtg_metric_new(ctx, "thread.yield.alone");
    if (!m)
        return rtg_fail_error(ctx, "out of memory");
    int64_t loops = rtg_opt_int(ctx, "loops");
    for (int64_t i = 0; i < loops && !rtg_stop_requested(); i++) {
        uint64_t a = rtg_clock_ticks();
        rtg_thread_yield();
        uint64_t b = rtg_clock_ticks();
        rtg_metric_add(m, rtg_clock_delta_ns(a, b), rtg_test_elapsed_ns(ctx));
    }
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "prio", rtg_rt_ok(ctx) ? rtg_prio(ctx) : 0);
    rtg_json_kint(info, "cpu", rtg_cpu_at(ctx, 0));
    return 0;
}

static double yld_bound(const struct rtg_ctx *ctx)
{
    return 5.0 + (double)rtg_opt_int(ctx, "loops") * 1e-5;
}

static const struct rtg_option yld_options[] = {
    {"loops", RTG_OPT_INT, 200000, 20000, 10, 100000000, NULL, RTG_OPT_SCALED,
     "yields of the lone thread"},
};

const struct rtg_test_desc rtg_test_thr_p_yld = {
    .id = "THR-P-YLD",
    .source = __FILE__,
    .title = "Yield with nothing else ready",
    .kind = 'P',
    .options = RTG_OPTIONS(yld_options),
    .run = yld_run,
    .bound_s = yld_bound,
};

/* ---------------- THR-P-BKG ---------------- */

struct bkg_state {
    struct rtg_ctx *ctx;
    int64_t loops;
    uint64_t period_ns;
    struct rtg_metric *m;
};

static void *bkg_measured(void *arg)
{
    struct bkg_state *s = arg;
    uint64_t next = rtg_mono_ns() + s->period_ns;
    for (int64_t i = 0; i < s->loops && !rtg_stop_requested(); i++) {
        rtg_sleep_until(next);
        uint64_t now = rtg_mono_ns();
        rtg_metric_add(s->m, now > next ? now - next : 0, rtg_test_elapsed_ns(s->ctx));
        next += s->period_ns;
        if (next < now)
            next = now + s->period_ns;
    }
    return NULL;
}

static int bkg_phase(struct rtg_ctx *ctx, struct bkg_state *s)
{
    rtg_thread_t t;
    int rc = spawn(ctx, &t, rtg_prio(ctx) - 1, bkg_measured, s);
    if (!rc)
        rtg_thread_join(t, NULL);
    return rc;
}

static int bkg_run(struct rtg_ctx *ctx)
{
    int rc;
    if (!need_levels(ctx, 1, &rc))
        return rc;
    note_no_rt(ctx);
    int nproc = (int)rtg_opt_int(ctx, "processes");
    struct bkg_state s = {.ctx = ctx, .loops = rtg_opt_int(ctx, "loops"),
                          .period_ns = (uint64_t)rtg_opt_int(ctx, "period_us") * NS_PER_US};
    struct rtg_metric *idle = rtg_metric_new(ctx, "thread.wake.idle");
    struct rtg_metric *busy = rtg_metric_new(ctx, "thread.wake.background");
    int *cpus = malloc((size_t)nproc * sizeof *cpus);
    if (!idle || !busy || !cpus) {
        free(cpus);
        return rtg_fail_error(ctx, "out of memory");
    }
    params_int(idle, "processes", 0);
    params_int(busy, "processes", nproc);
    for (int i = 0; i < nproc; i++)
        cpus[i] = rtg_cpu_at(ctx, 0);
    s.m = idle;
    rc = bkg_phase(ctx, &s);
    if (rc) {
        free(cpus);
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
    }
    struct rtg_load_set *set = NULL;
    struct rtg_load_cfg cfg = {.tool = RTG_LOAD_BUILTIN};
    rc = rtg_load_start(&set, RTG_LOAD_CPU, cpus, (size_t)nproc, &cfg);
    free(cpus);
    if (rc)
        return rtg_fail_error(ctx, "cannot start %d background processes: %s", nproc,
                              strerror(rc));
    /* Let them all get going (each has run before the first sample). */
    rtg_sleep_ns(20 * NS_PER_MS);
    uint64_t ops0 = rtg_load_ops_now(set);
    s.m = busy;
    rc = bkg_phase(ctx, &s);
    uint64_t ops = 0;
    bool known = false;
    rtg_load_stop(set, &ops, &known); /* on every path */
    if (rc)
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(rc));
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "processes", nproc);
    rtg_json_kstr(info, "process_policy", "SCHED_OTHER, busy arithmetic, pinned to the measured CPU");
    rtg_json_kuint(info, "background_ops_during_measure", ops > ops0 ? ops - ops0 : 0);
    rtg_json_kstr(info, "background_op", rtg_load_op_unit(RTG_LOAD_CPU, RTG_LOAD_BUILTIN));
    rtg_json_kuint(info, "period_ns", s.period_ns);
    if (known && ops == ops0)
        rtg_note(ctx, "the background processes did no work while measured");
    return 0;
}

static double bkg_bound(const struct rtg_ctx *ctx)
{
    return 15.0 + 2.0 * (double)rtg_opt_int(ctx, "loops") * (double)rtg_opt_int(ctx, "period_us") *
                      1.5e-6 + 0.01 * (double)rtg_opt_int(ctx, "processes");
}

static const struct rtg_option bkg_options[] = {
    {"processes", RTG_OPT_INT, 50, 0, 1, 1000, NULL, 0,
     "busy SCHED_OTHER background processes on the measured CPU"},
    {"loops", RTG_OPT_INT, 2000, 300, 10, 10000000, NULL, RTG_OPT_SCALED,
     "timer wake-ups of the measured thread per phase (idle, background)"},
    {"period_us", RTG_OPT_INT, 500, 0, 50, 1000000, NULL, 0, "period of the measured thread"},
};

const struct rtg_test_desc rtg_test_thr_p_bkg = {
    .id = "THR-P-BKG",
    .source = __FILE__,
    .needs = RTG_OFFERS_PROCESSES,
    .title = "Wake-up of a real-time thread among busy background processes",
    .kind = 'P',
    .options = RTG_OPTIONS(bkg_options),
    .run = bkg_run,
    .bound_s = bkg_bound,
};
