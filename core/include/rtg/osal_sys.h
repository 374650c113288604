/* System facts: what a port tells the system record about the target, and
 * what the probe can obtain there. The runner writes the record
 * (core/src/sysinfo.c) and calls these for the OS-specific parts; a fact
 * the port cannot read is null (or the documented "unknown"), never a
 * guess. Linux: core/osal/linux/sysinfo.c; ISO C11: core/osal/c11/sysinfo.c. */
#ifndef RTG_OSAL_SYS_H
#define RTG_OSAL_SYS_H
#include <stdbool.h>
#include <stddef.h>

#include "rtg/json.h"

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
/* The hypervisor's vendor signature, or "" when unknown. */
void rtg_sys_hypervisor_vendor(char *out, size_t n);

/* The kernel's tick rate on cpu, for a test to name its tick: the
 * configured one (*source "CONFIG_HZ") when the kernel configuration is
 * readable, else counted from the timer interrupts over 200 ms of busy
 * time (*source "measured", includes other local timer interrupts); 0 and
 * *source "unknown" when neither can be had. */
double rtg_sys_tick_hz(int cpu, const char **source);

/* Parts of the system record, each written into the open object j. */
/* "host": {hostname, os, os_pretty_name, release, version, machine} */
void rtg_sys_emit_host(struct rtg_json *j);
/* "kernel": {preempt_model, preempt_dynamic, preempt_source, realtime,
 * hz_config, hz_measured (measured on cpu), cmdline, isolcpus, nohz_full,
 * rt_runtime_us, rt_period_us} */
void rtg_sys_emit_kernel(struct rtg_json *j, int cpu);
/* Inside "cpu": the keys model, online, configured, governor. */
void rtg_sys_emit_cpu_facts(struct rtg_json *j);
/* Inside "clock": the key kernel_clocksource. */
void rtg_sys_emit_clock_facts(struct rtg_json *j);
/* Into the open "warnings" array: the port's own warnings (strings). */
void rtg_sys_emit_warnings(struct rtg_json *j);

#endif
