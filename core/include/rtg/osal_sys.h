/* System facts: what a port tells the system record about the target, and
 * what the probe can obtain there. The port hands over facts as plain
 * values; the probe writes every key of the record, once
 * (core/src/system_record.c). A fact the port cannot read stays unknown and
 * is written null (or, for the few strings the record always carries, the
 * word "unknown"): never a guess. Linux: core/osal/linux/sysinfo.c; ISO C11:
 * core/osal/c11/sysinfo.c; FreeRTOS: core/osal/freertos/sysinfo.c.
 *
 * How the facts are shaped, and why:
 * - The facts every record has (host, kernel, cpu, clock) are typed fields
 *   of group structs, each group one object of the record. The writer names
 *   each key once, so no port can misspell or forget one, and a port fills
 *   only what it can read: the caller zeroes struct rtg_sys_facts, and a
 *   field left zero is unknown (null). A fact added to a group later is
 *   therefore null on every port until a port fills it.
 * - Facts only some ports have (an RTOS's configuration, a board's clock
 *   resolution, the real-time audit's facts: isolation, IRQ affinities,
 *   idle states, THP, watchdogs, kernel options ...) are named facts in a
 *   list (struct rtg_sys_extra): a dotted path and a typed value. A port
 *   adds them without a change to this interface or to any other port; the
 *   writer places "clock.x" inside "clock", and a fact of a group the
 *   record does not have ("rtos.name", "audit.thp.enabled") in that group
 *   after "kernel".
 * - The audit's facts that count something over the run (how often each
 *   IRQ fired on the measured CPUs, the hypervisor's steal time, the free
 *   heap) are read again at the run's end (rtg_sys_end_facts), with the
 *   same paths: the end record carries them under "audit". The host judges
 *   both (docs/audit.md); the probe only reads. */
#ifndef RTG_OSAL_SYS_H
#define RTG_OSAL_SYS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rtg_privileges {
    long euid; /* effective user id; -1 where the OS has none */
    bool sched_fifo;
    char sched_fifo_reason[128];
    bool mlockall;
    char mlockall_reason[128];
    bool affinity;
    bool cpu_dma_latency; /* held at 0 for the run (rtg_isolate_begin) */
};

/* Probes what the process can obtain -- SCHED_FIFO at prio (unless no_rt),
 * locking all memory, pinning to cpu -- without keeping any of it; each
 * refusal says why in the *_reason fields. */
void rtg_sys_privileges(int prio, bool no_rt, int cpu, struct rtg_privileges *p);
/* Whether a hypervisor is present. */
bool rtg_sys_virtualized(void);
/* Whether the CPU is emulated (QEMU TCG): timings then mean nothing. */
bool rtg_sys_emulated(void);
/* Whether the OS says the CPU has this feature flag (Linux: the flags of
 * /proc/cpuinfo, e.g. "constant_tsc"); false where it cannot tell. The
 * measuring clock asks it before trusting a counter the CPU itself does not
 * declare invariant (hypervisors often hide the CPUID leaf). */
bool rtg_sys_cpu_flag(const char *flag);
/* The time a hypervisor took from all the CPUs since boot (Linux: the
 * steal column of /proc/stat), in ns, at the OS's granularity (10 ms at
 * USER_HZ 100); false where the OS does not report it. A test reads it
 * around a miss to tell the machine's pause from the OS's fault. */
bool rtg_sys_steal_ns(uint64_t *ns);
/* The hypervisor's vendor signature, or "" when unknown. */
void rtg_sys_hypervisor_vendor(char *out, size_t n);

/* The kernel's tick rate on cpu, for a test to name its tick: the
 * configured one (*source "CONFIG_HZ") when the kernel configuration is
 * readable, else counted from the timer interrupts over 200 ms of busy
 * time (*source "measured", includes other local timer interrupts); 0 and
 * *source "unknown" when neither can be had. */
double rtg_sys_tick_hz(int cpu, const char **source);

/* ---- the facts of the system record ---- */

/* A longer text is cut (the kernel's cmdline). A build for a small board may
 * ask for shorter texts (-D): its facts are short, its RAM is not spare. */
#ifndef RTG_SYS_TEXT_MAX
#define RTG_SYS_TEXT_MAX 1024
#endif

/* One fact of each JSON type; known false (zero) writes null. */
struct rtg_sys_text {
    bool known;
    char v[RTG_SYS_TEXT_MAX]; /* may be known and empty ("" is a value) */
};
struct rtg_sys_int {
    bool known;
    int64_t v;
};
struct rtg_sys_num {
    bool known;
    double v;
};
struct rtg_sys_bool {
    bool known;
    bool v;
};

/* "host". The record always has these strings: an unknown one is written
 * "unknown". */
struct rtg_sys_host {
    struct rtg_sys_text hostname, os, release, version, machine;
    struct rtg_sys_text os_pretty_name; /* null when unknown */
};

/* "kernel". */
struct rtg_sys_kernel {
    struct rtg_sys_text preempt_model;  /* "rt", "full", "lazy", "voluntary", "none" */
    struct rtg_sys_bool preempt_dynamic;
    struct rtg_sys_text preempt_source; /* where the model was read */
    struct rtg_sys_bool realtime;
    struct rtg_sys_int hz_config;       /* the configured tick rate */
    struct rtg_sys_num hz_measured;     /* counted on the run's first CPU */
    struct rtg_sys_text cmdline, isolcpus, nohz_full;
    struct rtg_sys_int rt_runtime_us, rt_period_us; /* RT throttling */
};

/* "cpu" (the probe adds "selected"). online and configured are always
 * known: a port that cannot count says 1. */
struct rtg_sys_cpu {
    struct rtg_sys_text model;
    int64_t online, configured;
    struct rtg_sys_text governor;
};

/* "clock" (the probe adds its own clock's source and calibration). */
struct rtg_sys_clock {
    struct rtg_sys_text kernel_clocksource;
};

/* A named fact beyond the groups (see the top of this file). */
enum rtg_sys_fact_type {
    RTG_FACT_NULL,
    RTG_FACT_BOOL,
    RTG_FACT_INT,
    RTG_FACT_UINT,
    RTG_FACT_NUM,
    RTG_FACT_TEXT,
};
#define RTG_SYS_FACT_PATH_MAX 96
#ifndef RTG_SYS_FACT_TEXT_MAX
#define RTG_SYS_FACT_TEXT_MAX 256
#endif
struct rtg_sys_fact {
    /* Where it goes: object names and the key, joined by dots
     * ("rtos.config.configUSE_PREEMPTION", "audit.irqs.24.count"); copied,
     * so a port may build it. Facts of one object are listed together. */
    char path[RTG_SYS_FACT_PATH_MAX];
    enum rtg_sys_fact_type type;
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
    } v;
    char text[RTG_SYS_FACT_TEXT_MAX]; /* RTG_FACT_TEXT */
};
/* The list grows as facts are added (the Linux audit names hundreds: an
 * IRQ, an idle state of each measured CPU; an RTOS a few dozen), up to
 * RTG_SYS_EXTRA_MAX. A fact beyond it, one whose path is too long, or one
 * that cannot be allocated is counted in dropped, and the record says so.
 * A zeroed list is empty; rtg_sys_extra_free gives its memory back. */
#define RTG_SYS_EXTRA_MAX 8192
struct rtg_sys_extra {
    size_t n, cap;
    size_t dropped;
    struct rtg_sys_fact *facts;
};

/* The port's own warnings: what makes figures on this target less
 * trustworthy (Linux: frequency scaling). */
#define RTG_SYS_WARNINGS_MAX 8
struct rtg_sys_warnings {
    size_t n;
    char text[RTG_SYS_WARNINGS_MAX][256];
};

struct rtg_sys_facts {
    struct rtg_sys_host host;
    struct rtg_sys_kernel kernel;
    struct rtg_sys_cpu cpu;
    struct rtg_sys_clock clock;
    struct rtg_sys_extra extra;
    struct rtg_sys_warnings warnings;
};

/* Fills *f, zeroed by the caller, with what the port can read of the
 * target, the real-time audit's facts among them; cpus are the measured
 * CPUs (hz_measured is counted on the first). Called once, before the
 * first test. */
void rtg_sys_facts(const int *cpus, size_t n_cpus, struct rtg_sys_facts *f);

/* Adds to *x, zeroed by the caller, the audit's facts that count over the
 * run, read again at its end, with the paths they had at the start
 * ("audit.irqs.24.count"): the end record carries them under "audit". A
 * port with none adds nothing. Called once, after the last test. */
void rtg_sys_end_facts(const int *cpus, size_t n_cpus, struct rtg_sys_extra *x);

/* Helpers for a port filling its facts (core/src/sys_facts.c, in the base
 * library below the port): a text that does not fit its field is cut. */
void rtg_sys_text_set(struct rtg_sys_text *t, const char *s);
/* Adds a named fact; NULL (and counted in dropped) when it cannot be
 * added. The rtg_sys_extra_* forms add one of each type (RTG_FACT_NULL: a
 * fact named but unknown, through rtg_sys_extra_add). */
struct rtg_sys_fact *rtg_sys_extra_add(struct rtg_sys_extra *x, const char *path,
                                       enum rtg_sys_fact_type type);
void rtg_sys_extra_text(struct rtg_sys_extra *x, const char *path, const char *s);
void rtg_sys_extra_bool(struct rtg_sys_extra *x, const char *path, bool v);
void rtg_sys_extra_int(struct rtg_sys_extra *x, const char *path, int64_t v);
void rtg_sys_extra_uint(struct rtg_sys_extra *x, const char *path, uint64_t v);
void rtg_sys_extra_num(struct rtg_sys_extra *x, const char *path, double v);
/* Gives the list's memory back; the list is empty (zeroed) after. */
void rtg_sys_extra_free(struct rtg_sys_extra *x);
/* Adds a warning; beyond RTG_SYS_WARNINGS_MAX, the rest are left out. */
void rtg_sys_warning(struct rtg_sys_warnings *w, const char *s);

#endif
