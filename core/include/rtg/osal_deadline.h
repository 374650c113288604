/* OSAL topic: deadline scheduling (RTG_OFFERS_DEADLINE) and affinity to a
 * set of CPUs. On Linux: SCHED_DEADLINE through the sched_setattr system
 * call. All calls return 0 or an errno value: EPERM without the privilege
 * (CAP_SYS_NICE), EBUSY when the kernel's admission control refuses the
 * bandwidth, ENOTSUP where the port has no deadline scheduler. */
#ifndef RTG_OSAL_DEADLINE_H
#define RTG_OSAL_DEADLINE_H
#include <stddef.h>
#include <stdint.h>

#include "rtg/osal.h"

struct rtg_deadline_params {
    uint64_t runtime_ns;  /* budget per period */
    uint64_t deadline_ns; /* relative deadline (<= period) */
    uint64_t period_ns;
};

/* The calling thread becomes a deadline task. Linux admits a deadline task
 * only when its affinity spans its root domain: the call first widens the
 * thread's affinity to every CPU the process may use. called_ns, when not
 * NULL, receives CLOCK_MONOTONIC read just before the request that makes
 * the thread a deadline task (after the widening): the kernel starts the
 * first period inside that request, never before this instant. */
int rtg_deadline_set_self(const struct rtg_deadline_params *p, uint64_t *called_ns);
/* Back to SCHED_OTHER (releases the reserved bandwidth). */
int rtg_deadline_clear_self(void);
/* Gives up the rest of this period's runtime: returns at the next period. */
int rtg_deadline_yield(void);
/* What admission control weighs a set against: the CPUs of the root domain
 * (Linux: the online CPUs) and the share of each it may hand out (Linux:
 * sched_rt_runtime_us / sched_rt_period_us); or an errno. */
int rtg_deadline_bandwidth(int *cpus, double *share);

/* The calling thread may run on exactly these CPUs. */
int rtg_affinity_set_self(const int *cpus, size_t n);

#endif
