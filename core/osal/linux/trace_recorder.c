/* The flight recorder's port on Linux (rtg/osal_trace.h): tracefs
 * instances of its own used in turn. One records; when the recorder's
 * policy keeps a sample, the measuring thread stops that instance (its
 * buffer now holds the time before the sample), starts a spare one, and
 * hands the frozen one to a reader thread, which cuts the windows asked
 * out of it and empties the instance for reuse. The measuring thread only
 * writes two bytes to tracefs, and only for a sample that will be kept. */
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
    if ((e = rtg_tr_read_decoders(t))) {
        snprintf(why, n, "this kernel offers none of the scheduler and interrupt tracepoints");
        goto fail;
    }
    for (int i = 0; i < SLOTS; i++)
        if ((e = rtg_tr_setup_slot(t, i, why, n)))
            goto fail;
    memset(about, 0, sizeof *about);
    snprintf(about->source, sizeof about->source, "tracefs instance");
    snprintf(about->clock, sizeof about->clock, "mono (CLOCK_MONOTONIC)");
    snprintf(about->prio_scale, sizeof about->prio_scale, "linux");
    t->user_hz = sysconf(_SC_CLK_TCK);
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&t->lock, &ma);
    pthread_mutexattr_destroy(&ma);
    sem_init(&t->wake, 0, 0);
    if ((e = rtg_tr_start_reader(t))) {
        snprintf(why, n, "cannot start the trace reader thread: %s", strerror(e));
        pthread_mutex_destroy(&t->lock);
        sem_destroy(&t->wake);
        goto fail;
    }
    t->recording = 0;
    t->slots[0].state = SLOT_RECORDING;
    t->slots[0].on_since_ns = rtg_tr_mono_ns();
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
    rtg_tr_teardown(t);
    free(t->dec);
    free(t->page);
    free(t->scratch);
    free(t);
    return e;
}

static void self_linux(struct rtg_trace_port *t, int *cpu, int32_t *tid)
{
    (void)t;
    *cpu = sched_getcpu();
    *tid = (int32_t)syscall(SYS_gettid);
}

/* Freezes the recording instance, starts a spare one, and queues the
 * frozen one with its cuts for the reader. */
static int freeze_linux(struct rtg_trace_port *t, const struct rtg_trace_cut *cuts, size_t n)
{
    if (n == 0 || n > RTG_TRACE_KEEP_MAX)
        return EINVAL;
    pthread_mutex_lock(&t->lock);
    int spare = -1;
    for (int i = 0; i < SLOTS && !atomic_load(&t->quit); i++)
        if (t->slots[i].state == SLOT_SPARE) {
            spare = i;
            break;
        }
    struct slot *rec = &t->slots[t->recording];
    if (spare < 0 || rec->state != SLOT_RECORDING || write(rec->on_fd, "0", 1) != 1) {
        pthread_mutex_unlock(&t->lock);
        return EBUSY;
    }
    if (write(t->slots[spare].on_fd, "1", 1) == 1) {
        t->slots[spare].state = SLOT_RECORDING;
        t->slots[spare].on_since_ns = rtg_tr_mono_ns();
    }
    rec->state = SLOT_FROZEN;
    struct job *j = &t->queue[(t->q_head + t->q_len) % SLOTS];
    j->slot = t->recording;
    j->since_ns = rec->on_since_ns;
    j->n = n;
    for (size_t i = 0; i < n; i++) {
        j->cuts[i] = cuts[i];
        j->gen[i] = ++t->kept[cuts[i].slot].gen;
    }
    t->q_len++;
    t->recording = t->slots[spare].state == SLOT_RECORDING ? spare : t->recording;
    pthread_mutex_unlock(&t->lock);
    sem_post(&t->wake);
    return 0;
}

static void stop_linux(struct rtg_trace_port *t, uint64_t *lost)
{
    if (!t->stopped) {
        t->stopped = true;
        pthread_mutex_lock(&t->lock);
        atomic_store(&t->quit, true);
        if (t->slots[t->recording].state == SLOT_RECORDING)
            (void)!write(t->slots[t->recording].on_fd, "0", 1);
        pthread_mutex_unlock(&t->lock);
        sem_post(&t->wake);
        if (t->reader_started)
            pthread_join(t->reader, NULL); /* it reads every window queued first */
        rtg_tr_teardown(t);
        pthread_mutex_destroy(&t->lock);
        sem_destroy(&t->wake);
        rtg_tr_resolve_symbols(t);
    }
    *lost = t->lost_events;
}

static int window_linux(struct rtg_trace_port *t, unsigned slot, struct rtg_trace_window *w,
                        struct rtg_trace_cover *cover)
{
    if (slot >= RTG_TRACE_KEEP_MAX || !t->kept[slot].have)
        return ENOENT;
    *w = t->kept[slot].w;
    *cover = t->kept[slot].cover;
    memset(&t->kept[slot].w, 0, sizeof t->kept[slot].w); /* its memory is the caller's now */
    t->kept[slot].have = false;
    return 0;
}

static void close_linux(struct rtg_trace_port *t)
{
    uint64_t lost;
    stop_linux(t, &lost);
    for (size_t i = 0; i < RTG_TRACE_KEEP_MAX; i++) {
        free(t->kept[i].w.events);
        free(t->kept[i].w.tasks);
    }
    free(t->dec);
    free(t->page);
    free(t->scratch);
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
};
