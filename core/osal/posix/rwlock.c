/* Reader-writer locks: pthread_rwlock with the C library's default kind. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "rtg/osal_rwlock.h"

struct rtg_rwlock {
    pthread_rwlock_t lock;
};

int rtg_rwlock_create(struct rtg_rwlock **out)
{
    struct rtg_rwlock *l = malloc(sizeof *l);
    if (!l)
        return ENOMEM;
    int rc = pthread_rwlock_init(&l->lock, NULL);
    if (rc) {
        free(l);
        return rc;
    }
    *out = l;
    return 0;
}

void rtg_rwlock_delete(struct rtg_rwlock *l)
{
    if (!l)
        return;
    pthread_rwlock_destroy(&l->lock);
    free(l);
}

int rtg_rwlock_rdlock(struct rtg_rwlock *l) { return pthread_rwlock_rdlock(&l->lock); }
int rtg_rwlock_tryrdlock(struct rtg_rwlock *l) { return pthread_rwlock_tryrdlock(&l->lock); }
int rtg_rwlock_wrlock(struct rtg_rwlock *l) { return pthread_rwlock_wrlock(&l->lock); }
int rtg_rwlock_unlock(struct rtg_rwlock *l) { return pthread_rwlock_unlock(&l->lock); }

const char *rtg_rwlock_kind(void)
{
#if defined(__GLIBC__)
    return "PTHREAD_RWLOCK_PREFER_READER_NP (glibc default)";
#else
    return "the C library's default";
#endif
}
