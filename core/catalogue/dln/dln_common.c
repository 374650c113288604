/* Helpers of the DLN tests (dln_common.h). A task's activation k falls at
 * t_set + k * period, t_set read by rtg_deadline_set_self just before the
 * sched_setattr call itself (after its affinity call, which is not the
 * period's). The kernel starts its first period inside that call (its
 * run-queue clock, read there, + the relative deadline) and arms every
 * activation on that grid, so ours starts no later than the kernel's and
 * the call's entry is counted, worst case first: traced, the kernel's
 * activations lie about 3 us after ours on a 2-CPU VM
 * (bench/dln_grid_origin.py). The kernel keeps that grid on its scheduler
 * clock, which NTP does not slew and no test reads without tracing: there
 * it gained 0.06 ppm on CLOCK_MONOTONIC, so past about 50 s of run the
 * later activations are timed from up to that rate x the time run after
 * the kernel's. After a skipped period the kernel starts a new grid at
 * its replenishment, an instant we cannot read: ours is re-anchored at
 * the late wake-up for the deadline checks, and the later activations are
 * counted (untimed), not timed against a guess. */
#include "dln_common.h"

#include <errno.h>
#include <string.h>

#include "common/catalogue.h"
#include "rtg/osal_deadline.h"

/* Widens the thread's affinity before the deadline request: the migration
 * that may follow is not part of the first period. rtg_deadline_set_self
 * widens it again (then a no-op, before it reads t_set). */
static void widen_first(void)
{
    int cpus[256];
    int n = rtg_cpu_count_configured();
    n = n < 256 ? n : 256;
    for (int i = 0; i < n; i++)
        cpus[i] = i;
    if (n > 0)
        rtg_affinity_set_self(cpus, (size_t)n);
    rtg_thread_yield();
}

static void *task_main(void *arg)
{
    struct dln_task *k = arg;
    widen_first();
    uint64_t t_set = 0;
    k->rc = rtg_deadline_set_self(&k->p, &t_set);
    rtg_sem_post(k->answered);
    if (k->rc)
        return NULL;
    if (k->periods == 0) {
        /* Admitted and blocked: the bandwidth is reserved, no CPU used. */
        rtg_sem_wait_until(k->release, rtg_mono_ns() + 10 * NS_PER_S);
        rtg_deadline_clear_self();
        return NULL;
    }
    uint64_t anchor = t_set;
    int anchor_k = 0;
    /* The machine's own pauses: the steal counter is read after each
     * period's checks, never inside the timed part. */
    rtg_steal_watch_begin(&k->stalls);
    for (int i = 0; i < k->periods && !rtg_stop_requested(); i++) {
        if (i > 0 && rtg_deadline_yield())
            break;
        uint64_t wake = rtg_mono_ns();
        uint64_t due = anchor + (uint64_t)(i - anchor_k) * k->p.period_ns;
        if (i > 0 && k->lat && k->re_anchored == 0)
            rtg_metric_interval(k->lat, due, wake, rtg_test_elapsed_ns(k->ctx));
        else if (i > 0)
            k->untimed++;
        bool missed = false;
        if (wake > due + k->p.period_ns) { /* later than a whole period */
            missed = true;
            anchor = wake;
            anchor_k = i;
            k->re_anchored++;
            due = wake;
        }
        if (k->work_ns)
            rtg_spin_ns(k->work_ns);
        if (rtg_mono_ns() > due + k->p.deadline_ns)
            missed = true;
        k->periods_run++;
        k->missed += missed;
        rtg_steal_watch_count(&k->stalls, missed, rtg_steal_watch_read(&k->stalls));
    }
    rtg_deadline_clear_self();
    return NULL;
}

int rtg_dln_start(const struct rtg_ctx *ctx, struct dln_task *task, rtg_thread_t *t)
{
    task->ctx = ctx;
    task->rc = -1;
    /* Created SCHED_OTHER: the task's own call makes it a deadline task. */
    struct rtg_thread_attr a = {.policy = RTG_SCHED_OTHER, .cpu = -1, .stack_size = RTG_TEST_STACK};
    int rc = rtg_thread_create(t, &a, task_main, task);
    if (rc)
        return rc;
    if (rtg_sem_wait_until(task->answered, rtg_mono_ns() + 5 * NS_PER_S))
        return ETIMEDOUT; /* the thread still ends: its release wait is bounded */
    return 0;
}

int rtg_dln_skip_unoffered(struct rtg_ctx *ctx, int rc)
{
    if (rc == EPERM)
        return rtg_skip(ctx, "not offered: needs CAP_SYS_NICE (sched_setattr: %s)", strerror(rc));
    if (rc == ENOSYS || rc == ENOTSUP || rc == EINVAL)
        return rtg_skip(ctx, "not offered: no SCHED_DEADLINE here (sched_setattr: %s)",
                        strerror(rc));
    return 0;
}
