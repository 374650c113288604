/* One test, isolated the RTOS way: its run function in a fresh task at the
 * test priority, watched by the calling task (the watchdog, above every
 * test level). Past its bound the test is asked to stop (the stop flag,
 * and every task's delay aborted so that sleepers see it); past a grace
 * period every task it created is deleted. A fault in one of its tasks is
 * contained (board/fault.c): that task resumes in crashed_task_exit. */
#include "fw_isolate.h"

#include <stdio.h>
#include <stdlib.h>

#include "board/board.h"
#include "fr_internal.h"
#include "rtg/test.h"
#include "semphr.h"

#define GRACE_NS (3ull * 1000000000ull)
#define TEST_STACK (32u * 1024u)

struct job {
    struct rtg_ctx *ctx;
    int rc;
    uint64_t end_ns;
    volatile bool finished;
    SemaphoreHandle_t ended; /* given by the run's end, or by a fault's exit path */
};

static struct job *volatile current;
static const char *volatile fault_name;

static void *test_main(void *p)
{
    struct job *j = p;
    j->ctx->start_ns = rtg_mono_ns();
    j->rc = j->ctx->desc->run(j->ctx);
    j->end_ns = rtg_mono_ns();
    j->finished = true;
    xSemaphoreGive(j->ended);
    return NULL;
}

/* Where a faulting test task resumes, in thread mode: it tells the
 * watchdog and stops for good (the watchdog deletes it). */
static void crashed_task_exit(void)
{
    struct job *j = current;
    if (j)
        xSemaphoreGive(j->ended);
    vTaskSuspend(NULL);
    for (;;)
        ;
}

static bool claim_fault(const char *what, void (**resume)(void))
{
    if (!current || !rtg_fr_is_test_task())
        return false;
    fault_name = what;
    *resume = crashed_task_exit;
    return true;
}

int fw_isolate_run(struct rtg_ctx *ctx, double bound_s, struct fw_outcome *o)
{
    *o = (struct fw_outcome){.state = FW_RAN};
    struct job *j = calloc(1, sizeof *j);
    if (!j || !(j->ended = xSemaphoreCreateBinary())) {
        free(j);
        return -1;
    }
    j->ctx = ctx;
    struct rtg_thread_attr a = {.policy = RTG_SCHED_FIFO, .prio = ctx->cfg->prio, .cpu = 0,
                                .stack_size = TEST_STACK};
    rtg_thread_t t;
    uint64_t t0 = rtg_mono_ns();
    ctx->start_ns = t0;
    fault_name = NULL;
    current = j;
    board_set_fault_handler(claim_fault);
    if (rtg_thread_create(&t, &a, test_main, j)) {
        current = NULL;
        vSemaphoreDelete(j->ended);
        free(j);
        return -1;
    }
    uint64_t deadline = t0 + (uint64_t)(bound_s * 1e9);
    bool ended = xSemaphoreTake(j->ended, rtg_fr_ticks_until(deadline)) == pdTRUE;
    if (!ended) {
        rtg_stop_set(2);
        rtg_fr_abort_delays();
        o->state = FW_STOPPED;
        ended = xSemaphoreTake(j->ended, rtg_fr_ticks_until(rtg_mono_ns() + GRACE_NS)) == pdTRUE;
    }
    board_set_fault_handler(NULL);
    current = NULL;
    o->duration_ms = (double)(rtg_mono_ns() - t0) / 1e6;
    if (fault_name || !ended || !j->finished) {
        /* Its tasks are deleted; what they held (memory, objects) is lost,
         * and so is j, which a deleted task may still have referred to. */
        o->state = fault_name ? FW_CRASHED : FW_KILLED;
        if (fault_name)
            snprintf(o->fault, sizeof o->fault, "%s", fault_name);
        o->tasks_left = rtg_fr_delete_all_threads();
        return 0;
    }
    rtg_thread_join(t, NULL);
    vSemaphoreDelete(j->ended);
    o->rc = j->rc;
    o->duration_ms = (double)(j->end_ns - ctx->start_ns) / 1e6;
    free(j);
    /* Tasks the test started and never joined would run into the next one. */
    if (rtg_fr_live_threads() > 0)
        o->tasks_left = rtg_fr_delete_all_threads();
    return 0;
}
