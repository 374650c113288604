/* Fresh page mappings: a topic this port does not offer (docs/porting.md): every call returns
 * ENOTSUP (or nothing), never a made-up success; rtg_osal_offers() of
 * the port says so and the runner skips the tests that need it. Shared by
 * the ports without it (c11, freertos). */
#include <errno.h>

#include "rtg/osal_mem.h"

size_t rtg_page_size(void) { return 0; }
int rtg_map_fresh(void **p, size_t len, bool no_huge)
{
    (void)p, (void)len, (void)no_huge;
    return ENOTSUP;
}
int rtg_unmap(void *p, size_t len)
{
    (void)p, (void)len;
    return ENOTSUP;
}
uint64_t rtg_locked_bytes(void) { return 0; }
int rtg_page_faults(uint64_t *minor, uint64_t *major)
{
    (void)minor, (void)major;
    return ENOTSUP;
}
