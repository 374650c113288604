/* Helpers of the SEM performance tests (SEM-P-*). */
#ifndef RTG_SEM_PERF_H
#define RTG_SEM_PERF_H
#include "rtg/test.h"

/* Notes that the threads ran SCHED_OTHER, when they did. */
void rtg_sem_note_no_rt(struct rtg_ctx *ctx);

#endif
