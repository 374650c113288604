/* The Linux flight recorder's parts, the port's side of rtg/osal_trace.h
 * (trace_recorder.c: the lifecycle and the freeze; trace_setup.c: the
 * instances and the tracepoints; trace_reader.c: the reader thread that
 * cuts the windows out of a frozen instance). */
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

/* A frozen instance to read, and the windows to cut out of it. gen: the
 * kept slot's generation when cut (a later freeze into the same slot
 * makes this one's window unwanted). */
struct job {
    int slot;
    uint64_t since_ns; /* the instance recorded from then on */
    size_t n;
    struct rtg_trace_cut cuts[RTG_TRACE_KEEP_MAX];
    unsigned gen[RTG_TRACE_KEEP_MAX];
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

    struct slot slots[SLOTS];
    int recording;
    pthread_mutex_t lock; /* priority inheritance: the reader holds it briefly */
    struct job queue[SLOTS];
    size_t q_head, q_len;

    sem_t wake;
    pthread_t reader;
    bool reader_started;
    _Atomic bool quit;

    bool stopped;
    uint8_t *page;           /* the reader's page buffer */
    struct rtg_tev *scratch; /* the reader's ring of a window's events (more cuts: malloc'd) */
    struct kept kept[RTG_TRACE_KEEP_MAX];
    uint64_t lost_events; /* over the run */
    struct steal_reading steal_prev, steal_last;
    long user_hz;
};

/* ---- trace_setup.c ---- */
uint64_t rtg_tr_mono_ns(void);
bool rtg_tr_measured(const struct rtg_trace_port *t, int cpu);
/* The decoders: the wanted tracepoints and every vector this kernel has. */
int rtg_tr_read_decoders(struct rtg_trace_port *t);
/* Instance i, configured, recording off; 0 or an errno with why filled. */
int rtg_tr_setup_slot(struct rtg_trace_port *t, int i, char *why, size_t n);
/* Closes and removes every instance; unmounts tracefs if it was mounted here. */
void rtg_tr_teardown(struct rtg_trace_port *t);

/* ---- trace_reader.c ---- */
void rtg_tr_read_steal(struct rtg_trace_port *t, struct steal_reading *r);
/* The reader runs SCHED_OTHER, on the CPUs not measured when there are any. */
int rtg_tr_start_reader(struct rtg_trace_port *t);
/* Function addresses into names, from /proc/kallsyms, in the kept windows. */
void rtg_tr_resolve_symbols(struct rtg_trace_port *t);

#endif
