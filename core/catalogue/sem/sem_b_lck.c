/* SEM-B-LCK: which thread runs when a semaphore is posted to a waiter of
 * lower or higher priority. The verdicts come from sem_verdicts.c. */
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

/* The rules the checks are judged by (paraphrased). */
static const struct rtg_standard STD_WAKE = {
    "POSIX", "XSH sem_post(), 2.8.4: the waiter unblocked becomes runnable; the head of the "
             "highest-priority non-empty thread list runs"};
static const struct rtg_standard STD_P = {
    "POSIX", "XSH sem_wait(): a semaphore whose value is positive is locked (decremented) "
             "without waiting"};
static const struct rtg_standard STD_P_TIMED = {
    "POSIX", "XSH sem_timedwait(): a semaphore that cannot be locked without waiting is "
             "waited for until the timeout expires"};
static const struct rtg_standard STD_V = {
    "POSIX", "XSH sem_post(): with no thread blocked, the semaphore value is incremented"};

struct wake_case {
    struct rtg_ctx *ctx;
    rtg_sem_t sem;
    struct rtg_evlog log;
    int waiter_prio, poster_prio;
    int sem_value_at_post;
    int error;
};

static void *lck_waiter(void *arg)
{
    struct wake_case *c = arg;
    rtg_ev_add(&c->log, 'b');
    int rc = rtg_sem_wait_until(&c->sem, rtg_mono_ns() + 2000 * NS_PER_MS);
    rtg_ev_add(&c->log, rc == 0 ? 'w' : 't');
    return NULL;
}

/* The poster: creates the waiter, lets it block, posts, logs around V. */
static void *lck_poster(void *arg)
{
    struct wake_case *c = arg;
    rtg_thread_t w;
    struct rtg_thread_attr a = rtg_attr_at(c->ctx, RTG_SCHED_FIFO, c->waiter_prio);
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
    rtg_ev_add(&c->log, 'p');
    rtg_sem_post(&c->sem);
    rtg_ev_add(&c->log, 'r');
    rtg_thread_join(w, NULL);
    return NULL;
}

static int wake_case_run(struct rtg_ctx *ctx, struct wake_case *c, bool higher)
{
    int top = rtg_prio(ctx);
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->poster_prio = top - 2;
    if (rtg_fault_is(ctx, "invert")) /* hooks build: the waiter on the other side */
        higher = !higher;
    c->waiter_prio = higher ? top - 1 : top - 3;
    rtg_ev_reset(&c->log);
    int rc = rtg_sem_init(&c->sem, 0);
    if (rc)
        return rc;
    rtg_thread_t p;
    struct rtg_thread_attr a = rtg_attr_at(ctx, RTG_SCHED_FIFO, c->poster_prio);
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
    rtg_verdict(ctx, &STD_WAKE, higher ? "v_wakes_higher_waiter_at_once" : "v_wakes_lower_waiter_later", ok,
                higher ? "bpwr: the higher waiter runs inside V, before V returns"
                       : "bprw: V returns first, the lower waiter runs when the poster blocks",
                obs, &ev);
    rtg_json_free(&ev);
}

/* One P with a timeout, as observed. */
static struct rtg_sem_p_obs timed_p(rtg_sem_t *s, uint64_t timeout_ns, int *rc)
{
    uint64_t t0 = rtg_mono_ns();
    *rc = rtg_sem_wait_until(s, t0 + timeout_ns);
    return (struct rtg_sem_p_obs){*rc == 0, rtg_mono_ns() - t0};
}

static void p_json(struct rtg_json *ev, const char *key, struct rtg_sem_p_obs p)
{
    rtg_json_key(ev, key);
    rtg_json_obj_begin(ev);
    rtg_json_kbool(ev, "acquired", p.acquired);
    rtg_json_kuint(ev, "took_ns", p.took_ns);
    rtg_json_obj_end(ev);
}

/* fault=drain: a helper that posts once, late, so the "free" P blocks. */
struct late_post {
    rtg_sem_t *sem;
    uint64_t after_ns;
};

static void *late_poster(void *arg)
{
    struct late_post *lp = arg;
    rtg_sleep_ns(lp->after_ns);
    rtg_sem_post(lp->sem);
    return NULL;
}

/* V, perturbed by the hooks build's faults (skip: no V; twice: two V). */
static void v_once(const struct rtg_ctx *ctx, rtg_sem_t *s, bool may_skip)
{
    if (may_skip && rtg_fault_is(ctx, "skip_post"))
        return;
    rtg_sem_post(s);
    if (rtg_fault_is(ctx, "post_twice"))
        rtg_sem_post(s);
}

static int lck_run(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        return rtg_skip(ctx, "needs SCHED_FIFO: the wake-up checks depend on priorities");
    if (rtg_prio(ctx) < 4)
        return rtg_skip(ctx, "needs --prio >= 4 (three levels below it)");
    struct rtg_json ev;
    rtg_json_init(&ev);
    /* s: the count of 2 the first P takes from; z: the zero count P blocks
     * on first (its time is what "does not block" is measured against),
     * then the count the two V add to. */
    rtg_sem_t s, z;
    int rc = rtg_sem_init(&s, 2);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    rc = rtg_sem_init(&z, rtg_fault_is(ctx, "skip_drain") ? 1 : 0);
    if (rc) {
        rtg_sem_destroy(&s);
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));
    }
    const uint64_t timeout = 20 * NS_PER_MS;
    char obs[160];

    /* 2 (run first). P on zero blocks: it returns only at its timeout. */
    int zero_before = -1;
    rtg_sem_value(&z, &zero_before);
    struct rtg_sem_p_obs zero_p = timed_p(&z, timeout, &rc);
    bool timed_out = rc == ETIMEDOUT;
    uint64_t blocked_ns = timed_out ? zero_p.took_ns : 0;

    /* 1. P on a count of 2. The drain fault empties it and has a helper
     * post once the blocking P's whole time has passed: this P blocks. */
    struct late_post lp = {&s, blocked_ns ? blocked_ns : timeout};
    rtg_thread_t helper;
    bool have_helper = false;
    if (rtg_fault_is(ctx, "drain")) {
        rtg_sem_trywait(&s);
        rtg_sem_trywait(&s);
        struct rtg_thread_attr a = rtg_attr_at(ctx, rtg_rt_policy(ctx), rtg_prio(ctx) - 1);
        have_helper = rtg_thread_create(&helper, &a, late_poster, &lp) == 0;
    }
    int free_before = -1, free_after = -1, free_rc;
    rtg_sem_value(&s, &free_before);
    struct rtg_sem_p_obs free_p = timed_p(&s, 1000 * NS_PER_MS, &free_rc);
    rtg_sem_value(&s, &free_after);
    if (have_helper)
        rtg_thread_join(helper, NULL);

    rtg_json_obj_begin(&ev);
    rtg_json_kint(&ev, "count_before", free_before);
    rtg_json_kint(&ev, "count_after", free_after);
    p_json(&ev, "p", free_p);
    rtg_json_kuint(&ev, "blocking_p_took_ns", blocked_ns);
    rtg_json_obj_end(&ev);
    snprintf(obs, sizeof obs, "count %d: P %s in %llu ns; a blocking P took %llu ns", free_before,
             free_p.acquired ? "acquired" : strerror(free_rc),
             (unsigned long long)free_p.took_ns, (unsigned long long)blocked_ns);
    rtg_verdict(ctx, &STD_P, "p_on_positive_count_does_not_block",
                rtg_sem_p_did_not_block(free_p, blocked_ns),
                "P acquires in under half the time a blocking P took in the same run", obs, &ev);

    rtg_json_reset(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_kint(&ev, "count_before", zero_before);
    rtg_json_kstr(&ev, "result", timed_out ? "timed out" : rc ? strerror(rc) : "acquired");
    rtg_json_kuint(&ev, "waited_ns", zero_p.took_ns);
    rtg_json_kuint(&ev, "timeout_ns", timeout);
    rtg_json_obj_end(&ev);
    snprintf(obs, sizeof obs, "count %d: P %s after %llu ns", zero_before,
             timed_out ? "timed out" : rc ? strerror(rc) : "returned",
             (unsigned long long)zero_p.took_ns);
    rtg_verdict(ctx, &STD_P_TIMED, "p_on_zero_blocks", rtg_sem_p_zero_blocks(timed_out, zero_p.took_ns, timeout),
                "P blocks until its 20 ms timeout", obs, &ev);

    /* 3. Two V with no waiter, then three P: two get through at once, the
     * third blocks until its timeout. */
    int counts[3] = {-1, -1, -1};
    rtg_sem_value(&z, &counts[0]);
    v_once(ctx, &z, false);
    rtg_sem_value(&z, &counts[1]);
    v_once(ctx, &z, true);
    rtg_sem_value(&z, &counts[2]);
    struct rtg_sem_p_obs after[3];
    for (int i = 0; i < 3; i++)
        after[i] = timed_p(&z, timeout, &rc);
    rtg_json_reset(&ev);
    rtg_json_obj_begin(&ev);
    rtg_json_key(&ev, "counts");
    rtg_json_arr_begin(&ev);
    for (int i = 0; i < 3; i++)
        rtg_json_int(&ev, counts[i]);
    rtg_json_arr_end(&ev);
    rtg_json_key(&ev, "p_after");
    rtg_json_arr_begin(&ev);
    for (int i = 0; i < 3; i++) {
        rtg_json_obj_begin(&ev);
        rtg_json_kbool(&ev, "acquired", after[i].acquired);
        rtg_json_kuint(&ev, "took_ns", after[i].took_ns);
        rtg_json_obj_end(&ev);
    }
    rtg_json_arr_end(&ev);
    rtg_json_kuint(&ev, "blocking_p_took_ns", blocked_ns);
    rtg_json_obj_end(&ev);
    snprintf(obs, sizeof obs, "after two V: P %s, %s, %s (count read %d -> %d -> %d)",
             after[0].acquired ? "at once" : "blocked", after[1].acquired ? "at once" : "blocked",
             after[2].acquired ? "acquired" : "blocked", counts[0], counts[1], counts[2]);
    rtg_verdict(ctx, &STD_V, "v_increments", rtg_sem_v_increments(after, blocked_ns),
                "each V adds one: after two V, two P acquire without blocking, a third blocks",
                obs, &ev);
    rtg_sem_destroy(&s);
    rtg_sem_destroy(&z);
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

static const struct rtg_option lck_options[] = {
    {"fault", RTG_OPT_ENUM, 0, 0, 0, 0, "none,drain,skip_drain,skip_post,post_twice,invert",
     RTG_OPT_HOOKS,
     "drain: the count is 0 before the first P, a helper posts 20 ms later; skip_drain: the "
     "count is 1 before the P on zero; skip_post: the second V is not made; post_twice: each V "
     "posts twice; invert: each waiter on the other side of the poster"},
};

const struct rtg_test_desc rtg_test_sem_b_lck = {
    .id = "SEM-B-LCK",
    .source = __FILE__,
    .title = "Semaphore locking behaviour",
    .kind = 'B',
    .options = RTG_OPTIONS(lck_options),
    .run = lck_run,
    .bound_s = lck_bound,
};
