/* Helpers of the DLN tests: a deadline task in a thread of its own, and
 * the "not offered" reasons shared by DLN-B-ADM and DLN-P-LAT. */
#ifndef RTG_DLN_COMMON_H
#define RTG_DLN_COMMON_H
#include <stdbool.h>
#include <stdint.h>

#include "rtg/metric.h"
#include "rtg/osal.h"
#include "rtg/osal_deadline.h"
#include "rtg/test.h"
#include "common/steal_watch.h"

struct dln_task {
    struct rtg_deadline_params p;
    uint64_t work_ns;         /* busy time per period */
    int periods;              /* 0: admission only, then wait for release */
    rtg_sem_t *answered;      /* posted once the admission's answer is known */
    rtg_sem_t *release;       /* admission only: posted when the task may end */
    struct rtg_metric *lat;   /* activation latency per period, or NULL */
    const struct rtg_ctx *ctx;
    /* results */
    int rc;                   /* of rtg_deadline_set_self */
    int periods_run;
    uint64_t missed;          /* periods that ended past their deadline or were skipped */
    struct rtg_steal_watch stalls; /* the periods, missed or not, and the machine's pauses */
    int re_anchored;          /* times the period grid was re-anchored after a skip */
    int untimed;              /* activations after the first skip, not timed */
};

/* Starts a deadline task thread and waits (bounded) for its admission's
 * answer (task->rc). Returns 0, ETIMEDOUT (no answer in 5 s; the thread
 * exists all the same: join it) or the thread creation's errno (no thread). */
int rtg_dln_start(const struct rtg_ctx *ctx, struct dln_task *task, rtg_thread_t *t);
/* Ends the test as skipped ("not offered: ...") when rc says the OS or the
 * privileges do not allow deadline tasks; returns -1 then, 0 otherwise. */
int rtg_dln_skip_unoffered(struct rtg_ctx *ctx, int rc);

#endif
