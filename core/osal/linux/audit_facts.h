/* The real-time audit's facts on Linux (docs/audit.md), read by
 * audit_facts.c into the system facts' named list under "audit.". */
#ifndef RTG_LX_AUDIT_FACTS_H
#define RTG_LX_AUDIT_FACTS_H
#include <stddef.h>

#include "rtg/osal_sys.h"

/* Every audit fact at the run's start, for the measured CPUs; release is
 * the kernel's (where its configuration is found). Reads only. */
void rtg_lx_audit_facts(const int *cpus, size_t n_cpus, const char *release,
                        struct rtg_sys_extra *x);

/* The real-time threads of other programs that may run on the measured
 * CPUs (audit_rt_tasks.c): read only. */
void rtg_lx_rt_task_facts(const int *cpus, size_t n_cpus, struct rtg_sys_extra *x);

#endif
