/* The flight recorder: the kernel's own events around a test's worst
 * samples, so the host can say why a wake-up was late (docs/recorder.md,
 * docs/explain.md). The probe offers each sample of an explained
 * figure (a latency from a known release instant); when one beats the
 * K-th worst kept so far, the recording is frozen and the window around it
 * kept while recording goes on. Linux: tracefs instances of its own
 * (core/osal/linux/trace_*.c); FreeRTOS: the kernel's trace hooks into a
 * RAM ring; elsewhere not offered (rtg_trace_open says why).
 *
 * Events come in one vocabulary on every port, so one explanation reads
 * them all. Times are on the trace clock, the one the samples are taken
 * with (CLOCK_MONOTONIC on Linux, the board's counter on an RTOS). */
#ifndef RTG_OSAL_TRACE_H
#define RTG_OSAL_TRACE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rtg_tev_kind {
    RTG_TEV_IRQ_ENTRY,     /* a device interrupt's handler: num = irq, name = its action */
    RTG_TEV_IRQ_EXIT,      /* num = irq */
    RTG_TEV_VEC_ENTRY,     /* an architecture vector or the tick: name = "local_timer" … */
    RTG_TEV_VEC_EXIT,      /* name as at entry */
    RTG_TEV_SOFTIRQ_RAISE, /* num = vector, name = "NET_RX" … */
    RTG_TEV_SOFTIRQ_ENTRY,
    RTG_TEV_SOFTIRQ_EXIT,
    RTG_TEV_TIMER_ENTRY, /* a timer callback: name = function, arg = the time it ran at */
    RTG_TEV_TIMER_EXIT,
    RTG_TEV_WAKING, /* pid, prio, name = comm of the task being woken; num = target CPU */
    RTG_TEV_WAKEUP, /* the task is on a run queue (num = its CPU) */
    RTG_TEV_SWITCH, /* pid/prio/name: the task switched out (state: its state);
                     * pid2/prio2/name2: the task switched in */
    RTG_TEV_IDLE_ENTRY, /* num = idle state */
    RTG_TEV_IDLE_EXIT,
    RTG_TEV_WORK_START, /* a workqueue item: name = function */
    RTG_TEV_WORK_END,
    RTG_TEV_IPI_SEND, /* num = target CPU (-1: several), name = what for */
    RTG_TEV_IPI_ENTRY,
    RTG_TEV_IPI_EXIT,
    RTG_TEV_KINDS
};

#define RTG_TEV_NAME_MAX 32
#define RTG_TEV_COMM_MAX 16
struct rtg_tev {
    int64_t t_ns;  /* on the trace clock */
    uint64_t arg;  /* TIMER_ENTRY: the timer code's own clock reading (ns) */
    uint64_t addr; /* a function's address, resolved into name by the port */
    int64_t state; /* SWITCH: the switched-out task's state (0: still runnable) */
    int32_t num;
    int32_t cur;         /* the task current on cpu when the event happened */
    int32_t pid, prio;   /* prio as the OS numbers it (Linux: 0-99 real-time, 100-139 normal) */
    int32_t pid2, prio2; /* SWITCH: the task switched in */
    uint16_t cpu;
    uint8_t kind; /* enum rtg_tev_kind */
    char name[RTG_TEV_NAME_MAX];
    char name2[RTG_TEV_COMM_MAX];
};

/* A task seen in a window, with its scheduling policy read when the window
 * was kept (it may have changed since, or ended: policy then ""). */
struct rtg_trace_task {
    int32_t pid;
    char policy[16];
};

#define RTG_TRACE_METRIC_MAX 96
struct rtg_trace_window {
    char metric[RTG_TRACE_METRIC_MAX]; /* the figure set the sample belongs to */
    uint64_t release_ns, end_ns;       /* the sample: end - release, on the trace clock */
    uint64_t start_ns;                 /* the window: from here to end_ns */
    int cpu;                           /* where the sample's thread ran */
    int32_t tid;                       /* that thread */
    /* Complete only when every event from start_ns to end_ns is here. */
    bool complete;
    uint64_t lost_events; /* events the buffer lost (overwritten or dropped) before it froze */
    int64_t first_event_ns; /* the oldest event the buffer still held on cpu */
    bool capped;            /* more events than max_events: the oldest were left out */
    /* The hypervisor's share, where the OS tells it: the steal time that
     * grew on cpu between two readings around the window. */
    bool steal_known;
    uint64_t steal_ns, steal_over_ns;
    /* Both malloc'd: the record frees a window's once written (and sets
     * them NULL), rtg_trace_result_free what is left. */
    size_t n_events;
    struct rtg_tev *events; /* in time order */
    size_t n_tasks;
    struct rtg_trace_task *tasks;
};

#define RTG_TRACE_KEEP_MAX 16
struct rtg_trace_config {
    const int *cpus; /* the measured CPUs */
    size_t n_cpus;
    unsigned keep;        /* K: windows kept, the worst samples (1..RTG_TRACE_KEEP_MAX) */
    uint64_t floor_ns;    /* samples at or below it are never kept */
    uint64_t lookback_ns; /* the window starts this long before the release */
    unsigned buffer_kb;   /* per measured CPU and buffer */
    unsigned max_events;  /* per window */
};

struct rtg_trace_result {
    char source[48]; /* "tracefs instance", "FreeRTOS trace hooks" */
    char clock[32];  /* the trace clock */
    /* How the OS numbers priorities in the events: "linux" (0-99
     * real-time, lower first; 100-139 normal; -1 deadline) or "rtos"
     * (a higher number is a higher priority). */
    char prio_scale[8];
    size_t n_windows;
    struct rtg_trace_window windows[RTG_TRACE_KEEP_MAX]; /* worst first */
    uint64_t offered;    /* samples above the floor offered */
    uint64_t freezes;    /* windows frozen (kept or displaced by worse ones) */
    /* Samples that would have been kept but could not be frozen (every
     * buffer busy being read): how many, and the largest. */
    uint64_t uncaptured, uncaptured_max_ns;
    uint64_t lost_events; /* over the run, every buffer and CPU */
    /* What the recorder ran with, where the port says it (0: as the config
     * asked): its buffer and events a window; and, when it took less than
     * asked (a board's small heap), what and why in a sentence. */
    unsigned buffer_kb, max_events;
    char reduced[128];
};

struct rtg_trace;
/* Starts recording on cfg's CPUs. ENOTSUP (this OS or kernel has no
 * tracer), EPERM (not privileged) or another errno, with why filled. */
int rtg_trace_open(struct rtg_trace **out, const struct rtg_trace_config *cfg, char *why,
                   size_t n);
/* A sample from the thread whose wake-up it measures, right after it ran:
 * release_ns and end_ns on the trace clock. Cheap unless the sample is kept. */
void rtg_trace_offer(struct rtg_trace *t, const char *metric, uint64_t release_ns,
                     uint64_t end_ns);
/* Stops recording, restores everything, and hands over the windows kept
 * (free them with rtg_trace_result_free), or drops them when out is NULL.
 * t is freed. */
void rtg_trace_close(struct rtg_trace *t, struct rtg_trace_result *out);
void rtg_trace_result_free(struct rtg_trace_result *r);
/* Removes what a recorder of a process that no longer exists left behind
 * (a probe killed with SIGKILL). */
void rtg_trace_janitor(void);

#endif
