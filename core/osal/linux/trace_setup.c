/* The recorder's instances and tracepoints (trace_recorder.h): every
 * tracepoint a decoder was read for enabled in the instance, the mono
 * clock, buffers on the measured CPUs, tracing limited to them, and a ring
 * in user space for each. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace_recorder.h"

uint64_t rtg_tr_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- setting up ---- */

static int add_decoder(struct rtg_trace_port *t, const char *sys, const char *ev,
                       enum rtg_tev_kind kind, const char *vector)
{
    if (t->n_dec >= MAX_DECODERS)
        return ENOSPC;
    char rel[160], text[TEXT_MAX];
    snprintf(rel, sizeof rel, "events/%s/%s/format", sys, ev);
    if (rtg_tracefs_read(t->fs.root, rel, text, sizeof text) < 0)
        return ENOENT; /* this kernel has no such tracepoint */
    struct rtg_tp_decoder *d = &t->dec[t->n_dec];
    memset(d, 0, sizeof *d);
    if (rtg_fmt_parse(text, &d->fmt))
        return EINVAL;
    d->kind = kind;
    if (vector)
        snprintf(d->vector, sizeof d->vector, "%s", vector);
    t->n_dec++;
    return 0;
}

/* The decoders: the wanted tracepoints and every vector this kernel has. */
int rtg_tr_read_decoders(struct rtg_trace_port *t)
{
    for (size_t i = 0; i < rtg_tp_n_wanted; i++)
        add_decoder(t, rtg_tp_wanted[i].system, rtg_tp_wanted[i].event,
                    rtg_tp_wanted[i].kind, NULL);
    char p[RTG_TRACEFS_PATH + 32];
    snprintf(p, sizeof p, "%s/events/irq_vectors", t->fs.root);
    DIR *d = opendir(p);
    if (d) {
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            size_t l = strlen(e->d_name);
            bool entry = l > 6 && !strcmp(e->d_name + l - 6, "_entry");
            bool exit_ = l > 5 && !strcmp(e->d_name + l - 5, "_exit");
            if (!entry && !exit_)
                continue;
            char vec[RTG_TEV_NAME_MAX];
            size_t vl = l - (entry ? 6 : 5);
            if (vl >= sizeof vec)
                continue;
            memcpy(vec, e->d_name, vl);
            vec[vl] = '\0';
            add_decoder(t, "irq_vectors", e->d_name,
                        entry ? RTG_TEV_VEC_ENTRY : RTG_TEV_VEC_EXIT, vec);
        }
        closedir(d);
    }
    return t->n_dec > 0 ? 0 : ENOTSUP;
}

/* Enables in the instance the tracepoints on by default and every vector,
 * less those the development switch RTGAUGE_TRACE_OMIT names, plus those
 * RTGAUGE_TRACE_ADD names (a measurement of what each event costs,
 * bench/recorder_events.py; never set in use: an event left off is missing
 * from every window). */
static int enable_all(struct rtg_trace_port *t, const char *inst)
{
    const char *omit = getenv("RTGAUGE_TRACE_OMIT"), *add = getenv("RTGAUGE_TRACE_ADD");
    int enabled = 0;
    for (size_t i = 0; i < rtg_tp_n_wanted; i++) {
        const struct rtg_tp *w = &rtg_tp_wanted[i];
        bool on = w->on ? !rtg_tp_listed(omit, w->system, w->event)
                        : rtg_tp_listed(add, w->system, w->event);
        if (!on)
            continue;
        char rel[160];
        snprintf(rel, sizeof rel, "events/%s/%s/enable", rtg_tp_wanted[i].system,
                 rtg_tp_wanted[i].event);
        if (rtg_tracefs_write(inst, rel, "1") == 0)
            enabled++;
    }
    for (size_t i = 0; i < t->n_dec; i++) {
        const struct rtg_tp_decoder *d = &t->dec[i];
        if (d->kind != RTG_TEV_VEC_ENTRY && d->kind != RTG_TEV_VEC_EXIT)
            continue;
        char ev[RTG_TEV_NAME_MAX + 8], rel[160];
        snprintf(ev, sizeof ev, "%s_%s", d->vector,
                 d->kind == RTG_TEV_VEC_ENTRY ? "entry" : "exit");
        if (rtg_tp_listed(omit, "irq_vectors", ev))
            continue;
        snprintf(rel, sizeof rel, "events/irq_vectors/%s/enable", ev);
        if (rtg_tracefs_write(inst, rel, "1") == 0)
            enabled++;
    }
    return enabled > 0 ? 0 : ENOTSUP;
}

bool rtg_tr_measured(const struct rtg_trace_port *t, int cpu)
{
    for (size_t i = 0; i < t->cfg.n_cpus; i++)
        if (t->cpus[i] == cpu)
            return true;
    return false;
}

/* The CPU mask in tracing_cpumask's format: comma-separated 32-bit hex words. */
static void cpumask_text(const struct rtg_trace_port *t, char *out, size_t n)
{
    int maxcpu = 0;
    for (size_t i = 0; i < t->cfg.n_cpus; i++)
        if (t->cpus[i] > maxcpu)
            maxcpu = t->cpus[i];
    int words = maxcpu / 32 + 1;
    size_t k = 0;
    out[0] = '\0';
    for (int w = words - 1; w >= 0 && k + 10 < n; w--) {
        uint32_t bits = 0;
        for (int b = 0; b < 32; b++)
            if (rtg_tr_measured(t, w * 32 + b))
                bits |= 1u << b;
        k += (size_t)snprintf(out + k, n - k, "%s%08x", w == words - 1 ? "" : ",", bits);
    }
}

/* Each measured CPU's ring: room for as many pages as its kernel buffer
 * holds (at least 64), so what was read stays as long again. */
static int setup_rings(struct rtg_trace_port *t, char *why, size_t n)
{
    t->rings = calloc(t->cfg.n_cpus, sizeof *t->rings);
    if (!t->rings) {
        snprintf(why, n, "out of memory");
        return ENOMEM;
    }
    size_t cap = (size_t)t->cfg.buffer_kb * 1024u / t->page_size;
    cap = cap < 64 ? 64 : cap;
    for (size_t i = 0; i < t->cfg.n_cpus; i++) {
        struct cpu_ring *r = &t->rings[t->n_rings++];
        r->cpu = t->cpus[i];
        r->fd = -1;
        r->cap = cap;
        r->held_since_ns = t->on_since_ns;
        r->pages = malloc(cap * t->page_size);
        r->len = calloc(cap, sizeof *r->len);
        r->ts = calloc(cap, sizeof *r->ts);
        r->missed = calloc(cap, sizeof *r->missed);
        if (!r->pages || !r->len || !r->ts || !r->missed) {
            snprintf(why, n, "out of memory for the trace rings (%zu pages a CPU)", cap);
            return ENOMEM;
        }
        char rel[RTG_TRACEFS_PATH * 2 + 48];
        snprintf(rel, sizeof rel, "%s/per_cpu/cpu%d/trace_pipe_raw", t->dir, r->cpu);
        r->fd = open(rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (r->fd < 0) {
            int e = errno;
            snprintf(why, n, "cannot open %s: %s", rel, strerror(e));
            return e;
        }
    }
    return 0;
}

int rtg_tr_setup_instance(struct rtg_trace_port *t, char *why, size_t n)
{
    int e = rtg_tracefs_instance_new(&t->fs, 0, t->dir, sizeof t->dir);
    if (e) {
        snprintf(why, n, "cannot create a tracefs instance: %s", strerror(e));
        return e;
    }
    char v[64];
    /* mono: CLOCK_MONOTONIC, the samples' clock, so a window needs no
     * mapping. RTGAUGE_TRACE_CLOCK is a development switch that measures
     * what another clock would save (bench/recorder_events.py): the windows
     * it records are misplaced. */
    const char *tclock = getenv("RTGAUGE_TRACE_CLOCK");
    tclock = tclock && *tclock ? tclock : "mono";
    if ((e = rtg_tracefs_write(t->dir, "trace_clock", tclock))) {
        snprintf(why, n, "the trace clock '%s' is not offered: %s", tclock, strerror(e));
        return e == EINVAL ? ENOTSUP : e;
    }
    /* small buffers on the CPUs not measured, the asked size on the others */
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    snprintf(v, sizeof v, "%u", t->cfg.buffer_kb);
    rtg_tracefs_write(t->dir, "buffer_size_kb", "4");
    for (long c = 0; c < ncpu; c++)
        if (rtg_tr_measured(t, (int)c)) {
            char rel[64];
            snprintf(rel, sizeof rel, "per_cpu/cpu%ld/buffer_size_kb", c);
            if ((e = rtg_tracefs_write(t->dir, rel, v))) {
                snprintf(why, n, "cannot size the trace buffer of CPU %ld: %s", c, strerror(e));
                return e;
            }
        }
    char mask[300];
    cpumask_text(t, mask, sizeof mask);
    if ((e = rtg_tracefs_write(t->dir, "tracing_cpumask", mask))) {
        snprintf(why, n, "cannot limit tracing to the measured CPUs: %s", strerror(e));
        return e;
    }
    /* Read as it fills: the reader is woken when a buffer is a quarter
     * full, so the kernel overwrites nothing while the reader keeps up
     * (overwrite stays on, the default: the newest win if it does not). */
    rtg_tracefs_write(t->dir, "options/overwrite", "1");
    rtg_tracefs_write(t->dir, "buffer_percent", "25");
    if ((e = enable_all(t, t->dir))) {
        snprintf(why, n, "none of the scheduler, interrupt and timer tracepoints is offered");
        return e;
    }
    char on[RTG_TRACEFS_PATH * 2 + 16];
    snprintf(on, sizeof on, "%s/tracing_on", t->dir);
    t->on_fd = open(on, O_WRONLY | O_CLOEXEC);
    if (t->on_fd < 0) {
        e = errno;
        snprintf(why, n, "cannot open %s: %s", on, strerror(e));
        return e;
    }
    return setup_rings(t, why, n);
}

void rtg_tr_teardown(struct rtg_trace_port *t)
{
    for (size_t i = 0; i < t->n_rings; i++) {
        if (t->rings[i].fd >= 0)
            close(t->rings[i].fd);
        t->rings[i].fd = -1;
    }
    if (t->on_fd >= 0)
        close(t->on_fd);
    t->on_fd = -1;
    if (t->dir[0])
        rtg_tracefs_instance_remove(t->dir);
    t->dir[0] = '\0';
    rtg_kin_close(&t->kin);
    rtg_tracefs_close(&t->fs);
}
