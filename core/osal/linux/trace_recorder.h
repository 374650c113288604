/* The Linux flight recorder's parts, the port's side of rtg/osal_trace.h
 * (trace_recorder.c: the lifecycle and the cuts asked for; trace_setup.c:
 * the instance and the tracepoints; trace_drain.c: the measured CPUs'
 * buffers read into rings in user space; trace_reader.c: the reader thread
 * that drains them and cuts the windows). */
#ifndef RTG_TRACE_RECORDER_H
#define RTG_TRACE_RECORDER_H
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtg/osal_trace.h"
#include "trace_events.h"
#include "trace_fs.h"
#include "trace_kin.h"
#include "trace_ring.h"

#define MAX_DECODERS 96
#define MAX_TASKS 64
#define TEXT_MAX 16384
/* Cuts asked for and not yet made: more than K, as several CPUs' samples
 * and a burst of new worst ones may come before the reader runs. */
#define PENDING_MAX (4 * RTG_TRACE_KEEP_MAX)

/* What a measured CPU's buffer handed over, kept in user space: the
 * newest pages as read (a read may hand a partial page), oldest first. A
 * window is cut from here, so recording never stops and samples that end
 * together on several CPUs, or a burst of new worst ones, are each cut. */
struct cpu_ring {
    int cpu;
    int fd; /* per_cpu/cpuN/trace_pipe_raw, non-blocking */
    size_t cap, head, n;
    size_t first_cap; /* cap before a hold grew it (0: never grown) */
    uint8_t *pages;   /* cap pages of page_size bytes */
    uint32_t *len;    /* bytes each read handed over */
    uint64_t *ts;     /* each page's time stamp (its first event's base) */
    uint64_t *missed; /* events lost before each page (UINT64_MAX: some) */
    uint64_t held_since_ns; /* every event from here on was read (none evicted) */
    uint64_t read_to_ns;    /* every event up to here was read (the last drain caught up) */
};

/* A cut asked for, with the kept slot's generation when asked (a later
 * cut into the same slot makes this one unwanted). */
struct pending {
    struct rtg_trace_cut cut;
    unsigned gen;
};

/* A kept window as the reader cut it, until the policy takes it. */
struct kept {
    unsigned gen; /* the latest cut into this slot (under lock) */
    bool have;    /* w and cover hold that cut's window */
    struct rtg_trace_window w;
    struct rtg_trace_cover cover;
};

/* Per-CPU steal time readings (/proc/stat, USER_HZ ticks) with their time. */
struct steal_reading {
    uint64_t at_ns;
    uint64_t ticks[1024];
};

struct rtg_trace_port {
    struct rtg_trace_config cfg;
    int cpus[1024];
    struct rtg_tracefs fs;
    struct rtg_ring_layout layout;
    size_t page_size;
    struct rtg_tp_decoder *dec;
    size_t n_dec;

    char dir[RTG_TRACEFS_PATH * 2]; /* the one instance, recording all along */
    int on_fd;                      /* its tracing_on */
    uint64_t on_since_ns;
    struct cpu_ring *rings; /* one per measured CPU */
    size_t n_rings;

    pthread_mutex_t lock; /* priority inheritance: the reader holds it briefly */
    struct pending pending[PENDING_MAX];
    size_t p_head, p_len;
    int wake_fd; /* an eventfd: a cut was asked for, or stop */
    pthread_t reader;
    sem_t started; /* posted by the reader once it left the measured CPUs */
    bool reader_started;
    _Atomic bool quit;

    bool stopped;
    uint8_t *page;           /* the reader's page, read into before its ring takes it */
    struct rtg_tev *scratch; /* the reader's ring of a window's events */
    struct kept kept[RTG_TRACE_SLOTS_MAX];
    uint64_t lost_events; /* over the run: what the kernel's buffers lost unread */
    uint64_t drains, pages_read;
    struct steal_reading steal_prev, steal_last;
    long user_hz;
    struct rtg_trace_kin kin; /* whose the tasks that ended were */
    _Atomic uint64_t hold_from_ns; /* 0: none; else pages from here grow the ring */
};

/* ---- trace_setup.c ---- */
uint64_t rtg_tr_mono_ns(void);
bool rtg_tr_measured(const struct rtg_trace_port *t, int cpu);
/* The decoders: the wanted tracepoints and every vector this kernel has. */
int rtg_tr_read_decoders(struct rtg_trace_port *t);
/* The instance, configured, recording off, with a ring per measured CPU;
 * 0 or an errno with why filled. */
int rtg_tr_setup_instance(struct rtg_trace_port *t, char *why, size_t n);
/* Closes and removes the instance; unmounts tracefs if it was mounted here. */
void rtg_tr_teardown(struct rtg_trace_port *t);

/* ---- trace_drain.c ---- */
/* Reads each measured CPU's buffer into its ring: every page it holds, or
 * up to the first page after until_ns (the rest is read after the cuts, so
 * that a busy CPU's stream cannot push a window out of the ring before it
 * is cut). */
void rtg_tr_drain_all(struct rtg_trace_port *t, uint64_t until_ns);
/* Each page of ring r from the one holding from_ns (or the one before it)
 * on, in order: its index in ring order (0: the oldest), or r->n when
 * every page is older. */
size_t rtg_tr_ring_first(const struct cpu_ring *r, uint64_t from_ns);
/* Page i of ring r (0: the oldest). */
const uint8_t *rtg_tr_ring_page(const struct rtg_trace_port *t, const struct cpu_ring *r,
                                size_t i, uint32_t *len, uint64_t *missed);
void rtg_tr_rings_free(struct rtg_trace_port *t);

/* ---- trace_reader.c ---- */
void rtg_tr_read_steal(struct rtg_trace_port *t, struct steal_reading *r);
/* The reader runs SCHED_OTHER, on the CPUs not measured when there are any. */
int rtg_tr_start_reader(struct rtg_trace_port *t);
/* Function addresses into names, from /proc/kallsyms, in the kept windows. */
void rtg_tr_resolve_symbols(struct rtg_trace_port *t);

#endif
