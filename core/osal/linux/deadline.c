/* SCHED_DEADLINE through the sched_setattr system call (no C library
 * wrapper in older glibc, none in musl), for osal_deadline.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../posix/posix_os.h"
#include "rtg/osal_deadline.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* The kernel's struct sched_attr (its uapi <linux/sched/types.h>), under
 * our own name: newer C libraries declare theirs. */
struct rtg_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

int rtg_px_has_deadline(void)
{
#ifdef SYS_sched_setattr
    return 1;
#else
    return 0;
#endif
}

static int setattr_self(const struct rtg_sched_attr *a)
{
#ifdef SYS_sched_setattr
    return syscall(SYS_sched_setattr, 0, a, 0) ? errno : 0;
#else
    (void)a;
    return ENOSYS;
#endif
}

/* A deadline task must be allowed on its whole root domain (EPERM
 * otherwise). The probe's threads inherit the test's pinning, so the mask
 * asked for is every configured CPU; the kernel keeps those the cpuset
 * allows. */
static int widen_affinity(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    long n = sysconf(_SC_NPROCESSORS_CONF);
    for (long i = 0; i < n && i < CPU_SETSIZE; i++)
        CPU_SET((int)i, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

int rtg_deadline_set_self(const struct rtg_deadline_params *p, uint64_t *called_ns)
{
    int rc = widen_affinity();
    if (rc)
        return rc;
    struct rtg_sched_attr a = {.size = sizeof a,
                               .sched_policy = SCHED_DEADLINE,
                               .sched_runtime = p->runtime_ns,
                               .sched_deadline = p->deadline_ns,
                               .sched_period = p->period_ns};
    if (called_ns) /* after the widening: its system call is not the period's */
        *called_ns = rtg_mono_ns();
    return setattr_self(&a);
}

int rtg_deadline_clear_self(void)
{
    struct rtg_sched_attr a = {.size = sizeof a, .sched_policy = SCHED_OTHER};
    return setattr_self(&a);
}

int rtg_deadline_yield(void) { return sched_yield() ? errno : 0; }

int rtg_deadline_bandwidth(int *cpus, double *share)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1)
        return EINVAL;
    *cpus = (int)online;
    long long runtime = 0, period = 0;
    FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
    if (!f)
        return errno;
    int ok = fscanf(f, "%lld", &runtime) == 1;
    fclose(f);
    f = fopen("/proc/sys/kernel/sched_rt_period_us", "r");
    if (!f)
        return errno;
    ok = ok && fscanf(f, "%lld", &period) == 1;
    fclose(f);
    if (!ok || period <= 0)
        return EINVAL;
    /* -1: no limit; the deadline class may then use every CPU whole. */
    *share = runtime < 0 ? 1.0 : (double)runtime / (double)period;
    return 0;
}
