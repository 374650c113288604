/* POSIX threads with policy, priority and affinity fixed at creation. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtg/osal.h"

static int to_posix_policy(enum rtg_policy p)
{
    switch (p) {
    case RTG_SCHED_FIFO: return SCHED_FIFO;
    case RTG_SCHED_RR: return SCHED_RR;
    default: return SCHED_OTHER;
    }
}

static enum rtg_policy from_posix_policy(int p)
{
    if (p == SCHED_FIFO)
        return RTG_SCHED_FIFO;
    if (p == SCHED_RR)
        return RTG_SCHED_RR;
    return RTG_SCHED_OTHER;
}

#if defined(__linux__) && !defined(__GLIBC__)
/* C libraries without pthread_attr_setaffinity_np (musl): the new thread
 * pins itself before running the test's function. It may run a few
 * instructions on another CPU first; glibc builds have no such window. */
struct pinned_start {
    rtg_thread_fn fn;
    void *arg;
    int cpu;
};

static void *pinned_trampoline(void *p)
{
    struct pinned_start s = *(struct pinned_start *)p;
    free(p);
    rtg_pin_self(s.cpu);
    return s.fn(s.arg);
}
#endif

int rtg_thread_create(rtg_thread_t *t, const struct rtg_thread_attr *a, rtg_thread_fn fn, void *arg)
{
    pthread_attr_t pa;
    int rc = pthread_attr_init(&pa);
    if (rc)
        return rc;
    if (a->stack_size) {
        /* The smallest stack differs by architecture (128 KiB on aarch64). */
        long min = sysconf(_SC_THREAD_STACK_MIN);
        size_t size = a->stack_size;
        if (min > 0 && size < (size_t)min)
            size = (size_t)min;
        rc = pthread_attr_setstacksize(&pa, size);
    }
    if (!rc)
        rc = pthread_attr_setinheritsched(&pa, PTHREAD_EXPLICIT_SCHED);
    if (!rc)
        rc = pthread_attr_setschedpolicy(&pa, to_posix_policy(a->policy));
    if (!rc) {
        struct sched_param sp = {.sched_priority = a->policy == RTG_SCHED_OTHER ? 0 : a->prio};
        rc = pthread_attr_setschedparam(&pa, &sp);
    }
#if defined(__linux__) && defined(__GLIBC__)
    if (!rc && a->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(a->cpu, &set);
        rc = pthread_attr_setaffinity_np(&pa, sizeof set, &set);
    }
#elif defined(__linux__)
    if (!rc && a->cpu >= 0) {
        struct pinned_start *s = malloc(sizeof *s);
        if (!s) {
            pthread_attr_destroy(&pa);
            return ENOMEM;
        }
        *s = (struct pinned_start){fn, arg, a->cpu};
        rc = pthread_create(t, &pa, pinned_trampoline, s);
        if (rc)
            free(s);
        pthread_attr_destroy(&pa);
        return rc;
    }
#endif
    if (!rc)
        rc = pthread_create(t, &pa, fn, arg);
    pthread_attr_destroy(&pa);
    return rc;
}

int rtg_thread_join(rtg_thread_t t, void **result)
{
    return pthread_join(t, result);
}

rtg_thread_t rtg_thread_self(void)
{
    return pthread_self();
}

int rtg_thread_set_sched(rtg_thread_t t, enum rtg_policy policy, int prio)
{
    struct sched_param sp = {.sched_priority = policy == RTG_SCHED_OTHER ? 0 : prio};
    return pthread_setschedparam(t, to_posix_policy(policy), &sp);
}

int rtg_thread_set_prio(rtg_thread_t t, int prio)
{
    return pthread_setschedprio(t, prio);
}

int rtg_thread_get_sched(rtg_thread_t t, enum rtg_policy *policy, int *prio)
{
    struct sched_param sp;
    int pol;
    int rc = pthread_getschedparam(t, &pol, &sp);
    if (rc)
        return rc;
    *policy = from_posix_policy(pol);
    *prio = sp.sched_priority;
    return 0;
}

void rtg_thread_yield(void)
{
    sched_yield();
}

int rtg_pin_self(int cpu)
{
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
#else
    (void)cpu;
    return ENOTSUP;
#endif
}

int rtg_prio_min(enum rtg_policy p)
{
    return sched_get_priority_min(to_posix_policy(p));
}

int rtg_prio_max(enum rtg_policy p)
{
    return sched_get_priority_max(to_posix_policy(p));
}

int rtg_rr_interval_ns(uint64_t *ns)
{
    struct timespec ts;
    if (sched_rr_get_interval(0, &ts))
        return errno;
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return 0;
}

int rtg_cpu_count_configured(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    return n > 0 ? (int)n : 1;
}

bool rtg_cpu_usable(int cpu)
{
#ifdef __linux__
    cpu_set_t set, one;
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return false;
    if (sched_getaffinity(0, sizeof set, &set))
        return false;
    if (CPU_ISSET(cpu, &set))
        return true;
    /* Outside the affinity the process inherited: isolcpus= keeps new
     * processes off the isolated CPUs, which are the ones to measure on.
     * Usable when the process may move there (its cpuset allows it). */
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one))
        return false;
    sched_setaffinity(0, sizeof set, &set);
    return true;
#else
    return cpu >= 0 && cpu < rtg_cpu_count_configured();
#endif
}
