/* A thread on a set of CPUs (osal_deadline.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>

#include "rtg/osal_deadline.h"

int rtg_affinity_set_self(const int *cpus, size_t n)
{
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    for (size_t i = 0; i < n; i++) {
        if (cpus[i] < 0 || cpus[i] >= CPU_SETSIZE)
            return EINVAL;
        CPU_SET(cpus[i], &set);
    }
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
#else
    (void)cpus, (void)n;
    return ENOTSUP;
#endif
}
