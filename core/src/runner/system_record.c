/* The system record, every key of it written here once: the probe's own
 * facts (version, build, run, clock calibration, privileges) and the
 * target's, which the port hands over as plain values (rtg/osal_sys.h).
 * Every fact the port cannot read is null: never a guess. Portable C. */
#include "rtg_private/system_record.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg_private/registry.h"
#include "rtg_private/version.h"

void rtg_privileges_probe(const struct rtg_config *cfg, struct rtg_privileges *p)
{
    rtg_sys_privileges(cfg->prio, cfg->no_rt, cfg->cpus[0], p);
}

/* ---- one fact: its value, or null when the port could not read it ---- */
static void k_text(struct rtg_json *j, const char *key, const struct rtg_sys_text *t)
{
    rtg_json_kstr(j, key, t->known ? t->v : NULL);
}

/* A string every record has: "unknown" rather than null. */
static void k_text_always(struct rtg_json *j, const char *key, const struct rtg_sys_text *t)
{
    rtg_json_kstr(j, key, t->known ? t->v : "unknown");
}

static void k_int(struct rtg_json *j, const char *key, const struct rtg_sys_int *v)
{
    if (v->known)
        rtg_json_kint(j, key, v->v);
    else
        rtg_json_knull(j, key);
}

static void k_num(struct rtg_json *j, const char *key, const struct rtg_sys_num *v)
{
    if (v->known)
        rtg_json_knum(j, key, v->v);
    else
        rtg_json_knull(j, key);
}

static void k_bool(struct rtg_json *j, const char *key, const struct rtg_sys_bool *v)
{
    if (v->known)
        rtg_json_kbool(j, key, v->v);
    else
        rtg_json_knull(j, key);
}

/* ---- the port's named facts (struct rtg_sys_extra) ---- */

/* The record's own keys: a named fact may go inside the first five
 * (HOSTING_GROUPS); the others are the probe's, and a fact naming one is
 * left out. A fact of any other group is in an object of its own. */
static const char *const record_groups[] = {"host", "kernel", "cpu", "clock", "virtualization",
                                            "record", "schema_version", "probe", "started_at",
                                            "privileges", "run", "warnings"};
enum { IN_HOST, IN_KERNEL, IN_CPU, IN_CLOCK, IN_VIRTUALIZATION, HOSTING_GROUPS };
#define OWN_GROUP (-1)

static size_t first_segment(const char *path)
{
    return strcspn(path, ".");
}

/* Where a named fact goes: the index of its record group in record_groups
 * (a hosting one, and a key inside it), OWN_GROUP, or LEFT_OUT. */
#define LEFT_OUT (-2)
static int fact_place(const char *path)
{
    if (!path || !*path)
        return LEFT_OUT;
    size_t l = first_segment(path);
    for (size_t i = 0; i < sizeof record_groups / sizeof record_groups[0]; i++)
        if (strlen(record_groups[i]) == l && strncmp(path, record_groups[i], l) == 0)
            return i < HOSTING_GROUPS && path[l] == '.' && path[l + 1] ? (int)i : LEFT_OUT;
    return OWN_GROUP;
}

static void fact_value(struct rtg_json *j, const char *key, const struct rtg_sys_fact *f)
{
    switch (f->type) {
    case RTG_FACT_BOOL: rtg_json_kbool(j, key, f->v.b); break;
    case RTG_FACT_INT: rtg_json_kint(j, key, f->v.i); break;
    case RTG_FACT_UINT: rtg_json_kuint(j, key, f->v.u); break;
    case RTG_FACT_NUM: rtg_json_knum(j, key, f->v.d); break;
    case RTG_FACT_TEXT: rtg_json_kstr(j, key, f->text); break;
    default: rtg_json_knull(j, key); break;
    }
}

#define PATH_DEPTH 8
#define SEGMENT_MAX 64

/* Whether path's first segment is name. */
static bool in_object(const char *path, const char *name)
{
    size_t l = first_segment(path);
    return strlen(name) == l && strncmp(path, name, l) == 0 && path[l] == '.' && path[l + 1];
}

/* Writes into the open object j the facts of the record group group
 * (their path without "group."), or, with OWN_GROUP, the facts of groups
 * of their own, each group an object (only those of the group `only`
 * when it is not NULL). The objects a path names are opened and closed as
 * consecutive paths go. */
static void write_facts(struct rtg_json *j, const struct rtg_sys_extra *x, int group,
                        const char *only)
{
    char open[PATH_DEPTH][SEGMENT_MAX];
    size_t depth = 0;
    for (size_t i = 0; i < x->n; i++) {
        const struct rtg_sys_fact *f = &x->facts[i];
        if (fact_place(f->path) != group || (only && !in_object(f->path, only)))
            continue;
        const char *rel = f->path;
        if (group != OWN_GROUP)
            rel += first_segment(rel) + 1;
        char seg[PATH_DEPTH][SEGMENT_MAX];
        size_t n = 0;
        while (n < PATH_DEPTH) {
            size_t l = first_segment(rel);
            snprintf(seg[n++], SEGMENT_MAX, "%.*s", (int)l, rel);
            if (!rel[l])
                break;
            rel += l + 1;
        }
        size_t same = 0;
        while (same < depth && same + 1 < n && strcmp(open[same], seg[same]) == 0)
            same++;
        for (; depth > same; depth--)
            rtg_json_obj_end(j);
        for (; depth + 1 < n; depth++) {
            rtg_json_key(j, seg[depth]);
            rtg_json_obj_begin(j);
            memcpy(open[depth], seg[depth], SEGMENT_MAX);
        }
        fact_value(j, seg[n - 1], f);
    }
    for (; depth > 0; depth--)
        rtg_json_obj_end(j);
}

/* Facts the record does not show: beyond the list, or naming one of the
 * probe's own objects. */
static size_t facts_left_out(const struct rtg_sys_extra *x)
{
    size_t n = x->dropped;
    for (size_t i = 0; i < x->n; i++)
        if (fact_place(x->facts[i].path) == LEFT_OUT)
            n++;
    return n;
}

/* ---- the record's parts ---- */
static void emit_probe(struct rtg_json *j, int argc, char **argv)
{
    rtg_json_key(j, "probe");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "version", RTG_VERSION);
    rtg_json_key(j, "argv");
    rtg_json_arr_begin(j);
    for (int i = 0; i < argc; i++)
        rtg_json_str(j, argv[i]);
    rtg_json_arr_end(j);
    rtg_json_key(j, "build");
    rtg_json_obj_begin(j);
#if defined(__clang__)
    rtg_json_kstr(j, "compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
    rtg_json_kstr(j, "compiler", "gcc " __VERSION__);
#else
    rtg_json_kstr(j, "compiler", "unknown");
#endif
#if defined(__GLIBC__)
    rtg_json_kstr(j, "libc", "glibc");
#elif defined(_NEWLIB_VERSION)
    rtg_json_kstr(j, "libc", "newlib " _NEWLIB_VERSION);
#else
    rtg_json_kstr(j, "libc", "musl or other");
#endif
    rtg_json_kbool(j, "static", RTG_STATIC_BUILD);
    rtg_json_kstr(j, "arch", RTG_ARCH);
    rtg_json_kbool(j, "test_hooks", RTG_TEST_HOOKS);
    rtg_json_kstr(j, "osal", RTG_OSAL_NAME);
    rtg_json_obj_end(j);
    rtg_json_obj_end(j);
}

static void emit_host(struct rtg_json *j, const struct rtg_sys_facts *f)
{
    const struct rtg_sys_host *h = &f->host;
    rtg_json_key(j, "host");
    rtg_json_obj_begin(j);
    k_text_always(j, "hostname", &h->hostname);
    k_text_always(j, "os", &h->os);
    k_text(j, "os_pretty_name", &h->os_pretty_name);
    k_text_always(j, "release", &h->release);
    k_text_always(j, "version", &h->version);
    k_text_always(j, "machine", &h->machine);
    write_facts(j, &f->extra, IN_HOST, NULL);
    rtg_json_obj_end(j);
}

static void emit_kernel(struct rtg_json *j, const struct rtg_sys_facts *f)
{
    const struct rtg_sys_kernel *k = &f->kernel;
    rtg_json_key(j, "kernel");
    rtg_json_obj_begin(j);
    k_text(j, "preempt_model", &k->preempt_model);
    k_bool(j, "preempt_dynamic", &k->preempt_dynamic);
    k_text(j, "preempt_source", &k->preempt_source);
    k_bool(j, "realtime", &k->realtime);
    k_int(j, "hz_config", &k->hz_config);
    k_num(j, "hz_measured", &k->hz_measured);
    k_text(j, "cmdline", &k->cmdline);
    k_text(j, "isolcpus", &k->isolcpus);
    k_text(j, "nohz_full", &k->nohz_full);
    k_int(j, "rt_runtime_us", &k->rt_runtime_us);
    k_int(j, "rt_period_us", &k->rt_period_us);
    write_facts(j, &f->extra, IN_KERNEL, NULL);
    rtg_json_obj_end(j);
    write_facts(j, &f->extra, OWN_GROUP, NULL); /* "rtos", "audit": beside "kernel" */
}

static void emit_cpu(struct rtg_json *j, const struct rtg_config *cfg,
                     const struct rtg_sys_facts *f)
{
    rtg_json_key(j, "cpu");
    rtg_json_obj_begin(j);
    k_text(j, "model", &f->cpu.model);
    rtg_json_kint(j, "online", f->cpu.online);
    rtg_json_kint(j, "configured", f->cpu.configured);
    k_text(j, "governor", &f->cpu.governor);
    write_facts(j, &f->extra, IN_CPU, NULL);
    rtg_json_key(j, "selected");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < cfg->n_cpus; i++)
        rtg_json_int(j, cfg->cpus[i]);
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);
}

/* The cost of two back-to-back reads of the measuring clock. */
static void floor_stats(struct rtg_json *j)
{
    uint64_t mn = UINT64_MAX, mx = 0;
    double sum = 0;
    const int n = 20000;
    for (int i = 0; i < n; i++) {
        uint64_t a = rtg_clock_ticks();
        uint64_t b = rtg_clock_ticks();
        uint64_t d = rtg_clock_delta_ns(a, b);
        if (d < mn)
            mn = d;
        if (d > mx)
            mx = d;
        sum += (double)d;
    }
    rtg_json_key(j, "floor_ns");
    rtg_json_obj_begin(j);
    rtg_json_kint(j, "count", n);
    rtg_json_kuint(j, "min", mn);
    rtg_json_knum(j, "mean", sum / n);
    rtg_json_kuint(j, "max", mx);
    rtg_json_obj_end(j);
}

static void emit_clock(struct rtg_json *j, const struct rtg_sys_facts *f)
{
    rtg_json_key(j, "clock");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "source", rtg_clock_source_name());
    k_text(j, "kernel_clocksource", &f->clock.kernel_clocksource);
    write_facts(j, &f->extra, IN_CLOCK, NULL);
    rtg_json_knum(j, "freq_hz", rtg_clock_g.freq_hz);
    rtg_json_knum(j, "calibration_error_ppm", rtg_clock_g.calibration_error_ppm);
    floor_stats(j);
    rtg_json_obj_end(j);
}

static void emit_privileges(struct rtg_json *j, const struct rtg_config *cfg,
                            const struct rtg_privileges *p)
{
    rtg_json_key(j, "privileges");
    rtg_json_obj_begin(j);
    rtg_json_kint(j, "euid", (int64_t)p->euid);
    rtg_json_kbool(j, "sched_fifo", p->sched_fifo);
    rtg_json_kstr(j, "sched_fifo_reason", p->sched_fifo ? NULL : p->sched_fifo_reason);
    rtg_json_kbool(j, "mlockall", p->mlockall);
    rtg_json_kstr(j, "mlockall_reason", p->mlockall ? NULL : p->mlockall_reason);
    rtg_json_kbool(j, "affinity", p->affinity);
    rtg_json_kbool(j, "cpu_dma_latency", p->cpu_dma_latency);
    rtg_json_kint(j, "prio", p->sched_fifo ? cfg->prio : 0);
    rtg_json_obj_end(j);
}

static void emit_virtualization(struct rtg_json *j, const struct rtg_sys_facts *f, bool virt)
{
    char vendor[512];
    rtg_json_key(j, "virtualization");
    rtg_json_obj_begin(j);
    rtg_json_kbool(j, "hypervisor", virt);
    rtg_sys_hypervisor_vendor(vendor, sizeof vendor);
    rtg_json_kstr(j, "vendor", vendor[0] ? vendor : NULL);
    rtg_json_kbool(j, "emulated", rtg_sys_emulated());
    write_facts(j, &f->extra, IN_VIRTUALIZATION, NULL);
    rtg_json_obj_end(j);
}

static void emit_run(struct rtg_json *j, const struct rtg_config *cfg)
{
    rtg_json_key(j, "run");
    rtg_json_obj_begin(j);
    rtg_json_kbool(j, "quick", cfg->quick);
    rtg_json_knum(j, "duration_scale", cfg->scale);
    rtg_json_key(j, "tests");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < cfg->n_selected; i++)
        rtg_json_str(j, rtg_registry[cfg->selected[i]]->id);
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);
}

static void emit_warnings(struct rtg_json *j, const struct rtg_privileges *p, bool virt,
                          const struct rtg_sys_facts *f)
{
    rtg_json_key(j, "warnings");
    rtg_json_arr_begin(j);
    if (!p->sched_fifo)
        rtg_json_str(j, "not SCHED_FIFO: threads ran SCHED_OTHER, figures are not real-time");
    if (!p->mlockall)
        rtg_json_str(j, "no mlockall: page faults may appear in the figures");
    if (rtg_sys_emulated())
        rtg_json_str(j, "emulated CPU (QEMU TCG): timings are not meaningful; behaviour verdicts are valid");
    else if (virt)
        rtg_json_str(j, "virtual machine: the hypervisor can steal time from any measurement");
    if (rtg_clock_g.source == RTG_CLOCK_POSIX)
        rtg_json_str(j, "no invariant hardware counter: timed with clock_gettime");
    for (size_t i = 0; i < f->warnings.n; i++)
        rtg_json_str(j, f->warnings.text[i]);
    size_t left_out = facts_left_out(&f->extra);
    if (left_out) {
        char w[128];
        snprintf(w, sizeof w, "%zu system facts of the port are not in this record", left_out);
        rtg_json_str(j, w);
    }
    rtg_json_arr_end(j);
}

/* The civil calendar from days since 1970-01-01 (proleptic Gregorian, in
 * eras of 400 years: H. Hinnant's civil_from_days). In place of gmtime and
 * strftime, whose time zone and locale code is some 8 KiB of a static
 * probe for this one string. */
bool rtg_utc_format(int64_t t, char *out, size_t n)
{
    int64_t days = t / 86400, secs = t % 86400;
    if (secs < 0) {
        secs += 86400;
        days--;
    }
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;                                     /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);              /* [0, 365] */
    int64_t mp = (5 * doy + 2) / 153;                                   /* March first */
    int day = (int)(doy - (153 * mp + 2) / 5 + 1);
    int month = (int)(mp < 10 ? mp + 3 : mp - 9);
    int64_t year = yoe + era * 400 + (month <= 2);
    if (year - 1900 < INT_MIN || year - 1900 > INT_MAX) /* gmtime's EOVERFLOW */
        return false;
    int w = snprintf(out, n, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)year, month, day,
                     (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
    return w > 0 && (size_t)w < n;
}

void rtg_system_record_write(struct rtg_json *j, int argc, char **argv,
                             const struct rtg_config *cfg, const struct rtg_privileges *p,
                             const struct rtg_sys_facts *f)
{
    char started[64];
    time_t now = time(NULL); /* (time_t)-1 on a board without a clock of the day */
    if (now == (time_t)-1 || !rtg_utc_format((int64_t)now, started, sizeof started))
        started[0] = '\0';
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "record", "system");
    rtg_json_kint(j, "schema_version", RTG_SCHEMA_VERSION);
    emit_probe(j, argc, argv);
    rtg_json_kstr(j, "started_at", started);
    emit_host(j, f);
    emit_kernel(j, f);
    emit_cpu(j, cfg, f);
    emit_clock(j, f);
    bool virt = rtg_sys_virtualized();
    emit_virtualization(j, f, virt);
    emit_privileges(j, cfg, p);
    emit_run(j, cfg);
    emit_warnings(j, p, virt, f);
    rtg_json_obj_end(j);
}

/* The target's facts, asked of the port once; static, as they are large
 * for a small task's stack. */
static struct rtg_sys_facts facts;

void rtg_system_record_emit(struct rtg_json *j, int argc, char **argv,
                            const struct rtg_config *cfg, const struct rtg_privileges *p)
{
    memset(&facts, 0, sizeof facts);
    rtg_sys_facts(cfg->cpus, cfg->n_cpus, &facts);
    rtg_system_record_write(j, argc, argv, cfg, p, &facts);
    rtg_sys_extra_free(&facts.extra);
}

void rtg_end_facts_write(struct rtg_json *j, const struct rtg_sys_extra *x)
{
    write_facts(j, x, OWN_GROUP, "audit");
}
