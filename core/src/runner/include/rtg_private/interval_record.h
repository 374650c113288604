/* A duration test's interval records (schema/result-v1.json, "interval"):
 * while the test runs, a thread of the runner writes each interval's figures
 * as the sampling threads hand them over (rtg/intervals.h), so a long run
 * says how it goes, and one cut short keeps every interval written. */
#ifndef RTG_INTERVAL_RECORD_H
#define RTG_INTERVAL_RECORD_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rtg/osal.h"

struct rtg_ctx;

struct rtg_interval_writer {
    struct rtg_ctx *ctx;
    FILE *out;
    uint64_t every_ns;
    uint64_t seq;      /* records written */
    rtg_sem_t wake;    /* posted to stop the thread */
    atomic_bool stop;
    bool started;
    rtg_thread_t thread;
};

/* The interval for ctx's test under its configuration (--interval-ms, else
 * the default for its planned length), in ns; 0: none. */
uint64_t rtg_interval_ns(const struct rtg_ctx *ctx);
/* Starts the writer for ctx (its interval_ns set): 0, or an errno (the test
 * then runs without interval records and says so in a note). */
int rtg_interval_writer_start(struct rtg_interval_writer *w, struct rtg_ctx *ctx, FILE *out);
/* After the test's body returned (its sampling threads ended): stops the
 * thread and writes the last interval, up to end_ns of test time. */
void rtg_interval_writer_finish(struct rtg_interval_writer *w, uint64_t end_ns);

#endif
