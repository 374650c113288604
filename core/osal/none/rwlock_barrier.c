/* Reader-writer locks and barriers: topics a port without POSIX does not
 * offer (docs/porting.md): every call returns ENOTSUP, never a made-up
 * success; the port's rtg_osal_offers() says so and the runner skips the
 * tests that need them. Shared by the ports without them (c11, freertos). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "rtg/osal_barrier.h"
#include "rtg/osal_rwlock.h"

int rtg_rwlock_create(struct rtg_rwlock **l)
{
    *l = NULL;
    return ENOTSUP;
}
void rtg_rwlock_delete(struct rtg_rwlock *l) { (void)l; }
int rtg_rwlock_rdlock(struct rtg_rwlock *l)
{
    (void)l;
    return ENOTSUP;
}
int rtg_rwlock_tryrdlock(struct rtg_rwlock *l) { return rtg_rwlock_rdlock(l); }
int rtg_rwlock_wrlock(struct rtg_rwlock *l) { return rtg_rwlock_rdlock(l); }
int rtg_rwlock_unlock(struct rtg_rwlock *l) { return rtg_rwlock_rdlock(l); }
const char *rtg_rwlock_kind(void) { return "none"; }

int rtg_barrier_create(struct rtg_barrier **b, unsigned count)
{
    (void)count;
    *b = NULL;
    return ENOTSUP;
}
void rtg_barrier_delete(struct rtg_barrier *b) { (void)b; }
int rtg_barrier_wait(struct rtg_barrier *b, bool *serial)
{
    (void)b;
    if (serial)
        *serial = false;
    return ENOTSUP;
}
