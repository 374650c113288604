/* IRQ-P-LAT: interrupt service response (timer expiry -> its handler
 * runs: a signal handler on POSIX, the interrupt's own on an RTOS) and
 * interrupt task response (expiry -> a blocked higher-priority task,
 * posted by that handler, runs). */
#include <errno.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/osal_timer.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "irq/irq_plan.h"

#define RING 256

/* What the handler leaves: which expiry it served and its clock read
 * (raw: rtg_timer_stamp); the expiry's instant and the ns come after. */
struct entry {
    uint64_t index, stamp;
};

struct irq_run {
    struct rtg_ctx *ctx;
    struct rtg_timer *timer;
    uint64_t start_ns, period_ns, n;
    struct rtg_timer_plan plan; /* where the expiries fell: read once armed is set */
    volatile int armed;
    uint64_t index;            /* handler: expiries accounted for so far */
    volatile uint64_t seq;     /* handler: entries written */
    struct entry ring[RING];
    rtg_sem_t sem;
    volatile int done;
    uint64_t overruns;
    int error;
    struct rtg_metric *service, *task;
    int32_t handler_tid; /* the thread the handler runs on, as the recorder names it */
    uint64_t read_seq, lost, before_armed;
};

/* The "interrupt handler": async-signal-safe (clock read, sem_post). Its
 * first act is the clock read; the rest is kept to stores, so that what
 * it wakes is not held up by the measuring (no conversion here). */
static void on_expiry(void *arg)
{
    struct irq_run *r = arg;
    uint64_t now = rtg_timer_entry_stamp(); /* on an RTOS: the interrupt's first act */
    int ov = rtg_timer_overrun(r->timer);
    struct entry *e = &r->ring[r->seq % RING];
    /* Measured from the first expiry not yet served: after an overrun the
     * latest one would show a stall modulo one period. The overrun ones
     * are counted apart. */
    e->index = r->index;
    e->stamp = now;
    r->index += 1 + (uint64_t)ov;
    r->overruns += (uint64_t)ov;
    __atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
    rtg_sem_post(&r->sem);
}

static void *handler_thread(void *arg)
{
    struct irq_run *r = arg;
    r->handler_tid = rtg_explain_tid(r->ctx); /* read by the task once armed is set */
    int rc = rtg_timer_create(&r->timer, RTG_TIMER_HANDLER, on_expiry, r);
    if (!rc)
        rc = rtg_timer_arm_plan(r->timer, r->start_ns, r->period_ns, &r->plan);
    if (!rc) { /* the task turns entries into samples from now on */
        __atomic_store_n(&r->armed, 1, __ATOMIC_RELEASE);
        rtg_sem_post(&r->sem);
    }
    if (rc) {
        r->error = rc;
        r->done = 1;
        rtg_timer_delete(r->timer);
        r->timer = NULL;
        return NULL;
    }
    uint64_t limit = r->start_ns + 2 * r->n * r->period_ns + 1000000000u;
    /* The handler runs on this thread, interrupting its sleep. */
    while (__atomic_load_n(&r->seq, __ATOMIC_ACQUIRE) < r->n && !rtg_stop_requested() &&
           rtg_mono_ns() < limit)
        rtg_sleep_until_intr(rtg_mono_ns() + 100000000u);
    rtg_timer_delete(r->timer); /* disarmed before the flag: no late handler */
    r->timer = NULL;
    r->done = 1;
    rtg_sem_post(&r->sem);
    return NULL;
}

static void *task_thread(void *arg)
{
    struct irq_run *r = arg;
    for (;;) {
        int rc = rtg_sem_wait_until(&r->sem, rtg_mono_ns() + 200000000u);
        uint64_t now = rtg_timer_stamp();
        if (rc == 0 && __atomic_load_n(&r->armed, __ATOMIC_ACQUIRE)) {
            uint64_t now_ns = rtg_timer_stamp_ns(now);
            uint64_t seq = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);
            if (seq - r->read_seq > RING) {
                r->lost += seq - r->read_seq - RING;
                r->read_seq = seq - RING;
            }
            /* the newest entry is the one that woke us: task response */
            for (; r->read_seq < seq; r->read_seq++) {
                const struct entry *e = &r->ring[r->read_seq % RING];
                uint64_t expiry;
                if (!rtg_irq_expiry(&r->plan, e->index, &expiry)) {
                    r->before_armed++;
                    continue;
                }
                uint64_t at = rtg_test_elapsed_ns(r->ctx);
                /* the handler's thread woke for it: its window, not this one's */
                rtg_metric_interval_of(r->service, expiry, rtg_timer_stamp_ns(e->stamp), at,
                                       r->handler_tid);
                if (r->read_seq + 1 == seq)
                    rtg_metric_interval(r->task, expiry, now_ns, at);
            }
        }
        if (r->done && rc != 0)
            break;
        if (r->done && __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE) == r->read_seq)
            break;
    }
    return NULL;
}

static int run(struct rtg_ctx *ctx)
{
    static struct irq_run r; /* ring and state outlive no thread: joined below */
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.period_ns = (uint64_t)rtg_opt_int(ctx, "period_us") * 1000u;
    r.n = (uint64_t)rtg_opt_int(ctx, "duration_ms") * 1000000u / r.period_ns;
    const char *where = rtg_timer_handler_context();
    bool in_isr = strcmp(where, "isr") == 0;
    r.service = rtg_metric_with_blocks(rtg_metric_new(ctx, "irq.service.%s", where));
    r.task = rtg_metric_with_blocks(rtg_metric_new(ctx, "irq.task.sem_post_wake"));
    if (!r.service || !r.task)
        return rtg_fail_error(ctx, "out of memory");
    /* the task response ends in the woken task, which records it; the
     * service response in the handler, on the thread it interrupts: the
     * task records it later, for that thread (rtg_metric_interval_of).
     * In an interrupt (an RTOS) the handler is no thread's. */
    rtg_metric_explain(ctx, r.task);
    if (in_isr)
        r.service->unexplained = "it ends in the timer's interrupt handler, which runs on no "
                                 "thread; the task response (irq.task.sem_post_wake) to the "
                                 "same expiries is explained";
    else
        rtg_metric_explain(ctx, r.service);
    int rc = rtg_sem_init(&r.sem, 0);
    if (rc)
        return rtg_fail_error(ctx, "sem_init: %s", strerror(rc));

    char why[256];
    bool timerlat = rtg_timerlat_available(why, sizeof why);
    struct rtg_json *info = rtg_info(ctx);
    rtg_json_key(info, "kernel_irq_figure");
    rtg_json_obj_begin(info);
    rtg_json_kbool(info, "timerlat_available", timerlat);
    rtg_json_kstr(info, "why", why);
    rtg_json_kbool(info, "reported", false);
    rtg_json_obj_end(info);
    if (in_isr)
        rtg_note(ctx, "the timer's handler runs in the interrupt itself: the service figure is "
                      "the interrupt's latency");
    else if (timerlat)
        rtg_note(ctx, "the kernel's timerlat tracer is available but this probe does not read it "
                      "yet: user-space figures only");
    else
        rtg_note(ctx, "no kernel IRQ-context figure (%s): user-space figures only", why);

    bool rt = rtg_rt_ok(ctx);
    int prio = rtg_prio(ctx);
    int cpu = rtg_cpu_at(ctx, 0);
    struct rtg_thread_attr ta = {.policy = rt ? RTG_SCHED_FIFO : RTG_SCHED_OTHER, .prio = prio,
                                 .cpu = cpu, .stack_size = RTG_TEST_STACK};
    struct rtg_thread_attr ha = ta;
    ha.prio = prio > 1 ? prio - 1 : prio; /* the interrupted context, below the task */
    rtg_thread_t th, tt;
    r.start_ns = rtg_mono_ns() + 20000000u; /* both threads are waiting by then */
    rc = rtg_thread_create(&tt, &ta, task_thread, &r);
    if (rc) {
        rtg_sem_destroy(&r.sem);
        return rtg_fail_error(ctx, "cannot start the task thread: %s", strerror(rc));
    }
    rc = rtg_thread_create(&th, &ha, handler_thread, &r);
    if (rc) {
        r.done = 1;
        rtg_sem_post(&r.sem);
        rtg_thread_join(tt, NULL);
        rtg_sem_destroy(&r.sem);
        return rtg_fail_error(ctx, "cannot start the handler thread: %s", strerror(rc));
    }
    rtg_thread_join(th, NULL);
    rtg_thread_join(tt, NULL);
    rtg_sem_destroy(&r.sem);

    rtg_json_kuint(info, "expirations", r.seq);
    rtg_json_kuint(info, "overruns", r.overruns);
    rtg_json_kuint(info, "entries_lost", r.lost);
    rtg_json_kuint(info, "expiries_before_armed", r.before_armed);
    rtg_json_kstr(info, "handler_context", where);
    rtg_json_kstr(info, "handler_thread", in_isr ? "arms the timer, then sleeps one level below "
                                                   "the task; the interrupt comes wherever"
                                                 : "same CPU, one priority level below the task, "
                                                   "asleep in clock_nanosleep when the signal comes");
    if (r.error)
        return rtg_fail_error(ctx, "timer with a %s handler: %s", where, strerror(r.error));
    return 0;
}

static double bound(const struct rtg_ctx *ctx)
{
    return (double)rtg_opt_int(ctx, "duration_ms") / 1000.0 * 2.0 + 10.0;
}

static const struct rtg_option options[] = {
    {"period_us", RTG_OPT_INT, 1000, 0, 50, 1000000, NULL, 0, "timer period"},
    {"duration_ms", RTG_OPT_INT, 5000, 1000, 100, RTG_DURATION_MAX_MS, NULL,
     RTG_OPT_SCALED | RTG_OPT_DURATION,
     "how long to measure"},
};

const struct rtg_test_desc rtg_test_irq_p_lat = {
    .id = "IRQ-P-LAT",
    .source = __FILE__,
    .needs = RTG_OFFERS_TIMERS, /* with a handler: a signal's, or the interrupt's */
    .title = "Interrupt service and task response (timer expiry)",
    .kind = 'P',
    .release_latency = "irq.",
    .options = RTG_OPTIONS(options),
    .run = run,
    .bound_s = bound,
};
