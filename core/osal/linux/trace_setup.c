/* The recorder's instances and tracepoints (trace_recorder.h): every
 * tracepoint a decoder was read for enabled in each instance, the mono
 * clock, buffers on the measured CPUs, tracing limited to them. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
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

/* Enables in the instance every tracepoint a decoder was read for. */
static int enable_all(struct rtg_trace_port *t, const char *inst)
{
    int enabled = 0;
    for (size_t i = 0; i < rtg_tp_n_wanted; i++) {
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
        char rel[160];
        snprintf(rel, sizeof rel, "events/irq_vectors/%s_%s/enable", d->vector,
                 d->kind == RTG_TEV_VEC_ENTRY ? "entry" : "exit");
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

int rtg_tr_setup_slot(struct rtg_trace_port *t, int i, char *why, size_t n)
{
    struct slot *s = &t->slots[i];
    int e = rtg_tracefs_instance_new(&t->fs, i, s->dir, sizeof s->dir);
    if (e) {
        snprintf(why, n, "cannot create a tracefs instance: %s", strerror(e));
        return e;
    }
    char v[64];
    if ((e = rtg_tracefs_write(s->dir, "trace_clock", "mono"))) {
        snprintf(why, n, "the trace clock 'mono' is not offered: %s", strerror(e));
        return e == EINVAL ? ENOTSUP : e;
    }
    /* small buffers on the CPUs not measured, the asked size on the others */
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    snprintf(v, sizeof v, "%u", t->cfg.buffer_kb);
    rtg_tracefs_write(s->dir, "buffer_size_kb", "4");
    for (long c = 0; c < ncpu; c++)
        if (rtg_tr_measured(t, (int)c)) {
            char rel[64];
            snprintf(rel, sizeof rel, "per_cpu/cpu%ld/buffer_size_kb", c);
            if ((e = rtg_tracefs_write(s->dir, rel, v))) {
                snprintf(why, n, "cannot size the trace buffer of CPU %ld: %s", c, strerror(e));
                return e;
            }
        }
    char mask[300];
    cpumask_text(t, mask, sizeof mask);
    if ((e = rtg_tracefs_write(s->dir, "tracing_cpumask", mask))) {
        snprintf(why, n, "cannot limit tracing to the measured CPUs: %s", strerror(e));
        return e;
    }
    rtg_tracefs_write(s->dir, "options/overwrite", "1"); /* a flight recorder keeps the newest */
    if ((e = enable_all(t, s->dir))) {
        snprintf(why, n, "none of the scheduler, interrupt and timer tracepoints is offered");
        return e;
    }
    char on[RTG_TRACEFS_PATH * 2 + 16];
    snprintf(on, sizeof on, "%s/tracing_on", s->dir);
    s->on_fd = open(on, O_WRONLY | O_CLOEXEC);
    if (s->on_fd < 0) {
        e = errno;
        snprintf(why, n, "cannot open %s: %s", on, strerror(e));
        return e;
    }
    s->state = SLOT_SPARE;
    return 0;
}

void rtg_tr_teardown(struct rtg_trace_port *t)
{
    for (int i = 0; i < SLOTS; i++) {
        if (t->slots[i].on_fd > 0)
            close(t->slots[i].on_fd);
        t->slots[i].on_fd = -1;
        if (t->slots[i].dir[0])
            rtg_tracefs_instance_remove(t->slots[i].dir);
        t->slots[i].dir[0] = '\0';
    }
    rtg_tracefs_close(&t->fs);
}
