/* One test, isolated the RTOS way: its run function in a fresh task at the
 * test priority, watched by the calling task (the watchdog, above every
 * test level). Past its bound the test is asked to stop (the stop flag its
 * loops check); past a grace period every task it created is deleted. */
#include "fw_isolate.h"

#include "fr_internal.h"
#include "rtg/ctx.h"
#include "rtg/test.h"

#define GRACE_NS (3ull * 1000000000ull)
#define TEST_STACK (32u * 1024u)

struct job {
    struct rtg_ctx *ctx;
    int rc;
    uint64_t end_ns;
    rtg_sem_t done;
};

static void *test_main(void *p)
{
    struct job *j = p;
    j->ctx->start_ns = rtg_mono_ns();
    j->rc = j->ctx->desc->run(j->ctx);
    j->end_ns = rtg_mono_ns();
    rtg_sem_post(&j->done);
    return NULL;
}

int fw_isolate_run(struct rtg_ctx *ctx, double bound_s, struct fw_outcome *o)
{
    struct job j = {.ctx = ctx};
    o->state = FW_RAN;
    o->rc = 0;
    o->tasks_left = 0;
    if (rtg_sem_init(&j.done, 0))
        return -1;
    struct rtg_thread_attr a = {.policy = RTG_SCHED_FIFO, .prio = ctx->cfg->prio, .cpu = 0,
                                .stack_size = TEST_STACK};
    rtg_thread_t t;
    uint64_t t0 = rtg_mono_ns();
    ctx->start_ns = t0;
    if (rtg_thread_create(&t, &a, test_main, &j)) {
        rtg_sem_destroy(&j.done);
        return -1;
    }
    uint64_t deadline = t0 + (uint64_t)(bound_s * 1e9);
    if (rtg_sem_wait_until(&j.done, deadline) != 0) {
        rtg_stop_set(2);
        rtg_fr_abort_delays();
        o->state = FW_STOPPED;
        if (rtg_sem_wait_until(&j.done, rtg_mono_ns() + GRACE_NS) != 0) {
            o->state = FW_KILLED;
            o->tasks_left = rtg_fr_delete_all_threads();
            o->duration_ms = (double)(rtg_mono_ns() - t0) / 1e6;
            return 0; /* the semaphore may still be held by a deleted task: leak it */
        }
    }
    rtg_thread_join(t, NULL);
    rtg_sem_destroy(&j.done);
    o->rc = j.rc;
    o->duration_ms = (double)(j.end_ns - ctx->start_ns) / 1e6;
    /* Tasks the test started and never joined would run into the next one. */
    if (rtg_fr_live_threads() > 0)
        o->tasks_left = rtg_fr_delete_all_threads();
    return 0;
}
