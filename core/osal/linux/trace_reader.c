/* The recorder's reader thread (trace_recorder.h): it reads the measured
 * CPUs' buffers as they fill into rings in user space (trace_drain.c),
 * cuts each window asked for out of its CPU's ring into its kept slot
 * (unless a later cut took the slot meanwhile), and reads the steal time
 * meanwhile. Never real-time: it runs SCHED_OTHER. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
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

/* ---- cutting a window out of a ring ---- */

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

static void on_event(void *arg, const struct rtg_ring_event *e)
{
    struct gather *g = arg;
    const struct rtg_tp_decoder *d = decoder_of(g->t, rtg_tp_type(e->data, e->len));
    if (d)
        gather_event(g, e, d);
}

/* Only what says the state before the window: the last switch and idle
 * event of an earlier page. */
static void on_context_event(void *arg, const struct rtg_ring_event *e)
{
    struct gather *g = arg;
    const struct rtg_tp_decoder *d = decoder_of(g->t, rtg_tp_type(e->data, e->len));
    if (!d || (d->kind != RTG_TEV_SWITCH && d->kind != RTG_TEV_IDLE_ENTRY &&
               d->kind != RTG_TEV_IDLE_EXIT))
        return;
    struct rtg_tev ev;
    rtg_tp_decode(d, e->data, e->len, e->ts, g->cut->cpu, &ev);
    if (ev.kind == RTG_TEV_SWITCH) {
        g->ctx_switch = ev;
        g->have_switch = true;
    } else {
        g->ctx_idle = ev;
        g->have_idle = true;
    }
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

/* Whose a task is: the run's when the forks followed since the recorder
 * opened say so (trace_kin.h: an orphan of the run, re-parented to init,
 * stays the run's), or when its process, or an ancestor of it, is the
 * test's or the probe's (the test's parent); the kernel's when kthreadd
 * (pid 2) is, or it is kthreadd; another program's when the chain reaches
 * init first. A task that ended before this is asked: the forks followed
 * say "run", "kernel" or "ended" (not the run's), or "" when they cannot. */
static const char *origin_of(const struct rtg_trace_port *t, long pid)
{
    if (rtg_pid_set_has(&t->kin.run, (int32_t)pid))
        return "run";
    long self = (long)getpid(), probe = (long)getppid();
    long p = pid;
    for (int depth = 0; depth < 32; depth++) {
        long tgid, ppid;
        if (!process_of(p, &tgid, &ppid)) {
            const char *o = rtg_kin_of(&t->kin, p);
            /* an ancestor that ended, not the run's: the task is a stranger's */
            return p != pid && strcmp(o, "ended") == 0 ? "other" : o;
        }
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

static void add_task(const struct rtg_trace_port *t, struct rtg_trace_window *w, int32_t pid)
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
    snprintf(k->origin, sizeof k->origin, "%s", origin_of(t, pid));
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
        add_task(t, w, w->events[i].cur);
        add_task(t, w, w->events[i].pid);
        add_task(t, w, w->events[i].pid2);
    }
    add_task(t, w, g->cut->tid);
    return true;
}

static struct cpu_ring *ring_of(struct rtg_trace_port *t, int cpu)
{
    for (size_t i = 0; i < t->n_rings; i++)
        if (t->rings[i].cpu == cpu)
            return &t->rings[i];
    return NULL;
}

/* Walks page i of ring r with fn; the events lost before it. */
static uint64_t walk_page(struct rtg_trace_port *t, const struct cpu_ring *r, size_t i,
                          rtg_ring_fn fn, struct gather *g)
{
    uint32_t len;
    uint64_t missed;
    const uint8_t *page = rtg_tr_ring_page(t, r, i, &len, &missed);
    uint64_t m2;
    rtg_ring_page_walk(&t->layout, page, len, fn, g, &m2);
    return missed;
}

/* Cuts p's window out of its CPU's ring into g, and says how far back the
 * ring held every event up to the window's end (cover). Parses only the
 * pages from the one holding the window's start, and earlier ones only
 * until a switch says what ran when the window began. */
static void cut_from_ring(struct rtg_trace_port *t, const struct cpu_ring *r, struct gather *g,
                          struct rtg_trace_cover *cover, uint64_t *lost_inside)
{
    const struct rtg_trace_cut *c = g->cut;
    uint64_t held = r->held_since_ns;
    *lost_inside = 0;
    size_t first = rtg_tr_ring_first(r, c->from_ns);
    for (size_t i = 0; i < r->n; i++) {
        size_t slot = (r->head + i) % r->cap;
        if (r->missed[slot]) {
            /* events were lost between the page before and this one: from
             * this page's start on everything is held; a hole that opens
             * before the window's end may have taken part of it */
            bool before_end = i == 0 || r->ts[(r->head + i - 1) % r->cap] <= c->to_ns;
            if (before_end || r->ts[slot] <= c->to_ns)
                held = r->ts[slot] > held ? r->ts[slot] : held;
            if (before_end && r->ts[slot] > c->from_ns)
                *lost_inside += r->missed[slot] == UINT64_MAX ? 1 : r->missed[slot];
        }
        if (r->ts[slot] > c->to_ns)
            break;
        if (i >= first)
            walk_page(t, r, i, on_event, g);
    }
    /* the state at the window's start, from the pages before it */
    for (size_t i = first; i-- > 0 && !g->have_switch;) {
        struct gather ctx = *g;
        ctx.have_switch = ctx.have_idle = false;
        walk_page(t, r, i, on_context_event, &ctx);
        if (ctx.have_switch) {
            g->ctx_switch = ctx.ctx_switch;
            g->have_switch = true;
        }
        if (ctx.have_idle && !g->have_idle) {
            g->ctx_idle = ctx.ctx_idle;
            g->have_idle = true;
        }
    }
    /* A ring not read up to the window's end lacks its last events: never
     * complete (the reader stopped short, or the cut came too early). */
    if (r->read_to_ns < c->to_ns)
        held = c->to_ns;
    int64_t oldest = -1;
    if (r->n)
        oldest = (int64_t)r->ts[r->head];
    *cover = (struct rtg_trace_cover){
        .since_ns = held, .lost = 0, .oldest_ns = oldest, .cpu = c->cpu};
}

/* The latest switch to one thread up to an instant, or (out) the first
 * switch away from it after one. */
struct switch_in {
    struct rtg_trace_port *t;
    int32_t tid;
    bool out;
    uint64_t from_ns, to_ns;
    int64_t at_ns; /* -1: none */
};

static void on_switch_in(void *arg, const struct rtg_ring_event *e)
{
    struct switch_in *s = arg;
    if (e->ts > s->to_ns || e->ts < s->from_ns)
        return;
    if (s->out ? s->at_ns >= 0 && (int64_t)e->ts >= s->at_ns : (int64_t)e->ts <= s->at_ns)
        return;
    const struct rtg_tp_decoder *d = decoder_of(s->t, rtg_tp_type(e->data, e->len));
    if (!d || d->kind != RTG_TEV_SWITCH)
        return;
    struct rtg_tev ev;
    rtg_tp_decode(d, e->data, e->len, e->ts, 0, &ev);
    if ((s->out ? ev.pid : ev.pid2) == s->tid)
        s->at_ns = (int64_t)e->ts;
}

/* Where the thread ran when its sample ended: the CPU that switched to it
 * last, up to the end, within the window. The thread names its CPU when it
 * offers the sample, after the end, and may have migrated in between (a
 * deadline task pushed to another CPU): its window would then hold none of
 * its wake-up. The named CPU when no ring shows a switch to the thread
 * (it ran all along). */
/* Walks ring r's pages from the one holding from_ns up to s->to_ns. */
static void find_switch(struct rtg_trace_port *t, const struct cpu_ring *r, uint64_t from_ns,
                        struct switch_in *s)
{
    for (size_t i = rtg_tr_ring_first(r, from_ns); i < r->n; i++) {
        if (r->ts[(r->head + i) % r->cap] > s->to_ns)
            break;
        uint32_t len;
        uint64_t missed, m2;
        const uint8_t *page = rtg_tr_ring_page(t, r, i, &len, &missed);
        rtg_ring_page_walk(&t->layout, page, len, on_switch_in, s, &m2);
    }
}

static int cpu_at_end(struct rtg_trace_port *t, const struct rtg_trace_cut *c)
{
    if (c->tid <= 0 || t->n_rings < 2)
        return c->cpu;
    int best = c->cpu;
    int64_t best_at = -1;
    /* A call: the CPU it was first taken off during the call, where what
     * held it ran (it may have gone on elsewhere). A wake-up: where it ran. */
    for (size_t k = 0; k < t->n_rings && c->operation; k++) {
        struct switch_in s = {.t = t, .tid = c->tid, .out = true, .from_ns = c->release_ns,
                              .to_ns = c->to_ns, .at_ns = -1};
        find_switch(t, &t->rings[k], c->release_ns, &s);
        if (s.at_ns >= 0 && (best_at < 0 || s.at_ns < best_at)) {
            best_at = s.at_ns;
            best = t->rings[k].cpu;
        }
    }
    if (best_at >= 0)
        return best;
    for (size_t k = 0; k < t->n_rings; k++) {
        struct switch_in s = {.t = t, .tid = c->tid, .to_ns = c->to_ns, .at_ns = -1};
        find_switch(t, &t->rings[k], c->from_ns, &s);
        if (s.at_ns > best_at) {
            best_at = s.at_ns;
            best = t->rings[k].cpu;
        }
    }
    return best;
}

/* Makes the cut p, unless a later cut took its slot meanwhile. */
static void make_cut(struct rtg_trace_port *t, const struct pending *p,
                     const struct steal_reading *now)
{
    pthread_mutex_lock(&t->lock);
    bool wanted = t->kept[p->cut.slot].gen == p->gen;
    pthread_mutex_unlock(&t->lock);
    if (!wanted)
        return;
    struct rtg_trace_cut cut = p->cut;
    cut.cpu = cpu_at_end(t, &cut);
    struct cpu_ring *r = ring_of(t, cut.cpu);
    if (!r)
        return;
    struct gather g;
    memset(&g, 0, sizeof g);
    g.t = t;
    g.cut = &cut;
    g.start = cut.from_ns;
    g.ring = t->scratch;
    struct rtg_trace_cover cover;
    uint64_t lost_inside;
    cut_from_ring(t, r, &g, &cover, &lost_inside);
    struct rtg_trace_window w;
    if (!make_window(t, &g, lost_inside, cover.oldest_ns, now, &w))
        return;
    pthread_mutex_lock(&t->lock);
    struct kept *kp = &t->kept[p->cut.slot];
    bool still = kp->gen == p->gen;
    if (still) {
        free(kp->w.events);
        free(kp->w.tasks);
        kp->w = w;
        kp->cover = cover;
        kp->have = true;
    }
    pthread_mutex_unlock(&t->lock);
    if (!still) {
        free(w.events);
        free(w.tasks);
    }
}

/* Drains every measured CPU, then makes every cut asked for before the
 * drain began (its events are all read now). */
static void drain_and_cut(struct rtg_trace_port *t)
{
    rtg_kin_read(&t->kin); /* the forks up to now: a window's tasks were made before */
    pthread_mutex_lock(&t->lock);
    size_t asked = t->p_len;
    uint64_t until = 0;
    for (size_t k = 0; k < asked; k++) {
        const struct pending *p = &t->pending[(t->p_head + k) % PENDING_MAX];
        until = p->cut.to_ns > until ? p->cut.to_ns : until;
    }
    pthread_mutex_unlock(&t->lock);
    if (asked == 0) {
        rtg_tr_drain_all(t, UINT64_MAX);
        return;
    }
    rtg_tr_drain_all(t, until);
    struct steal_reading *now = malloc(sizeof *now);
    if (now)
        rtg_tr_read_steal(t, now);
    for (size_t k = 0; k < asked; k++) {
        pthread_mutex_lock(&t->lock);
        struct pending p = t->pending[t->p_head];
        t->p_head = (t->p_head + 1) % PENDING_MAX;
        t->p_len--;
        pthread_mutex_unlock(&t->lock);
        if (now)
            make_cut(t, &p, now);
    }
    free(now);
    rtg_tr_drain_all(t, UINT64_MAX);
}

/* Off the measured CPUs when there are others (the calling thread's own
 * affinity: musl has no attribute for it). */
static void readers_cpus(const struct rtg_trace_port *t, cpu_set_t *set)
{
    CPU_ZERO(set);
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++)
        if (!rtg_tr_measured(t, (int)c))
            CPU_SET((int)c, set);
    if (CPU_COUNT(set) == 0) /* every CPU measured: any of them, below the tests */
        for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
}

static void leave_measured_cpus(const struct rtg_trace_port *t)
{
    cpu_set_t set;
    readers_cpus(t, &set);
    sched_setaffinity(0, sizeof set, &set);
}

/* Waits for a buffer a quarter full (the instance's buffer_percent), a cut
 * asked for, or 100 ms (the steal time's reading), then drains and cuts. */
static void *reader_main(void *arg)
{
    struct rtg_trace_port *t = arg;
    leave_measured_cpus(t);
    rtg_tr_read_steal(t, &t->steal_last);
    t->steal_prev = t->steal_last;
    sem_post(&t->started); /* off the measured CPUs now: the test may begin */
    struct pollfd fds[1025];
    size_t nf = 0;
    fds[nf++] = (struct pollfd){.fd = t->wake_fd, .events = POLLIN};
    for (size_t i = 0; i < t->n_rings && nf < 1025; i++)
        fds[nf++] = (struct pollfd){.fd = t->rings[i].fd, .events = POLLIN};
    uint64_t next_steal = t->steal_last.at_ns + 100000000u;
    for (;;) {
        uint64_t now = rtg_tr_mono_ns();
        int wait_ms = now >= next_steal ? 0 : (int)((next_steal - now) / 1000000u) + 1;
        int ready = poll(fds, nf, wait_ms);
        if (ready > 0 && (fds[0].revents & POLLIN)) {
            uint64_t v;
            (void)!read(t->wake_fd, &v, sizeof v);
        }
        bool quit = atomic_load(&t->quit);
        drain_and_cut(t);
        if (rtg_tr_mono_ns() >= next_steal) {
            t->steal_prev = t->steal_last;
            rtg_tr_read_steal(t, &t->steal_last);
            next_steal = t->steal_last.at_ns + 100000000u;
        }
        if (quit) { /* the last cuts asked are made: stop came after them */
            drain_and_cut(t);
            break;
        }
    }
    return NULL;
}

/* The reader's stack. The test has locked its memory (mlockall with
 * MCL_FUTURE), so every byte of a thread's stack is resident: left at the C
 * library's default, the reader alone would take 8 MiB (RLIMIT_STACK) in
 * every test that runs the recorder. Its deepest path (reader_main's
 * poll set of some 8 KiB, a cut's gathers of some 3 KiB, the steal time's
 * fopen/sscanf; the steal reading made by a cut is malloc'd) needs under
 * 24 KiB; 64 KiB leaves more than twice that. Raised to the platform's least
 * where that is larger (128 KiB on aarch64 glibc). */
#define READER_STACK (64u * 1024u)

/* The reader runs SCHED_OTHER, on the CPUs not measured when there are any. */
static int start_reader_as(struct rtg_trace_port *t, int policy, int prio)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    long least = sysconf(_SC_THREAD_STACK_MIN);
    pthread_attr_setstacksize(&a, least > (long)READER_STACK ? (size_t)least : READER_STACK);
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, policy);
    struct sched_param sp = {.sched_priority = prio};
    pthread_attr_setschedparam(&a, &sp);
    /* A new thread takes its creator's affinity: the creator takes the
     * reader's CPUs for the moment of the creation (musl has no attribute
     * for it), so the reader never starts on a CPU a real-time task above
     * it may hold for good (the test's, or another program's). */
    cpu_set_t mine, its;
    bool moved = sched_getaffinity(0, sizeof mine, &mine) == 0;
    readers_cpus(t, &its);
    moved = moved && sched_setaffinity(0, sizeof its, &its) == 0;
    /* It takes its creator's signal mask too: every signal blocked, so
     * that one sent to the process (SIG-P-LAT's, blocked in the test's
     * threads) goes to a thread that waits for it, never to the reader,
     * where its default action would end the probe. */
    sigset_t all, old;
    sigfillset(&all);
    bool masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
    int e = pthread_create(&t->reader, &a, reader_main, t);
    if (masked)
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (moved)
        sched_setaffinity(0, sizeof mine, &mine);
    pthread_attr_destroy(&a);
    t->reader_started = e == 0;
    /* Wait until it runs, so the test's first sample finds it polling; not
     * for ever: on a machine whose every CPU a higher task holds, it runs
     * when it can, and the record shows what it could not keep. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    while (e == 0 && sem_timedwait(&t->started, &until) != 0 && errno == EINTR)
        ;
    return e;
}

/* SCHED_FIFO 1: below every test thread (they run at --prio, and a thread
 * at 1 is never preempted by it), above every ordinary task. An ordinary
 * reader woken on a CPU a test's real-time threads keep busy waited there
 * while a burst of events (THR-P-PRE's 3,000 hand-overs in some 10 ms)
 * overran its buffer; a real-time one is pushed at once to a CPU where it
 * can run. Its work per wake-up is bounded (what the buffers hold, and the
 * cuts asked), and RT throttling bounds it too. SCHED_OTHER where
 * real-time is refused. */
int rtg_tr_start_reader(struct rtg_trace_port *t)
{
    if (start_reader_as(t, SCHED_FIFO, 1) == 0)
        return 0;
    return start_reader_as(t, SCHED_OTHER, 0);
}

/* Function addresses into names, from /proc/kallsyms, for the events of
 * the kept windows that carry one. */
void rtg_tr_resolve_symbols(struct rtg_trace_port *t)
{
    bool any = false;
    for (size_t w = 0; w < RTG_TRACE_SLOTS_MAX && !any; w++)
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
        for (size_t w = 0; w < RTG_TRACE_SLOTS_MAX; w++)
            for (size_t i = 0; t->kept[w].have && i < t->kept[w].w.n_events; i++) {
                struct rtg_tev *e = &t->kept[w].w.events[i];
                if (e->addr == a && !e->name[0])
                    snprintf(e->name, sizeof e->name, "%s", name);
            }
    }
    fclose(f);
}
