/* SEM-B-REL: the order in which waiters of different priorities are
 * released. The verdicts come from sem_verdicts.c. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "sem_verdicts.h"

/* The rule the check is judged by (paraphrased). */
static const struct rtg_standard STD_REL = {
    "POSIX", "XSH sem_post(): under SCHED_FIFO and SCHED_RR the highest-priority waiting "
             "thread is unblocked, the longest-waiting of equals"};

#define REL_MAX 64
/* The waiters only note their priority and wait on the semaphore, and
 * there are up to REL_MAX of them, each stack locked in memory: the leaf
 * size (common/catalogue.h). The controller keeps RTG_TEST_STACK. */
#define REL_WAITER_STACK RTG_TEST_STACK_LEAF

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
        struct rtg_thread_attr a = rtg_attr_at(st->ctx, st->policy, st->prio[i]);
        a.stack_size = REL_WAITER_STACK;
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
    /* On a board's small heap, as many waiters as fit beside the controller. */
    size_t per_thread = rtg_thread_mem_bytes(REL_WAITER_STACK);
    st->n = (int)rtg_fit_count(ctx, "waiters", st->n, per_thread,
                               RTG_FIT_RESERVE + rtg_thread_mem_bytes(RTG_TEST_STACK));
    if (st->n < 3) {
        free(st);
        return rtg_skip(ctx, "fewer than three waiters fit in the heap");
    }
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
    struct rtg_thread_attr a = rtg_attr_at(ctx, st->policy, st->base);
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
    rtg_verdict(ctx, &STD_REL, "release_highest_priority_first", r == RTG_SEM_REL_OK,
                "each V releases the highest-priority waiter", obs, &ev);
    rtg_json_free(&ev);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_kint(info, "controller_prio", st->base);
    rtg_json_kuint(info, "seed", seed);
    rtg_json_kint(info, "waiter_stack_bytes", REL_WAITER_STACK);
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
