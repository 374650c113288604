/* Isolation on FreeRTOS (rtg/osal_isolate.h): each test's body runs in a
 * fresh task at the test priority; the runner's task, at the watchdog's
 * level (above every test level), waits for it with a deadline.
 * - Past its bound the test is asked to stop (the stop flag, and every
 *   task's delay aborted so sleepers see it); past the grace period every
 *   task it created is deleted: RTG_ISO_OVERRAN.
 * - A fault in one of its tasks (HardFault, MemManage, BusFault,
 *   UsageFault, a stack overflow) sends that task to an exit path and names
 *   the fault: RTG_ISO_CRASHED.
 * After a forced end or a fault the board is not trusted (memory and kernel
 * objects the test held are lost): before the next test the port says
 * RESTART on the console and ends the board, and the host boots it again
 * with the tests left. Nothing written before is lost: every record is on
 * the console already. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "fr_internal.h"
#include "rtg/osal_isolate.h"
#include "semphr.h"

#define GRACE_NS ((uint64_t)(RTG_ISOLATE_GRACE_S * 1e9))

struct rtg_isolate_channel {
    char *buf;
    size_t len, cap;
};

int rtg_isolate_write(struct rtg_isolate_channel *ch, const char *p, size_t n)
{
    if (ch->len + n + 1 > ch->cap) {
        size_t c = ch->len + n + 1; /* a record comes whole: no room to spare */
        char *nb = realloc(ch->buf, c);
        if (!nb)
            return ENOMEM;
        ch->buf = nb;
        ch->cap = c;
    }
    memcpy(ch->buf + ch->len, p, n);
    ch->len += n;
    ch->buf[ch->len] = '\0';
    return 0;
}

int rtg_isolate_give(struct rtg_isolate_channel *ch, char *buf, size_t len)
{
    if (!ch->buf) { /* the record as it is: no second copy on the heap */
        ch->buf = buf;
        ch->len = len;
        ch->cap = len + 1;
        return 0;
    }
    int rc = rtg_isolate_write(ch, buf, len);
    free(buf);
    return rc;
}

struct job {
    const struct rtg_isolated_test *t;
    struct rtg_isolate_channel ch;
    int status;
    volatile bool finished;
    SemaphoreHandle_t ended; /* given by the body's end, or by a fault's exit path */
};

static struct job *current;        /* the test running, for the fault path */
static volatile const char *fault_name;
static bool tainted;                /* the board must restart before the next test */
static FILE *records;

static void *job_main(void *p)
{
    struct job *j = p;
    j->status = j->t->body(j->t->arg, &j->ch);
    j->finished = true;
    xSemaphoreGive(j->ended);
    return NULL;
}

/* Where a faulting test task resumes (core/boards/cortex_m/fault.c moves its PC here):
 * in thread mode again, it tells the watchdog and stops for good. */
static void crashed_task_exit(void)
{
    struct job *j = current;
    if (j)
        xSemaphoreGive(j->ended);
    vTaskSuspend(NULL);
    for (;;)
        ;
}

/* Called by the fault handlers: whether the fault is a test task's (then
 * it is contained and *resume says where that task goes on). */
static bool contain_fault(const char *what, void (**resume)(void))
{
    if (!current || !rtg_fr_is_test_task())
        return false;
    fault_name = what;
    *resume = crashed_task_exit;
    return true;
}

int rtg_isolate_begin(struct rtg_isolate_run *run, FILE *out, bool rt)
{
    memset(run, 0, sizeof *run);
    run->watchdog_rt = rt; /* the runner's task is above every test level */
    records = out;
    board_set_fault_handler(contain_fault);
    return 0;
}

void rtg_isolate_end(struct rtg_isolate_run *run)
{
    (void)run;
    board_set_fault_handler(NULL);
}

/* The end record's "board": what every task's stack came to. */
void rtg_isolate_end_record(struct rtg_json *j) { rtg_fr_stacks_write(j); }

bool rtg_isolate_interrupted(void) { return false; } /* no user at the board */

/* The records so far are on the console already (the runner flushes each
 * one); the host boots the board again with the tests left. This boot
 * writes no end record, so what its stacks came to is not recorded: the
 * end record's are the last boot's. */
static void restart_board(void)
{
    fflush(records);
    fputs("RESTART\n", stdout);
    fflush(stdout);
    board_exit(3);
}

int rtg_isolate_run(const struct rtg_isolated_test *t, double bound_s,
                    struct rtg_isolated_outcome *o)
{
    memset(o, 0, sizeof *o);
    if (tainted)
        restart_board();
    struct job *j = calloc(1, sizeof *j);
    if (!j || !(j->ended = xSemaphoreCreateBinary())) {
        free(j);
        o->end = RTG_ISO_NOT_STARTED;
        strcpy(o->fault, "cannot allocate the test's context");
        return 0;
    }
    j->t = t;
    rtg_fr_stacks_test_begin(t->id);
    rtg_stop_clear();
    fault_name = NULL;
    current = j;
    /* Created below the watchdog; the body then sets the test priority. */
    struct rtg_thread_attr a = {.policy = RTG_SCHED_FIFO, .prio = RTG_FR_FIFO_MAX - 1,
                                .cpu = 0, .stack_size = RTG_FR_TEST_STACK};
    rtg_thread_t th;
    if (rtg_fr_thread_create_exact(&th, &a, job_main, j)) {
        current = NULL;
        vSemaphoreDelete(j->ended);
        free(j);
        o->end = RTG_ISO_NOT_STARTED;
        strcpy(o->fault, "cannot create the test's task");
        return 0;
    }
    rtg_fr_stacks_test_body(rtg_fr_thread_task(th));
    uint64_t deadline = rtg_mono_ns() + (uint64_t)(bound_s * 1e9);
    bool ended = xSemaphoreTake(j->ended, rtg_fr_ticks_until(deadline)) == pdTRUE;
    if (!ended && !fault_name) {
        rtg_stop_set(RTG_STOP_OVERRAN);
        rtg_fr_abort_delays();
        ended = xSemaphoreTake(j->ended, rtg_fr_ticks_until(rtg_mono_ns() + GRACE_NS)) == pdTRUE;
    }
    current = NULL;
    if (fault_name) {
        o->end = RTG_ISO_CRASHED;
        snprintf(o->fault, sizeof o->fault, "%s", (const char *)fault_name);
    } else if (!ended || !j->finished) {
        o->end = RTG_ISO_OVERRAN;
    } else {
        o->end = j->status ? RTG_ISO_EXITED : RTG_ISO_COMPLETED;
        o->status = j->status;
        o->record = j->ch.buf;
        o->len = j->ch.len;
        j->ch.buf = NULL;
    }
    if (o->end == RTG_ISO_CRASHED || o->end == RTG_ISO_OVERRAN) {
        rtg_fr_delete_all_threads(); /* the test's tasks, the crashed one too */
        tainted = true;              /* their memory and objects are lost */
        free(j->ch.buf);
        return 0;                    /* j may still be referenced: kept */
    }
    rtg_thread_join(th, NULL);
    if (rtg_fr_live_threads() > 0) { /* tasks the test left running */
        rtg_fr_delete_all_threads();
        tainted = true;
    }
    vSemaphoreDelete(j->ended);
    free(j);
    return 0;
}
