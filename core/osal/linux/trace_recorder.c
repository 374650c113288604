/* The flight recorder's port on Linux (rtg/osal_trace.h): a tracefs
 * instance of its own records all along; a reader thread reads the
 * measured CPUs' buffers as they fill into rings in user space. When the
 * recorder's policy keeps a sample, the measuring thread only queues the
 * cut and wakes the reader (an eventfd write), which reads what is left
 * and cuts the window out of the ring. Nothing is frozen, so samples that
 * end together on several CPUs, and a burst of new worst ones, are each
 * cut from the same unbroken record. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace_recorder.h"

static int open_linux(struct rtg_trace_port **out, const struct rtg_trace_config *cfg,
                      struct rtg_trace_about *about, char *why, size_t n)
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
    struct rtg_trace_port *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(why, n, "out of memory");
        return ENOMEM;
    }
    t->cfg = *cfg;
    memcpy(t->cpus, cfg->cpus, cfg->n_cpus * sizeof cfg->cpus[0]);
    t->cfg.cpus = t->cpus;
    t->on_fd = -1;
    t->wake_fd = -1;
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
    t->scratch = calloc(cfg->max_events, sizeof *t->scratch);
    t->page = malloc(t->page_size);
    if (!t->dec || !t->scratch || !t->page) {
        snprintf(why, n, "out of memory");
        e = ENOMEM;
        goto fail;
    }
    if ((e = rtg_tr_read_decoders(t))) {
        snprintf(why, n, "this kernel offers none of the scheduler and interrupt tracepoints");
        goto fail;
    }
    if ((e = rtg_tr_setup_instance(t, why, n)))
        goto fail;
    /* not fatal: without it, a task that ended before its window was read
     * is nobody's ("" origin) rather than the run's or a stranger's */
    rtg_kin_open(&t->kin, &t->fs);
    memset(about, 0, sizeof *about);
    snprintf(about->source, sizeof about->source, "tracefs instance");
    snprintf(about->clock, sizeof about->clock, "mono (CLOCK_MONOTONIC)");
    snprintf(about->prio_scale, sizeof about->prio_scale, "linux");
    t->user_hz = sysconf(_SC_CLK_TCK);
    t->on_since_ns = rtg_tr_mono_ns();
    for (size_t i = 0; i < t->n_rings; i++)
        t->rings[i].held_since_ns = t->on_since_ns;
    if (write(t->on_fd, "1", 1) != 1) {
        e = errno;
        snprintf(why, n, "cannot start recording: %s", strerror(e));
        goto fail;
    }
    t->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (t->wake_fd < 0) {
        e = errno;
        snprintf(why, n, "cannot make the reader's eventfd: %s", strerror(e));
        goto fail;
    }
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&t->lock, &ma);
    pthread_mutexattr_destroy(&ma);
    sem_init(&t->started, 0, 0);
    if ((e = rtg_tr_start_reader(t))) {
        snprintf(why, n, "cannot start the trace reader thread: %s", strerror(e));
        pthread_mutex_destroy(&t->lock);
        sem_destroy(&t->started);
        goto fail;
    }
    *out = t;
    return 0;
fail:
    rtg_tr_teardown(t);
    if (t->wake_fd >= 0)
        close(t->wake_fd);
    rtg_tr_rings_free(t);
    free(t->dec);
    free(t->scratch);
    free(t->page);
    free(t);
    return e;
}

static void self_linux(struct rtg_trace_port *t, int *cpu, int32_t *tid)
{
    (void)t;
    *cpu = sched_getcpu();
    *tid = (int32_t)syscall(SYS_gettid);
}

/* Queues the cuts for the reader and wakes it: recording goes on, and
 * every cut is made from the same record. EBUSY only when the reader has
 * fallen so far behind that PENDING_MAX cuts wait. */
static int freeze_linux(struct rtg_trace_port *t, const struct rtg_trace_cut *cuts, size_t n)
{
    if (n == 0 || n > RTG_TRACE_KEEP_MAX)
        return EINVAL;
    pthread_mutex_lock(&t->lock);
    if (atomic_load(&t->quit) || t->p_len + n > PENDING_MAX) {
        pthread_mutex_unlock(&t->lock);
        return EBUSY;
    }
    for (size_t i = 0; i < n; i++) {
        struct pending *p = &t->pending[(t->p_head + t->p_len) % PENDING_MAX];
        p->cut = cuts[i];
        p->gen = ++t->kept[cuts[i].slot].gen;
        t->p_len++;
    }
    pthread_mutex_unlock(&t->lock);
    uint64_t one = 1;
    (void)!write(t->wake_fd, &one, sizeof one);
    return 0;
}

static void stop_linux(struct rtg_trace_port *t, uint64_t *lost)
{
    if (!t->stopped) {
        t->stopped = true;
        atomic_store(&t->quit, true);
        uint64_t one = 1;
        (void)!write(t->wake_fd, &one, sizeof one);
        if (t->reader_started)
            pthread_join(t->reader, NULL); /* it makes every cut queued first */
        (void)!write(t->on_fd, "0", 1);
        rtg_tr_teardown(t);
        pthread_mutex_destroy(&t->lock);
        sem_destroy(&t->started);
        close(t->wake_fd);
        t->wake_fd = -1;
        rtg_tr_resolve_symbols(t);
    }
    *lost = t->lost_events;
}

static int window_linux(struct rtg_trace_port *t, unsigned slot, struct rtg_trace_window *w,
                        struct rtg_trace_cover *cover)
{
    if (slot >= RTG_TRACE_SLOTS_MAX || !t->kept[slot].have)
        return ENOENT;
    *w = t->kept[slot].w;
    *cover = t->kept[slot].cover;
    memset(&t->kept[slot].w, 0, sizeof t->kept[slot].w); /* its memory is the caller's now */
    t->kept[slot].have = false;
    return 0;
}

/* The reader reads it before it evicts a page (trace_drain.c). */
static void hold_linux(struct rtg_trace_port *t, uint64_t from_ns)
{
    atomic_store(&t->hold_from_ns, from_ns);
}

static void close_linux(struct rtg_trace_port *t)
{
    uint64_t lost;
    stop_linux(t, &lost);
    for (size_t i = 0; i < RTG_TRACE_SLOTS_MAX; i++) {
        free(t->kept[i].w.events);
        free(t->kept[i].w.tasks);
    }
    rtg_tr_rings_free(t);
    free(t->dec);
    free(t->scratch);
    free(t->page);
    free(t);
}

static void janitor_linux(void)
{
    struct rtg_tracefs fs;
    char why[160];
    if (rtg_tracefs_open(&fs, why, sizeof why) == 0) {
        rtg_tracefs_janitor(&fs);
        rtg_tracefs_close(&fs);
    }
}

const struct rtg_trace_ops rtg_trace_port = {
    .open = open_linux,
    .self = self_linux,
    .freeze = freeze_linux,
    .stop = stop_linux,
    .window = window_linux,
    .close = close_linux,
    .janitor = janitor_linux,
    .hold = hold_linux,
};
