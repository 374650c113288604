/* System facts: what a port tells the system record about the target, and
 * what the probe can obtain there. The port hands over facts as plain
 * values; the probe writes every key of the record, once
 * (core/src/runner/system_record.c). A fact the port cannot read stays unknown and
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

#include "rtg/sys_facts.h" /* the facts' shapes, and the helpers a port fills them with */

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

#endif
