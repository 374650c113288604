/* The flight recorder's port: the kernel's own events around a test's
 * worst samples, so the host can say why a wake-up was late
 * (docs/recorder.md, docs/explain.md). What a port supplies is
 * only its events and its clock: it records, freezes what it recorded when
 * asked, cuts windows of a CPU's events out of it, and says how far back
 * each window's buffer held every event. Which samples are kept, when to
 * freeze, and when a window is complete are decided once, above the OSAL
 * (core/src/runner/recorder_policy.c). Linux: tracefs instances of its own
 * (core/osal/linux/trace_*.c); FreeRTOS: the kernel's trace hooks into a
 * RAM ring; elsewhere not offered (its open says why).
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
 * was kept (it may have changed since, or ended: policy then ""), and whose
 * it is: "run" (the probe, its test and what they started), "kernel" (a
 * kernel thread), "other" (anything else on the system), "ended" (gone when
 * the window was read, and neither the run's nor a kernel thread made
 * while it recorded), "" (not known). */
struct rtg_trace_task {
    int32_t pid;
    char policy[16];
    char origin[8];
};

#define RTG_TRACE_METRIC_MAX 96
struct rtg_trace_window {
    char metric[RTG_TRACE_METRIC_MAX]; /* the figure set the sample belongs to */
    uint64_t release_ns, end_ns;       /* the sample: end - release, on the trace clock */
    uint64_t start_ns; /* the window holds every event of cpu from here to end_ns */
    int cpu;                           /* where the sample's thread ran */
    int32_t tid;                       /* that thread */
    /* Decided by the recorder's policy (core/src/runner/recorder_policy.c): every
     * event of cpu from the release to end_ns is here. */
    bool complete;
    uint64_t lost_events; /* events the buffer lost (overwritten or dropped) before it froze */
    int64_t first_event_ns; /* the oldest event the buffer still held on cpu */
    bool capped;            /* more events than max_events: the oldest were left out */
    /* Why it was kept (the policy's): among the K worst samples of the
     * test, the worst of its figure (metric), or both. */
    bool worst, figure_max;
    bool operation; /* the thread's own call from release to end, not a wake-up */
    /* The hypervisor's share, where the OS tells it: the steal time that
     * grew on cpu between two readings around the window. */
    bool steal_known;
    uint64_t steal_ns, steal_over_ns;
    /* Both malloc'd: the record frees a window's once written (and sets
     * them NULL), rtg_trace_result_free (the policy's) what is left. */
    size_t n_events;
    struct rtg_tev *events; /* in time order */
    size_t n_tasks;
    struct rtg_trace_task *tasks;
};

#define RTG_TRACE_KEEP_MAX 16
/* Windows a port holds at most: the K worst and each figure's worst (the
 * default --explain-figures is the rest: 64 here, room for MEM-P-CPY's 40
 * figures and MSG-P-FIL's 42). A firmware build sets 48: its heap, not the
 * room, bounds what a board holds (docs/recorder.md, "Its memory"). */
#ifndef RTG_TRACE_SLOTS_MAX
#define RTG_TRACE_SLOTS_MAX 80
#endif
struct rtg_trace_config {
    const int *cpus; /* the measured CPUs */
    size_t n_cpus;
    unsigned keep;        /* K: windows kept, the worst samples (1..RTG_TRACE_KEEP_MAX) */
    /* Windows the port holds (keep..RTG_TRACE_SLOTS_MAX): the K worst and,
     * in the rest, the worst sample of each figure that is not among them. */
    unsigned slots;
    uint64_t floor_ns;    /* samples at or below it are never kept */
    uint64_t lookback_ns; /* the window starts this long before the release */
    unsigned buffer_kb;   /* per measured CPU and buffer */
    unsigned max_events;  /* per window */
};

/* What the port says of itself when it opens. */
struct rtg_trace_about {
    char source[48]; /* "tracefs instance", "FreeRTOS trace hooks" */
    char clock[32];  /* the trace clock */
    /* How the OS numbers priorities in the events: "linux" (0-99
     * real-time, lower first; 100-139 normal; -1 deadline) or "rtos"
     * (a higher number is a higher priority). */
    char prio_scale[8];
    /* What the recorder runs with (0: as the config asked): its buffer and
     * events a window; and, when it took less than asked (a board's small
     * heap), what and why in a sentence. */
    unsigned buffer_kb, max_events;
    unsigned slots; /* windows it holds (0: as asked) */
    char reduced[128];
    /* What writing one event costs the code it is written from, in ns,
     * measured at open (0: not measured): the recorder's share of any
     * sample is that times the events written inside it. */
    uint64_t event_ns;
};

/* A window to cut out of what a freeze kept: the events of cpu from from_ns
 * to to_ns (the last switch and idle state before from_ns too), kept in
 * the port's slot (0 .. slots - 1), replacing what that slot held. tid: the
 * thread whose sample it is (its policy is read with the others'). */
struct rtg_trace_cut {
    unsigned slot;
    int cpu;
    int32_t tid;
    uint64_t from_ns, to_ns;
    /* The thread's own call (an operation), not a wake-up: what matters is
     * where it was taken off its CPU, which a port that can tell may cut. */
    bool operation;
    uint64_t release_ns;
};

/* How far back the buffer a window was cut from held every event of its
 * CPU: the facts the recorder's policy judges completeness by. */
struct rtg_trace_cover {
    uint64_t since_ns; /* recording began then, and went on without a pause up to the freeze */
    uint64_t lost;     /* events the buffer lost from since_ns to the freeze (oldest first) */
    int64_t oldest_ns; /* the oldest event it still held on the CPU (-1: none) */
    /* The CPU the window was cut from, when the port found the thread had
     * ended its sample on another CPU than the one it named when it
     * offered it (it migrated in between); -1: the cut's. */
    int cpu;
};

struct rtg_trace_port;
/* A port's recorder, called by the policy only (never by a test). The
 * policy serialises every call; freeze may come from any measuring thread
 * and must be cheap there, the rest come from the runner. */
struct rtg_trace_ops {
    /* Starts recording on cfg's CPUs, with room for cfg->keep windows.
     * ENOTSUP (no tracer), EPERM (not privileged) or another errno, with
     * why filled. */
    int (*open)(struct rtg_trace_port **out, const struct rtg_trace_config *cfg,
                struct rtg_trace_about *about, char *why, size_t n);
    /* Where the calling thread runs, and its id, as the events name them. */
    void (*self)(struct rtg_trace_port *p, int *cpu, int32_t *tid);
    /* Freezes what was recorded up to now and cuts the n windows out of it
     * (several CPUs at once); recording goes on. 0, or EBUSY when it cannot
     * now (every buffer busy): then no slot was touched. */
    int (*freeze)(struct rtg_trace_port *p, const struct rtg_trace_cut *cuts, size_t n);
    /* Stops recording (every cut is done when it returns); *lost: the
     * events lost over the run, every buffer and CPU. */
    void (*stop)(struct rtg_trace_port *p, uint64_t *lost);
    /* After stop: the window of slot in w (events, tasks, start_ns where
     * its events begin, capped, lost_events, first_event_ns, steal; the
     * caller owns its memory) and its cover. ENOENT: the slot holds none
     * (never cut, or out of memory). */
    int (*window)(struct rtg_trace_port *p, unsigned slot, struct rtg_trace_window *w,
                  struct rtg_trace_cover *cover);
    /* Restores everything and frees p (after stop, or instead of it). */
    void (*close)(struct rtg_trace_port *p);
    /* Removes what a recorder of a process that no longer exists, or of a
     * test the watchdog ended, left behind. */
    void (*janitor)(void);
    /* Optional (NULL: not offered): keep every event recorded from from_ns
     * on, as far as the port's memory for it allows, for samples offered
     * long after they ended (a figure known only once a loop has ended). */
    void (*hold)(struct rtg_trace_port *p, uint64_t from_ns);
};
/* This build's port (core/osal/none/trace.c where there is no tracer). */
extern const struct rtg_trace_ops rtg_trace_port;

#endif
