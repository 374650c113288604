/* Condition variables on ISO C11's cnd_t, over the port's mutexes. Their
 * timed wait takes TIME_UTC: the monotonic deadline is converted at the
 * call (rtg_c11_utc_deadline, and rtg_timed_clock says so). */
#include <errno.h>
#include <stdlib.h>

#include "c11_internal.h"
#include "rtg/osal_cond.h"

struct rtg_cond {
    cnd_t cond;
};

int rtg_cond_create(struct rtg_cond **out)
{
    struct rtg_cond *c = malloc(sizeof *c);
    if (!c)
        return ENOMEM;
    int rc = rtg_c11_errno(cnd_init(&c->cond));
    if (rc) {
        free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void rtg_cond_delete(struct rtg_cond *c)
{
    if (!c)
        return;
    cnd_destroy(&c->cond);
    free(c);
}

int rtg_cond_wait(struct rtg_cond *c, rtg_mutex_t *m) { return rtg_c11_errno(cnd_wait(&c->cond, &m->mutex)); }

int rtg_cond_wait_until(struct rtg_cond *c, rtg_mutex_t *m, uint64_t deadline_ns)
{
    struct timespec until = rtg_c11_utc_deadline(deadline_ns);
    return rtg_c11_errno(cnd_timedwait(&c->cond, &m->mutex, &until));
}

int rtg_cond_signal(struct rtg_cond *c) { return rtg_c11_errno(cnd_signal(&c->cond)); }
int rtg_cond_broadcast(struct rtg_cond *c) { return rtg_c11_errno(cnd_broadcast(&c->cond)); }
