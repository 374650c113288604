/* SEM-B-LCK (locking behaviour) and SEM-B-REL (release order). The
 * verdicts come from sem_verdicts.c; this file only records evidence. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/sem_verdicts.h"
#include "rtg/test.h"

#define STACK (64 * 1024)
#define NS_PER_MS 1000000ull

static struct rtg_thread_attr attr_at(struct rtg_ctx *ctx, enum rtg_policy pol, int prio)
{
    return (struct rtg_thread_attr){.policy = pol, .prio = prio, .cpu = rtg_cpu_at(ctx, 0),
                                    .stack_size = STACK};
}

/* ---------------- SEM-B-LCK ---------------- */

struct evlog {
    char ev[16];
    atomic_int n;
};

static void ev_add(struct evlog *l, char c)
{
    int i = atomic_fetch_add(&l->n, 1);
    if (i < (int)sizeof l->ev - 1)
        l->ev[i] = c;
}

struct wake_case {
    struct rtg_ctx *ctx;
    rtg_sem_t sem;
    struct evlog log;
    int waiter_prio, poster_prio;
    int sem_value_at_post;
    int error;
};

static void *lck_waiter(void *arg)
{
    struct wake_case *c = arg;
    ev_add(&c->log, 'b');
    int rc = rtg_sem_wait_until(&c->sem, rtg_mono_ns() + 2000 * NS_PER_MS);
    ev_add(&c->log, rc == 0 ? 'w' : 't');
    return NULL;
}

/* The poster: creates the waiter, lets it block, posts, logs around V. */
static void *lck_poster(void *arg)
{
    struct wake_case *c = arg;
    rtg_thread_t w;
    struct rtg_thread_attr a = attr_at(c->ctx, RTG_SCHED_FIFO, c->waiter_prio);
    int rc = rtg_thread_create(&w, &a, lck_waiter, c);
    if (rc) {
        c->error = rc;
        return NULL;
    }
    /* A higher waiter ran at once and blocked; a lower one needs the CPU:
     * sleeping hands it over until it blocks. */
    if (c->waiter_prio < c->poster_prio)
        rtg_sleep_ns(20 * NS_PER_MS);
    rtg_sem_value(&c->sem, &c->sem_value_at_post);
    ev_add(&c->log, 'p');
    rtg_sem_post(&c->sem);
    ev_add(&c->log, 'r');
    rtg_thread_join(w, NULL);
    return NULL;
}

static int wake_case_run(struct rtg_ctx *ctx, struct wake_case *c, bool higher)
{
    int top = rtg_prio(ctx);
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->poster_prio = top - 2;
    c->waiter_prio = higher ? top - 1 : top - 3;
    atomic_init(&c->log.n, 0);
    int rc = rtg_sem_init(&c->sem, 0);
    if (rc)
        return rc;
    rtg_thread_t p;
    struct rtg_thread_attr a = attr_at(ctx, RTG_SCHED_FIFO, c->poster_prio);
    rc = rtg_thread_create(&p, &a, lck_poster, c);
    if (!rc) {
        rtg_thread_join(p, NULL);
        rc = c->error;
    }
    rtg_sem_destroy(&c->sem);
    return rc;
}

static void wake_verdict(struct rtg_ctx *ctx, struct wake_case *c, bool higher)
{
    int n = atomic_load(&c->log.n);
    c->log.ev[n < (int)sizeof c->log.ev ? n : (int)sizeof c->log.ev - 1] = '\0';
    bool ok = rtg_sem_wake_order_ok(c->log.ev, higher);
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "events", c->log.ev);
    rtg_json_kstr(&ev, "legend",
                  "b waiter blocks in P, p poster calls V, r V returns, w waiter woken, "
                  "t waiter timed out");
    rtg_json_kint(&ev, "poster_prio", c->poster_prio);
    rtg_json_kint(&ev, "waiter_prio", c->waiter_prio);
    rtg_json_kint(&ev, "count_at_post", c->sem_value_at_post);
    rtg_json_obj_end(&ev);
    char obs[96];
    snprintf(obs, sizeof obs, "event order %s", c->log.ev);
    rtg_verdict(ctx, higher ? "v_wakes_higher_waiter_at_once" : "v_wakes_lower_waiter_later", ok,
                higher ? "bpwr: the higher waiter runs inside V, before V returns"
                       : "bprw: V returns first, the lower waiter runs when the poster blocks",
                obs, &ev);
    rtg_json_free(&ev);
}

static int lck_run(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the wake-up checks depend on priorities");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (three levels below it)");
    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_sem_t s;
    int rc = rtg_sem_init(&s, 2);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));

    /* 1. P on a positive count returns at once and takes one unit. */
    int before = -1, after = -1;
    rtg_sem_value(&s, &before);
    uint64_t t0 = rtg_mono_ns();
    rc = rtg_sem_wait_until(&s, t0 + 1000 * NS_PER_MS);
    uint64_t took = rtg_mono_ns() - t0;
    rtg_sem_value(&s, &after);
    rtg_json_obj_begin(&ev);
    rtg_json_kint(&ev, "count_before", before);
    rtg_json_kint(&ev, "count_after", after);
    rtg_json_kstr(&ev, "result", rc ? strerror(rc) : "acquired");
    rtg_json_kuint(&ev, "took_ns", took);
    rtg_json_obj_end(&ev);
    char obs[128];
    snprintf(obs, sizeof obs, "count %d -> %d, %s in %llu ns", before, after,
             rc ? strerror(rc) : "acquired", (unsigned long long)took);
    rtg_verdict(ctx, "p_on_positive_count_does_not_block", rtg_sem_p_free_ok(rc, before, after),
                "P returns at once and the count drops by one", obs, &ev);

    /* 2. P on zero blocks: it returns only at its timeout. */
    rtg_sem_trywait(&s); /* count 1 -> 0 */
    rtg_sem_value(&s, &before);
    uint64_t timeout = 20 * NS_PER_MS;
    t0 = rtg_mono_ns();
    rc = rtg_sem_wait_until(&s, t0 + timeout);
    took = rtg_mono_ns() - t0;
    rtg_json_reset(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kint(&ev, "count_before", before);
    rtg_json_kstr(&ev, "result", rc == ETIMEDOUT ? "timed out" : rc ? strerror(rc) : "acquired");
    rtg_json_kuint(&ev, "waited_ns", took);
    rtg_json_kuint(&ev, "timeout_ns", timeout);
    rtg_json_obj_end(&ev);
    snprintf(obs, sizeof obs, "count %d: P %s after %llu ns", before,
             rc == ETIMEDOUT ? "timed out" : rc ? strerror(rc) : "returned",
             (unsigned long long)took);
    rtg_verdict(ctx, "p_on_zero_blocks", rtg_sem_p_zero_blocks(rc == ETIMEDOUT, took, timeout),
                "P blocks until its 20 ms timeout", obs, &ev);

    /* 3. V with no waiter increments (twice). */
    int v0 = -1, v1 = -1, v2 = -1;
    rtg_sem_value(&s, &v0);
    rtg_sem_post(&s);
    rtg_sem_value(&s, &v1);
    rtg_sem_post(&s);
    rtg_sem_value(&s, &v2);
    rtg_json_reset(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_key(&ev, "counts");
    rtg_json_arr_begin(&ev);
    rtg_json_int(&ev, v0);
    rtg_json_int(&ev, v1);
    rtg_json_int(&ev, v2);
    rtg_json_arr_end(&ev);
    rtg_json_obj_end(&ev);
    snprintf(obs, sizeof obs, "count %d -> %d -> %d", v0, v1, v2);
    rtg_verdict(ctx, "v_increments", rtg_sem_v_increments(v0, v1) && rtg_sem_v_increments(v1, v2),
                "each V adds one", obs, &ev);
    rtg_sem_destroy(&s);
    rtg_json_free(&ev);

    /* 4 and 5. V on zero with a waiter: higher (reschedules at once), lower (does not). */
    for (int h = 1; h >= 0; h--) {
        struct wake_case c;
        rc = wake_case_run(ctx, &c, h);
        if (rc)
            return rtg_fail_error(ctx, "cannot run the wake-up case: %s", strerror(rc));
        wake_verdict(ctx, &c, h);
    }
    return 0;
}

static double lck_bound(const struct rtg_ctx *ctx)
{
    (void)ctx;
    return 10.0;
}

const struct rtg_test_desc rtg_test_sem_b_lck = {
    .id = "SEM-B-LCK",
    .source = __FILE__,
    .title = "Semaphore locking behaviour",
    .kind = 'B',
    .options = RTG_NO_OPTIONS,
    .run = lck_run,
    .bound_s = lck_bound,
};

/* ---------------- SEM-B-REL ---------------- */

#define REL_MAX 64

struct rel_state {
    struct rtg_ctx *ctx;
    rtg_sem_t sem, ack;
    int n;
    int base;            /* priority of the controller; waiters are above */
    int order[REL_MAX];  /* creation order: index of a waiter */
    int prio[REL_MAX];   /* priority of waiter i */
    int block_prio[REL_MAX];
    atomic_int n_block;
    int release_prio[REL_MAX];
    atomic_int n_release;
    atomic_int timeouts;
    enum rtg_policy policy;
    int error;
};

struct rel_waiter {
    struct rel_state *st;
    int prio;
};

static void *rel_waiter(void *arg)
{
    struct rel_waiter *w = arg;
    struct rel_state *st = w->st;
    int i = atomic_fetch_add(&st->n_block, 1);
    st->block_prio[i] = w->prio;
    if (rtg_sem_wait_until(&st->sem, rtg_mono_ns() + 3000 * NS_PER_MS) == 0) {
        int r = atomic_fetch_add(&st->n_release, 1);
        st->release_prio[r] = w->prio;
    } else {
        atomic_fetch_add(&st->timeouts, 1);
    }
    rtg_sem_post(&st->ack);
    return NULL;
}

/* A fixed scramble from the recorded seed (a small LCG, Fisher-Yates). */
static void scramble(int *order, int n, unsigned seed)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    unsigned x = seed;
    for (int i = n - 1; i > 0; i--) {
        x = x * 1103515245u + 12345u;
        int j = (int)((x >> 16) % (unsigned)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

static void *rel_controller(void *arg)
{
    struct rel_state *st = arg;
    rtg_thread_t t[REL_MAX];
    struct rel_waiter w[REL_MAX];
    int started = 0;
    for (; started < st->n; started++) {
        int i = st->order[started];
        w[started] = (struct rel_waiter){st, st->prio[i]};
        struct rtg_thread_attr a = attr_at(st->ctx, st->policy, st->prio[i]);
        int rc = rtg_thread_create(&t[started], &a, rel_waiter, &w[started]);
        if (rc) {
            st->error = rc;
            break;
        }
        /* SCHED_FIFO: the higher waiter has run and blocked already.
         * SCHED_OTHER (the negative control): give it time to block. */
        if (st->policy == RTG_SCHED_OTHER)
            rtg_sleep_ns(5 * NS_PER_MS);
    }
    if (st->policy == RTG_SCHED_OTHER)
        rtg_sleep_ns(10 * NS_PER_MS);
    /* One V at a time; the released waiter acknowledges before the next. */
    for (int k = 0; k < started && !rtg_stop_requested(); k++) {
        rtg_sem_post(&st->sem);
        rtg_sem_wait_until(&st->ack, rtg_mono_ns() + 3500 * NS_PER_MS);
    }
    for (int k = 0; k < started; k++)
        rtg_thread_join(t[k], NULL);
    return NULL;
}

static int rel_run(struct rtg_ctx *ctx)
{
    struct rel_state *st = calloc(1, sizeof *st);
    if (!st)
        return rtg_fail_error(ctx, "out of memory");
    const char *pol = rtg_opt_enum(ctx, "policy");
    st->ctx = ctx;
    st->n = (int)rtg_opt_int(ctx, "waiters");
    st->policy = strcmp(pol, "other") == 0 ? RTG_SCHED_OTHER : RTG_SCHED_FIFO;
    if (st->policy == RTG_SCHED_FIFO && !rtg_rt_ok(ctx)) {
        free(st);
        return rtg_skip(ctx, "needs SCHED_FIFO: release order by priority needs priorities");
    }
    int top = rtg_prio(ctx);
    st->base = top - st->n - 1;
    if (st->base < 1) {
        int n = st->n;
        free(st);
        return rtg_skip(ctx, "needs --prio >= %d for %d waiters of distinct priorities", n + 2, n);
    }
    for (int i = 0; i < st->n; i++)
        st->prio[i] = st->base + 1 + i;
    unsigned seed = (unsigned)rtg_opt_int(ctx, "seed");
    scramble(st->order, st->n, seed);
    atomic_init(&st->n_block, 0);
    atomic_init(&st->n_release, 0);
    atomic_init(&st->timeouts, 0);
    int rc = rtg_sem_init(&st->sem, 0);
    if (!rc)
        rc = rtg_sem_init(&st->ack, 0);
    if (rc) {
        free(st);
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    }
    rtg_thread_t c;
    struct rtg_thread_attr a = attr_at(ctx, st->policy, st->base);
    rc = rtg_thread_create(&c, &a, rel_controller, st);
    if (!rc)
        rtg_thread_join(c, NULL);
    rtg_sem_destroy(&st->sem);
    rtg_sem_destroy(&st->ack);
    if (rc || st->error) {
        int e = rc ? rc : st->error;
        free(st);
        return rtg_fail_error(ctx, "cannot create a thread: %s", strerror(e));
    }
    size_t nb = (size_t)atomic_load(&st->n_block), nr = (size_t)atomic_load(&st->n_release);
    size_t bad;
    enum rtg_sem_rel_result r = rtg_sem_rel_check(st->block_prio, nb, st->release_prio, nr, &bad);

    struct rtg_json ev;
    rtg_json_init(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kstr(&ev, "policy", rtg_policy_name(st->policy));
    rtg_json_key(&ev, "blocked_prio");
    rtg_json_arr_begin(&ev);
    for (size_t i = 0; i < nb; i++)
        rtg_json_int(&ev, st->block_prio[i]);
    rtg_json_arr_end(&ev);
    rtg_json_key(&ev, "released_prio");
    rtg_json_arr_begin(&ev);
    for (size_t i = 0; i < nr; i++)
        rtg_json_int(&ev, st->release_prio[i]);
    rtg_json_arr_end(&ev);
    rtg_json_kint(&ev, "timeouts", atomic_load(&st->timeouts));
    if (r == RTG_SEM_REL_WRONG_ORDER)
        rtg_json_kuint(&ev, "first_wrong_release", bad);
    rtg_json_obj_end(&ev);
    char obs[160];
    snprintf(obs, sizeof obs, "%s (%zu blocked, %zu released, policy %s)",
             rtg_sem_rel_result_name(r), nb, nr, rtg_policy_name(st->policy));
    rtg_verdict(ctx, "release_highest_priority_first", r == RTG_SEM_REL_OK,
                "each V releases the highest-priority waiter", obs, &ev);
    rtg_json_free(&ev);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "controller_prio", st->base);
    rtg_json_kuint(info, "seed", seed);
    free(st);
    return 0;
}

static double rel_bound(const struct rtg_ctx *ctx)
{
    return 10.0 + 0.01 * (double)rtg_opt_int(ctx, "waiters");
}

static const struct rtg_option rel_options[] = {
    {"waiters", RTG_OPT_INT, 16, 8, 3, REL_MAX, NULL, 0,
     "waiters of distinct priorities (needs --prio above waiters + 1)"},
    {"policy", RTG_OPT_ENUM, 0, 0, 0, 0, "fifo,other", 0,
     "fifo; other = negative control: SCHED_OTHER waiters are released in blocking order"},
    {"seed", RTG_OPT_INT, 123, 0, 0, 2147483647, NULL, 0, "seed of the blocking-order scramble"},
};

const struct rtg_test_desc rtg_test_sem_b_rel = {
    .id = "SEM-B-REL",
    .source = __FILE__,
    .title = "Semaphore release order by priority",
    .kind = 'B',
    .options = RTG_OPTIONS(rel_options),
    .run = rel_run,
    .bound_s = rel_bound,
};
