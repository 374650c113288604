/* A figure set: statistics plus histogram of one measured quantity. */
#ifndef RTG_METRIC_H
#define RTG_METRIC_H
#include <stdbool.h>

#include "rtg/blocks.h"
#include "rtg/hist.h"
#include "rtg/intervals.h"
#include "rtg/json.h"
#include "rtg/stats.h"

#define RTG_METRIC_NAME_MAX 96

/* One sample's interval as the recorder is told it: on the trace clock
 * (CLOCK_MONOTONIC: a..b), ending now (d long), or on the measuring clock
 * (counter ticks a..b). The recorder places the last two on the trace
 * clock only for a sample it may keep. */
enum rtg_span_clock { RTG_SPAN_MONO, RTG_SPAN_NOW, RTG_SPAN_TICKS };
struct rtg_span {
    enum rtg_span_clock clock;
    uint64_t a, b; /* MONO: ns; TICKS: counter ticks; NOW: unused */
    uint64_t d;    /* its length in ns */
    int32_t tid;   /* the thread whose wait it is, as the recorder names it; 0: the caller */
};
/* What a figure's interval is, for the explanation: from a release instant
 * to the thread running (a wake-up, a hand-over), or the thread's own call
 * from its start to its return (fork, malloc, a send). */
enum rtg_interval { RTG_INTERVAL_RELEASE, RTG_INTERVAL_OPERATION };
struct rtg_metric;

struct rtg_metric {
    char name[RTG_METRIC_NAME_MAX]; /* <object>.<operation>.<condition> */
    struct rtg_stats stats;
    struct rtg_hist hist;
    struct rtg_json params; /* an object, or empty */
    struct rtg_blocks *blocks; /* the extremes in time order, or NULL (not tracked) */
    /* The samples per interval of test time, for a long test's interval
     * records (rtg/intervals.h), or NULL: the runner sets it up. */
    struct rtg_intervals *intervals;
    uint64_t negative;      /* intervals that ended before they began: counted, not samples */
    /* The condition the figure's name promises did not hold while it was
     * measured (the load it is "under" never ran): why, in words, or NULL.
     * The figure is still written, and the host does not rate it. A string
     * that outlives the metric (a literal). */
    const char *condition_unmet;
    /* In a test whose figures the recorder explains, why this one's samples
     * are not (a literal), or NULL: the record says it beside the figure. */
    const char *unexplained;
    /* Told of every interval, when set: the flight recorder keeps the
     * kernel's events around the worst (rtg_metric_explain, rtg/test.h).
     * worst: the figure's worst sample so far. */
    void (*watch)(void *arg, const struct rtg_metric *m, const struct rtg_span *s, bool worst);
    void *watch_arg;
    enum rtg_interval interval; /* what its samples' intervals are */
};

void rtg_metric_init(struct rtg_metric *m, const char *name);
void rtg_metric_free(struct rtg_metric *m);
/* Also record per block of test time the maximum and the count above
 * threshold_ns (rtg/blocks.h), for the host's extreme-value analysis. Call
 * before the first sample (it allocates); 0, or ENOMEM. */
int rtg_metric_track_blocks(struct rtg_metric *m, uint64_t threshold_ns);
/* For a test's latency figures: m tracking blocks above RTG_BLOCKS_THRESHOLD_NS,
 * or NULL (m was NULL, or no memory), so one NULL check covers both:
 *   m = rtg_metric_with_blocks(rtg_metric_new(ctx, "timer.wakeup.x")); */
struct rtg_metric *rtg_metric_with_blocks(struct rtg_metric *m);
static inline void rtg_metric_add(struct rtg_metric *m, uint64_t ns, uint64_t at_ns)
{
    rtg_stats_add(&m->stats, ns, at_ns);
    rtg_hist_add(&m->hist, ns);
    if (m->blocks)
        rtg_blocks_add(m->blocks, ns, at_ns);
    if (m->intervals)
        rtg_intervals_add(m->intervals, ns, at_ns);
}
/* The interval from_ns -> to_ns as a sample. One whose end stamp is
 * earlier than its reference (an early wake-up, a clock that stepped back)
 * is no valid 0 ns sample: it is counted in `negative` instead. */
static inline void rtg_metric_interval_of(struct rtg_metric *m, uint64_t from_ns, uint64_t to_ns,
                                          uint64_t at_ns, int32_t tid);
static inline void rtg_metric_interval(struct rtg_metric *m, uint64_t from_ns, uint64_t to_ns,
                                       uint64_t at_ns)
{
    rtg_metric_interval_of(m, from_ns, to_ns, at_ns, 0);
}
/* The same, for the wait of thread tid (rtg_explain_tid, rtg/test.h) that
 * another thread records later: its window is that thread's. */
static inline void rtg_metric_interval_of(struct rtg_metric *m, uint64_t from_ns, uint64_t to_ns,
                                          uint64_t at_ns, int32_t tid)
{
    /* the figure's worst so far: the recorder keeps each figure's worst */
    bool worst = to_ns >= from_ns && (m->stats.count == 0 || to_ns - from_ns > m->stats.max);
    if (to_ns < from_ns)
        m->negative++;
    else
        rtg_metric_add(m, to_ns - from_ns, at_ns);
    if (m->watch && to_ns >= from_ns) {
        struct rtg_span s = {RTG_SPAN_MONO, from_ns, to_ns, to_ns - from_ns, tid};
        m->watch(m->watch_arg, m, &s, worst);
    }
}
/* A sample of ns that ends now, measured on the measuring clock (a
 * counter, not the trace clock): when the recorder keeps it, it places the
 * interval on the trace clock as [now - ns, now], read only then. For a
 * figure recorded by the thread whose wait or work it measures, at once. */
static inline void rtg_metric_span(struct rtg_metric *m, uint64_t ns, uint64_t at_ns)
{
    bool worst = m->stats.count == 0 || ns > m->stats.max;
    rtg_metric_add(m, ns, at_ns);
    if (m->watch) {
        struct rtg_span s = {RTG_SPAN_NOW, 0, 0, ns, 0};
        m->watch(m->watch_arg, m, &s, worst);
    }
}
/* A sample of ns from counter tick a to tick b (rtg/clock.h), recorded by
 * the thread that ran it, soon after: the recorder places it on the trace
 * clock through one reading of both clocks, only when it may keep it. The
 * _of form: the wait of thread tid (rtg_explain_tid), recorded by another. */
static inline void rtg_metric_ticks_of(struct rtg_metric *m, uint64_t a, uint64_t b, uint64_t ns,
                                       uint64_t at_ns, int32_t tid)
{
    bool worst = m->stats.count == 0 || ns > m->stats.max;
    rtg_metric_add(m, ns, at_ns);
    if (m->watch) {
        struct rtg_span s = {RTG_SPAN_TICKS, a, b, ns, tid};
        m->watch(m->watch_arg, m, &s, worst);
    }
}
static inline void rtg_metric_ticks(struct rtg_metric *m, uint64_t a, uint64_t b, uint64_t ns,
                                    uint64_t at_ns)
{
    rtg_metric_ticks_of(m, a, b, ns, at_ns, 0);
}
/* Merges b into a; a tracks blocks if b does (it may allocate: not in a hot path). */
void rtg_metric_merge(struct rtg_metric *a, const struct rtg_metric *b);
/* Writes the metric object as in schema/result-v1.json. */
void rtg_metric_emit(const struct rtg_metric *m, struct rtg_json *j);
/* Writes one figure of an interval record (schema/result-v1.json): the
 * samples of one interval, with percentiles from its own histogram. */
void rtg_metric_emit_interval(const char *name, const struct rtg_interval_figs *f,
                              struct rtg_json *j);

#endif
