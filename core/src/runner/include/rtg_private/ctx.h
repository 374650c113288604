/* The runner's side of a test: options resolved, results collected.
 * Tests see it only through rtg/test.h. The context itself is
 * core/src/runner/test_context.c; its options core/src/runner/test_options.c; what the
 * test reports and the record it becomes core/src/runner/test_record.c. */
#ifndef RTG_CTX_H
#define RTG_CTX_H
#include <stdbool.h>

#include "rtg_private/config.h"
#include "rtg_private/explain.h"
#include "rtg/json.h"
#include "rtg/osal.h"
#include "rtg/osal_isolate.h"
#include "rtg/test.h"

#define RTG_MAX_OPTIONS 24

struct rtg_opt_value {
    double num;
    const char *str; /* ENUM: points into the choices copy below */
    char str_buf[64];
};

enum rtg_status { RTG_ST_OK, RTG_ST_PASS, RTG_ST_FAIL, RTG_ST_ERROR, RTG_ST_SKIPPED, RTG_ST_INTERRUPTED };

struct rtg_ctx {
    const struct rtg_test_desc *desc;
    const struct rtg_config *cfg;
    struct rtg_opt_value values[RTG_MAX_OPTIONS];
    bool rt_ok;
    bool mlock_ok;
    bool virtualized;
    uint64_t start_ns;
    struct rtg_metric **metrics;
    size_t n_metrics, cap_metrics;
    /* A duration test's interval records (interval_record.h): the interval
     * (0: none), and the lock its writer reads the figure list under. */
    uint64_t interval_ns;
    rtg_mutex_t metrics_lock;
    struct rtg_json verdicts; /* inside an open array */
    size_t n_verdicts, n_failed_verdicts;
    struct rtg_json info;     /* inside an open object */
    struct rtg_json series;   /* inside an open array */
    struct rtg_json notes;    /* inside an open array */
    struct rtg_explain explain; /* the flight recorder, for an explained test */
    /* A part's (rtg_run_part): ".<suffix>" ends each figure's name from its
     * creation, so the recorder keeps the part's figures under the names
     * the record gives them. NULL: none. */
    const char *metric_suffix;
    enum rtg_status forced;   /* set by rtg_fail_error / rtg_skip */
    char reason[512];
};

/* ---- the context (test_context.c) ---- */
/* Resolves defaults, --quick, --duration-scale and --opt. Returns 0 or 2
 * with a message naming the bad option. */
int rtg_ctx_init(struct rtg_ctx *ctx, const struct rtg_test_desc *d, const struct rtg_config *cfg,
                 char *err, size_t errlen);
void rtg_ctx_free(struct rtg_ctx *ctx);

/* ---- the options (test_options.c) ---- */
/* Each option's value for ctx->desc under ctx->cfg: 0, or 2 with a
 * message naming the bad option. */
int rtg_options_resolve(struct rtg_ctx *ctx, char *err, size_t errlen);
/* The options as run, one object (the record's "options"). */
void rtg_options_emit(const struct rtg_ctx *ctx, struct rtg_json *j);

/* ---- the test record (test_record.c) ---- */
/* Opens the writers the test fills (verdicts, info, series, notes). */
void rtg_test_record_open(struct rtg_ctx *ctx);
/* Frees them and the test's figures. */
void rtg_test_record_free(struct rtg_ctx *ctx);
/* Final status from what the test did and whether it was stopped. */
enum rtg_status rtg_ctx_status(const struct rtg_ctx *ctx, int run_rc, bool interrupted,
                               bool overran);
const char *rtg_status_name(enum rtg_status st);
/* The record's "conditions" object (policy, prio, mlockall, cpus). */
void rtg_conditions_emit(const struct rtg_ctx *ctx, struct rtg_json *j);
/* Writes the whole test record (one line, newline-terminated). The figure
 * sets are freed as they are written: the context is only freed after. */
void rtg_ctx_emit(struct rtg_ctx *ctx, enum rtg_status st, const char *reason, double duration_ms,
                  struct rtg_json *out);

#endif
