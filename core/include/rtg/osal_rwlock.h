/* OSAL topic: reader-writer locks (RTG_OFFERS_RWLOCKS). Opaque objects the
 * port allocates. Which side the implementation favours (whether a waiting
 * writer holds back new readers) is the implementation's: RWL-P-ARC
 * records it. All calls return 0 or an errno value (ENOTSUP where not
 * offered; EBUSY from a try that would block). */
#ifndef RTG_OSAL_RWLOCK_H
#define RTG_OSAL_RWLOCK_H
#include "rtg/osal.h"

struct rtg_rwlock;

int rtg_rwlock_create(struct rtg_rwlock **l);
void rtg_rwlock_delete(struct rtg_rwlock *l);
int rtg_rwlock_rdlock(struct rtg_rwlock *l);
int rtg_rwlock_tryrdlock(struct rtg_rwlock *l);
int rtg_rwlock_wrlock(struct rtg_rwlock *l);
int rtg_rwlock_unlock(struct rtg_rwlock *l);
/* The port's name for its default (e.g. "PTHREAD_RWLOCK_PREFER_READER_NP"). */
const char *rtg_rwlock_kind(void);

#endif
