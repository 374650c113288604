/* The system record: what the target is and what the probe obtained. */
#ifndef RTG_SYSINFO_H
#define RTG_SYSINFO_H
#include <stdbool.h>

#include "rtg_private/config.h"
#include "rtg/json.h"

struct rtg_privileges {
    bool sched_fifo;
    char sched_fifo_reason[128];
    bool mlockall;
    char mlockall_reason[128];
    bool affinity;
    bool cpu_dma_latency; /* held at 0 for the run */
};

/* Probes what the process can obtain without keeping any of it. */
void rtg_privileges_probe(const struct rtg_config *cfg, struct rtg_privileges *p);
/* Whether a hypervisor is present (CPUID bit or /sys/hypervisor). */
bool rtg_sys_virtualized(void);
/* Whether the CPU is emulated (QEMU TCG): timings then mean nothing. */
bool rtg_sys_emulated(void);
void rtg_sysinfo_emit(struct rtg_json *j, int argc, char **argv, const struct rtg_config *cfg,
                      const struct rtg_privileges *p);

#endif
