/* A test's flight recorder, seen from the runner: whether it runs, why
 * not, and the windows it kept (rtg_private/recorder_policy.h, over the
 * port's rtg/osal_trace.h). The runner opens it
 * around an explained test's body; the test marks the figures it explains
 * (rtg_metric_explain); the record carries the result ("explain"). */
#ifndef RTG_EXPLAIN_H
#define RTG_EXPLAIN_H
#include <stdbool.h>

#include "rtg/json.h"
#include "rtg/osal_trace.h"
#include "rtg_private/config.h"
#include "rtg_private/recorder_policy.h"

enum rtg_explain_state {
    RTG_EXPLAIN_NONE,    /* the test has no figure to explain: no "explain" key */
    RTG_EXPLAIN_ON,      /* recording */
    RTG_EXPLAIN_OFF,     /* --no-explain */
    RTG_EXPLAIN_NOT_HERE /* the target cannot: why says it */
};

struct rtg_explain {
    enum rtg_explain_state state;
    char why[256];
    struct rtg_trace_config cfg;
    struct rtg_recorder *rec;     /* while recording */
    struct rtg_trace_result *res; /* after: on the heap (a board's stacks are small) */
    uint64_t setup_ns; /* the recorder's open: it delays the test's first sample */
};

/* Starts the recorder for a test that explains figures (state ON), or
 * says why not (why_not: the test's own reason; else the port's); never
 * fails the test. */
void rtg_explain_start(struct rtg_explain *x, const struct rtg_config *cfg, bool explained,
                       const char *why_not);
/* Stops it and keeps the windows. */
void rtg_explain_stop(struct rtg_explain *x);
void rtg_explain_free(struct rtg_explain *x);
/* Writes the record's "explain" key and object (nothing for NONE),
 * freeing each window's events once written; the windows whose text does
 * not fit in memory are left out and counted (windows_dropped). */
void rtg_explain_emit(struct rtg_explain *x, struct rtg_json *j);

#endif
