/* Command-line parsing: pure, so it can be unit-tested and fuzzed. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg_private/config.h"
#include "rtg/osal_trace.h"
#include "rtg_private/ctx.h"
#include "rtg/osal.h"
#include "rtg_private/registry.h"

static int fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return 2;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno)
        return -1;
    *out = v;
    return 0;
}

/* "0,2-3" into a sorted list without duplicates. */
static int parse_cpus(const char *s, struct rtg_config *cfg, char *err, size_t n)
{
    int ncpu = rtg_cpu_count_configured();
    char seen[RTG_MAX_CPUS] = {0};
    const char *p = s;
    if (!*s)
        return fail(err, n, "--cpus: empty CPU list");
    while (*p) {
        char *end;
        errno = 0;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || errno || a < 0)
            return fail(err, n, "--cpus: '%s' is not a CPU list like 0,2-3", s);
        p = end;
        if (*p == '-') {
            const char *q = p + 1;
            b = strtol(q, &end, 10);
            if (end == q || errno || b < a)
                return fail(err, n, "--cpus: '%s' is not a CPU list like 0,2-3", s);
            p = end;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return fail(err, n, "--cpus: '%s' is not a CPU list like 0,2-3", s);
        for (long c = a; c <= b; c++) {
            if (c >= ncpu || c >= RTG_MAX_CPUS)
                return fail(err, n, "--cpus: CPU %ld does not exist (this system has %d)", c, ncpu);
            if (!rtg_cpu_usable((int)c))
                return fail(err, n, "--cpus: CPU %ld is not available to this process", c);
            seen[c] = 1;
        }
    }
    cfg->n_cpus = 0;
    for (int c = 0; c < RTG_MAX_CPUS; c++)
        if (seen[c])
            cfg->cpus[cfg->n_cpus++] = c;
    return 0;
}

static int parse_override(const char *s, struct rtg_config *cfg, char *err, size_t n)
{
    const char *dot = strchr(s, '.'), *eq = strchr(s, '=');
    if (!dot || !eq || dot > eq || dot == s || eq == dot + 1)
        return fail(err, n, "--opt: '%s' is not of the form ID.key=value", s);
    if (cfg->n_overrides >= RTG_MAX_OVERRIDES)
        return fail(err, n, "--opt: more than %d options", RTG_MAX_OVERRIDES);
    struct rtg_override *o = &cfg->overrides[cfg->n_overrides];
    size_t idl = (size_t)(dot - s), keyl = (size_t)(eq - dot - 1), vall = strlen(eq + 1);
    if (idl >= sizeof o->id || keyl >= sizeof o->key || vall >= sizeof o->value || vall == 0)
        return fail(err, n, "--opt: '%s' is too long or has no value", s);
    memcpy(o->id, s, idl);
    o->id[idl] = '\0';
    memcpy(o->key, dot + 1, keyl);
    o->key[keyl] = '\0';
    memcpy(o->value, eq + 1, vall + 1);
    cfg->n_overrides++;
    return 0;
}

void rtg_cli_usage(FILE *out)
{
    fputs("usage: rtgauge-probe [--list | --list-json] [--tests ID,ID|GLOB] [--quick]\n"
          "                     [--duration-scale X] [--duration-ms N] [--interval-ms N]\n"
          "                     [--cpus LIST] [--prio N] [--no-rt]\n"
          "                     [--opt ID.key=value ...] [--clock auto|posix] [--out FILE|-]\n"
          "                     [--no-explain] [--explain-keep K] [--explain-floor-us X]\n"
          "                     [--explain-lookback-us X] [--explain-buffer-kb N]\n"
          "                     [--explain-events N] [--explain-figures N]\n"
          "       rtgauge-probe --facts [--cpus LIST] [--out FILE|-]\n"
          "Runs real-time behaviour and performance tests; writes JSON lines\n"
          "(schema/result-v1.json). --facts runs none: the system's facts only, read\n"
          "before and after a 1 s window. Exit: 0 all ran, 1 a verdict failed, 2 bad\n"
          "usage, 3 a test errored, was stopped by the watchdog or the run was interrupted.\n",
          out);
}

/* The value of "--name value" or "--name=value". */
static const char *value_of(int argc, char **argv, int *i, const char *arg, size_t namelen)
{
    if (arg[namelen] == '=')
        return arg + namelen + 1;
    if (*i + 1 < argc)
        return argv[++*i];
    return NULL;
}

/* Messages echo what the user typed: keep them one printable line. */
static int one_line(int rc, char *err)
{
    for (char *p = err; rc && *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
            *p = '?';
    return rc;
}

static int parse_args(int argc, char **argv, struct rtg_config *cfg, char *err, size_t n);

int rtg_cli_parse(int argc, char **argv, struct rtg_config *cfg, char *err, size_t n)
{
    return one_line(parse_args(argc, argv, cfg, err, n), err);
}

static int parse_args(int argc, char **argv, struct rtg_config *cfg, char *err, size_t n)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mode = RTG_MODE_RUN;
    cfg->scale = 1.0;
    cfg->interval_ms = -1;
    /* 95, or below the watchdog's level where the OS offers fewer (a lean
     * FreeRTOS firmware: 1..30). */
    int fifo_max = rtg_prio_max(RTG_SCHED_FIFO);
    cfg->prio = fifo_max > 96 || fifo_max < 2 ? 95 : fifo_max - 1;
    cfg->explain = (struct rtg_explain_config){.keep = 3,
                                               .figures = RTG_TRACE_SLOTS_MAX - RTG_TRACE_KEEP_MAX,
                                               .lookback_ns = 1000000u,
                                               .buffer_kb = 512,
                                               .max_events = 1000};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        size_t namelen = eq ? (size_t)(eq - a) : strlen(a);
#define IS(name) (namelen == sizeof(name) - 1 && strncmp(a, name, namelen) == 0)
#define VALUE()                                                                        \
    const char *v = value_of(argc, argv, &i, a, namelen);                              \
    if (!v)                                                                            \
        return fail(err, n, "%.*s needs a value", (int)namelen, a);
        if (IS("--list") && !eq) {
            cfg->mode = RTG_MODE_LIST;
        } else if (IS("--list-json") && !eq) {
            cfg->mode = RTG_MODE_LIST_JSON;
        } else if (IS("--facts") && !eq) {
            cfg->mode = RTG_MODE_FACTS;
        } else if ((IS("--help") || IS("-h")) && !eq) {
            cfg->mode = RTG_MODE_HELP;
        } else if (IS("--version") && !eq) {
            cfg->mode = RTG_MODE_VERSION;
        } else if (IS("--quick") && !eq) {
            cfg->quick = true;
        } else if (IS("--no-rt") && !eq) {
            cfg->no_rt = true;
        } else if (IS("--tests")) {
            VALUE();
            if (!*v)
                return fail(err, n, "--tests: empty test list");
            cfg->tests = v;
        } else if (IS("--duration-scale")) {
            VALUE();
            if (parse_double(v, &cfg->scale) || cfg->scale < 0.01 || cfg->scale > 100)
                return fail(err, n, "--duration-scale: '%s' is not a number in 0.01..100", v);
        } else if (IS("--duration-ms")) {
            VALUE();
            if (parse_double(v, &cfg->duration_ms) || cfg->duration_ms < 100 ||
                cfg->duration_ms > RTG_DURATION_MAX_MS)
                return fail(err, n, "--duration-ms: '%s' is not a number in 100..%.0f", v,
                            RTG_DURATION_MAX_MS);
        } else if (IS("--interval-ms")) {
            VALUE();
            if (parse_double(v, &cfg->interval_ms) ||
                (cfg->interval_ms != 0 && cfg->interval_ms < RTG_INTERVAL_MIN_MS) ||
                cfg->interval_ms > RTG_DURATION_MAX_MS)
                return fail(err, n, "--interval-ms: '%s' is not 0 (none) or a number in %.0f..%.0f",
                            v, RTG_INTERVAL_MIN_MS, RTG_DURATION_MAX_MS);
        } else if (IS("--cpus")) {
            VALUE();
            if (parse_cpus(v, cfg, err, n))
                return 2;
        } else if (IS("--prio")) {
            VALUE();
            long p;
            int hi = rtg_prio_max(RTG_SCHED_FIFO) - 1, lo = rtg_prio_min(RTG_SCHED_FIFO);
            if (hi < lo)
                return fail(err, n, "--prio: this OS (%s OSAL) offers no real-time priorities",
                            RTG_OSAL_NAME);
            if (parse_long(v, &p) || p < lo || p > hi)
                return fail(err, n,
                            "--prio: '%s' is outside %d..%d (SCHED_FIFO's range; the highest "
                            "priority is kept for the watchdog)",
                            v, lo, hi);
            cfg->prio = (int)p;
        } else if (IS("--opt")) {
            VALUE();
            if (parse_override(v, cfg, err, n))
                return 2;
        } else if (IS("--out")) {
            VALUE();
            if (!*v)
                return fail(err, n, "--out: empty file name");
            cfg->out = v;
        } else if (IS("--no-explain") && !eq) {
            cfg->explain.off = true;
        } else if (IS("--explain-keep")) {
            VALUE();
            long k;
            if (parse_long(v, &k) || k < 1 || k > RTG_TRACE_KEEP_MAX)
                return fail(err, n, "--explain-keep: '%s' is outside 1..%d", v, RTG_TRACE_KEEP_MAX);
            cfg->explain.keep = (unsigned)k;
        } else if (IS("--explain-figures")) {
            VALUE();
            long f;
            int most = RTG_TRACE_SLOTS_MAX - RTG_TRACE_KEEP_MAX;
            if (parse_long(v, &f) || f < 0 || f > most)
                return fail(err, n, "--explain-figures: '%s' is outside 0..%d", v, most);
            cfg->explain.figures = (unsigned)f;
        } else if (IS("--explain-floor-us")) {
            VALUE();
            double us;
            if (parse_double(v, &us) || us < 0 || us > 1e7)
                return fail(err, n, "--explain-floor-us: '%s' is not a number in 0..1e7", v);
            cfg->explain.floor_ns = (uint64_t)(us * 1000.0);
        } else if (IS("--explain-lookback-us")) {
            VALUE();
            double us;
            if (parse_double(v, &us) || us < 0 || us > 1e7)
                return fail(err, n, "--explain-lookback-us: '%s' is not a number in 0..1e7", v);
            cfg->explain.lookback_ns = (uint64_t)(us * 1000.0);
        } else if (IS("--explain-buffer-kb")) {
            VALUE();
            long kb;
            if (parse_long(v, &kb) || kb < 4 || kb > 1048576)
                return fail(err, n, "--explain-buffer-kb: '%s' is outside 4..1048576", v);
            cfg->explain.buffer_kb = (unsigned)kb;
        } else if (IS("--explain-events")) {
            VALUE();
            long ne;
            if (parse_long(v, &ne) || ne < 16 || ne > 100000)
                return fail(err, n, "--explain-events: '%s' is outside 16..100000", v);
            cfg->explain.max_events = (unsigned)ne;
        } else if (IS("--clock")) {
            VALUE();
            if (strcmp(v, "posix") == 0)
                cfg->posix_clock = true;
            else if (strcmp(v, "auto") != 0)
                return fail(err, n, "--clock: '%s' is not auto or posix", v);
        } else {
            return fail(err, n, "unknown argument '%s' (see --help)", a);
        }
#undef IS
#undef VALUE
    }
    if (cfg->n_cpus == 0) {
        int ncpu = rtg_cpu_count_configured();
        for (int c = 0; c < ncpu && c < RTG_MAX_CPUS; c++)
            if (rtg_cpu_usable(c))
                cfg->cpus[cfg->n_cpus++] = c;
        if (cfg->n_cpus == 0)
            cfg->cpus[cfg->n_cpus++] = 0;
    }
    return 0;
}

static void select_index(struct rtg_config *cfg, size_t idx)
{
    for (size_t i = 0; i < cfg->n_selected; i++)
        if (cfg->selected[i] == idx)
            return;
    if (cfg->n_selected < RTG_MAX_SELECTED)
        cfg->selected[cfg->n_selected++] = idx;
}

static int by_registry_order(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static int resolve(struct rtg_config *cfg, char *err, size_t n);

/* A shell-style pattern: '*' any run, '?' one character, "[...]" one of a
 * set or range ("[!...]" none of them), '\\' quotes the next character;
 * as fnmatch() without flags, in ISO C (the probe runs where there is no
 * POSIX library). */
static bool bracket_match(const char **pp, char c)
{
    const char *p = *pp + 1;
    bool negate = *p == '!' || *p == '^';
    if (negate)
        p++;
    bool hit = false;
    const char *first = p;
    while (*p && (*p != ']' || p == first)) {
        char lo = *p, hi = lo;
        if (p[1] == '-' && p[2] && p[2] != ']') {
            hi = p[2];
            p += 2;
        }
        if (lo <= c && c <= hi)
            hit = true;
        p++;
    }
    if (*p != ']')
        return false; /* unterminated: '[' is not special, handled by the caller */
    *pp = p + 1;
    return hit != negate;
}

static bool rtg_glob_match(const char *pat, const char *s)
{
    for (; *pat; s++) {
        switch (*pat) {
        case '*':
            while (*pat == '*')
                pat++;
            if (!*pat)
                return true;
            for (; *s; s++)
                if (rtg_glob_match(pat, s))
                    return true;
            return rtg_glob_match(pat, s);
        case '?':
            if (!*s)
                return false;
            pat++;
            break;
        case '[': {
            const char *close = strchr(pat + 2, ']');
            if (close) {
                if (!*s || !bracket_match(&pat, *s))
                    return false;
                break;
            }
            if (*s != '[')
                return false;
            pat++;
            break;
        }
        case '\\':
            if (pat[1])
                pat++;
            /* fall through */
        default:
            if (*s != *pat)
                return false;
            pat++;
            break;
        }
    }
    return !*s;
}

int rtg_cli_resolve(struct rtg_config *cfg, char *err, size_t n)
{
    return one_line(resolve(cfg, err, n), err);
}

static int resolve(struct rtg_config *cfg, char *err, size_t n)
{
    cfg->n_selected = 0;
    if (cfg->mode == RTG_MODE_FACTS) {
        /* No test runs: options of tests would be silently ignored. */
        if (cfg->tests || cfg->n_overrides || cfg->quick)
            return fail(err, n, "--facts runs no test: --tests, --opt and --quick do not apply");
        return 0;
    }
    if (!cfg->tests) {
        for (size_t i = 0; i < rtg_registry_len; i++)
            select_index(cfg, i);
    } else {
        char list[1024];
        if (strlen(cfg->tests) >= sizeof list)
            return fail(err, n, "--tests: list too long");
        strcpy(list, cfg->tests);
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
            size_t matched = 0;
            for (size_t i = 0; i < rtg_registry_len; i++) {
                if (rtg_glob_match(tok, rtg_registry[i]->id)) {
                    select_index(cfg, i);
                    matched++;
                }
            }
            if (!matched)
                return fail(err, n, "--tests: no test matches '%s' (see --list)", tok);
        }
        qsort(cfg->selected, cfg->n_selected, sizeof cfg->selected[0], by_registry_order);
    }
    for (size_t i = 0; i < cfg->n_overrides; i++) {
        const struct rtg_override *o = &cfg->overrides[i];
        const struct rtg_test_desc *d = rtg_registry_find(o->id);
        if (!d)
            return fail(err, n, "--opt: unknown test '%s' (see --list)", o->id);
        if (!rtg_test_option(d, o->key))
            return fail(err, n, "--opt: test %s has no option '%s' (see --list)", o->id, o->key);
        /* Values too: type, range, choices, before anything runs. */
        struct rtg_ctx ctx;
        if (rtg_ctx_init(&ctx, d, cfg, err, n))
            return 2;
        rtg_ctx_free(&ctx);
    }
    return 0;
}
