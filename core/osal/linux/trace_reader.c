/* The recorder's reader thread (trace_recorder.h): it drains a frozen
 * instance's buffer on each CPU a cut asks for, cuts the windows out of it
 * into their kept slots (unless a later freeze took the slot meanwhile),
 * empties the instance for reuse, and reads the steal time meanwhile.
 * Never real-time: it runs SCHED_OTHER. */
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

/* ---- steal time ---- */

void rtg_tr_read_steal(struct rtg_trace_port *t, struct steal_reading *r)
{
    r->at_ns = rtg_tr_mono_ns();
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
            cpu >= 0 && cpu < 1024 && rtg_tr_measured(t, cpu))
            r->ticks[cpu] = v[7];
    }
    fclose(f);
}

/* ---- reading a frozen instance ---- */

struct gather {
    struct rtg_trace_port *t;
    const struct rtg_trace_cut *cut;
    uint64_t start;
    struct rtg_tev *ring; /* the newest max_events events in the window */
    size_t n, head;
    bool capped;
    struct rtg_tev ctx_switch, ctx_idle; /* the last of each before the window */
    bool have_switch, have_idle;
};

static const struct rtg_tp_decoder *decoder_of(const struct rtg_trace_port *t, int type)
{
    for (size_t i = 0; i < t->n_dec; i++)
        if (t->dec[i].fmt.id == type)
            return &t->dec[i];
    return NULL;
}

static void gather_event(struct gather *g, const struct rtg_ring_event *e,
                         const struct rtg_tp_decoder *d)
{
    if (e->ts > g->cut->to_ns)
        return;
    struct rtg_tev ev;
    rtg_tp_decode(d, e->data, e->len, e->ts, g->cut->cpu, &ev);
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

/* The cuts of one CPU, fed from one drain of its buffer. */
struct cpu_gathers {
    struct gather *g[RTG_TRACE_KEEP_MAX];
    size_t n;
    int64_t first_ts; /* the oldest event the buffer held (-1: none) */
};

static void on_event(void *arg, const struct rtg_ring_event *e)
{
    struct cpu_gathers *c = arg;
    if (c->first_ts < 0)
        c->first_ts = (int64_t)e->ts;
    if (c->n == 0)
        return;
    const struct rtg_tp_decoder *d = decoder_of(c->g[0]->t, rtg_tp_type(e->data, e->len));
    if (!d)
        return;
    for (size_t i = 0; i < c->n; i++)
        gather_event(c->g[i], e, d);
}

/* Drains a CPU's buffer of a frozen instance; the number of events the
 * pages say were lost (UINT64_MAX: some, uncounted). */
static uint64_t drain(struct rtg_trace_port *t, const struct slot *s, int cpu,
                      struct cpu_gathers *g)
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

/* A task's process (Tgid) and that process's parent (PPid), from
 * /proc/<pid>/status; false when it cannot be read (the task ended). */
static bool process_of(long pid, long *tgid, long *ppid)
{
    char path[40], line[128];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    *tgid = *ppid = 0;
    while (fgets(line, sizeof line, f) && !(*tgid && *ppid)) {
        if (sscanf(line, "Tgid: %ld", tgid) == 1 || sscanf(line, "PPid: %ld", ppid) == 1)
            continue;
    }
    fclose(f);
    return *tgid > 0;
}

/* Whose a task is: the run's when its process, or an ancestor of it, is the
 * test's or the probe's (the test's parent); the kernel's when kthreadd
 * (pid 2) is, or it is kthreadd; another program's when the chain reaches
 * init first; "" when /proc cannot say (the task ended meanwhile). */
static const char *origin_of(long pid)
{
    long self = (long)getpid(), probe = (long)getppid();
    long p = pid;
    for (int depth = 0; depth < 32; depth++) {
        long tgid, ppid;
        if (!process_of(p, &tgid, &ppid))
            return "";
        if (tgid == self || tgid == probe)
            return "run";
        if (tgid == 2 || ppid == 2)
            return "kernel";
        if (tgid == 1 || ppid <= 1)
            return "other";
        p = ppid;
    }
    return "other";
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
    snprintf(k->origin, sizeof k->origin, "%s", origin_of(pid));
}

/* The window of cut g, from its CPU's drain (lost: what that buffer lost
 * since the instance began recording), into w; false when out of memory. */
static bool make_window(struct rtg_trace_port *t, const struct gather *g, uint64_t lost,
                        int64_t first_ts, const struct steal_reading *now,
                        struct rtg_trace_window *w)
{
    memset(w, 0, sizeof *w);
    w->lost_events = lost;
    w->first_event_ns = first_ts;
    w->capped = g->capped;
    size_t extra = (size_t)g->have_switch + (size_t)g->have_idle;
    w->events = malloc((g->n + extra) * sizeof *w->events + 1);
    w->tasks = calloc(MAX_TASKS, sizeof *w->tasks);
    if (!w->events || !w->tasks) {
        free(w->events);
        free(w->tasks);
        memset(w, 0, sizeof *w);
        return false;
    }
    size_t k = 0;
    /* the state at the window's start first, then the window in order */
    if (g->have_switch && (!g->have_idle || g->ctx_switch.t_ns <= g->ctx_idle.t_ns))
        w->events[k++] = g->ctx_switch;
    if (g->have_idle)
        w->events[k++] = g->ctx_idle;
    if (g->have_switch && g->have_idle && g->ctx_switch.t_ns > g->ctx_idle.t_ns)
        w->events[k++] = g->ctx_switch;
    size_t cap = t->cfg.max_events;
    for (size_t i = 0; i < g->n; i++)
        w->events[k++] = g->ring[(g->head + i) % cap];
    w->n_events = k;
    w->start_ns = g->capped && g->n ? (uint64_t)g->ring[g->head].t_ns : g->start;
    int cpu = g->cut->cpu;
    const struct steal_reading *before =
        t->steal_last.at_ns && t->steal_last.at_ns <= w->start_ns ? &t->steal_last
                                                                  : &t->steal_prev;
    if (before->at_ns && before->at_ns <= w->start_ns && t->user_hz > 0 && cpu >= 0 &&
        cpu < 1024) {
        w->steal_known = true;
        uint64_t ticks = now->ticks[cpu] - before->ticks[cpu];
        w->steal_ns = ticks * (1000000000u / (uint64_t)t->user_hz);
        w->steal_over_ns = now->at_ns - before->at_ns;
    }
    for (size_t i = 0; i < w->n_events; i++) {
        add_task(w, w->events[i].cur);
        add_task(w, w->events[i].pid);
        add_task(w, w->events[i].pid2);
    }
    add_task(w, g->cut->tid);
    return true;
}

/* Whether the cut is still wanted: no later freeze took its slot. */
static bool wanted(struct rtg_trace_port *t, const struct job *job, size_t i)
{
    pthread_mutex_lock(&t->lock);
    bool w = t->kept[job->cuts[i].slot].gen == job->gen[i];
    pthread_mutex_unlock(&t->lock);
    return w;
}

/* Reads a frozen instance: each CPU a cut asks for drained once, the
 * windows still wanted kept in their slots. */
static void read_job(struct rtg_trace_port *t, const struct job *job)
{
    const struct slot *s = &t->slots[job->slot];
    struct steal_reading now;
    rtg_tr_read_steal(t, &now);
    struct gather g[RTG_TRACE_KEEP_MAX];
    memset(g, 0, sizeof g);
    bool done[RTG_TRACE_KEEP_MAX] = {false};
    bool scratch_used = false; /* one window's ring is ready: the usual case, no allocation */
    for (size_t i = 0; i < job->n; i++) {
        if (done[i])
            continue;
        int cpu = job->cuts[i].cpu;
        struct cpu_gathers cg = {.n = 0, .first_ts = -1};
        for (size_t j = i; j < job->n; j++) {
            if (job->cuts[j].cpu != cpu)
                continue;
            done[j] = true;
            if (!wanted(t, job, j))
                continue;
            struct gather *x = &g[j];
            x->t = t;
            x->cut = &job->cuts[j];
            x->start = job->cuts[j].from_ns;
            bool first = cg.n == 0 && !scratch_used;
            x->ring = first ? t->scratch : malloc(t->cfg.max_events * sizeof *x->ring);
            scratch_used |= first;
            if (x->ring)
                cg.g[cg.n++] = x;
        }
        uint64_t lost_pages = drain(t, s, cpu, &cg);
        uint64_t lost = stats_lost(s, cpu);
        if (lost_pages == UINT64_MAX && lost == 0)
            lost = 1; /* the pages say some were lost, the counters did not count them */
        else if (lost_pages != UINT64_MAX && lost_pages > lost)
            lost = lost_pages;
        t->lost_events += lost;
        for (size_t k = 0; k < cg.n; k++) {
            struct gather *x = cg.g[k];
            size_t j = (size_t)(x - g);
            struct rtg_trace_window w;
            bool ok = make_window(t, x, lost, cg.first_ts, &now, &w);
            if (x->ring != t->scratch)
                free(x->ring);
            if (!ok)
                continue;
            pthread_mutex_lock(&t->lock);
            struct kept *kp = &t->kept[x->cut->slot];
            bool still = kp->gen == job->gen[j];
            if (still) {
                free(kp->w.events);
                free(kp->w.tasks);
                kp->w = w;
                kp->cover = (struct rtg_trace_cover){
                    .since_ns = job->since_ns, .lost = lost, .oldest_ns = cg.first_ts};
                kp->have = true;
            }
            pthread_mutex_unlock(&t->lock);
            if (!still) {
                free(w.events);
                free(w.tasks);
            }
        }
    }
}

static void empty_slot(struct slot *s)
{
    char p[RTG_TRACEFS_PATH * 2 + 16];
    snprintf(p, sizeof p, "%s/trace", s->dir);
    int fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd >= 0)
        close(fd);
}

/* Off the measured CPUs when there are others (the calling thread's own
 * affinity: musl has no attribute for it). */
static void leave_measured_cpus(const struct rtg_trace_port *t)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++)
        if (!rtg_tr_measured(t, (int)c))
            CPU_SET((int)c, &set);
    if (CPU_COUNT(&set) == 0) /* every CPU measured: any of them, below the tests */
        for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static void *reader_main(void *arg)
{
    struct rtg_trace_port *t = arg;
    leave_measured_cpus(t);
    rtg_tr_read_steal(t, &t->steal_last);
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
                rtg_tr_read_steal(t, &t->steal_last);
            }
            continue;
        }
        read_job(t, &job);
        empty_slot(&t->slots[job.slot]);
        pthread_mutex_lock(&t->lock);
        t->slots[job.slot].state = SLOT_SPARE;
        pthread_mutex_unlock(&t->lock);
    }
    return NULL;
}

/* The reader's stack. The test has locked its memory (mlockall with
 * MCL_FUTURE), so every byte of a thread's stack is resident: left at the C
 * library's default, the reader alone would take 8 MiB (RLIMIT_STACK) in
 * every test that runs the recorder. Its deepest path (reader_main,
 * read_job's frame of some 13 KiB: a steal reading and up to 16 cuts, the
 * steal time's fopen/sscanf) needs under 24 KiB; 64 KiB leaves more than
 * twice that. Raised to the platform's least
 * where that is larger (128 KiB on aarch64 glibc). */
#define READER_STACK (64u * 1024u)

/* The reader runs SCHED_OTHER, on the CPUs not measured when there are any. */
int rtg_tr_start_reader(struct rtg_trace_port *t)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    long least = sysconf(_SC_THREAD_STACK_MIN);
    pthread_attr_setstacksize(&a, least > (long)READER_STACK ? (size_t)least : READER_STACK);
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, SCHED_OTHER);
    struct sched_param sp = {.sched_priority = 0};
    pthread_attr_setschedparam(&a, &sp);
    int e = pthread_create(&t->reader, &a, reader_main, t);
    pthread_attr_destroy(&a);
    t->reader_started = e == 0;
    return e;
}

/* Function addresses into names, from /proc/kallsyms, for the events of
 * the kept windows that carry one. */
void rtg_tr_resolve_symbols(struct rtg_trace_port *t)
{
    bool any = false;
    for (size_t w = 0; w < RTG_TRACE_KEEP_MAX && !any; w++)
        for (size_t i = 0; t->kept[w].have && i < t->kept[w].w.n_events; i++)
            if (t->kept[w].w.events[i].addr && !t->kept[w].w.events[i].name[0])
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
        for (size_t w = 0; w < RTG_TRACE_KEEP_MAX; w++)
            for (size_t i = 0; t->kept[w].have && i < t->kept[w].w.n_events; i++) {
                struct rtg_tev *e = &t->kept[w].w.events[i];
                if (e->addr == a && !e->name[0])
                    snprintf(e->name, sizeof e->name, "%s", name);
            }
    }
    fclose(f);
}
