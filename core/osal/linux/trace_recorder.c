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

#include "trace_recorder.h"

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
    if ((e = rtg_tr_read_decoders(t))) {
        snprintf(why, n, "this kernel offers none of the scheduler and interrupt tracepoints");
        goto fail;
    }
    for (int i = 0; i < SLOTS; i++)
        if ((e = rtg_tr_setup_slot(t, i, why, n)))
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
    uint64_t now = rtg_tr_mono_ns();
    if (write(rec->on_fd, "0", 1) != 1) {
        pthread_mutex_unlock(&t->lock);
        return;
    }
    if (write(t->slots[spare].on_fd, "1", 1) == 1) {
        t->slots[spare].state = SLOT_RECORDING;
        t->slots[spare].on_since_ns = rtg_tr_mono_ns();
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

void rtg_trace_close(struct rtg_trace *t, struct rtg_trace_result *out)
{
    if (out)
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
    rtg_tr_teardown(t);
    pthread_mutex_destroy(&t->lock);
    sem_destroy(&t->wake);
    if (out) {
        rtg_tr_resolve_symbols(&t->res);
        *out = t->res;
    } else {
        rtg_trace_result_free(&t->res);
    }
    free(t->dec);
    free(t->page);
    free(t->scratch);
    free(t);
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
