/* Condition variables on CLOCK_MONOTONIC (pthread_condattr_setclock), so
 * a deadline does not move with the wall clock. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "rtg/osal_cond.h"

struct rtg_cond {
    pthread_cond_t cond;
};

int rtg_cond_create(struct rtg_cond **out)
{
    struct rtg_cond *c = malloc(sizeof *c);
    if (!c)
        return ENOMEM;
    pthread_condattr_t a;
    int rc = pthread_condattr_init(&a);
    if (!rc) {
        rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
        if (!rc)
            rc = pthread_cond_init(&c->cond, &a);
        pthread_condattr_destroy(&a);
    }
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
    pthread_cond_destroy(&c->cond);
    free(c);
}

int rtg_cond_wait(struct rtg_cond *c, rtg_mutex_t *m) { return pthread_cond_wait(&c->cond, &m->mutex); }

int rtg_cond_wait_until(struct rtg_cond *c, rtg_mutex_t *m, uint64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000u),
                          .tv_nsec = (long)(deadline_ns % 1000000000u)};
    return pthread_cond_timedwait(&c->cond, &m->mutex, &ts);
}

int rtg_cond_signal(struct rtg_cond *c) { return pthread_cond_signal(&c->cond); }
int rtg_cond_broadcast(struct rtg_cond *c) { return pthread_cond_broadcast(&c->cond); }
