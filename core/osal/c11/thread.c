/* Threads over ISO C11 <threads.h>: SCHED_OTHER only, no affinity, one CPU
 * as far as this port can tell. */
#include <errno.h>
#include <stdlib.h>

#include "c11_internal.h"
#include "rtg/osal.h"

struct rtg_c11_thread {
    thrd_t id;
    rtg_thread_fn fn;
    void *arg;
    void *result;
};

/* The handle of the calling thread; threads this port did not create get
 * one on first use (it lives as long as the process). */
static _Thread_local struct rtg_c11_thread *self_handle;

static int trampoline(void *p)
{
    struct rtg_c11_thread *t = p;
    self_handle = t;
    t->result = t->fn(t->arg);
    return 0;
}

/* The stack size and the CPU are hints ISO C cannot honour: the thread gets
 * the library's default stack and runs wherever the host puts it. */
int rtg_thread_create(rtg_thread_t *t, const struct rtg_thread_attr *a, rtg_thread_fn fn, void *arg)
{
    if (a->policy != RTG_SCHED_OTHER)
        return ENOTSUP;
    struct rtg_c11_thread *h = calloc(1, sizeof *h);
    if (!h)
        return ENOMEM;
    h->fn = fn;
    h->arg = arg;
    int rc = rtg_c11_errno(thrd_create(&h->id, trampoline, h));
    if (rc) {
        free(h);
        return rc;
    }
    *t = h;
    return 0;
}

int rtg_thread_join(rtg_thread_t t, void **result)
{
    int rc = rtg_c11_errno(thrd_join(t->id, NULL));
    if (rc)
        return rc;
    if (result)
        *result = t->result;
    free(t);
    return 0;
}

rtg_thread_t rtg_thread_self(void)
{
    if (!self_handle) {
        self_handle = calloc(1, sizeof *self_handle);
        if (self_handle)
            self_handle->id = thrd_current();
    }
    return self_handle;
}

int rtg_thread_set_sched(rtg_thread_t t, enum rtg_policy policy, int prio)
{
    (void)t;
    (void)prio;
    return policy == RTG_SCHED_OTHER ? 0 : ENOTSUP;
}

int rtg_thread_set_prio(rtg_thread_t t, int prio)
{
    (void)t;
    (void)prio;
    return ENOTSUP;
}

int rtg_thread_get_sched(rtg_thread_t t, enum rtg_policy *policy, int *prio)
{
    (void)t;
    *policy = RTG_SCHED_OTHER;
    *prio = 0;
    return 0;
}

void rtg_thread_yield(void) { thrd_yield(); }

int rtg_pin_self(int cpu)
{
    (void)cpu;
    return ENOTSUP;
}

int rtg_prio_min(enum rtg_policy p)
{
    (void)p;
    return 0;
}

int rtg_prio_max(enum rtg_policy p)
{
    (void)p;
    return 0;
}

int rtg_rr_interval_ns(uint64_t *ns)
{
    (void)ns;
    return ENOTSUP;
}

int rtg_cpu_count_configured(void) { return 1; }
bool rtg_cpu_usable(int cpu) { return cpu == 0; }
