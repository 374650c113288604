/* The system facts' shapes (how rtg/osal_sys.h explains them), and the
 * helpers a port fills them with. In the base, below the OSAL: plain data
 * and ISO C, so the port calls down into them, never up into the probe. */
#ifndef RTG_SYS_FACTS_H
#define RTG_SYS_FACTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A longer text is cut (the kernel's cmdline). A build for a small board may
 * ask for shorter texts (-D): its facts are short, its RAM is not spare. */
#ifndef RTG_SYS_TEXT_MAX
#define RTG_SYS_TEXT_MAX 1024
#endif

/* One fact of each JSON type; known false (zero) writes null. */
struct rtg_sys_text {
    bool known;
    char v[RTG_SYS_TEXT_MAX]; /* may be known and empty ("" is a value) */
};
struct rtg_sys_int {
    bool known;
    int64_t v;
};
struct rtg_sys_num {
    bool known;
    double v;
};
struct rtg_sys_bool {
    bool known;
    bool v;
};

/* "host". The record always has these strings: an unknown one is written
 * "unknown". */
struct rtg_sys_host {
    struct rtg_sys_text hostname, os, release, version, machine;
    struct rtg_sys_text os_pretty_name; /* null when unknown */
};

/* "kernel". */
struct rtg_sys_kernel {
    struct rtg_sys_text preempt_model;  /* "rt", "full", "lazy", "voluntary", "none" */
    struct rtg_sys_bool preempt_dynamic;
    struct rtg_sys_text preempt_source; /* where the model was read */
    struct rtg_sys_bool realtime;
    struct rtg_sys_int hz_config;       /* the configured tick rate */
    struct rtg_sys_num hz_measured;     /* counted on the run's first CPU */
    struct rtg_sys_text cmdline, isolcpus, nohz_full;
    struct rtg_sys_int rt_runtime_us, rt_period_us; /* RT throttling */
};

/* "cpu" (the probe adds "selected"). online and configured are always
 * known: a port that cannot count says 1. */
struct rtg_sys_cpu {
    struct rtg_sys_text model;
    int64_t online, configured;
    struct rtg_sys_text governor;
};

/* "clock" (the probe adds its own clock's source and calibration). */
struct rtg_sys_clock {
    struct rtg_sys_text kernel_clocksource;
};

/* A named fact beyond the groups (see the top of this file). */
enum rtg_sys_fact_type {
    RTG_FACT_NULL,
    RTG_FACT_BOOL,
    RTG_FACT_INT,
    RTG_FACT_UINT,
    RTG_FACT_NUM,
    RTG_FACT_TEXT,
};
#define RTG_SYS_FACT_PATH_MAX 96
#ifndef RTG_SYS_FACT_TEXT_MAX
#define RTG_SYS_FACT_TEXT_MAX 256
#endif
struct rtg_sys_fact {
    /* Where it goes: object names and the key, joined by dots
     * ("rtos.config.configUSE_PREEMPTION", "audit.irqs.24.count"); copied,
     * so a port may build it. Facts of one object are listed together. */
    char path[RTG_SYS_FACT_PATH_MAX];
    enum rtg_sys_fact_type type;
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
    } v;
    char text[RTG_SYS_FACT_TEXT_MAX]; /* RTG_FACT_TEXT */
};
/* The list grows as facts are added (the Linux audit names hundreds: an
 * IRQ, an idle state of each measured CPU; an RTOS a few dozen), up to
 * RTG_SYS_EXTRA_MAX. A fact beyond it, one whose path is too long, or one
 * that cannot be allocated is counted in dropped, and the record says so.
 * A zeroed list is empty; rtg_sys_extra_free gives its memory back. */
#define RTG_SYS_EXTRA_MAX 8192
struct rtg_sys_extra {
    size_t n, cap;
    size_t dropped;
    struct rtg_sys_fact *facts;
};

/* The port's own warnings: what makes figures on this target less
 * trustworthy (Linux: frequency scaling). */
#define RTG_SYS_WARNINGS_MAX 8
struct rtg_sys_warnings {
    size_t n;
    char text[RTG_SYS_WARNINGS_MAX][256];
};

struct rtg_sys_facts {
    struct rtg_sys_host host;
    struct rtg_sys_kernel kernel;
    struct rtg_sys_cpu cpu;
    struct rtg_sys_clock clock;
    struct rtg_sys_extra extra;
    struct rtg_sys_warnings warnings;
};

/* Helpers for a port filling its facts (core/src/base/sys_facts.c): a text
 * that does not fit its field is cut. */
void rtg_sys_text_set(struct rtg_sys_text *t, const char *s);
/* Adds a named fact; NULL (and counted in dropped) when it cannot be
 * added. The rtg_sys_extra_* forms add one of each type (RTG_FACT_NULL: a
 * fact named but unknown, through rtg_sys_extra_add). */
struct rtg_sys_fact *rtg_sys_extra_add(struct rtg_sys_extra *x, const char *path,
                                       enum rtg_sys_fact_type type);
void rtg_sys_extra_text(struct rtg_sys_extra *x, const char *path, const char *s);
void rtg_sys_extra_bool(struct rtg_sys_extra *x, const char *path, bool v);
void rtg_sys_extra_int(struct rtg_sys_extra *x, const char *path, int64_t v);
void rtg_sys_extra_uint(struct rtg_sys_extra *x, const char *path, uint64_t v);
void rtg_sys_extra_num(struct rtg_sys_extra *x, const char *path, double v);
/* Gives the list's memory back; the list is empty (zeroed) after. */
void rtg_sys_extra_free(struct rtg_sys_extra *x);
/* Adds a warning; beyond RTG_SYS_WARNINGS_MAX, the rest are left out. */
void rtg_sys_warning(struct rtg_sys_warnings *w, const char *s);

#endif
