/* The flight recorder on Linux (rtg/osal_trace.h): tracefs instances of
 * its own used in turn. One records; when a sample beats the K-th worst
 * kept so far, the measuring thread stops that instance (its buffer now
 * holds the time before the sample), starts a spare one, and hands the
 * frozen one to a reader thread, which keeps the window around the sample
 * and empties the instance for reuse. The measuring thread only writes two
 * bytes to tracefs, and only for a sample that will be kept. */
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

#include "rtg/osal_trace.h"
#include "trace_events.h"
#include "trace_fs.h"
#include "trace_ring.h"

/* Instances used in turn: one recording, one being read, one spare, so a
 * worse sample that comes while a window is read is still caught. */
#define SLOTS 3
#define MAX_DECODERS 96
#define MAX_TASKS 64
#define TEXT_MAX 16384

enum slot_state { SLOT_SPARE, SLOT_RECORDING, SLOT_FROZEN };
struct slot {
    char dir[RTG_TRACEFS_PATH * 2];
    int on_fd; /* tracing_on, open for the two-byte freeze */
    enum slot_state state;
    uint64_t on_since_ns; /* recording since (trace clock) */
};

struct job {
    int slot;
    char metric[RTG_TRACE_METRIC_MAX];
    uint64_t release_ns, end_ns, frozen_ns;
    int cpu;
    int32_t tid;
};

/* Per-CPU steal time readings (/proc/stat, USER_HZ ticks) with their time. */
struct steal_reading {
    uint64_t at_ns;
    uint64_t ticks[1024];
};

struct rtg_trace {
    struct rtg_trace_config cfg;
    int cpus[1024];
    struct rtg_tracefs fs;
    struct rtg_ring_layout layout;
    size_t page_size;
    struct rtg_tp_decoder *dec;
    size_t n_dec;

    struct slot slots[SLOTS];
    int recording;
    pthread_mutex_t lock; /* priority inheritance: the reader holds it briefly */
    _Atomic uint64_t threshold;
    uint64_t top[RTG_TRACE_KEEP_MAX]; /* the frozen samples that count */
    size_t n_top;
    struct job queue[SLOTS];
    size_t q_head, q_len;

    sem_t wake;
    pthread_t reader;
    bool reader_started;
    _Atomic bool quit;

    uint8_t *page;                /* the reader's page buffer */
    struct rtg_tev *scratch;      /* the reader's ring of window events */
    struct rtg_trace_result res;  /* windows kept, worst first */
    struct steal_reading steal_prev, steal_last;
    long user_hz;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- setting up ---- */

static int add_decoder(struct rtg_trace *t, const char *sys, const char *ev,
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
static int read_decoders(struct rtg_trace *t)
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
static int enable_all(struct rtg_trace *t, const char *inst)
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

static bool measured(const struct rtg_trace *t, int cpu)
{
    for (size_t i = 0; i < t->cfg.n_cpus; i++)
        if (t->cpus[i] == cpu)
            return true;
    return false;
}

/* The CPU mask in tracing_cpumask's format: comma-separated 32-bit hex words. */
static void cpumask_text(const struct rtg_trace *t, char *out, size_t n)
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
            if (measured(t, w * 32 + b))
                bits |= 1u << b;
        k += (size_t)snprintf(out + k, n - k, "%s%08x", w == words - 1 ? "" : ",", bits);
    }
}

static int setup_slot(struct rtg_trace *t, int i, char *why, size_t n)
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
        if (measured(t, (int)c)) {
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

static void teardown(struct rtg_trace *t)
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

/* ---- steal time ---- */

static void read_steal(struct rtg_trace *t, struct steal_reading *r)
{
    r->at_ns = mono_ns();
    memset(r->ticks, 0, sizeof r->ticks);
    FILE *f = fopen("/proc/stat", "re");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        int cpu;
        unsigned long long v[8];
        if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
                   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 9 &&
            cpu >= 0 && cpu < 1024 && measured(t, cpu))
            r->ticks[cpu] = v[7];
    }
    fclose(f);
}

/* ---- reading a frozen instance ---- */

struct gather {
    struct rtg_trace *t;
    const struct job *job;
    uint64_t start;
    struct rtg_tev *ring; /* the newest max_events events in the window */
    size_t n, head;
    bool capped;
    struct rtg_tev ctx_switch, ctx_idle; /* the last of each before the window */
    bool have_switch, have_idle;
    int64_t first_ts;
};

static const struct rtg_tp_decoder *decoder_of(const struct rtg_trace *t, int type)
{
    for (size_t i = 0; i < t->n_dec; i++)
        if (t->dec[i].fmt.id == type)
            return &t->dec[i];
    return NULL;
}

static void on_event(void *arg, const struct rtg_ring_event *e)
{
    struct gather *g = arg;
    if (g->first_ts < 0)
        g->first_ts = (int64_t)e->ts;
    if (e->ts > g->job->end_ns)
        return;
    const struct rtg_tp_decoder *d = decoder_of(g->t, rtg_tp_type(e->data, e->len));
    if (!d)
        return;
    struct rtg_tev ev;
    rtg_tp_decode(d, e->data, e->len, e->ts, g->job->cpu, &ev);
    if (e->ts < g->start) { /* before the window: only what says the state at its start */
        if (ev.kind == RTG_TEV_SWITCH) {
            g->ctx_switch = ev;
            g->have_switch = true;
        } else if (ev.kind == RTG_TEV_IDLE_ENTRY || ev.kind == RTG_TEV_IDLE_EXIT) {
            g->ctx_idle = ev;
            g->have_idle = true;
        }
        return;
    }
    size_t cap = g->t->cfg.max_events;
    if (g->n < cap) {
        g->ring[(g->head + g->n) % cap] = ev;
        g->n++;
    } else { /* too many: the oldest goes, the window starts later */
        g->ring[g->head] = ev;
        g->head = (g->head + 1) % cap;
        g->capped = true;
    }
}

/* Drains the sample CPU's buffer of a frozen instance; the number of
 * events the pages say were lost (UINT64_MAX: some, uncounted). */
static uint64_t drain(struct rtg_trace *t, const struct slot *s, int cpu, struct gather *g)
{
    char p[RTG_TRACEFS_PATH * 2 + 48];
    snprintf(p, sizeof p, "%s/per_cpu/cpu%d/trace_pipe_raw", s->dir, cpu);
    int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    uint64_t lost = 0;
    for (;;) {
        ssize_t r = read(fd, t->page, t->page_size);
        if (r <= 0)
            break;
        uint64_t missed = 0;
        rtg_ring_page_walk(&t->layout, t->page, (size_t)r, on_event, g, &missed);
        if (missed == UINT64_MAX || lost == UINT64_MAX)
            lost = missed ? UINT64_MAX : lost;
        else
            lost += missed;
    }
    close(fd);
    return lost;
}

/* "overrun" and "dropped events" of the CPU's buffer since it was emptied. */
static uint64_t stats_lost(const struct slot *s, int cpu)
{
    char rel[64], text[1024];
    snprintf(rel, sizeof rel, "per_cpu/cpu%d/stats", cpu);
    if (rtg_tracefs_read(s->dir, rel, text, sizeof text) < 0)
        return 0;
    uint64_t lost = 0;
    const char *keys[] = {"overrun:", "dropped events:"};
    for (size_t i = 0; i < 2; i++) {
        const char *k = strstr(text, keys[i]);
        if (k)
            lost += strtoull(k + strlen(keys[i]), NULL, 10);
    }
    return lost;
}

static const char *policy_name(int pol)
{
    switch (pol & ~SCHED_RESET_ON_FORK) {
    case SCHED_OTHER: return "SCHED_OTHER";
    case SCHED_FIFO: return "SCHED_FIFO";
    case SCHED_RR: return "SCHED_RR";
    case SCHED_BATCH: return "SCHED_BATCH";
    case SCHED_IDLE: return "SCHED_IDLE";
#ifdef SCHED_DEADLINE
    case SCHED_DEADLINE: return "SCHED_DEADLINE";
#endif
    default: return "";
    }
}

static void add_task(struct rtg_trace_window *w, int32_t pid)
{
    if (pid <= 0 || w->n_tasks >= MAX_TASKS)
        return;
    for (size_t i = 0; i < w->n_tasks; i++)
        if (w->tasks[i].pid == pid)
            return;
    struct rtg_trace_task *k = &w->tasks[w->n_tasks++];
    k->pid = pid;
    int pol = sched_getscheduler(pid);
    snprintf(k->policy, sizeof k->policy, "%s", pol < 0 ? "" : policy_name(pol));
}

/* Keeps w among the K worst (worst first); frees what falls out. */
static void keep(struct rtg_trace *t, struct rtg_trace_window *w)
{
    struct rtg_trace_result *r = &t->res;
    uint64_t d = w->end_ns - w->release_ns;
    size_t pos = r->n_windows;
    while (pos > 0 && r->windows[pos - 1].end_ns - r->windows[pos - 1].release_ns < d)
        pos--;
    if (pos >= t->cfg.keep) {
        free(w->events);
        free(w->tasks);
        return;
    }
    if (r->n_windows == t->cfg.keep) { /* the smallest falls out */
        free(r->windows[r->n_windows - 1].events);
        free(r->windows[r->n_windows - 1].tasks);
        r->n_windows--;
    }
    memmove(&r->windows[pos + 1], &r->windows[pos],
            (r->n_windows - pos) * sizeof r->windows[0]);
    r->windows[pos] = *w;
    r->n_windows++;
}

static void read_window(struct rtg_trace *t, const struct job *job)
{
    const struct slot *s = &t->slots[job->slot];
    struct steal_reading now;
    read_steal(t, &now);
    struct gather g = {.t = t, .job = job, .ring = t->scratch, .first_ts = -1};
    g.start = job->release_ns > t->cfg.lookback_ns ? job->release_ns - t->cfg.lookback_ns : 0;
    uint64_t lost_pages = drain(t, s, job->cpu, &g);
    uint64_t lost = stats_lost(s, job->cpu);
    if (lost_pages == UINT64_MAX && lost == 0)
        lost = 1; /* the pages say some were lost, the counters did not count them */
    else if (lost_pages != UINT64_MAX && lost_pages > lost)
        lost = lost_pages;
    t->res.lost_events += lost;

    struct rtg_trace_window w;
    memset(&w, 0, sizeof w);
    snprintf(w.metric, sizeof w.metric, "%s", job->metric);
    w.release_ns = job->release_ns;
    w.end_ns = job->end_ns;
    w.cpu = job->cpu;
    w.tid = job->tid;
    w.lost_events = lost;
    w.first_event_ns = g.first_ts;
    w.capped = g.capped;
    size_t extra = (size_t)g.have_switch + (size_t)g.have_idle;
    w.events = malloc((g.n + extra) * sizeof *w.events + 1);
    w.tasks = calloc(MAX_TASKS, sizeof *w.tasks);
    if (!w.events || !w.tasks) {
        free(w.events);
        free(w.tasks);
        return;
    }
    size_t k = 0;
    /* the state at the window's start first, then the window in order */
    if (g.have_switch && (!g.have_idle || g.ctx_switch.t_ns <= g.ctx_idle.t_ns))
        w.events[k++] = g.ctx_switch;
    if (g.have_idle)
        w.events[k++] = g.ctx_idle;
    if (g.have_switch && g.have_idle && g.ctx_switch.t_ns > g.ctx_idle.t_ns)
        w.events[k++] = g.ctx_switch;
    size_t cap = t->cfg.max_events;
    for (size_t i = 0; i < g.n; i++)
        w.events[k++] = g.ring[(g.head + i) % cap];
    w.n_events = k;
    w.start_ns = g.capped && g.n ? (uint64_t)g.ring[g.head].t_ns : g.start;
    /* Complete: recording began before the window, and the buffer kept
     * everything since (or at least reaches back past the window's start). */
    bool reaches_back = lost == 0 || (g.first_ts >= 0 && (uint64_t)g.first_ts <= w.start_ns);
    w.complete = s->on_since_ns <= w.start_ns && reaches_back;
    const struct steal_reading *before =
        t->steal_last.at_ns && t->steal_last.at_ns <= w.start_ns ? &t->steal_last
                                                                 : &t->steal_prev;
    if (before->at_ns && before->at_ns <= w.start_ns && t->user_hz > 0) {
        w.steal_known = true;
        uint64_t ticks = now.ticks[job->cpu] - before->ticks[job->cpu];
        w.steal_ns = ticks * (1000000000u / (uint64_t)t->user_hz);
        w.steal_over_ns = now.at_ns - before->at_ns;
    }
    for (size_t i = 0; i < w.n_events; i++) {
        add_task(&w, w.events[i].cur);
        add_task(&w, w.events[i].pid);
        add_task(&w, w.events[i].pid2);
    }
    add_task(&w, w.tid);
    keep(t, &w);
}

static void empty_slot(struct slot *s)
{
    char p[RTG_TRACEFS_PATH * 2 + 16];
    snprintf(p, sizeof p, "%s/trace", s->dir);
    int fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd >= 0)
        close(fd);
}

static void *reader_main(void *arg)
{
    struct rtg_trace *t = arg;
    read_steal(t, &t->steal_last);
    t->steal_prev = t->steal_last;
    for (;;) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000; /* steal is read every 100 ms meanwhile */
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        int timed_out = sem_timedwait(&t->wake, &ts) != 0;
        pthread_mutex_lock(&t->lock);
        struct job job = {.slot = -1};
        if (t->q_len) {
            job = t->queue[t->q_head];
            t->q_head = (t->q_head + 1) % SLOTS;
            t->q_len--;
        }
        pthread_mutex_unlock(&t->lock);
        if (job.slot < 0) {
            if (atomic_load(&t->quit))
                break;
            if (timed_out) {
                t->steal_prev = t->steal_last;
                read_steal(t, &t->steal_last);
            }
            continue;
        }
        read_window(t, &job);
        empty_slot(&t->slots[job.slot]);
        pthread_mutex_lock(&t->lock);
        t->slots[job.slot].state = SLOT_SPARE;
        pthread_mutex_unlock(&t->lock);
    }
    return NULL;
}

/* The reader runs SCHED_OTHER, on the CPUs not measured when there are any. */
static int start_reader(struct rtg_trace *t)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, SCHED_OTHER);
    struct sched_param sp = {.sched_priority = 0};
    pthread_attr_setschedparam(&a, &sp);
    cpu_set_t set;
    CPU_ZERO(&set);
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++)
        if (!measured(t, (int)c))
            CPU_SET((int)c, &set);
    if (CPU_COUNT(&set) == 0)
        for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &set);
    pthread_attr_setaffinity_np(&a, sizeof set, &set);
    int e = pthread_create(&t->reader, &a, reader_main, t);
    pthread_attr_destroy(&a);
    t->reader_started = e == 0;
    return e;
}

int rtg_trace_open(struct rtg_trace **out, const struct rtg_trace_config *cfg, char *why,
                   size_t n)
{
    *out = NULL;
    if (cfg->n_cpus == 0 || cfg->n_cpus > 1024 || cfg->keep == 0 ||
        cfg->keep > RTG_TRACE_KEEP_MAX || cfg->max_events == 0) {
        snprintf(why, n, "no CPU to record, or K outside 1..%d", RTG_TRACE_KEEP_MAX);
        return EINVAL;
    }
    if (geteuid() != 0) {
        snprintf(why, n, "not root: the kernel's tracer needs privileges");
        return EPERM;
    }
    struct rtg_trace *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(why, n, "out of memory");
        return ENOMEM;
    }
    t->cfg = *cfg;
    memcpy(t->cpus, cfg->cpus, cfg->n_cpus * sizeof cfg->cpus[0]);
    t->cfg.cpus = t->cpus;
    for (int i = 0; i < SLOTS; i++)
        t->slots[i].on_fd = -1;
    int e = rtg_tracefs_open(&t->fs, why, n);
    if (e) {
        free(t);
        return e;
    }
    rtg_tracefs_janitor(&t->fs);
    char text[TEXT_MAX];
    if (rtg_tracefs_read(t->fs.root, "events/header_page", text, sizeof text) < 0 ||
        rtg_ring_layout_parse(text, &t->layout)) {
        snprintf(why, n, "tracefs gives no readable events/header_page");
        e = ENOTSUP;
        goto fail;
    }
    t->page_size = (size_t)sysconf(_SC_PAGESIZE);
    if (rtg_tracefs_read(t->fs.root, "buffer_subbuf_size_kb", text, sizeof text) > 0 &&
        atoi(text) > 0)
        t->page_size = (size_t)atoi(text) * 1024u;
    t->dec = calloc(MAX_DECODERS, sizeof *t->dec);
    t->page = malloc(t->page_size);
    t->scratch = calloc(cfg->max_events, sizeof *t->scratch);
    if (!t->dec || !t->page || !t->scratch) {
        snprintf(why, n, "out of memory");
        e = ENOMEM;
        goto fail;
    }
    if ((e = read_decoders(t))) {
        snprintf(why, n, "this kernel offers none of the scheduler and interrupt tracepoints");
        goto fail;
    }
    for (int i = 0; i < SLOTS; i++)
        if ((e = setup_slot(t, i, why, n)))
            goto fail;
    snprintf(t->res.source, sizeof t->res.source, "tracefs instance");
    snprintf(t->res.clock, sizeof t->res.clock, "mono (CLOCK_MONOTONIC)");
    snprintf(t->res.prio_scale, sizeof t->res.prio_scale, "linux");
    t->user_hz = sysconf(_SC_CLK_TCK);
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&t->lock, &ma);
    pthread_mutexattr_destroy(&ma);
    sem_init(&t->wake, 0, 0);
    atomic_store(&t->threshold, cfg->floor_ns);
    if ((e = start_reader(t))) {
        snprintf(why, n, "cannot start the trace reader thread: %s", strerror(e));
        pthread_mutex_destroy(&t->lock);
        sem_destroy(&t->wake);
        goto fail;
    }
    t->recording = 0;
    t->slots[0].state = SLOT_RECORDING;
    t->slots[0].on_since_ns = mono_ns();
    if (write(t->slots[0].on_fd, "1", 1) != 1) {
        e = errno;
        snprintf(why, n, "cannot start recording: %s", strerror(e));
        atomic_store(&t->quit, true);
        sem_post(&t->wake);
        pthread_join(t->reader, NULL);
        pthread_mutex_destroy(&t->lock);
        sem_destroy(&t->wake);
        goto fail;
    }
    *out = t;
    return 0;
fail:
    teardown(t);
    free(t->dec);
    free(t->page);
    free(t->scratch);
    free(t);
    return e;
}

/* The threshold a sample must beat: the smallest of the K worst frozen. */
static void note_frozen(struct rtg_trace *t, uint64_t d)
{
    if (t->n_top < t->cfg.keep)
        t->top[t->n_top++] = d;
    else {
        size_t min = 0;
        for (size_t i = 1; i < t->n_top; i++)
            if (t->top[i] < t->top[min])
                min = i;
        if (d > t->top[min])
            t->top[min] = d;
    }
    uint64_t th = t->cfg.floor_ns;
    if (t->n_top == t->cfg.keep) {
        th = UINT64_MAX;
        for (size_t i = 0; i < t->n_top; i++)
            if (t->top[i] < th)
                th = t->top[i];
        if (th < t->cfg.floor_ns)
            th = t->cfg.floor_ns;
    }
    atomic_store(&t->threshold, th);
}

void rtg_trace_offer(struct rtg_trace *t, const char *metric, uint64_t release_ns,
                     uint64_t end_ns)
{
    if (!t || end_ns <= release_ns)
        return;
    uint64_t d = end_ns - release_ns;
    if (d <= atomic_load_explicit(&t->threshold, memory_order_relaxed))
        return;
    pthread_mutex_lock(&t->lock);
    t->res.offered++;
    if (d <= atomic_load(&t->threshold) || atomic_load(&t->quit)) {
        pthread_mutex_unlock(&t->lock);
        return;
    }
    int spare = -1;
    for (int i = 0; i < SLOTS; i++)
        if (t->slots[i].state == SLOT_SPARE) {
            spare = i;
            break;
        }
    if (spare < 0) {
        t->res.uncaptured++;
        if (d > t->res.uncaptured_max_ns)
            t->res.uncaptured_max_ns = d;
        pthread_mutex_unlock(&t->lock);
        return;
    }
    struct slot *rec = &t->slots[t->recording];
    uint64_t now = mono_ns();
    if (write(rec->on_fd, "0", 1) != 1) {
        pthread_mutex_unlock(&t->lock);
        return;
    }
    if (write(t->slots[spare].on_fd, "1", 1) == 1) {
        t->slots[spare].state = SLOT_RECORDING;
        t->slots[spare].on_since_ns = mono_ns();
    }
    rec->state = SLOT_FROZEN;
    struct job *j = &t->queue[(t->q_head + t->q_len) % SLOTS];
    j->slot = t->recording;
    snprintf(j->metric, sizeof j->metric, "%s", metric);
    j->release_ns = release_ns;
    j->end_ns = end_ns;
    j->frozen_ns = now;
    j->cpu = sched_getcpu();
    j->tid = (int32_t)syscall(SYS_gettid);
    t->q_len++;
    t->recording = t->slots[spare].state == SLOT_RECORDING ? spare : t->recording;
    t->res.freezes++;
    note_frozen(t, d);
    pthread_mutex_unlock(&t->lock);
    sem_post(&t->wake);
}

/* Function addresses into names, from /proc/kallsyms (the nearest symbol at
 * or below the address), for the events that carry one. */
static void resolve_symbols(struct rtg_trace_result *r)
{
    bool any = false;
    for (size_t w = 0; w < r->n_windows && !any; w++)
        for (size_t i = 0; i < r->windows[w].n_events; i++)
            if (r->windows[w].events[i].addr && !r->windows[w].events[i].name[0])
                any = true;
    if (!any)
        return;
    FILE *f = fopen("/proc/kallsyms", "re");
    if (!f)
        return;
    /* callbacks are function pointers: the symbol starts at the address */
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long long a;
        char type, name[RTG_TEV_NAME_MAX];
        if (sscanf(line, "%llx %c %31s", &a, &type, name) != 3 || a == 0)
            continue;
        if (type != 't' && type != 'T')
            continue;
        for (size_t w = 0; w < r->n_windows; w++)
            for (size_t i = 0; i < r->windows[w].n_events; i++) {
                struct rtg_tev *e = &r->windows[w].events[i];
                if (e->addr == a && !e->name[0])
                    snprintf(e->name, sizeof e->name, "%s", name);
            }
    }
    fclose(f);
}

void rtg_trace_close(struct rtg_trace *t, struct rtg_trace_result *out)
{
    memset(out, 0, sizeof *out);
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    atomic_store(&t->quit, true);
    if (t->slots[t->recording].state == SLOT_RECORDING)
        (void)!write(t->slots[t->recording].on_fd, "0", 1);
    pthread_mutex_unlock(&t->lock);
    sem_post(&t->wake);
    if (t->reader_started)
        pthread_join(t->reader, NULL); /* it reads every window queued first */
    teardown(t);
    pthread_mutex_destroy(&t->lock);
    sem_destroy(&t->wake);
    resolve_symbols(&t->res);
    *out = t->res;
    free(t->dec);
    free(t->page);
    free(t->scratch);
    free(t);
}

void rtg_trace_result_free(struct rtg_trace_result *r)
{
    for (size_t i = 0; i < r->n_windows; i++) {
        free(r->windows[i].events);
        free(r->windows[i].tasks);
    }
    r->n_windows = 0;
}

void rtg_trace_janitor(void)
{
    struct rtg_tracefs fs;
    char why[160];
    if (rtg_tracefs_open(&fs, why, sizeof why) == 0) {
        rtg_tracefs_janitor(&fs);
        rtg_tracefs_close(&fs);
    }
}
