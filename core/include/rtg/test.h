/* What a test sees: its descriptor, its options and the result it fills.
 * Tests record; they never print. */
#ifndef RTG_TEST_H
#define RTG_TEST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtg/json.h"
#include "rtg/metric.h"
#include "rtg/stop.h"

enum rtg_opt_type { RTG_OPT_INT, RTG_OPT_FLOAT, RTG_OPT_ENUM };

/* Options scaled by --duration-scale (durations, iteration counts). */
#define RTG_OPT_SCALED 1u
/* Exists only in the hooks build (rtgauge-probe-hooks): a fault injected
 * into a test's conditions so the suite can see each verdict fail. The
 * shipped probe neither lists nor accepts it, and the test sees its
 * default (the first choice, "none"). */
#define RTG_OPT_HOOKS 2u
/* The test's length (a duration test): --duration-ms sets it, as the whole
 * test's length divided by the descriptor's duration_parts. */
#define RTG_OPT_DURATION 4u
/* The longest a duration test may measure: 7 days, a week-long sign-off. */
#define RTG_DURATION_MAX_MS 604800000.0

struct rtg_option {
    const char *key;
    enum rtg_opt_type type;
    double def;         /* default (INT, FLOAT) */
    double quick;       /* default under --quick; 0 = same as def */
    double min, max;    /* inclusive limits (INT, FLOAT) */
    const char *choices; /* ENUM: comma-separated, the first is the default */
    unsigned flags;
    const char *help;
};

struct rtg_ctx;

struct rtg_test_desc {
    const char *id;    /* FAMILY-KIND-NAME */
    const char *title;
    char kind;         /* 'B', 'P' or 'S' */
    const struct rtg_option *options;
    size_t n_options;
    /* Runs isolated from the runner, as the port isolates a test
     * (rtg/osal_isolate.h): a forked child process on POSIX, a thread of
     * its own on c11, a fresh task on FreeRTOS. It may share the runner's
     * address space or not, so it relies on neither. Returns 0, or -1
     * after rtg_fail_error/skip. */
    int (*run)(struct rtg_ctx *ctx);
    /* Watchdog bound in seconds for these options; NULL: 30 s. */
    double (*bound_s)(const struct rtg_ctx *ctx);
    /* Non-NULL when this target cannot run the test: why. */
    const char *unavailable;
    /* What the OSAL must offer (enum rtg_offer bits) for the test to run. */
    unsigned needs;
    /* The file that defines the test, relative to the source tree
     * ("core/catalogue/thr/thr_p_sus.c"): set it to __FILE__ (the build maps
     * the source directory away). Shown by --list. */
    const char *source;
    /* Which figures are latencies from a release instant (a timer expiry,
     * an interrupt, a higher-priority thread made ready): the start of
     * their names, or NULL when none is. The host judges these against a
     * deadline; a test whose every figure is one is a latency test and also
     * gets a pWCET estimate. --list-json and the test record carry it. */
    const char *release_latency;
    /* Non-NULL when this test's figures are not explained by a flight
     * recorder of its own (docs/recorder.md): why, in the record. */
    const char *not_explained;
    /* The flight recorder runs for this test though release_latency names
     * none of its figures: it explains calls (rtg_metric_explain_call), or
     * wake-ups the host does not judge against a deadline. */
    bool recorded;
    /* A duration test (an option flagged RTG_OPT_DURATION): how many times
     * that option's value the test measures (its phases); 0 means 1. */
    unsigned duration_parts;
};

#define RTG_OPTIONS(arr) (arr), (sizeof(arr) / sizeof((arr)[0]))
#define RTG_NO_OPTIONS NULL, 0

/* ---- options and run parameters ---- */
int64_t rtg_opt_int(const struct rtg_ctx *ctx, const char *key);
double rtg_opt_float(const struct rtg_ctx *ctx, const char *key);
const char *rtg_opt_enum(const struct rtg_ctx *ctx, const char *key);
bool rtg_quick(const struct rtg_ctx *ctx);
/* CPUs selected with --cpus (or all usable ones), in increasing order. */
size_t rtg_cpu_count(const struct rtg_ctx *ctx);
int rtg_cpu_at(const struct rtg_ctx *ctx, size_t i);
/* The real-time priority tests run at (--prio), and whether SCHED_FIFO was
 * obtained for this test; when not, threads run SCHED_OTHER and say so. */
int rtg_prio(const struct rtg_ctx *ctx);
bool rtg_rt_ok(const struct rtg_ctx *ctx);
/* rtg_stop_requested() (rtg/stop.h): set by SIGINT/SIGTERM or the time
 * limit; loops must check it and stop, keeping what they measured. */
/* A duration test's planned length in ms (its RTG_OPT_DURATION option times
 * its duration_parts); 0 for a test without one. */
double rtg_planned_ms(const struct rtg_ctx *ctx);
/* Nanoseconds since this test started (CLOCK_MONOTONIC). */
uint64_t rtg_test_elapsed_ns(const struct rtg_ctx *ctx);

/* ---- results ---- */
/* A new figure set; the name is printf-formatted. NULL on out-of-memory. */
struct rtg_metric *rtg_metric_new(struct rtg_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Marks m as a figure whose worst samples the flight recorder explains
 * (docs/recorder.md, "What a test must do"): each interval must run from
 * a release instant to the moment the thread whose wake-up it measures ran,
 * both from rtg_mono_ns(), and be recorded by that thread right away. A
 * no-op where the run records nothing. */
void rtg_metric_explain(struct rtg_ctx *ctx, struct rtg_metric *m);
/* The calling thread as the recorder names it (0 when none runs): for a
 * figure recorded later by another thread, rtg_metric_interval_of (rtg/metric.h). */
int32_t rtg_explain_tid(struct rtg_ctx *ctx);
/* The recorder keeps every event from now on, as far as its memory for it
 * allows, for figures offered long after their samples ended (CLK-P-DUR's
 * gaps, classified once its loop has ended); a no-op without a recorder. */
void rtg_explain_hold(struct rtg_ctx *ctx);
/* The same for a figure whose samples are the thread's own call, from its
 * start to its return (fork, malloc, a send): explained by what ran on its
 * CPU meanwhile. The test's descriptor sets `recorded`. */
void rtg_metric_explain_call(struct rtg_ctx *ctx, struct rtg_metric *m);
/* The rule a verdict checks and where it is written: name is "POSIX", an
 * OS whose own documentation states it ("Linux"), or "rtgauge" where no
 * standard says (the catalogue's own criterion); clause is where, and what
 * it says. The host shows it beside the verdict, and a failed verdict whose
 * OS documents the behaviour seen is told apart from a failure there. */
struct rtg_standard {
    const char *name;
    const char *clause;
};

/* A verdict against std; evidence is a JSON value written by an rtg_json,
 * or NULL. */
void rtg_verdict(struct rtg_ctx *ctx, const struct rtg_standard *std, const char *name, bool pass,
                 const char *expected, const char *observed, const struct rtg_json *evidence);
/* The same, naming in one word what was seen ("head", "tail"): the host
 * matches it against an OS's documented behaviour, so a failure differing
 * from the standard in another way stays a failure. */
void rtg_verdict_seen(struct rtg_ctx *ctx, const struct rtg_standard *std, const char *name,
                      bool pass, const char *seen, const char *expected, const char *observed,
                      const struct rtg_json *evidence);
/* Free-form facts about the run (an open JSON object: add keys). */
struct rtg_json *rtg_info(struct rtg_ctx *ctx);
/* Array of series objects (latency over time); add whole objects. */
struct rtg_json *rtg_series(struct rtg_ctx *ctx);
/* End the test as error / skipped with a printf-formatted reason; return -1. */
int rtg_fail_error(struct rtg_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rtg_skip(struct rtg_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record that a condition weakened the figures ("ran without SCHED_FIFO"). */
void rtg_note(struct rtg_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- a test that reruns other tests' bodies (THR-P-WKL) ----
 * Runs part's body inside this test: part's option defaults (--quick,
 * --duration-scale and --opt of part's id apply), this test's conditions.
 * Its figure sets join this test's with "." suffix appended to each name,
 * its notes and verdicts join this test's, its info goes under
 * info["<part id>.<suffix>"]. Returns 0, or -1 after ending this test as
 * the part ended (error or skipped, the reason naming the part). */
int rtg_run_part(struct rtg_ctx *ctx, const struct rtg_test_desc *part, const char *suffix);
/* This test's i-th figure set so far (in creation order), NULL past the end. */
const struct rtg_metric *rtg_metric_at(const struct rtg_ctx *ctx, size_t i);

#endif
