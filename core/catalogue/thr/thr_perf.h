/* Helpers of the THR performance tests (THR-P-*): threads on the test's
 * first CPU, SCHED_FIFO when obtained. */
#ifndef RTG_THR_PERF_H
#define RTG_THR_PERF_H
#include <stdbool.h>
#include <stdint.h>

#include "rtg/metric.h"
#include "rtg/osal.h"
#include "rtg/test.h"
#include "common/catalogue.h"

/* How long a test thread waits for a hand-over before it gives up. */
#define SEM_TIMEOUT_NS (3000 * NS_PER_MS)

/* A thread at prio (SCHED_FIFO when the test obtained it) on the first CPU. */
int rtg_thr_spawn(const struct rtg_ctx *ctx, rtg_thread_t *t, int prio, rtg_thread_fn fn,
                  void *arg);
/* Notes that the threads ran SCHED_OTHER, when they did. */
void rtg_thr_note_no_rt(struct rtg_ctx *ctx);
/* Whether --prio leaves `below` levels under it; if not, *rc = rtg_skip(...). */
bool rtg_thr_need_levels(struct rtg_ctx *ctx, int below, int *rc);

#endif
