/* A figure set: statistics plus histogram of one measured quantity. */
#ifndef RTG_METRIC_H
#define RTG_METRIC_H
#include "rtg/hist.h"
#include "rtg/json.h"
#include "rtg/stats.h"

#define RTG_METRIC_NAME_MAX 96

struct rtg_metric {
    char name[RTG_METRIC_NAME_MAX]; /* <object>.<operation>.<condition> */
    struct rtg_stats stats;
    struct rtg_hist hist;
    struct rtg_json params; /* an object, or empty */
    uint64_t negative;      /* intervals that ended before they began: counted, not samples */
};

void rtg_metric_init(struct rtg_metric *m, const char *name);
void rtg_metric_free(struct rtg_metric *m);
static inline void rtg_metric_add(struct rtg_metric *m, uint64_t ns, uint64_t at_ns)
{
    rtg_stats_add(&m->stats, ns, at_ns);
    rtg_hist_add(&m->hist, ns);
}
/* The interval from_ns -> to_ns as a sample. One whose end stamp is
 * earlier than its reference (an early wake-up, a clock that stepped back)
 * is no valid 0 ns sample: it is counted in `negative` instead. */
static inline void rtg_metric_interval(struct rtg_metric *m, uint64_t from_ns, uint64_t to_ns,
                                       uint64_t at_ns)
{
    if (to_ns < from_ns)
        m->negative++;
    else
        rtg_metric_add(m, to_ns - from_ns, at_ns);
}
void rtg_metric_merge(struct rtg_metric *a, const struct rtg_metric *b);
/* Writes the metric object as in schema/result-v1.json. */
void rtg_metric_emit(const struct rtg_metric *m, struct rtg_json *j);

#endif
