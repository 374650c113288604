/* The Linux flight recorder's parts (trace_recorder.c: the lifecycle and
 * the freeze; trace_setup.c: the instances and the tracepoints;
 * trace_reader.c: the reader thread that keeps the windows). */
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

/* ---- trace_setup.c ---- */
uint64_t rtg_tr_mono_ns(void);
bool rtg_tr_measured(const struct rtg_trace *t, int cpu);
/* The decoders: the wanted tracepoints and every vector this kernel has. */
int rtg_tr_read_decoders(struct rtg_trace *t);
/* Instance i, configured, recording off; 0 or an errno with why filled. */
int rtg_tr_setup_slot(struct rtg_trace *t, int i, char *why, size_t n);
/* Closes and removes every instance; unmounts tracefs if it was mounted here. */
void rtg_tr_teardown(struct rtg_trace *t);

/* ---- trace_reader.c ---- */
void rtg_tr_read_steal(struct rtg_trace *t, struct steal_reading *r);
/* The reader runs SCHED_OTHER, on the CPUs not measured when there are any. */
int rtg_tr_start_reader(struct rtg_trace *t);
/* Function addresses into names, from /proc/kallsyms. */
void rtg_tr_resolve_symbols(struct rtg_trace_result *r);

/* Whether a window holds all that happened on its CPU from the release to
 * the end. It must reach back to its start (nothing lost since, or the
 * buffer's oldest event lies before it), and recording must have begun
 * before its start: or, since another sample's freeze restarts recording
 * where it happens, before the release with a switch on the CPU recorded
 * in between. From that switch on, who ran and every handler entered are
 * in the trace; *start_ns then moves to where recording began. */
bool rtg_tr_window_complete(uint64_t on_since_ns, uint64_t release_ns, bool reaches_back,
                            const struct rtg_tev *ev, size_t n, uint64_t *start_ns);

#endif
