/* Named semaphores: a topic this port does not offer (docs/porting.md): every call returns
 * ENOTSUP (or nothing), never a made-up success; rtg_osal_offers() of
 * the port says so and the runner skips the tests that need it. Shared by
 * the ports without it (c11, freertos). */
#include <errno.h>

#include "rtg/osal.h"
#include "rtg/osal_named.h"

int rtg_named_sem_name(char *buf, size_t len, const char *tag)
{
    (void)buf, (void)len, (void)tag;
    return ENOTSUP;
}
int rtg_named_sem_create(rtg_sem_t **s, const char *name, unsigned value)
{
    (void)s, (void)name, (void)value;
    return ENOTSUP;
}
int rtg_named_sem_close(rtg_sem_t *s)
{
    (void)s;
    return ENOTSUP;
}
int rtg_named_sem_unlink(const char *name)
{
    (void)name;
    return ENOTSUP;
}
int rtg_named_sem_sweep(int *removed)
{
    *removed = 0;
    return 0;
}
