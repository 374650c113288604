/* A deadline scheduler and CPU sets: topics a port without them does not
 * offer; every call returns ENOTSUP. Shared by the c11 and freertos ports. */
#include <errno.h>
#include <stddef.h>

#include "rtg/osal_deadline.h"

int rtg_deadline_set_self(const struct rtg_deadline_params *p, uint64_t *called_ns)
{
    (void)p, (void)called_ns;
    return ENOTSUP;
}
int rtg_deadline_clear_self(void) { return ENOTSUP; }
int rtg_deadline_yield(void) { return ENOTSUP; }
int rtg_deadline_bandwidth(int *cpus, double *share)
{
    (void)cpus, (void)share;
    return ENOTSUP;
}
int rtg_affinity_set_self(const int *cpus, size_t n)
{
    (void)cpus, (void)n;
    return ENOTSUP;
}
