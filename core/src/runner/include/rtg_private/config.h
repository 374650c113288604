/* What the command line asked for, after validation. */
#ifndef RTG_CONFIG_H
#define RTG_CONFIG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A build for a small board may ask for less (-D): one CPU, fewer --opt. */
#ifndef RTG_MAX_CPUS
#define RTG_MAX_CPUS 1024
#endif
#ifndef RTG_MAX_OVERRIDES
#define RTG_MAX_OVERRIDES 64
#endif
#define RTG_MAX_SELECTED 256

struct rtg_override {
    char id[32];
    char key[48];
    char value[64];
};

/* RTG_MODE_FACTS: a run of no test, the system's facts only (the system
 * record, an observation window, the end record with the end's facts):
 * what `rtgauge check` asks of any target. */
enum rtg_mode {
    RTG_MODE_RUN,
    RTG_MODE_FACTS,
    RTG_MODE_LIST,
    RTG_MODE_LIST_JSON,
    RTG_MODE_HELP,
    RTG_MODE_VERSION
};
/* How long --facts watches the system between its two readings (IRQ
 * counts, steal time): long enough to see a periodic interrupt fire. */
#define RTG_FACTS_WINDOW_MS 1000

/* The flight recorder's settings (--no-explain, --explain-*). */
struct rtg_explain_config {
    bool off;
    unsigned keep;
    unsigned figures; /* figures whose worst sample is kept besides the K worst */
    uint64_t floor_ns, lookback_ns;
    unsigned buffer_kb, max_events;
};

/* Without --interval-ms: a test planned longer than this writes interval
 * records every RTG_INTERVAL_DEFAULT_MS, a shorter one none. */
#define RTG_INTERVAL_AFTER_MS 600000.0
#define RTG_INTERVAL_DEFAULT_MS 300000.0
#define RTG_INTERVAL_MIN_MS 100.0

struct rtg_config {
    enum rtg_mode mode;
    const char *tests;  /* comma-separated ids or globs; NULL: all */
    bool quick;
    double scale;       /* --duration-scale */
    double duration_ms; /* --duration-ms: each duration test's whole length; 0: its own */
    double interval_ms; /* --interval-ms: 0 none, < 0 the default (RTG_INTERVAL_*) */
    int cpus[RTG_MAX_CPUS];
    size_t n_cpus;      /* 0: every CPU the process may use */
    int prio;
    const char *out;    /* NULL or "-": stdout */
    bool no_rt;         /* --no-rt: run SCHED_OTHER on purpose */
    bool posix_clock;   /* --clock posix */
    struct rtg_explain_config explain;
    struct rtg_override overrides[RTG_MAX_OVERRIDES];
    size_t n_overrides;
    /* resolved by the registry: indexes of the selected tests */
    size_t selected[RTG_MAX_SELECTED];
    size_t n_selected;
};

/* Parses argv into cfg. Returns 0, or 2 with a one-line message in err.
 * Pure apart from reading the CPU count; no test runs. */
int rtg_cli_parse(int argc, char **argv, struct rtg_config *cfg, char *err, size_t errlen);
/* Checks test patterns and every --opt (test, key, value) against the
 * registry and fills cfg->selected. Returns 0 or 2 with a message. */
int rtg_cli_resolve(struct rtg_config *cfg, char *err, size_t errlen);
void rtg_cli_usage(FILE *out);

#endif
